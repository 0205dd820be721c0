"""The inspector with python: plugins: typed into the e form, cycled with c / r, and failing without a hang."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import FIXED_200, SIZE, async_test, make_app, settle

from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.inspect import InspectScreen

CHUNKER = "python:cs_plugins.chunking:windows,size=300"
RETRIEVER = "python:cs_plugins.ranking:shared_words"


def record_notifications(app: ChunkscopeApp) -> list[str]:
    messages: list[str] = []

    def notify(message: str, **_: Any) -> None:
        messages.append(message)

    app.notify = notify  # type: ignore[method-assign]
    return messages


async def apply_form(pilot: Any, chunker: str, retriever: str) -> None:
    await pilot.press("e")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, ConfigForm)
    form.query_one("#config-form-chunker").value = chunker
    form.query_one("#config-form-retriever").value = retriever
    await pilot.pause()
    assert str(form.query_one("#config-form-message").render()) == ""
    await pilot.press("enter")
    await settle(pilot)


@async_test
async def test_a_plugin_spec_typed_in_the_form_is_evaluated(plugins: Path, sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await apply_form(pilot, CHUNKER, RETRIEVER)
        assert isinstance(app.screen, InspectScreen)
        expected = make_config(CHUNKER, RETRIEVER)
        shown = app.session.a.shown
        assert shown is not None and shown.config == expected
        core = Evaluator(sample.corpus, sample.questions.questions).evaluate(expected)
        assert shown.summary == core.summary


@async_test
async def test_the_form_names_a_plugin_that_cannot_be_imported(plugins: Path, sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        form.query_one("#config-form-chunker").value = "python:cs_plugins.nothing:split"  # type: ignore[attr-defined]
        await pilot.pause()
        message = str(form.query_one("#config-form-message").render())
        assert "cannot import plugin module 'cs_plugins.nothing'" in message


@async_test
async def test_a_failing_plugin_is_a_notification_and_the_view_stays(plugins: Path, sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = record_notifications(app)
        await apply_form(pilot, "python:cs_plugins.chunking:explode", "bm25")
        assert any("chunking.py:" in note and "raised ZeroDivisionError" in note for note in notes), notes
        assert app.session.a.requested == FIXED_200 and not app.session.a.pending
        assert app.session.a.shown is not None and app.session.a.shown.config == FIXED_200


@async_test
async def test_c_and_r_cycle_away_from_a_plugin_and_back(plugins: Path, sample: Dataset) -> None:
    start = make_config(CHUNKER, RETRIEVER)
    app = make_app(sample, start)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.session.a.requested.chunker != start.chunker
        for _ in range(20):  # fewer chunkers than this are registered
            if app.session.a.requested.chunker == start.chunker:
                break
            await pilot.press("c")
            await settle(pilot)
        assert app.session.a.requested == start
        await pilot.press("r")
        await settle(pilot)
        assert app.session.a.requested.retriever != RETRIEVER
        for _ in range(10):
            if app.session.a.requested.retriever == RETRIEVER:
                break
            await pilot.press("r")
            await settle(pilot)
        assert app.session.a.requested == start
