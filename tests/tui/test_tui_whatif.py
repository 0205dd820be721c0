"""The boundary what-if panel (``w``): options of a cut question, the preview in its document view, applying one as B.

On the sample data under ``fixed:size=200``, q01's second item ``en/refunds.md [743, 876)`` is cut at 800
(docs/cli.md, ``chunkscope whatif``): windows of 219 characters hold it as ``[657, 876)``, an overlap of 15
as ``[555, 755) [740, 940)``'s second window, a grid shifted by 76 as ``[676, 876)``. Window arithmetic by
hand: 219 * 3 = 657; with overlap 15 the stride is 185 and 4 * 185 = 740; 76 + 3 * 200 = 676.
"""

from __future__ import annotations

from typing import Any

from pilot_helpers import FIXED_200, async_test, make_app, settle
from test_tui_snapshots import after
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from chunkscope.analysis.whatif import BoundaryOption, SpanWhatIf
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Span
from chunkscope.pipeline.config import make_config
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.whatif import WhatIfScreen, options_text
from chunkscope.tui.state.whatif import QuestionWhatIf, option_config, question_whatif
from chunkscope.tui.widgets.document_view import DocumentView

SIZE = (100, 30)


def panel_text(screen: WhatIfScreen, id: str) -> str:
    return str(screen.query_one(f"#{id}", Static).content)


def preview_boundaries(screen: WhatIfScreen) -> set[int]:
    marks = screen.query_one(DocumentView).marks
    assert marks is not None
    return {boundary.offset for boundary in marks.boundaries}


async def open_whatif(pilot: Pilot[None], *keys: str) -> WhatIfScreen:
    """Wait for the results, press ``keys`` in the question view, then ``w`` and wait for the what-if."""
    await settle(pilot)
    for key in (*keys, "w"):
        await pilot.press(key)
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, WhatIfScreen)
    return screen


@async_test
async def test_the_panel_lists_each_option_and_previews_the_selected_one(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_whatif(pilot)
        assert screen.question.id == "q01" and screen.config == FIXED_200
        options = panel_text(screen, "whatif-options")
        assert "item 2 · en/refunds.md [743, 876) · now in [600, 800) [800, 1000)" in options
        for change in ("size     200 → 219", "overlap  0 → 15", "shift    0 → 76"):
            assert change in options, options
        assert "▶ size" in options and options.count("✓ holds it whole") == 3
        # the preview: the document chunked by size 219, the span held whole by [657, 876)
        view = screen.query_one(DocumentView)
        assert view.border_title is not None and str(view.border_title).startswith("PREVIEW fixed:size=219")
        assert "PREVIEW" in panel_text(screen, "whatif-preview-label")
        assert "[657, 876)" in panel_text(screen, "whatif-preview-label")
        assert {438, 657, 876, 1095} <= preview_boundaries(screen) and 800 not in preview_boundaries(screen)
        marks = view.marks
        assert marks is not None and not marks.cuts
        assert all(gold.whole for gold in marks.gold if gold.span.start == 743)
        # the gutter marks the lines of the new chunk over the span, and the span is on screen
        rows = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]
        marked = [row for row in rows if "▌" in row]
        assert any("⟦Opened audio items" in row for row in marked), rows

        await pilot.press("down")
        await pilot.pause()
        assert "▶ overlap" in panel_text(screen, "whatif-options")
        assert str(view.border_title).startswith("PREVIEW fixed:size=200,overlap=15")
        # overlap 15: windows every 185 characters, each 200 long
        assert {740, 755, 925, 940} <= preview_boundaries(screen)
        await pilot.press("down", "down", "down")  # stays on the last option
        await pilot.pause()
        assert "▶ shift" in panel_text(screen, "whatif-options")
        assert {676, 876} <= preview_boundaries(screen)


@async_test
async def test_enter_applies_the_option_as_b_in_the_split_view(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await open_whatif(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen) and app.compare_open
        session = app.session
        assert session.a.requested == FIXED_200
        assert session.b is not None and session.b.requested.chunker == "fixed:size=200,overlap=15"
        assert session.b.requested.retriever == FIXED_200.retriever and session.b.requested.top_k == FIXED_200.top_k
        assert session.selected_id == "q01"
        # B was evaluated: q01 is recovered (its span is whole under overlap 15)
        assert session.b.shown is not None and session.b.shown.config == session.b.requested
        assert not any(cut.span.start == 743 for cut in session.b.shown.questions[0].cuts)


@async_test
async def test_a_question_with_nothing_cut_says_so(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_whatif(pilot, "down")  # q02: complete at rank 1
        assert screen.question.id == "q02"
        assert panel_text(screen, "whatif-options").startswith("nothing cut: a chunk of fixed:size=200,overlap=0")
        assert not screen.query_one(DocumentView).display
        await pilot.press("enter")  # nothing to apply: the panel stays
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WhatIfScreen)


@async_test
async def test_a_chunker_without_a_what_if_shows_the_core_note(sample: Dataset) -> None:
    app = make_app(sample, make_config("fixed:size=50,unit=tokens"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cut = next(row for row in app.session.rows(False) if row.result.cuts)
        app.screen.go_to_question(cut.question.id)  # type: ignore[attr-defined]
        screen = await open_whatif(pilot)
        assert screen.question.id == cut.question.id
        text = panel_text(screen, "whatif-options")
        assert "fixed in tokens is not supported: the what-if counts characters" in text, text
        assert not screen.query_one(DocumentView).display


def test_options_scroll_with_the_cursor_by_hand() -> None:
    span = Span("d", 10, 20)
    options = tuple(BoundaryOption("size", 5, 6 + n, f"fixed:size={6 + n}", ((0, 20),), True) for n in range(6))
    spans = (SpanWhatIf("q", 0, span, ((0, 5), (5, 10)), options),)
    whatif = QuestionWhatIf(None, FIXED_200, spans, ())  # type: ignore[arg-type]
    # 7 rows (the span, 6 options) in 4 lines: the cursor's row stays in view, the cut rows are counted
    lines = options_text(whatif, 5, 4).plain.split("\n")
    assert lines[0] == "… 4 more above"
    assert lines[-1].startswith(" ▶ size  5 → 11  fixed:size=11")
    top = options_text(whatif, 0, 4).plain.split("\n")
    assert top[0].startswith("item 1 · d [10, 20) · now in [0, 5) [5, 10)")
    assert top[1].startswith(" ▶ size  5 → 6 ") and top[-1] == "… 4 more below"


def test_an_option_keeps_the_retriever_and_the_delivery() -> None:
    config = make_config("fixed:size=200", "bm25", top_k=3, budget=600, overflow="skip")
    option = BoundaryOption("overlap", 0, 15, "fixed:size=200,overlap=15", (), True)
    applied = option_config(config, option)
    assert applied.chunker == "fixed:size=200,overlap=15"
    assert applied.retriever == config.retriever
    assert (applied.top_k, applied.budget, applied.overflow) == (3, 600, "skip")


def test_snapshot_whatif_preview(snap_compare: Any, sample: Dataset) -> None:
    # q01 under fixed:size=200: its cut span's three options, the size 219 one previewed.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("w"))


class FailingEvaluator:
    """An evaluator whose chunking fails, as an unreadable imported chunk dump would."""

    def __init__(self, dataset: Dataset) -> None:
        self.corpus = dataset.corpus

    def chunking(self, spec: str) -> None:
        raise ChunkscopeError(f"{spec}: chunks.jsonl line 3: no field 'text'")


def test_a_chunking_that_fails_is_the_note(sample: Dataset) -> None:
    question = sample.questions.questions[0]
    whatif = question_whatif(FailingEvaluator(sample), question, FIXED_200)  # type: ignore[arg-type]
    assert (whatif.spans, whatif.choices) == ((), ())
    assert whatif.note == "no what-if: fixed:size=200,overlap=0: chunks.jsonl line 3: no field 'text'"


@async_test
async def test_keys_typed_with_w_act_once_the_options_are_in(sample: Dataset) -> None:
    # "w Down Enter" in one terminal write: Down and Enter reach the what-if while its options are still
    # computed in the worker. They wait for them (they did nothing before): the second option is applied as B.
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("w", "down", "enter"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen) and app.compare_open
        assert app.session.b is not None and app.session.b.requested.chunker == "fixed:size=200,overlap=15"
