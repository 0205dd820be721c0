"""The ranked chunks lay out only the hits on screen; scrolling and moving build the others, the same."""

from __future__ import annotations

from pilot_helpers import SIZE, async_test, make_app, settle

from chunkscope.io.dataset import Dataset
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView


def visible_rows(view: RankedChunksView) -> list[str]:
    """The text of every row the view shows now (header, then the hits at the scroll position)."""
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


@async_test
async def test_only_the_hits_on_screen_are_built_until_scrolled(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RankedChunksView)
        hits = len(view.statuses)
        assert hits > 10 and 0 < view.built_hits < hits // 2
        view.focus()
        pages = 0
        while view.built_hits < hits and pages < 40:
            await pilot.press("pagedown")
            await pilot.pause()
            pages += 1
        assert view.built_hits == hits
        # What shows after scrolling is the complete layout at that position (built all at once).
        shown = visible_rows(view)
        complete = [row.rstrip() for row in view.lines_text()]
        header = next(i for i, row in enumerate(complete) if row.startswith((" #1 ", "▌#1 ")))
        top = int(view.scroll_offset.y)
        assert top > 0
        # The cursor column aside (the cursor stayed on #1), row for row.
        assert [row[1:] for row in shown[header:]] == [
            row[1:] for row in complete[header + top :][: len(shown) - header]
        ]


@async_test
async def test_the_last_hit_is_built_and_shown_when_moved_to(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.screen.query_one(RankedChunksView)
        view.focus()
        await pilot.press("end")
        await pilot.pause()
        last = max(view.statuses)
        assert view.highlighted is not None and view.highlighted.rank == last
        assert any(row.startswith(f"▌#{last} ") for row in visible_rows(view))
