"""Setting a scroll view's scrollable size without laying the whole screen out again."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_scroll_size(view: ScrollView, size: Size) -> None:
    """Give ``view`` the scrollable ``size`` and refresh it, without a layout of the screen.

    Assigning ``virtual_size`` asks for a layout of the whole screen (tens of milliseconds on a large
    question set, on every step). For a view whose vertical scrollbar is always shown (``overflow-y:
    scroll``) and that never scrolls sideways, a new size changes nothing but the scrollbar and the
    scroll range, which ``_scroll_update`` sets, as a layout would.
    """
    if size != view.virtual_size:
        view.set_reactive(Widget.virtual_size, size)
        view._scroll_update(size)
    view.refresh()
