"""Token budgets and token-sized chunks from the keys and the form; strategies whose extra is missing are shown,
dimmed, with the line that installs them (issue 28, points 2 and 4). This venv has every extra installed, so a
missing one is simulated by replacing the availability check."""

from __future__ import annotations

from typing import Any

import pytest
from pilot_helpers import async_test, make_app, settle
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from chunkscope.chunkers import parse_chunker
from chunkscope.errors import MissingExtraError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.tui.screens import config_form
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.state import config_steps
from chunkscope.tui.state.config_steps import (
    UnavailableStrategy,
    cycle_budget_unit,
    cycle_strategy,
    step_budget,
    step_size,
)

SIZE = (140, 40)


async def opened_form(pilot: Pilot[None]) -> ConfigForm:
    """The configuration form, opened with e once the first results are in."""
    await settle(pilot)
    await pilot.press("e")
    await pilot.pause()
    form = pilot.app.screen
    assert isinstance(form, ConfigForm)
    return form


# -- tokens


def test_size_keys_step_a_chunker_sized_in_tokens_on_a_token_ladder() -> None:
    config = make_config("fixed:size=200,overlap=40,unit=tokens")
    bigger = parse_chunker(step_size(config, 1).chunker)
    smaller = parse_chunker(step_size(config, -1).chunker)
    # 200 tokens sits between 192 and 256 on the token ladder (characters would step to 300 and 150).
    assert (bigger.size, bigger.overlap, bigger.unit) == (256, 51, "tokens")  # type: ignore[attr-defined]
    assert (smaller.size, smaller.overlap) == (192, 38)  # type: ignore[attr-defined]
    chars = parse_chunker(step_size(make_config("fixed:size=200"), 1).chunker)
    assert chars.size == 300  # type: ignore[attr-defined]


def test_the_budget_unit_cycles_characters_then_each_tokenizer() -> None:
    config = make_config("fixed:size=200", budget=800)
    units = []
    for _ in range(5):
        config = cycle_budget_unit(config)
        units.append(config.budget_units)
    assert units == ["cl100k tokens", "o200k tokens", "e5 tokens", "e5-enpt tokens", "chars"]
    assert config.budget == 800  # the number stays; b steps in the new unit


def test_b_steps_a_budget_in_tokens_on_the_token_ladder() -> None:
    config = cycle_budget_unit(make_config("fixed:size=200"))  # cl100k tokens, no budget
    steps = []
    for _ in range(3):
        config = step_budget(config, 1)
        steps.append(config.budget)
    assert steps == [50, 100, 150]
    assert config.budget_tokenizer == "cl100k"
    assert step_budget(make_config("fixed:size=200"), 1).budget == 200  # characters: the character ladder


@async_test
async def test_u_then_b_gives_a_token_budget_shown_in_the_header(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("U", "b", "b")
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None
        assert (shown.config.budget, shown.config.budget_tokenizer) == (100, "cl100k")
        header = str(app.screen.query(".config-bar, ConfigBar").first().render())
        assert "budget 100 cl100k tokens" in header


@async_test
async def test_the_form_sets_a_budget_in_tokens(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        form = await opened_form(pilot)
        form.query_one("#config-form-budget", Input).value = "300"
        form.query_one("#config-form-budget-unit", Select).value = "o200k"
        form.query_one("#config-form-chunker", Input).value = "fixed:size=128,unit=tokens"
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None
        assert (shown.config.budget, shown.config.budget_tokenizer) == (300, "o200k")
        assert parse_chunker(shown.config.chunker).unit == "tokens"  # type: ignore[attr-defined]


# -- strategies whose extra is missing


def langchain_missing(monkeypatch: pytest.MonkeyPatch) -> MissingExtraError:
    """Make the availability check say langchain's extra is not installed."""
    error = MissingExtraError("the langchain chunker", "langchain", "langchain_text_splitters")
    real = config_steps.missing_extra

    def missing_extra(kind: str, name: str) -> MissingExtraError | None:
        return error if (kind, name) == ("chunker", "langchain") else real(kind, name)  # type: ignore[arg-type]

    monkeypatch.setattr(config_steps, "missing_extra", missing_extra)
    monkeypatch.setattr(config_form, "missing_extra", missing_extra)
    return error


def test_the_cycle_stops_at_an_unavailable_chunker_with_its_install_line_then_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    langchain_missing(monkeypatch)
    config, remembered, cycle_state = make_config("fixed:size=200"), {}, {}
    with pytest.raises(UnavailableStrategy) as stopped:
        cycle_strategy(config, "chunker", 1, remembered, cycle_state)
    assert stopped.value.name == "langchain"
    assert "pip install 'chunkscope[langchain]'" in str(stopped.value)
    after = cycle_strategy(config, "chunker", 1, remembered, cycle_state)  # the next c goes past it
    assert after.chunker.startswith("markdown:")


@async_test
async def test_c_shows_the_unavailable_chunker_dimmed_with_the_install_line(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    langchain_missing(monkeypatch)
    notes: list[tuple[str, bool]] = []
    app = make_app(sample)

    def notify(message: str, **options: Any) -> None:
        notes.append((message, options.get("markup", True)))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app.screen, "notify", notify)
        await pilot.press("c")
        await settle(pilot)
        assert app.session.a.requested.chunker.startswith("fixed:")  # not changed
        message, markup = notes[-1]
        assert markup and message.startswith("[dim]langchain[/dim]")
        assert Text.from_markup(message).plain.endswith("pip install 'chunkscope[langchain]'")
        await pilot.press("c")
        await settle(pilot)
        assert app.session.a.requested.chunker.startswith("markdown:")


@async_test
async def test_the_form_dims_an_unavailable_chunker_and_gives_its_install_line(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = langchain_missing(monkeypatch)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        form = await opened_form(pilot)
        hint: Any = form.query_one("#config-form-hint", Static).render()  # Textual's Content: plain text and spans
        start = hint.plain.index("langchain")
        dimmed = [span for span in hint.spans if span.start <= start < span.end and "dim" in str(span.style)]
        assert dimmed and "langchain (needs [langchain])" in hint.plain
        fixed = hint.plain.index("fixed")
        assert not [span for span in hint.spans if span.start <= fixed < span.end]
        form.query_one("#config-form-chunker", Input).value = "langchain:chunk_size=200"
        await pilot.pause()
        assert str(form.query_one("#config-form-message", Static).render()) == str(error)
        await pilot.press("enter")  # not applied
        await pilot.pause()
        assert isinstance(app.screen, ConfigForm)
