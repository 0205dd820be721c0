"""A new user's first ten minutes (issue 28), scripted: the README's quick start (``chunkscope eval``, then
``chunkscope``) on the sample data, then the inspector on JSQuAD valid, each through the CLI's ``main`` as typed
and driven with Textual's Pilot (no real terminal is needed: the app is the one the command would run).

Checked on the way: a budget in tokens from the keys, a strategy whose extra is missing shown dimmed with its
install line, the estimate asked for before a long embedding, and the state fixes (o v v shows the change, the
split header keeps what differs at 80 columns, c sizes a new chunker like the current one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import settle
from rich.text import Text

from chunkscope.chunkers import parse_chunker
from chunkscope.cli import main
from chunkscope.errors import MissingExtraError
from chunkscope.retrievers.dense import Dense
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.confirm import ConfirmLongWork
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.state import config_steps, estimate
from chunkscope.tui.widgets.config_bar import ConfigBar


def app_of(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> ChunkscopeApp:
    """The inspector ``chunkscope ARGV`` opens, caught before it takes the terminal."""
    opened: list[ChunkscopeApp] = []

    def run(app: ChunkscopeApp, *args: Any, **kwargs: Any) -> None:
        opened.append(app)

    monkeypatch.setattr(ChunkscopeApp, "run", run)
    assert main(argv) == 0
    (app,) = opened
    return app


def header(app: ChunkscopeApp) -> str:
    return str(app.screen.query_one(ConfigBar).render())


def missing_langchain(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a clone installed without the langchain extra (this venv has every extra)."""
    error = MissingExtraError("the langchain chunker", "langchain", "langchain_text_splitters")
    real = config_steps.missing_extra
    monkeypatch.setattr(
        config_steps,
        "missing_extra",
        lambda kind, name: error if (kind, name) == ("chunker", "langchain") else real(kind, name),
    )


def slow_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """An embedder measured at 2,000 characters a second on this machine."""
    monkeypatch.setattr(estimate, "known_throughput", lambda key: 2000.0)

    def never(params: Dense) -> float:
        raise AssertionError("the speed is known: nothing is measured")

    monkeypatch.setattr(estimate, "measure_throughput", never)


def test_the_quick_start_prints_the_sample_metrics_then_opens_the_inspector(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["eval"]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if "fixed:size=200/bm25" in line)
    assert "0.500" in row and " 17 " in row  # R@5 and lost as the README's tour reads them
    app = app_of(monkeypatch, [])  # bare chunkscope: the inspector on the sample data
    assert app.session.dataset.name == "sample data"
    assert app.session.a.requested.label == "fixed:size=200/bm25"


@pytest.mark.jsquad
def test_first_contact_with_jsquad(jsquad_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    # The first thing typed after the sample data: the bare command with the inspector's options.
    app = app_of(monkeypatch, ["--squad", str(jsquad_path)])
    missing_langchain(monkeypatch)
    slow_embedder(monkeypatch)
    notes: list[str] = []
    asyncio.run(_drive(app, notes))


async def _drive(app: ChunkscopeApp, notes: list[str]) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectScreen)
        original_notify = screen.notify

        def notify(message: str, **options: Any) -> None:
            notes.append(message)
            original_notify(message, **options)

        screen.notify = notify  # type: ignore[method-assign]

        # Tokens: U makes the budget count cl100k tokens, b steps in tokens.
        await pilot.press("U", "b")
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None and (shown.config.budget, shown.config.budget_tokenizer) == (50, "cl100k")
        await pilot.press("U", "U", "U", "U", "b", "b")  # back to characters; b twice from 50: 200, 300 chars
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None and shown.config.budget_tokenizer is None

        # A chunker whose extra is missing: shown dimmed with its install line, the configuration unchanged.
        before = app.session.a.requested
        await pilot.press("c")
        await settle(pilot)
        assert app.session.a.requested == before
        assert notes and notes[-1].startswith("[dim]langchain[/dim]")
        assert "pip install 'chunkscope[langchain]'" in Text.from_markup(notes[-1]).plain

        # c goes on: markdown, sized like the current chunker (not its own 1500 nor LangChain's 4000).
        await pilot.press("c")
        await settle(pilot)
        chunker = parse_chunker(app.session.a.requested.chunker)
        assert app.session.a.requested.chunker.startswith("markdown:")
        assert chunker.max_chars == 200  # type: ignore[attr-defined]
        await pilot.press("p")  # back to fixed:size=200
        await settle(pilot)

        # r onto dense: an estimate of minutes, asked once; esc leaves the configuration as it is.
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmLongWork)
        await pilot.press("escape")
        await settle(pilot)
        assert app.session.a.requested.retriever.startswith("bm25") and app.job is None

        # o v v: the single view shows the change, not the configuration before it.
        await pilot.press("o")
        await settle(pilot)
        changed = app.session.a.requested
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        lines = header(app).splitlines()
        line_b = next(line for line in lines if line.startswith(" B "))
        assert "overlap=" in line_b  # at 80 columns the shared start goes, what differs stays
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, InspectScreen)
        assert app.session.a.shown is not None and app.session.a.shown.config == changed
