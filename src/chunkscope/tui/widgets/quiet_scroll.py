"""Scroll views that repaint only what changed: scrollbar rows, and rows whose content was painted before.

Textual repaints a scrollbar whole whenever its position or sizes change, and painting one
costs about as much per row as a row of text. Stepping through questions changes them on every
step (the list scrolls by one row; the ranked chunks and the document get a new length), yet
the thumb of a 4,000-row list moves one eighth of a cell every dozen rows: most steps change
nothing in the picture, and the others one or two rows.

A scroll repaints every row of the view, each through Textual's styling (borders, padding,
colour filters) and compositing, though all but one show content painted a step before, one
row up: the finished row of a content strip painted before is reused wherever it shows now.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Self

from rich.color import Color
from rich.segment import Segment, Segments
from rich.style import Style
from rich.terminal_theme import TerminalTheme
from textual import events
from textual._ansi_theme import DEFAULT_TERMINAL_THEME
from textual._styles_cache import RenderLineCallback, StylesCache
from textual.color import Color as TextualColor
from textual.content import Content
from textual.css.styles import StylesBase
from textual.dom import NoScreen
from textual.filter import LineFilter
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style as ContentStyle

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


Label = tuple[Content, TextualColor, TextualColor, ContentStyle]
"""A border title or subtitle as Textual's styling takes it."""
_RowArguments = tuple[StylesBase, Size, Size, Spacing, TextualColor, TextualColor]
"""Styles, size, content size, padding, base background and background of a content row."""
_LabelArguments = tuple[Label | None, Label | None, float, TerminalTheme, bool]
"""Border title, border subtitle, opacity, ANSI theme and native ANSI of a content row."""


def _constant(content: Strip) -> Callable[[int], Strip]:
    return lambda _: content


class ReusingStylesCache(StylesCache):
    """Textual's styling of a widget's rows, reusing the finished row of a content strip styled before.

    A content row's finished form (left and right borders, padding, tint, the colour filters after it)
    depends only on its content strip and on what every row of the widget shares (sizes, colours,
    styles): those are compared once per paint, and the rows kept while they stay the same.
    """

    KEPT = 4096
    """Finished rows kept (a few screens of rows, and those of the questions the screen prepares ahead, at
    about 45 rows a question); the least recently used go first."""

    def __init__(self) -> None:
        super().__init__()
        self._finished: OrderedDict[int, tuple[Strip, Strip]] = OrderedDict()
        """id(content strip) -> (that strip, its finished row): the strip is held so its id stays its own."""
        self._shared: tuple[object, ...] | None = None
        self._content_rows = range(0)
        self._finishing: tuple[_RowArguments, _LabelArguments] | None = None
        """The last paint's arguments of a content row (without the row and its content), to finish ahead."""
        self._filtering: tuple[Sequence[LineFilter], TextualColor] | None = None
        """The last paint's colour filters and the background they were applied over."""

    def render(
        self,
        styles: StylesBase,
        size: Size,
        base_background: TextualColor,
        background: TextualColor,
        render_content_line: RenderLineCallback,
        filters: Sequence[LineFilter],
        border_title: tuple[Content, TextualColor, TextualColor, ContentStyle] | None,
        border_subtitle: tuple[Content, TextualColor, TextualColor, ContentStyle] | None,
        content_size: Size | None = None,
        padding: Spacing | None = None,
        crop: Region | None = None,
        opacity: float = 1.0,
        ansi_theme: TerminalTheme = DEFAULT_TERMINAL_THEME,
        native_ansi: bool = False,
    ) -> list[Strip]:
        shared = (
            size,
            content_size,
            padding,
            base_background,
            background,
            opacity,
            native_ansi,
            ansi_theme,
            styles.border,
            styles.outline,
            styles.tint,
            styles.text_opacity,
            styles.hatch if styles.has_rule("hatch") else None,
        )
        if shared != self._shared:
            self._shared = shared
            self._finished.clear()
        gutter = styles.gutter
        height = size.height
        first, last = gutter.top, height - gutter.bottom
        if styles.outline.top[0]:
            first = max(first, 1)
        if styles.outline.bottom[0]:
            last = min(last, height - 1)
        self._content_rows = range(first, min(last, first + (content_size or size).height))
        self._filtering = (filters, background)
        return super().render(
            styles,
            size,
            base_background,
            background,
            render_content_line,
            filters,
            border_title,
            border_subtitle,
            content_size=content_size,
            padding=padding,
            crop=crop,
            opacity=opacity,
            ansi_theme=ansi_theme,
            native_ansi=native_ansi,
        )

    def render_line(
        self,
        styles: StylesBase,
        y: int,
        size: Size,
        content_size: Size,
        padding: Spacing,
        base_background: TextualColor,
        background: TextualColor,
        render_content_line: Callable[[int], Strip],
        border_title: tuple[Content, TextualColor, TextualColor, ContentStyle] | None,
        border_subtitle: tuple[Content, TextualColor, TextualColor, ContentStyle] | None,
        opacity: float,
        ansi_theme: TerminalTheme,
        native_ansi: bool,
    ) -> Strip:
        arguments = (styles, y, size, content_size, padding, base_background, background)
        labels = (border_title, border_subtitle, opacity, ansi_theme, native_ansi)
        if y not in self._content_rows:
            return super().render_line(*arguments, render_content_line, *labels)
        self._finishing = ((styles, size, content_size, padding, base_background, background), labels)
        content = render_content_line(y - self._content_rows.start)
        kept = self._finished.get(id(content))
        if kept is not None and kept[0] is content:
            self._finished.move_to_end(id(content))
            return kept[1]
        finished = super().render_line(*arguments, lambda _: content, *labels)
        self._keep(content, finished)
        return finished

    def _keep(self, content: Strip, finished: Strip) -> None:
        self._finished[id(content)] = (content, finished)
        self._finished.move_to_end(id(content))
        if len(self._finished) > self.KEPT:
            self._finished.popitem(last=False)  # the row used longest ago (a prepared one was just added)

    def forget(self) -> None:
        """Drop every finished row kept."""
        self._finished.clear()

    def finish_ahead(self, contents: Iterable[Strip], cuts: Sequence[int] | None = None) -> None:
        """Finish content strips a later paint most likely shows (rows prepared while the user reads), as the
        last paint finished its content rows, colour filters included, and divided at ``cuts`` (where the
        compositor will cut the filtered row, if known). A content row's finished form does not depend on
        where it is (only borders and padding rows do); a paint whose shared values differ drops these rows as
        it drops every kept one, and other cuts only miss the divided pieces (strips cache them by cuts)."""
        if self._finishing is None or self._filtering is None or not self._content_rows:
            return
        (styles, size, content_size, padding, base_background, background), labels = self._finishing
        filters, filter_background = self._filtering
        row = self._content_rows.start
        for content in contents:
            kept = self._finished.get(id(content))
            if kept is not None and kept[0] is content:
                continue
            finished = StylesCache.render_line(
                self,
                styles,
                row,
                size,
                content_size,
                padding,
                base_background,
                background,
                _constant(content),
                *labels,
            )
            filtered = finished
            for line_filter in filters:
                filtered = filtered.apply_filter(line_filter, filter_background)  # each strip keeps its result
            if cuts is not None:
                filtered.divide(cuts)  # kept by the filtered strip too
            self._keep(content, finished)


class QuietScrollView(ScrollView):
    """A scroll view whose vertical scrollbar is a :class:`QuietScrollBar` and whose rows are styled
    through a :class:`ReusingStylesCache`."""

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None, disabled: bool = False
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._styles_cache = ReusingStylesCache()

    class Resized(Message):
        """The view's size changed: rows prepared at the old size will not be shown."""

    def _on_resize(self, event: events.Resize) -> None:
        # Textual calls this besides a subclass's own on_resize (one handler per class of the MRO).
        self.post_message(self.Resized())

    @property
    def prepared_for(self) -> Hashable:
        """What rows prepared ahead depend on besides what they show: when it changes they are prepared again."""
        return self.size

    def forget_rows(self) -> None:
        """Drop the rows kept for reuse (other results are shown now: theirs would only take memory)."""
        cache = self._styles_cache
        if isinstance(cache, ReusingStylesCache):
            cache.forget()

    def finish_rows_ahead(self, rows: Iterable[Strip]) -> None:
        """Style content rows a later paint most likely shows now (see :meth:`ReusingStylesCache.finish_ahead`)."""
        cache = self._styles_cache
        if isinstance(cache, ReusingStylesCache):
            cache.finish_ahead(rows, self._row_cuts())

    def _row_cuts(self) -> list[int] | None:
        """Where the compositor divides this view's rows, relative to the view, as the screen is laid out now:
        at every edge of a widget over its first content row (its scrollbar's among them). None when the
        view is not on the screen's map."""
        try:
            compositor = self.screen._compositor
            region, clip = compositor.visible_widgets[self]
        except (KeyError, NoScreen):
            return None
        shown = region.intersection(clip)
        row = shown.y + self.styles.gutter.top
        if not shown.width or not shown.y <= row < shown.bottom:
            return None
        first, last = shown.column_span
        edges = [cut for cut in compositor.cuts[row] if last >= cut >= first]
        return [cut - shown.x for cut in edges[1:]]

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        # Widget.vertical_scrollbar with the quiet bar: Textual makes the bar the first time it is asked for.
        if self._vertical_scrollbar is None:
            bar = QuietScrollBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar
