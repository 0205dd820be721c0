"""A text panel as tall as its wrapped lines, laid out again only when that height changes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.timer import Timer
from textual.widgets import Static

SHRINK_DELAY = 1.0
"""Seconds after the last text shown that a taller panel than its text needs shrinks (a layout of the screen).
Longer than the usual key-repeat delay (0.5 to 0.66 s): a held key's repeats must not start with a layout."""


LINE_COUNTS_KEPT = 256
"""Texts whose wrapped line count is kept (dropped all at once beyond that: each costs a wrap to measure again)."""


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
        self._shrink_timer: Timer | None = None
        self._reserved = 0
        """Lines kept for the texts the next keys most likely show (:meth:`reserve`)."""
        self._line_counts: dict[tuple[str, int], int] = {}

    def show(self, text: Text, hold: bool = False) -> None:
        """Show ``text``. A panel that grows does so at once (the text is never cut); one that shrinks does so
        ``SHRINK_DELAY`` after the last text shown, so stepping through questions of different lengths lays
        the screen out only when a question needs more lines than shown.

        ``hold`` (keys in a burst): keep the height as it is, neither growing nor shrinking, until
        :meth:`settle`. Each change of height lays the whole screen out, which costs more than the time
        between repeated keys; the few frames of a burst may cut a taller text, the pause shows it whole.
        """
        self._text = text
        self._reserved = 0
        self.update(text, layout=False)
        if not hold:
            self._fit(at_once=False)
        elif self._shrink_timer is not None:  # a shrink due from before the burst waits for it to end
            self._shrink_timer.stop()
            self._shrink_timer = None

    def settle(self) -> None:
        """The keys of a burst stopped: the panel fits its text, growing at once or shrinking ``SHRINK_DELAY``
        from now."""
        self._fit(at_once=False)

    def reserve(self, texts: Sequence[Text]) -> bool:
        """Grow now, while the user reads, to fit the tallest of ``texts`` (the texts the next keys most likely
        show, at most ``most`` lines), and shrink no further until the next text is shown: showing one of them
        then lays nothing out. True when the panel grew (the screen is laid out again at the next refresh)."""
        width = self.content_size.width
        if width <= 0:
            return False
        self._reserved = max((self._lines_of(text, width) for text in texts), default=0)
        current = self.styles.height.value if self.styles.height is not None else None
        if current is not None and self._reserved > current:
            self.styles.height = self._reserved
            return True
        return False

    def on_resize(self, event: events.Resize) -> None:
        self._fit(at_once=True)

    def _fit(self, at_once: bool) -> None:
        width = self.content_size.width
        if width <= 0:
            return  # fitted when it gets a width (on_resize)
        height = max(self._lines_of(self._text, width), self._reserved)
        current = self.styles.height.value if self.styles.height is not None else None
        if self._shrink_timer is not None:
            self._shrink_timer.stop()
            self._shrink_timer = None
        if current is None or height > current or (at_once and height < current):
            self.styles.height = height
        elif height < current:
            self._shrink_timer = self.set_timer(SHRINK_DELAY, self._shrink)

    def _lines_of(self, text: Text, width: int) -> int:
        # Wrapping depends on the characters and the width, not the styles: a text reserved for is measured once.
        key = (text.plain, width)
        lines = self._line_counts.get(key)
        if lines is None:
            lines = max(1, min(self.most, len(text.wrap(self.app.console, width))))
            if len(self._line_counts) >= LINE_COUNTS_KEPT:
                self._line_counts.clear()
            self._line_counts[key] = lines
        return lines

    @property
    def shrink_pending(self) -> bool:
        """A shrink is waiting for ``SHRINK_DELAY`` to pass (tests wait for it before a snapshot)."""
        return self._shrink_timer is not None

    def _shrink(self) -> None:
        self._shrink_timer = None
        self._fit(at_once=True)
