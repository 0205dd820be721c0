"""A vertical scrollbar repainted only where its picture changes, for the inspector's scroll views.

Textual repaints a scrollbar whole whenever its position or sizes change, and painting one
costs about as much per row as a row of text. Stepping through questions changes them on every
step (the list scrolls by one row; the ranked chunks and the document get a new length), yet
the thumb of a 4,000-row list moves one eighth of a cell every dozen rows: most steps change
nothing in the picture, and the others one or two rows.
"""

from __future__ import annotations

from typing import Self

from rich.color import Color
from rich.segment import Segment, Segments
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender

Picture = tuple[Size, tuple[Segment, ...]]
"""What a vertical scrollbar shows: its size and one segment per row (text and style)."""


class QuietScrollBar(ScrollBar):
    """A vertical scrollbar whose plain refreshes repaint only the rows whose segments changed."""

    _painted: Picture | None = None
    """The picture as last asked to be painted (None: unknown, paint all)."""

    def picture(self) -> Picture | None:
        """The rows the next paint would show, computed as ``ScrollBarRender`` lays them out; None when the
        bar is not the stock renderer's (then every refresh repaints)."""
        renderable = self.render()
        if not isinstance(renderable, ScrollBarRender) or not isinstance(renderable.style, Style):
            return None
        width, height = self.size
        style = renderable.style
        bar = renderable.render_bar(
            size=height,
            virtual_size=renderable.virtual_size,
            window_size=renderable.window_size,
            position=renderable.position,
            thickness=width,
            vertical=True,
            back_color=style.bgcolor or Color.parse("#555555"),
            bar_color=style.color or Color.parse("bright_magenta"),
        )
        assert isinstance(bar, Segments)
        return self.size, tuple(bar.segments)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if regions or layout or recompose or not repaint or not self.is_mounted or not self.vertical:
            self._painted = None
            return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)
        picture = self.picture()
        painted, self._painted = self._painted, picture
        if picture is None or painted is None or painted[0] != picture[0] or len(painted[1]) != len(picture[1]):
            return super().refresh()
        changed = [y for y, (old, new) in enumerate(zip(painted[1], picture[1], strict=True)) if old != new]
        if changed:
            width = picture[0].width
            super().refresh(*(Region(0, y, width, 1) for y in changed))
        return self


class QuietScrollView(ScrollView):
    """A scroll view whose vertical scrollbar is a :class:`QuietScrollBar`."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        # Widget.vertical_scrollbar with the quiet bar: Textual makes the bar the first time it is asked for.
        if self._vertical_scrollbar is None:
            bar = QuietScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar
