"""Layout for the terminal's size: the header fitted in cells, the narrow layout, the status line's position."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pilot_helpers import FIXED_200, async_test, make_app, settle
from rich.cells import cell_len
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Static

from chunkscope.analysis.diagnose import failure_detail
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import RankedChunk
from chunkscope.tui.cells import truncate_middle
from chunkscope.tui.screens.base import NARROW_BELOW, ordinal
from chunkscope.tui.widgets.config_bar import ConfigBar, Part, SideLine, fit
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.status_bar import StatusBar


def test_ordinals_by_hand() -> None:
    expected = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st"}
    expected |= {22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th", 1000: "1000th"}
    assert {number: ordinal(number) for number in expected} == expected


def test_truncate_middle_keeps_both_ends_by_hand() -> None:
    # 20 cells: 10 from the start, the ellipsis, 9 from the end.
    assert truncate_middle("imported:path=/data/prod/chunks.jsonl", 20) == "imported:p…nks.jsonl"
    assert truncate_middle("short", 10) == "short"
    assert truncate_middle("寒帯ジェット気流", 9) == "寒帯…気流"  # 2 + 1 + 4 cells: a wide character is never split


@given(st.text(alphabet="abc寒帯ジェ/_.", max_size=40), st.integers(min_value=0, max_value=45))
def test_truncate_middle_fits_and_keeps_a_prefix_and_a_suffix(text: str, width: int) -> None:
    cut = truncate_middle(text, width)
    assert cell_len(cut) <= width
    if cell_len(text) <= width:
        assert cut == text
    elif width >= 1:
        head, _, tail = cut.partition("…")
        assert text.startswith(head) and text.endswith(tail)


@pytest.fixture(scope="module")
def long_line(tmp_path_factory: pytest.TempPathFactory) -> tuple[SideLine, str]:
    """A header line whose configuration names a production chunks file in a deep directory."""
    sample = load_dataset()
    directory = tmp_path_factory.mktemp("production") / ("very-long-directory-name-" * 4)
    directory.mkdir()
    path = directory / "chunks-exported-from-the-production-index.jsonl"
    rows = [
        {"id": f"prod-{d.id}-{i}", "doc": d.id, "start": s, "end": min(s + 400, len(d.text))}
        for d in sample.corpus.documents
        for i, s in enumerate(range(0, len(d.text), 400))
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    config = make_config(f"imported:path={path}")
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    return SideLine("", config, result), config.label


@pytest.mark.parametrize("width", [60, 80, 100, 120, 160, 250])
def test_the_header_always_shows_the_metrics(long_line: tuple[SideLine, str], width: int) -> None:
    line, label = long_line
    bar = ConfigBar()
    bar.show("日本語のデータセット名", 3973, [line])
    (parts,) = bar.line_parts()
    text = fit(parts, width).plain
    assert cell_len(text) <= width
    summary = line.shown.summary if line.shown else None
    assert summary is not None
    shown = (
        f"R@5 {summary['recall_at_5']:.3f}",
        f"lost {summary.count('lost')}",
        f"complete {summary.count('complete')}/40",
    )
    for metric in shown:
        assert metric in text, (width, text)
    # The long spec is cut in the middle: its start and its end (file name, retriever) stay readable.
    assert "imported:" in text and "/bm25" in text
    assert label in text or "…" in text


@pytest.mark.parametrize("width", [56, 60, 80])
def test_a_split_view_header_line_shows_the_metrics_down_to_56_cells(
    long_line: tuple[SideLine, str], width: int
) -> None:
    # " B " and a space take four cells more than a single view's line: at 60 the label, cut to its usual
    # least (16 cells), no longer made room for "complete", which was cut off at the end.
    line, _ = long_line
    bar = ConfigBar()
    bar.show("sample", 40, [replace(line, name="A"), replace(line, name="B")])
    summary = line.shown.summary if line.shown else None
    assert summary is not None
    for parts in bar.line_parts()[1:]:
        text = fit(parts, width).plain
        assert cell_len(text) <= width
        assert f"complete {summary.count('complete')}/40" in text, (width, text)
        assert f"lost {summary.count('lost')}" in text and "…" in text


def test_the_header_drops_decorations_before_cutting_the_label() -> None:
    parts = [
        Part(" chunkscope ", drop=1),
        Part("configuration-label-that-matters", elide=True, cut_from=6),
        Part(" · 105 chunks", drop=2),
        Part("   R@5 0.500"),
    ]
    full = sum(cell_len(part.text) for part in parts)
    assert fit(parts, full).plain == "".join(part.text for part in parts)
    without_name = "configuration-label-that-matters · 105 chunks   R@5 0.500"
    assert fit(parts, full - 1).plain == without_name  # the app's name goes first
    assert fit(parts, cell_len(without_name) - 1).plain == "configuration-label-that-matters   R@5 0.500"
    narrow = fit(parts, 30).plain
    assert narrow.endswith("   R@5 0.500") and "…" in narrow and cell_len(narrow) <= 30


@async_test
async def test_narrow_terminals_show_the_list_or_the_detail(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=(NARROW_BELOW - 20, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        questions = screen.query_one("#inspect-questions")
        detail = screen.query_one("#inspect-detail")
        assert questions.region.width == 80 and not detail.display
        await pilot.press("d")
        await settle(pilot)
        assert detail.region.width == 80 and not questions.display
        assert isinstance(app.focused, RankedChunksView)
        await pilot.press("n")  # the keys still step through the questions with the list hidden
        await settle(pilot)
        assert app.session.selected_id in str(screen.query_one("#inspect-question", Static).render())
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.focused, QuestionList) and not detail.display
        where = screen.query_one("#status-where", Static)
        assert "d shows the detail" in str(where.render())
        await pilot.resize_terminal(NARROW_BELOW + 40, 40)
        await settle(pilot)
        assert questions.display and detail.display
        assert 34 <= questions.region.width <= 100 and detail.region.width > questions.region.width
        assert "d shows" not in str(where.render())  # the hint goes with the narrow layout, at once
        await pilot.resize_terminal(NARROW_BELOW - 20, 24)
        await settle(pilot)
        assert "d shows the detail" in str(where.render())


@async_test
async def test_the_question_panel_shows_the_whole_reason_after_keys_with_the_detail_hidden(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n", "n", "d")  # q05 chosen while the panel had no width, then shown
        await settle(pilot)
        row = app.session.selected_row("inspect")
        shown = app.session.a.shown
        assert row is not None and shown is not None and row.question.id == "q05"
        panel = app.screen.query_one("#inspect-question", Static)
        lines = panel.render_lines(Region(0, 0, panel.size.width, panel.size.height))
        text = " ".join(" ".join(strip.text.split()) for strip in lines)
        reason = " ".join(failure_detail(shown.questions[row.index], shown.config).split())
        assert reason.split()[-1] in text.split()  # the reason's last word is on screen, not cut off
        assert len(reason) > 78  # more than the one line the panel (two lines at first) has for it


@pytest.mark.parametrize(("width", "least", "most"), [(100, 34, 40), (200, 70, 74), (300, 100, 100)])
@async_test
async def test_the_list_takes_a_share_of_the_width_within_bounds(
    sample: Dataset, width: int, least: int, most: int
) -> None:
    app = make_app(sample)
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        assert least <= app.screen.query_one("#inspect-questions").region.width <= most


async def second_hit_and_status(pilot: Pilot[None]) -> tuple[RankedChunk, str]:
    """Focus the ranked chunks, move to the second hit: that hit and the status line's position text."""
    await settle(pilot)
    ranked = pilot.app.screen.query_one(RankedChunksView)
    ranked.focus()
    await pilot.press("down")
    await settle(pilot)
    hit = ranked.highlighted
    assert hit is not None
    return hit, str(pilot.app.screen.query_one(StatusBar).query_one("#status-where", Static).render())


@async_test
async def test_the_status_line_names_the_chunk_under_the_cursor(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200)
    async with app.run_test(size=(140, 40)) as pilot:
        hit, where = await second_hit_and_status(pilot)
        assert f"chunk {hit.chunk.id}" in where


@async_test
async def test_production_chunk_ids_reach_the_status_line(long_line: tuple[SideLine, str]) -> None:
    line, _ = long_line
    app = make_app(load_dataset(), line.requested)
    async with app.run_test(size=(140, 40)) as pilot:
        hit, where = await second_hit_and_status(pilot)
        assert hit.chunk.id.startswith("prod-")
        assert f"chunk {hit.chunk.id}" in where
