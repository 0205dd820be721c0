"""Preparing the likely next questions while the user reads: what a prepared step paints, and the parts.

The oracle for the screens is the same app with preparation switched off: every step must paint the
same frame, byte for byte, whether its rows were built, styled and laid out ahead or at the key.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, async_test, make_app, settle
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen

from chunkscope.io.dataset import Dataset
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.base import SessionScreen
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.state.rows import QuestionRow
from chunkscope.tui.widgets import fitted_panel, ranked_chunks
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.quiet_scroll import ReusingStylesCache

SIZE = (140, 40)
KEYS = ("down", "down", "n", "n", "up", "N", "down", "n", "n", "n")


async def prepared(pilot: Pilot[None]) -> None:
    """Wait until the screen settled and prepared the likely next questions."""
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SessionScreen)
    quiet = 0
    for _ in range(500):
        # Twice in a row with the message queues emptied between: a panel that shrank as the screen settled
        # resizes the panes at the next layout, and their report restarts the preparation only after that.
        quiet = quiet + 1 if not (screen.preparing or screen.settling) else 0
        if quiet == 2:
            return
        await pilot.pause(0.01 if quiet == 0 else None)
    raise AssertionError("the preparation did not finish within 5 s")


@contextlib.asynccontextmanager
async def prepared_inspector(dataset: Dataset) -> AsyncIterator[tuple[ChunkscopeApp, Pilot[None], SessionScreen]]:
    """The app on ``dataset`` at SIZE, settled and prepared: the app, its pilot and its screen."""
    app = make_app(dataset)
    async with app.run_test(size=SIZE) as pilot:
        await prepared(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        yield app, pilot, screen


async def frames(app: ChunkscopeApp, keys: tuple[str, ...]) -> list[str]:
    """The screen (as an SVG) after each key, each pressed once the screen settled and prepared."""
    shots = []
    async with app.run_test(size=SIZE) as pilot:
        await prepared(pilot)
        for key in keys:
            await pilot.press(key)
            await prepared(pilot)
            shots.append(app.export_screenshot())
    return shots


def no_preparation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the preparation off: nothing is prepared and no panel grows ahead."""
    monkeypatch.setattr(InspectScreen, "prepare_detail", lambda self, row: ())
    monkeypatch.setattr(InspectScreen, "reserve_panels", lambda self, rows: False)


def counting_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the hit blocks the ranked chunks build while the detail panes are filled (one entry each)."""
    built: list[int] = []
    filling = [False]
    build, show = ranked_chunks.hit_strips, InspectScreen.show_detail

    def counted(*args: Any, **kwargs: Any) -> Any:
        if filling[0]:
            built.append(1)
        return build(*args, **kwargs)

    def shown(self: InspectScreen, row: QuestionRow | None) -> None:
        filling[0] = True
        try:
            show(self, row)
        finally:
            filling[0] = False

    monkeypatch.setattr(ranked_chunks, "hit_strips", counted)
    monkeypatch.setattr(InspectScreen, "show_detail", shown)
    return built


@async_test
async def test_prepared_steps_paint_what_unprepared_steps_paint(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_preparation = await frames(make_app(sample), KEYS)
    # The panels still grow ahead: that changes the picture on purpose (room kept for the next question).
    monkeypatch.setattr(InspectScreen, "prepare_detail", lambda self, row: ())
    without = await frames(make_app(sample), KEYS)
    assert len(with_preparation) == len(KEYS)
    for key, (ahead, at_key) in enumerate(zip(with_preparation, without, strict=True)):
        assert ahead == at_key, f"frame after key {key + 1} ({KEYS[key]}) differs"


@async_test
async def test_prepared_steps_in_the_split_view_paint_what_unprepared_ones_paint(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = ("down", "n", "n", "up", "N")
    with_preparation = await frames(make_app(sample, FIXED_200, OVERLAP_40), keys)
    monkeypatch.setattr(CompareScreen, "prepare_detail", lambda self, row: ())
    without = await frames(make_app(sample, FIXED_200, OVERLAP_40), keys)
    for key, (ahead, at_key) in enumerate(zip(with_preparation, without, strict=True)):
        assert ahead == at_key, f"frame after key {key + 1} ({keys[key]}) differs"


@async_test
async def test_a_prepared_step_builds_no_hit_block(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    built = counting_blocks(monkeypatch)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await prepared(pilot)
        built.clear()  # the first question's, shown before anything was prepared
        for key in ("down", "n", "up", "N", "n", "n"):
            await pilot.press(key)
            await prepared(pilot)
        assert built == []


@pytest.mark.parametrize("key", ["n", "down", "N"])
@async_test
async def test_a_held_key_finds_the_questions_ahead_prepared(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    # A held key: one press, a pause (the key-repeat delay, in which the screen prepares READ_AHEAD questions the
    # way that key steps), then the repeats in a burst. Not one of them builds a hit block at its fill. With the
    # neighbours alone prepared (one question each way) the second repeat would build its own.
    built = counting_blocks(monkeypatch)
    async with prepared_inspector(sample) as (app, pilot, screen):
        await pilot.press(key)
        await prepared(pilot)
        built.clear()
        wanted = screen.wanted_for_next if key in ("n", "N") else (lambda row: True)
        ahead = app.session.ahead("inspect", -1 if key == "N" else 1, wanted, 12)
        await pilot.press(*[key] * len(ahead))
        await settle(pilot)
        assert app.session.selected_id == ahead[-1].question.id
        assert built == []


@async_test
async def test_only_a_stepping_key_is_read_ahead(sample: Dataset) -> None:
    # Before any step (as after a jump) the neighbours alone are prepared; after n, the failing questions ahead too.
    async with prepared_inspector(sample) as (app, pilot, screen):
        neighbours = {row.question.id for row in app.session.neighbours("inspect", screen.wanted_for_next)}
        assert set(screen._prepared) <= neighbours
        await pilot.press("n")
        await prepared(pilot)
        ahead = app.session.ahead("inspect", 1, screen.wanted_for_next, 64)
        assert len(ahead) > len(neighbours)
        assert {row.question.id for row in ahead} <= set(screen._prepared)


def recording_pieces(screen: SessionScreen) -> list[str]:
    """Record the question of each preparation piece ``screen`` runs from now on (nothing counts as prepared)."""
    pieces: list[str] = []
    original = screen.prepare_detail

    def recorded(row: QuestionRow) -> tuple[Callable[[], None], ...]:
        def piece(work: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                pieces.append(row.question.id)
                work()

            return run

        return tuple(piece(work) for work in original(row))

    screen.prepare_detail = recorded  # type: ignore[method-assign]
    screen._prepared.clear()
    return pieces


@async_test
async def test_the_preparation_waits_while_keys_come(sample: Dataset) -> None:
    # Preparing between the keys of a burst makes them wait: a start within BURST_GAP of a key is put off.
    async with prepared_inspector(sample) as (_app, pilot, screen):
        pieces = recording_pieces(screen)
        screen._key_handled_at = time.monotonic()  # a key was just handled
        screen._start_preparing()
        await pilot.pause()
        assert pieces == [] and screen.preparing  # put off, not dropped
        await prepared(pilot)
        assert pieces  # once the keys paused


@async_test
async def test_nothing_is_prepared_while_new_results_are_computed(sample: Dataset) -> None:
    # The panes are prepared afresh for the new results; pieces for the old ones would slow the worker down.
    async with prepared_inspector(sample) as (app, pilot, screen):
        pieces = recording_pieces(screen)
        app.session.evaluating = True
        screen._start_preparing()
        await pilot.pause(0.05)
        assert pieces == [] and not screen.preparing
        app.session.evaluating = False
        screen._start_preparing()
        await prepared(pilot)
        assert pieces  # the same start prepares once nothing is computed


@async_test
async def test_without_preparation_a_step_builds_its_blocks(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # The counter sees the work the step would do: the test above is not vacuous.
    built = counting_blocks(monkeypatch)
    no_preparation(monkeypatch)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await prepared(pilot)
        before = len(built)
        await pilot.press("down")
        await settle(pilot)
        assert len(built) > before


def expected_neighbours(rows: tuple[QuestionRow, ...], at: int, wanted: Callable[[QuestionRow], bool]) -> list[str]:
    """n's target, the rows below and above, N's target: by walking the list by hand, without repeats."""
    count = len(rows)
    forward = next((rows[(at + k) % count] for k in range(1, count + 1) if wanted(rows[(at + k) % count])), None)
    backward = next((rows[(at - k) % count] for k in range(1, count + 1) if wanted(rows[(at - k) % count])), None)
    below = rows[at + 1] if at + 1 < count else None
    above = rows[at - 1] if at > 0 else None
    found: list[str] = []
    for row in (forward, below, above, backward):
        if row is not None and row.question.id != rows[at].question.id and row.question.id not in found:
            found.append(row.question.id)
    return found


@async_test
async def test_neighbours_are_the_rows_the_stepping_keys_select(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.session
        rows = session.visible_rows("inspect")
        wanted = app.screen.wanted_for_next  # type: ignore[attr-defined]
        for at in (0, 1, 7, len(rows) - 1):
            session.selected_id = rows[at].question.id
            got = [row.question.id for row in session.neighbours("inspect", wanted)]
            assert got == expected_neighbours(rows, at, wanted)
        # What the keys then select: n goes to the first neighbour when the selection is not itself wanted.
        session.selected_id = rows[0].question.id
        target = session.step_target("inspect", 1, wanted)
        assert session.selected_id == rows[0].question.id  # a target does not move the selection
        assert target is session.step_selection("inspect", 1, wanted)


@async_test
async def test_a_document_keeps_one_chunk_tuple(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.session
        config = session.a.requested
        doc = sample.corpus.documents[0].id
        first = session.document_chunks(config, doc)
        assert session.document_chunks(config, doc) is first  # the view's caches key on it
        # and it is what the chunking holds: that document's units in (start, end) order
        units = [chunk for chunk in session.evaluator.chunking(config.chunker).chunking.units if chunk.doc == doc]
        assert units
        assert [(c.start, c.end) for c in first] == sorted((c.start, c.end) for c in units)


class PanelApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FittedPanel(5, id="panel")


@async_test
async def test_a_panel_grows_ahead_and_keeps_the_room_until_the_next_text() -> None:
    app = PanelApp()
    async with app.run_test(size=(20, 12)) as pilot:
        panel = app.query_one(FittedPanel)
        panel.show(Text("one line"))
        await pilot.pause()
        assert panel.styles.height is not None and panel.styles.height.value == 1
        # 3 lines at 20 cells; 7 lines are capped at 5
        assert panel.reserve([Text("x" * 45), Text("short")]) is True
        await pilot.pause()
        assert panel.styles.height.value == 3
        assert panel.reserve([Text("x" * 130)]) is True
        await pilot.pause()
        assert panel.styles.height.value == 5
        panel.show(Text("x" * 45))  # the reserved text's successor: no shrink below the room kept...
        await pilot.pause(fitted_panel.SHRINK_DELAY + 0.2)  # ...after the shrink delay it fits its own text again
        assert panel.styles.height.value == 3
        assert panel.reserve([Text("a")]) is False


async def rows_styled_per_step(app: ChunkscopeApp, keys: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """For each key (pressed once the screen settled and prepared): the content rows of the ranked chunks and
    the document that the key's own frame (the first painted after it) had to style."""
    styled = [0]
    in_step_frame = [False]
    keep, paint = ReusingStylesCache._keep, Screen._compositor_refresh
    panes: set[int] = set()

    def counted_keep(self: ReusingStylesCache, content: Any, finished: Any) -> None:
        if in_step_frame[0] and id(self) in panes:
            styled[0] += 1
        keep(self, content, finished)

    first_frame = [False]

    def counted_paint(self: Screen[Any]) -> None:
        in_step_frame[0], first_frame[0] = first_frame[0], False
        try:
            paint(self)
        finally:
            in_step_frame[0] = False

    monkeypatch.setattr(ReusingStylesCache, "_keep", counted_keep)
    monkeypatch.setattr(Screen, "_compositor_refresh", counted_paint)
    per_step = []
    async with app.run_test(size=SIZE) as pilot:
        await prepared(pilot)
        panes.update(id(view._styles_cache) for view in app.screen.query("RankedChunksView, DocumentView"))
        assert len(panes) == 2
        for key in keys:
            styled[0] = 0
            first_frame[0] = True
            await pilot.press(key)
            await prepared(pilot)
            per_step.append(styled[0])
    return per_step


@async_test
async def test_a_prepared_step_styles_no_pane_row(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # Down the list and through the failing questions: the panel above the panes grows and shrinks on the way.
    keys = ("down",) * 12 + ("n",) * 8 + ("N", "up")
    assert await rows_styled_per_step(make_app(sample), keys, monkeypatch) == [0] * len(keys)


@async_test
async def test_an_unprepared_step_styles_its_pane_rows(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # The counter sees the rows a step styles without preparation: the test above is not vacuous.
    monkeypatch.setattr(InspectScreen, "prepare_detail", lambda self, row: ())
    per_step = await rows_styled_per_step(make_app(sample), ("down", "n"), monkeypatch)
    assert all(count > 10 for count in per_step)
