"""Quiet scroll views paint what Textual's own scroll views paint: rows, borders and scrollbar, whatever
was reused or skipped on the way."""

from __future__ import annotations

from pilot_helpers import async_test
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from chunkscope.tui.widgets.quiet_scroll import QuietScrollBar, QuietScrollView

CSS = """
ScrollView, QuietScrollView { width: 24; height: 12; border: round red; overflow-y: scroll; overflow-x: hidden; }
"""


def row_strip(view: ScrollView, rows: tuple[str, ...], y: int) -> Strip:
    """Row ``y`` of the view scrolled as it is, the same Strip object each time it is asked for."""
    index = y + int(view.scroll_y)
    cache: dict[tuple[int, str], Strip] = view.__dict__.setdefault("strips", {})
    text = rows[index] if index < len(rows) else ""
    key = (index, text)
    if key not in cache:
        cache[key] = Strip([Segment(text.ljust(view.scrollable_content_region.width)[:21])])
    return cache[key]


class StockRows(ScrollView):
    rows: tuple[str, ...] = ()

    def render_line(self, y: int) -> Strip:
        return row_strip(self, self.rows, y)


class QuietRows(QuietScrollView):
    rows: tuple[str, ...] = ()

    def render_line(self, y: int) -> Strip:
        return row_strip(self, self.rows, y)


class Pair(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield StockRows()
            yield QuietRows()

    def views(self) -> tuple[StockRows, QuietRows]:
        return self.query_one(StockRows), self.query_one(QuietRows)

    def show(self, rows: tuple[str, ...]) -> None:
        for view in self.views():
            view.rows = rows
            view.virtual_size = Size(22, len(rows))
            view.refresh()


def painted(widget: Widget) -> list[list[Segment]]:
    """What the next screen refresh shows of ``widget``: every row, from its caches where it has them."""
    return [list(strip) for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


@async_test
async def test_a_quiet_view_paints_as_textual_does_through_scrolls_and_new_lengths() -> None:
    app = Pair()
    async with app.run_test(size=(60, 16)) as pilot:
        stock, quiet = app.views()
        assert isinstance(quiet.vertical_scrollbar, QuietScrollBar)
        steps = [("rows", 400), *(("scroll", y) for y in (1, 2, 3, 9, 10, 30, 200, 388, 387)), ("rows", 37)]
        steps += [("scroll", y) for y in (0, 5, 25, 24)] + [("rows", 5), ("rows", 3000), ("scroll", 1500)]
        for kind, value in steps:
            if kind == "rows":
                app.show(tuple(f"row {n} of {value}" for n in range(value)))
            else:
                for view in (stock, quiet):
                    view.scroll_to(y=value, animate=False, immediate=True)
            await pilot.pause()
            assert painted(quiet) == painted(stock), (kind, value)
            assert painted(quiet.vertical_scrollbar) == painted(stock.vertical_scrollbar), (kind, value)


@async_test
async def test_a_quiet_scrollbar_skips_repaints_that_change_nothing() -> None:
    app = Pair()
    async with app.run_test(size=(60, 16)) as pilot:
        app.show(tuple(f"row {n}" for n in range(4000)))
        await pilot.pause()
        bar = app.views()[1].vertical_scrollbar
        assert isinstance(bar, QuietScrollBar)
        picture = bar.picture()
        bar.position += 1  # 1/4000 of the range: the thumb stays in the same eighth of a cell
        assert bar.picture() == picture
        assert not bar._repaint_regions and not bar._dirty_regions
