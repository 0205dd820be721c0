"""A text panel as tall as its wrapped lines, laid out again only when that height changes."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static


class FittedPanel(Static):
    """Shows a text in as many lines as it wraps to at the panel's width (at most ``most``), so the end of a
    long reason (``cut at 800``) is never cut off.

    The screen is laid out again only when the height changes (a layout of the whole screen costs tens of
    milliseconds on a large question set); a text shown while the panel has no width yet (hidden, or not
    laid out) is fitted when it gets one.
    """

    def __init__(self, most: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.most = most
        self._text = Text()

    def show(self, text: Text, shrink: bool = True) -> None:
        """Show ``text``; ``shrink`` False (keys in a burst) keeps a taller panel as it is, a blank line at the
        end, until the next fit that may shrink."""
        self._text = text
        self.update(text, layout=False)
        self._fit(shrink)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(shrink=True)

    def _fit(self, shrink: bool) -> None:
        width = self.content_size.width
        if width <= 0:
            return  # fitted when it gets a width (on_resize)
        height = max(1, min(self.most, len(self._text.wrap(self.app.console, width))))
        current = self.styles.height.value if self.styles.height is not None else None
        if current != height and (shrink or current is None or height > current):
            self.styles.height = height
