"""The rendering widgets on their own: cell helpers, DocumentView, RankedChunksView, summary widgets.

Each widget is mounted alone in a tiny app with the bundled sample data; tests read
the rendered rows as text and the messages the widgets post. Snapshot tests pin
their look at a fixed terminal size.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widget import Widget

from chunkscope.analysis.compare import STATES, Comparison, compare
from chunkscope.io.dataset import Dataset
from chunkscope.model import Question
from chunkscope.pipeline.assembly import delivery_decisions
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult, QuestionResult
from chunkscope.tui.cells import (
    cell_widths,
    pad,
    rewrap_text,
    truncate,
    truncate_start,
    visible,
    wrap_lines,
    wrap_text,
)
from chunkscope.tui.widgets import (
    BucketChart,
    ChunkLengthChart,
    DocumentView,
    MetricsTable,
    RankedChunksView,
    TransitionMatrix,
    fitted_panel,
)
from chunkscope.tui.widgets.delivery_lines import hit_statuses, stop_rules
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.summary_widgets import bar, bin_counts, length_bins

SIZE = (100, 30)

# ---------------------------------------------------------------------------------------------- cells


def test_wrap_mixed_japanese_and_ascii_by_hand() -> None:
    # width 10: 寒帯ジェッ is 5 wide characters = 10 cells; ト気流 (6) + " is " (4) = 10;
    # "a jet stream." does not fit, so the line breaks after the space before "stream."
    text = "寒帯ジェット気流 is a jet stream."
    lines = [text[s:e] for s, e in wrap_lines(text, 10)]
    assert lines == ["寒帯ジェッ", "ト気流 is ", "a jet ", "stream."]


def test_wrap_keeps_closing_punctuation_off_the_line_start() -> None:
    # width 10 = 5 wide characters: ああああ、 fits exactly, but the next line would start with 、
    # in "ああああああ、" (6 + 、): the break moves one character back so あ、 go down together
    lines = [s for s, _ in wrap_lines("ああああああ、いい", 10)]
    assert lines == [0, 5]


def test_wrap_takes_a_word_down_with_its_closing_punctuation() -> None:
    # width 54: "...the original order" is 54 characters, so the break would fall on "." (which may not start a
    # line). Moving back one character would cut "orde|r."; the whole word goes down from the space before it.
    text = "Refunds are made in the currency of the original order. We do not refund"
    assert [text[s:e] for s, e in wrap_lines(text, 54)] == [
        "Refunds are made in the currency of the original ",
        "order. We do not refund",
    ]
    # The same after a word ending a CJK run: 語 is no spaced word, so one character goes down with 。
    assert [s for s, _ in wrap_lines("ああああ語。いい", 10)] == [0, 4]


def test_wrap_crlf_lines_own_their_terminators() -> None:
    wrapped = wrap_text("ab\r\ncd\rx", 80)
    assert list(zip(wrapped.starts.tolist(), wrapped.ends.tolist(), strict=True)) == [(0, 2), (4, 6), (7, 8)]
    # \r and \n belong to the first line, the lone \r to the second; the end offset to the last
    assert [wrapped.line_of(o) for o in (2, 3, 4, 6, 7, 8)] == [0, 0, 1, 1, 2, 2]


def test_wrap_counts_marker_glyph_cells() -> None:
    # "abcdef" at width 4, 3 glyph cells before offset 2: "ab" + 3 cells = 5 > 4, so the line ends at 2... no:
    # offsets before 2 cost 2 cells; offset 2 costs 3 + 1 = 4 more, so line one is "ab", then "cdef" (3+4=7 > 4)
    extra = np.zeros(7, dtype=np.int64)
    extra[2] = 3
    wrapped = wrap_text("abcdef", 4, extra, word_wrap=False)
    assert wrapped.starts.tolist() == [0, 2, 3]


def test_truncate_by_cells() -> None:
    # 寒帯ジ (6 cells) + … (1) = 7
    assert truncate("寒帯ジェット気流", 7) == "寒帯ジ…"
    assert truncate_start("寒帯ジェット気流", 7) == "…ト気流"
    assert truncate("short", 10) == "short"
    assert cell_len(pad("寒帯", 7)) == 7


def test_cell_widths_agree_with_rich() -> None:
    for text in ("abc", "寒帯ジェット", "ｶﾀｶﾅ", "e\u0301", "👍\u200d👍x", "a\tb", "☕\ufe0f"):
        assert int(cell_widths(text).sum()) == cell_len(text), text


def test_visible_keeps_offsets() -> None:
    text = "a\tb\x00c\r\n"
    assert len(visible(text)) == len(text)
    assert visible(text) == "a b\ufffdc\r\n"


MIXED = st.text(alphabet=st.sampled_from(["a", "b", " ", "寒", "ジ", "。", "\n", "\r", "\t", "\u0301"]), max_size=80)


@settings(max_examples=150, deadline=None)
@given(MIXED, st.integers(min_value=1, max_value=20))
def test_wrapped_lines_fit_and_tile_the_text(text: str, width: int) -> None:
    wrapped = wrap_text(text, width)
    starts = wrapped.starts.tolist()
    assert starts[0] == 0
    assert starts == sorted(starts)
    for line in range(wrapped.line_count):
        start, owned_end = wrapped.owned(line)
        shown = visible(text[start : int(wrapped.ends[line])])
        assert start <= int(wrapped.ends[line]) <= owned_end
        # too narrow for a wide character: it gets a line of its own
        assert cell_len(shown) <= width or cell_len(shown) == cell_len(shown[:1]) > width
        # what a line owns beyond what it shows is a line terminator or the spaces it wrapped at
        assert set(text[int(wrapped.ends[line]) : min(owned_end, len(text))]) <= {"\r", "\n", " "}
    # every offset (and the end) round-trips to the line that owns it
    for offset in range(len(text) + 1):
        start, owned_end = wrapped.owned(wrapped.line_of(offset))
        assert start <= offset < owned_end


@settings(max_examples=100, deadline=None)
@given(MIXED, st.integers(min_value=2, max_value=20), st.lists(st.integers(0, 80), max_size=4))
def test_rewrap_equals_full_wrap(text: str, width: int, marked: list[int]) -> None:
    base_extra = np.zeros(len(text) + 1, dtype=np.int64)
    base_extra[:: max(1, len(text) // 3 or 1)] = 1
    extra = base_extra.copy()
    for offset in marked:
        extra[min(offset, len(text))] += 2
    base = wrap_text(text, width, base_extra)
    assert rewrap_text(text, width, extra, base, base_extra).starts.tolist() == (
        wrap_text(text, width, extra).starts.tolist()
    )


def test_wrap_breaks_at_recorded_paragraph_starts_without_a_terminator() -> None:
    # two paragraphs joined without a separator, as the SQuAD loader records them: [0,5) and [5,10)
    text = "寒帯ジェッ雨が降る。"
    wrapped = wrap_text(text, 80, breaks=(5, 0, 10))
    # 0 and the end are no breaks; 5 starts a line that owns the offsets from 5 on
    assert list(zip(wrapped.starts.tolist(), wrapped.ends.tolist(), strict=True)) == [(0, 5), (5, 10)]
    # a break right after a newline is the newline's own break: no empty line
    assert wrap_text("ab\ncd", 80, breaks=(3,)).starts.tolist() == [0, 3]


@settings(max_examples=100, deadline=None)
@given(
    MIXED,
    st.integers(min_value=2, max_value=20),
    st.lists(st.integers(0, 80), max_size=4),
    st.lists(st.integers(0, 80), max_size=4),
)
# a wrap whose skipped space reaches a recorded break once left an empty line there
@example("aaaaaa a", 2, [7], [1])
def test_forced_line_starts_equal_hard_breaks(text: str, width: int, breaks: list[int], forced: list[int]) -> None:
    recorded = tuple(sorted(set(breaks)))
    base_extra = np.zeros(len(text) + 1, dtype=np.int64)
    base = wrap_text(text, width, base_extra, breaks=recorded)
    rewrapped = rewrap_text(
        text, width, base_extra, base, base_extra, breaks=recorded, forced=tuple(sorted(set(forced)))
    )
    hard = wrap_text(text, width, base_extra, breaks=tuple(sorted(set(breaks) | set(forced))))
    assert rewrapped.starts.tolist() == hard.starts.tolist()
    assert rewrapped.ends.tolist() == hard.ends.tolist()
    # by hand: every usable offset (inside the text, not beside a terminator) starts a line
    starts = set(rewrapped.starts.tolist())
    for offset in set(breaks) | set(forced):
        if 0 < offset < len(text) and text[offset - 1] not in "\r\n" and text[offset] not in "\r\n":
            assert offset in starts


# ---------------------------------------------------------------------------------------------- data

FIXED_200 = make_config("fixed:size=200", top_k=5, budget=600)
CROWDED = make_config("fixed:size=200,overlap=100", top_k=2)


@pytest.fixture(scope="module")
def evaluator(sample: Dataset) -> Evaluator:
    return Evaluator(sample.corpus, sample.questions.questions)


def pick(sample: Dataset, result: ConfigResult, question_id: str) -> tuple[Question, QuestionResult]:
    index = [q.id for q in sample.questions.questions].index(question_id)
    return sample.questions.questions[index], result.questions[index]


class WidgetApp(App[None]):
    """Mounts one widget and records the messages it posts."""

    def __init__(self, widget: Widget, on_mount: Callable[[Widget], None]) -> None:
        super().__init__()
        self.widget = widget
        self.setup = on_mount
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_mount(self) -> None:
        self.setup(self.widget)

    def on_document_view_scrolled(self, message: DocumentView.Scrolled) -> None:
        self.messages.append(message)

    def on_ranked_chunks_view_chunk_highlighted(self, message: RankedChunksView.ChunkHighlighted) -> None:
        self.messages.append(message)

    def on_transition_matrix_cell_selected(self, message: TransitionMatrix.CellSelected) -> None:
        self.messages.append(message)


Steps = Callable[[Pilot[None]], Coroutine[Any, Any, None]]


def run(app: WidgetApp, steps: Steps, size: tuple[int, int] = SIZE) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await steps(pilot)

    asyncio.run(main())


def screen_rows(view: DocumentView) -> list[str]:
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


# ---------------------------------------------------------------------------------------------- DocumentView


def document_app(sample: Dataset, evaluator: Evaluator, question_id: str, config: Config = FIXED_200) -> WidgetApp:
    result = evaluator.evaluate(config)
    question, question_result = pick(sample, result, question_id)
    document = sample.corpus.by_id[question.gold_spans[0].doc]

    def setup(widget: Widget) -> None:
        assert isinstance(widget, DocumentView)
        widget.show(document, result.chunks, question_result, question)

    return WidgetApp(DocumentView(), setup)


def test_document_view_cut_marker_at_the_boundary(sample: Dataset, evaluator: Evaluator) -> None:
    # q39 under fixed:size=200: gold 周囲の温度が…停止します。 is cut at 400, inside 低温時バッテ|リー保護機能
    app = document_app(sample, evaluator, "q39")

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        assert view.marks is not None and view.marks.cuts == (400,)
        rows = screen_rows(view)
        cut_rows = [n for n, row in enumerate(rows) if "✂" in row]
        assert len(cut_rows) == 1
        row = rows[cut_rows[0]]
        # the chunk starting at 400 is ranked 4th: it begins a line, with its tag in the gutter and the ✂
        # first in the text; the line before (the gold's first, at offset 380 in the gutter) ends at バッテ
        tag, text = row.split()
        assert tag == "○#4"
        assert text == "✂リー保護機能がはたらき、充電を停止します。⟧このときランプはオレンジ色に点滅します。"
        assert rows[cut_rows[0] - 1].split() == ["380", "⟦周囲の温度が0℃を下回ると、低温時バッテ"]

    run(app, steps)


def test_document_view_rank_badges_and_boundaries(sample: Dataset, evaluator: Evaluator) -> None:
    app = document_app(sample, evaluator, "q39")

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        assert view.marks is not None
        delivered = {m.rank for m in view.marks.ranks if m.delivered}
        text = "\n".join(screen_rows(view))
        # ranks 1 and 2 of q39 are this document's chunks at 200 and 0, both delivered (sample run)
        assert view.marks.ranks[0].offset == 0 and {1, 2} <= delivered
        view.scroll_to(y=0, animate=False, immediate=True)
        text = "\n".join(screen_rows(view))
        assert "●#2" in text and "●#1" in text
        assert "│" in text

    run(app, steps)


def test_document_view_scrolled_only_for_user_scrolls(sample: Dataset, evaluator: Evaluator) -> None:
    app = document_app(sample, evaluator, "q39")

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        view.scroll_to_offset(0)
        view.sync_scroll(3)
        await pilot.pause()
        assert app.messages == []
        view.focus()
        await pilot.press("pagedown")
        await pilot.pause()
        scrolled = [m for m in app.messages if isinstance(m, DocumentView.Scrolled)]
        assert scrolled and scrolled[-1].offset == view.top_offset()

    run(app, steps)


def test_document_view_keeps_place_across_configurations(sample: Dataset, evaluator: Evaluator) -> None:
    # same question, another chunking: the text at the top line stays at the top
    app = document_app(sample, evaluator, "q39")
    other = evaluator.evaluate(make_config("fixed:size=200,overlap=40", top_k=5, budget=600))

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        view.sync_scroll(5)
        await pilot.pause()
        top = view.top_offset()
        question, result = pick(sample, other, "q39")
        assert view.document is not None
        view.show(view.document, other.chunks, result, question)
        await pilot.pause()
        layout = view._layout()
        assert layout is not None and layout.line_of(top) == int(view.scroll_offset.y)

    run(app, steps)


def test_document_view_large_document_renders_only_visible(sample: Dataset) -> None:
    # 300k characters: the view lays out once and renders one screenful
    from chunkscope.model import Corpus, Document

    text = "寒帯ジェット気流は冬に強まる。" * 20_000
    document = Document("big", text)
    chunks = Evaluator(Corpus((document,)), ()).chunking("fixed:size=400").chunking.units

    def setup(widget: Widget) -> None:
        assert isinstance(widget, DocumentView)
        widget.show(document, chunks, None, None, focus_offset=150_000)

    app = WidgetApp(DocumentView(), setup)

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        rows = screen_rows(view)
        # thousands of lines, a few screenfuls rendered (the first paint may precede the scroll)
        assert view.virtual_size.height > 5000
        assert len(view._lines) <= 3 * view.scrollable_content_region.height
        assert any("寒帯" in row for row in rows)
        assert view.top_offset() < 150_000 < view.top_offset() + 2000

    run(app, steps)


def test_document_view_jumps_between_marks_and_highlights_chunks(sample: Dataset, evaluator: Evaluator) -> None:
    # q01 under fixed:size=200: gold spans start at 222 and 743, and 743..876 is cut at 800
    app = document_app(sample, evaluator, "q01")

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)
        assert view.mark_offsets() == [222, 743, 800]
        view.sync_scroll(0)
        view.focus()
        await pilot.press("]")
        await pilot.pause()
        layout = view._layout()
        assert layout is not None
        third = view.scrollable_content_region.height // 3
        assert int(view.scroll_offset.y) == max(0, layout.line_of(743) - third)
        assert view.marks is not None
        chunk = next(c for c in evaluator.evaluate(FIXED_200).chunks if c.doc == "en/refunds.md" and c.start == 800)
        view.highlight_chunk(chunk)
        await pilot.pause()
        bars = [row for row in screen_rows(view) if "▌" in row[: view._gutter_width()]]
        assert bars and any("✂" in row or "r moni" in row for row in bars)

    run(app, steps)


def test_document_view_theme_change_rerenders(sample: Dataset, evaluator: Evaluator) -> None:
    app = document_app(sample, evaluator, "q39")

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(DocumentView)

        def gold_style() -> object:
            row = next(y for y in range(view.scrollable_content_region.height) if "⟦" in view.render_line(y).text)
            # the ⟦ of the cut gold: $warning blended over the surface, which differs between the themes
            return next(seg.style for seg in view.render_line(row) if seg.text == "⟦")

        dark = gold_style()
        app.theme = "textual-light"
        await pilot.pause()
        assert gold_style() != dark

    run(app, steps)


# ---------------------------------------------------------------------------------------------- RankedChunksView


def ranked_app(sample: Dataset, evaluator: Evaluator, question_id: str, config: Config) -> WidgetApp:
    result = evaluator.evaluate(config)
    question, question_result = pick(sample, result, question_id)

    def setup(widget: Widget) -> None:
        assert isinstance(widget, RankedChunksView)
        widget.show(question, question_result, config, sample.corpus)

    return WidgetApp(RankedChunksView(), setup)


def test_budget_stop_rule_and_statuses(sample: Dataset, evaluator: Evaluator) -> None:
    # q01 under fixed:size=200, top-5, budget 600 (stop): three 200-character chunks fill 600,
    # so #4 (200 chars) does not fit 600 − 600 and #5 comes after the stop
    result = evaluator.evaluate(FIXED_200)
    _, q01 = pick(sample, result, "q01")
    assert [d.rank for d in q01.delivered] == [1, 2, 3]
    rules = stop_rules(delivery_decisions(q01, FIXED_200))
    assert [(r.before_rank, r.text) for r in rules] == [
        (4, "budget stop: #4 (200 chars) does not fit 600 − 600"),
        (6, "top-5: ranks below are not delivered"),
    ]
    statuses = hit_statuses(delivery_decisions(q01, FIXED_200), q01.ranked)
    assert [statuses[r].glyph for r in range(1, 7)] == ["●", "●", "●", "○", "○", "·"]
    assert statuses[4].text == "not delivered: budget stop"


def test_ranked_view_shows_rule_gauge_and_gold(sample: Dataset, evaluator: Evaluator) -> None:
    app = ranked_app(sample, evaluator, "q39", FIXED_200)

    async def steps(pilot: Pilot[None]) -> None:
        rows = app.query_one(RankedChunksView).lines_text()
        assert rows[0].startswith("budget ▕")
        assert "600 / 600 chars" in rows[0]
        assert "evidence 0 of 1 delivered" in rows[0]
        rule = [i for i, row in enumerate(rows) if "budget stop: #4 (200 chars) does not fit 600 − 600" in row]
        hit_4 = [i for i, row in enumerate(rows) if row[1:].startswith("#4 ")]
        assert rule and hit_4 and rule[0] < hit_4[0]
        # rank 1 is the chunk 200–400: it holds the first part of the gold, cut at its end
        assert any("低温時バッテ✂" in row for row in rows[: hit_4[0]])
        # rank 4 (400–600) starts with the cut and closes the gold
        assert any(row.strip().startswith("✂リー保護機能") for row in rows[hit_4[0] :])

    run(app, steps, size=(110, 60))


TOKEN_BUDGET = make_config(
    "fixed:size=60,unit=tokens", top_k=5, budget=150, budget_unit="tokens", budget_tokenizer="cl100k"
)


def test_token_budget_stop_rule_counts_tokens(sample: Dataset, evaluator: Evaluator) -> None:
    from chunkscope.pipeline.cost import token_cost

    result = evaluator.evaluate(TOKEN_BUDGET)
    cost = token_cost("cl100k")
    stopped = next(q for q in result.questions if q.delivery_stop == "budget" and q.skipped_ranks)
    first = stopped.skipped_ranks[0]
    used = sum(cost.delivered(d) for d in stopped.delivered)
    unit = next(h for h in stopped.ranked if h.rank == first).chunk
    rules = stop_rules(delivery_decisions(stopped, TOKEN_BUDGET))
    assert rules[0].text == f"budget stop: #{first} ({cost.cost(unit)} cl100k tokens) does not fit 150 − {used}"
    assert used + cost.cost(unit) > 150 >= used


def test_ranked_view_shows_token_counts(sample: Dataset, evaluator: Evaluator) -> None:
    from chunkscope.pipeline.cost import token_cost

    app = ranked_app(sample, evaluator, "q39", TOKEN_BUDGET)
    _, q39 = pick(sample, evaluator.evaluate(TOKEN_BUDGET), "q39")
    sent = token_cost("cl100k").sent(q39)

    async def steps(pilot: Pilot[None]) -> None:
        rows = app.query_one(RankedChunksView).lines_text()
        assert f"{sent} / 150 cl100k tokens" in rows[0]
        first = q39.ranked[0].chunk
        assert any(f"· {first.length} ch · {token_cost('cl100k').cost(first)} tok" in row for row in rows)

    run(app, steps, size=(130, 60))


def test_ranked_view_duplicates_under_overlap_crowding(sample: Dataset, evaluator: Evaluator) -> None:
    # sample_data/README: q01 under fixed:size=200,overlap=100 with top-2: two windows of one passage
    # take both slots and repeat 100 characters
    result = evaluator.evaluate(CROWDED)
    _, q01 = pick(sample, result, "q01")
    assert [d.duplicate_chars for d in q01.delivered] == [0, 100]
    statuses = hit_statuses(delivery_decisions(q01, CROWDED), q01.ranked)
    assert statuses[2].text == "delivered · 100 chars re-sent"


def test_ranked_view_keys_post_chunk_highlighted(sample: Dataset, evaluator: Evaluator) -> None:
    app = ranked_app(sample, evaluator, "q39", FIXED_200)

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(RankedChunksView)
        view.focus()
        await pilot.press("down", "down", "up")
        await pilot.pause()
        posted = [m for m in app.messages if isinstance(m, RankedChunksView.ChunkHighlighted)]
        assert [m.rank for m in posted] == [2, 3, 2]
        assert posted[-1].chunk == view.highlighted.chunk if view.highlighted else False

    run(app, steps)


def test_ranked_view_click_selects_hit(sample: Dataset, evaluator: Evaluator) -> None:
    app = ranked_app(sample, evaluator, "q39", FIXED_200)

    async def steps(pilot: Pilot[None]) -> None:
        view = app.query_one(RankedChunksView)
        rows = view.lines_text()
        row = next(i for i, text in enumerate(rows) if text[1:].startswith("#3 "))
        # +1 for the round border's top row: the header row of #3, then the last row of #2 just above it
        await pilot.click(RankedChunksView, offset=(10, row + 1))
        await pilot.click(RankedChunksView, offset=(10, row))
        await pilot.pause()
        posted = [m for m in app.messages if isinstance(m, RankedChunksView.ChunkHighlighted)]
        assert [m.rank for m in posted] == [3, 2]

    run(app, steps)


def test_ranked_view_parent_child_shows_the_parent(sample: Dataset, evaluator: Evaluator) -> None:
    # sample_data/README: q15's 200-character child ranks first but its parent, the first 1,237 characters
    # of the Webhooks section, does not fit a budget of 1000
    config = make_config("parent:child=fixed:size=200,parent=markdown", "bm25", top_k=5, budget=1000)
    app = ranked_app(sample, evaluator, "q15", config)

    async def steps(pilot: Pilot[None]) -> None:
        rows = app.query_one(RankedChunksView).lines_text()
        assert any("budget stop: #1 (1237 chars) does not fit 1000 − 0" in row for row in rows)
        parent = next(row for row in rows if "→ delivers parent" in row)
        assert "· 1237 ch" in parent and "⟦gold⟧ whole in parent" in parent

    run(app, steps, size=(120, 40))


def test_ranked_view_fused_parts(sample: Dataset, evaluator: Evaluator) -> None:
    config = make_config("fixed:size=200", "rrf:bm25+overlap", top_k=5)
    result = evaluator.evaluate(config)
    _, q39 = pick(sample, result, "q39")
    # q39's first fused chunk is 1st under BM25 and 2nd under keyword overlap.
    assert q39.ranked[0].parts == {"bm25": 1, "overlap": 2}
    app = ranked_app(sample, evaluator, "q39", config)

    async def steps(pilot: Pilot[None]) -> None:
        rows = app.query_one(RankedChunksView).lines_text()
        assert any(row.rstrip().endswith("    fused: bm25 #1 · overlap #2") for row in rows)

    run(app, steps, size=(120, 40))


# ---------------------------------------------------------------------------------------------- summaries


@pytest.fixture(scope="module")
def pair(evaluator: Evaluator) -> tuple[ConfigResult, ConfigResult, Comparison]:
    a = evaluator.evaluate(make_config("fixed:size=200"))
    b = evaluator.evaluate(make_config("fixed:size=200,overlap=40"))
    return a, b, compare(a, b, permutations=2000)


def test_bar_eighths() -> None:
    # 3 of 8 over 10 cells = 3.75 cells: three full blocks and 6/8 of a cell
    assert bar(3, 8, 10) == "███▊"
    assert bar(0, 8, 10) == ""
    assert bar(8, 8, 10) == "█" * 10


def test_length_bins_by_hand() -> None:
    # lengths 30, 199, 200, 640: doubling bins from [25,50) to [400,800)
    bins = length_bins([30, 199, 200, 640])
    assert bins == [(25, 50), (50, 100), (100, 200), (200, 400), (400, 800)]
    assert bin_counts([30, 199, 200, 640], bins) == [1, 0, 1, 1, 1]


def test_metrics_table_rows(pair: tuple[ConfigResult, ConfigResult, Comparison]) -> None:
    a, b, comparison = pair

    def setup(widget: Widget) -> None:
        assert isinstance(widget, MetricsTable)
        widget.show([a, b], comparison)

    app = WidgetApp(MetricsTable(), setup)

    async def steps(pilot: Pilot[None]) -> None:
        rows = app.query_one(MetricsTable).rows()
        assert rows[0][:3] == ["metric", "A", "B"]
        recall = rows[1]
        assert recall[1] == f"{a.summary['recall_at_5']:.3f}" and recall[2] == f"{b.summary['recall_at_5']:.3f}"
        test = comparison.test("recall_at_5")
        assert recall[3] == f"{test.delta:+.3f}"
        assert recall[-1].endswith("*" if test.significant else "n.s.")

    run(app, steps)


def test_transition_matrix_keyboard_and_click(pair: tuple[ConfigResult, ConfigResult, Comparison]) -> None:
    _, _, comparison = pair

    def setup(widget: Widget) -> None:
        assert isinstance(widget, TransitionMatrix)
        widget.show(comparison)

    app = WidgetApp(TransitionMatrix(), setup)

    async def steps(pilot: Pilot[None]) -> None:
        matrix = app.query_one(TransitionMatrix)
        matrix.focus()
        await pilot.press("down", "right", "right", "enter")
        await pilot.pause()
        selected = [m for m in app.messages if isinstance(m, TransitionMatrix.CellSelected)]
        assert [(m.state_a, m.state_b) for m in selected] == [("2-5", "6-20")]
        # click the cell of row "lost", column "1": rows start after 2 header rows, columns after the label
        # (+1 for the widget's left padding)
        x = 1 + TransitionMatrix.ROW_LABEL + 2
        y = TransitionMatrix.HEADER_ROWS + STATES.index("lost")
        await pilot.click(TransitionMatrix, offset=(x, y))
        await pilot.pause()
        selected = [m for m in app.messages if isinstance(m, TransitionMatrix.CellSelected)]
        assert (selected[-1].state_a, selected[-1].state_b) == ("lost", "1")

    run(app, steps)


# ---------------------------------------------------------------------------------------------- snapshots


def test_snapshot_document_view(snap_compare: Any, sample: Dataset, evaluator: Evaluator) -> None:
    assert snap_compare(document_app(sample, evaluator, "q39"), terminal_size=SIZE)


def test_snapshot_document_view_overlap(snap_compare: Any, sample: Dataset, evaluator: Evaluator) -> None:
    app = document_app(sample, evaluator, "q01", make_config("fixed:size=200,overlap=40", top_k=5, budget=600))
    assert snap_compare(app, terminal_size=SIZE)


def test_snapshot_ranked_chunks(snap_compare: Any, sample: Dataset, evaluator: Evaluator) -> None:
    assert snap_compare(ranked_app(sample, evaluator, "q39", FIXED_200), terminal_size=(110, 40))


def test_snapshot_summary_widgets(snap_compare: Any, pair: tuple[ConfigResult, ConfigResult, Comparison]) -> None:
    from textual.containers import VerticalScroll

    a, b, comparison = pair

    class SummaryApp(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield MetricsTable()
                yield BucketChart()
                yield TransitionMatrix()
                yield ChunkLengthChart()

        def on_mount(self) -> None:
            self.query_one(MetricsTable).show([a, b], comparison)
            self.query_one(BucketChart).show([a, b])
            self.query_one(TransitionMatrix).show(comparison)
            self.query_one(ChunkLengthChart).show([a, b])

    assert snap_compare(SummaryApp(), terminal_size=(110, 60))


def test_a_fitted_panel_grows_at_once_and_shrinks_after_a_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    delay = 0.5
    monkeypatch.setattr(fitted_panel, "SHRINK_DELAY", delay)
    panel = FittedPanel(4)
    long, short = Text("word " * 40), Text("one line")  # 200 cells: four lines at most at 60 wide

    async def steps(pilot: Pilot[None]) -> None:
        panel.show(long)
        await pilot.pause()
        assert panel.size.height == 4
        panel.show(short)
        await pilot.pause()
        assert panel.size.height == 4  # still tall: the next question may need the lines again
        panel.show(long)
        panel.show(short)
        await pilot.pause(delay * 2)
        assert panel.size.height == 1  # shrunk once the texts paused

    run(WidgetApp(panel, lambda widget: None), steps, size=(60, 20))


def test_a_fitted_panel_holds_its_height_in_a_burst_and_grows_once_it_settles() -> None:
    panel = FittedPanel(4)
    long, short = Text("word " * 40), Text("one line")  # four lines and one at 60 wide

    async def steps(pilot: Pilot[None]) -> None:
        panel.show(short)
        await pilot.pause()
        assert panel.size.height == 1
        panel.show(long, hold=True)  # keys still come: no layout of the screen for each of them
        await pilot.pause()
        assert panel.size.height == 1
        assert "word" in panel.render_line(0).text  # the text shows, cut to the lines the panel has
        panel.settle()  # the burst paused: the whole text, at once
        await pilot.pause()
        assert panel.size.height == 4

    run(WidgetApp(panel, lambda widget: None), steps, size=(60, 20))


def test_a_fitted_panel_kept_tall_in_a_burst_shrinks_once_it_settles(monkeypatch: pytest.MonkeyPatch) -> None:
    delay = 0.2
    monkeypatch.setattr(fitted_panel, "SHRINK_DELAY", delay)
    panel = FittedPanel(4)
    long, short = Text("word " * 40), Text("one line")

    async def steps(pilot: Pilot[None]) -> None:
        panel.show(long)
        await pilot.pause()
        panel.show(short, hold=True)  # keys still come: the panel keeps its lines
        await pilot.pause(delay * 2)
        assert panel.size.height == 4
        panel.settle()  # the burst paused
        await pilot.pause(delay / 4)
        assert panel.size.height == 4  # not at once: the shrink delay runs from the pause
        await pilot.pause(delay * 2)
        assert panel.size.height == 1

    run(WidgetApp(panel, lambda widget: None), steps, size=(60, 20))
