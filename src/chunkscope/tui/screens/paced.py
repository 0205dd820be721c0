"""The selection's detail panes, paced to the keys: filled at once for a single key, at a pace during a burst of
keys, and prepared ahead (the questions the next keys most likely show) while the user reads.

:class:`PacedScreen` holds the timing; :class:`~chunkscope.tui.screens.base.SessionScreen` builds the question
views on it and says what showing and preparing a question is (``show_detail``, ``prepare_detail``).
"""

from __future__ import annotations

import statistics
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import ClassVar

from textual import events
from textual.timer import Timer

from chunkscope.tui.collector import BETWEEN_PIECES, collect_young
from chunkscope.tui.screens.synced import SyncedScreen
from chunkscope.tui.state.filters import ViewName
from chunkscope.tui.state.rows import QuestionRow
from chunkscope.tui.state.session import Session
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.quiet_scroll import QuietScrollView

BURST_GAP = 0.04
"""Keys typed closer together than this (seconds) are a burst (key repeat, fast tapping)."""
BURST_FILL_SHARE = 3.0
"""In a burst the detail panes are filled at most once per this many times a fill's typical cost. Painting what a
fill changed costs about as much again, so fills and their paints take at most about two thirds of the time and
the keys always get the rest: keys typed faster than the panes can follow never queue up behind them."""
FILL_COSTS_KEPT = 5
"""The last fills whose median cost is a fill's typical cost (one slow fill, a collection say, is not typical)."""
PREPARE_AFTER = 0.05
"""Seconds after the detail panes are filled (and painted) before the likely next questions are prepared."""
RESIZE_WAIT = 0.1
"""Seconds the preparation waits for the panes to report their new size after a panel grew for the next question."""
READ_AHEAD = 64
"""Questions prepared ahead of the selection the way the last key stepped (n, N or an arrow), after the neighbours,
while the user reads: a held key or fast taps, at any rate, go through these with prepared fills (about two
seconds of key repeat). Past them a fill costs its full price until the keys pause and the preparation catches
up: preparing between the keys of a burst was measured to make them wait. At 160x45 a question costs about 0.9 MB
of Python objects; the panes' caches are sized to hold them."""
PREPARED_KEPT = READ_AHEAD + 16
"""Questions remembered as prepared (older ones are prepared again: the panes' caches may have let them go)."""


def _any_row(row: QuestionRow) -> bool:
    return True


def _with_last(works: Sequence[Callable[[], None]]) -> Iterator[tuple[bool, Callable[[], None]]]:
    """Each of ``works`` with whether it is the last."""
    for index, work in enumerate(works):
        yield index == len(works) - 1, work


class PacedScreen(SyncedScreen):
    """A screen showing the selected question in detail panes that follow the keys at a pace they can keep."""

    VIEW: ClassVar[ViewName] = "inspect"
    """Which of the session's view states (filter, selection order) this screen steps through."""

    def __init__(self, session: Session, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(session, name=name, id=id)
        self._fill_costs: deque[float] = deque(maxlen=FILL_COSTS_KEPT)
        """How long the last fills of the detail panes took (seconds)."""
        self._to_prepare: deque[tuple[str, Callable[[], None], bool]] = deque()
        """The preparation work still to do, a few milliseconds each, one piece per turn of the message loop:
        (question id, work, whether it is the question's last piece)."""
        self._prepared: OrderedDict[str, None] = OrderedDict()
        """The questions prepared for ``_prepared_in``, most recent last (at most PREPARED_KEPT)."""

    _detail_due = False
    """The detail panes are to be filled (a callback is queued)."""
    _status_due = False
    """The status line is to show the selection with the next fill of the detail panes (keys came in a burst)."""
    _fill_timer: Timer | None = None
    """Fills the detail panes for the latest selection once a burst's fill interval has passed."""
    _pause_timer: Timer | None = None
    """Ends the burst when no key came for BURST_GAP: the panels may shrink again."""
    _key_typed_at = 0.0
    """When the last key reached this screen was typed (``time.monotonic``, the event's time)."""
    _key_handled_at = 0.0
    """When that key reached this screen (``time.monotonic``)."""
    _in_burst = False
    """That key came less than BURST_GAP after the one before."""
    _filled_at = 0.0
    """When the detail panes were last filled (``time.monotonic``)."""
    _detail_key: tuple[object, ...] | None = None
    """What the detail panes show (question and configurations): unchanged, they are not filled again."""
    filling_in_burst = False
    """The detail panes are being filled while keys still come in a burst (their panels keep their height)."""
    refocus_document = False
    """The next fill scrolls the document to the gold (the panes were hidden when last filled)."""
    _prepare_timer: Timer | None = None
    """Starts preparing the likely next questions' detail once the panes are filled and painted."""
    _prepare_serial = 0
    """Counts the chains of preparation pieces: a piece of a chain stopped or superseded does nothing."""
    _prepared_in: tuple[Hashable, Hashable] | None = None
    """What the questions in ``_prepared`` were prepared for (the results shown, the panes' sizes and looks)."""
    _preparing_again = False
    """A pane was resized: the preparation starts again after the next refresh."""
    _last_step: tuple[bool, int] | None = None
    """The last key's step through the list: (to a row n / N stops at, 1 or -1); None after a jump."""

    # -- what subclasses provide

    def show_detail(self, row: QuestionRow | None) -> None:
        """Show the selected question in the detail panes (None: nothing selected)."""
        raise NotImplementedError

    def prepare_detail(self, row: QuestionRow) -> tuple[Callable[[], None], ...]:
        """Work (each piece a few milliseconds) after which showing ``row`` in the detail panes costs little:
        what showing it computes, into the panes' caches. None by default."""
        return ()

    def reserve_panels(self, rows: Sequence[QuestionRow]) -> bool:
        """Let the detail's panels grow now to fit ``rows`` (the question the same key would show next), so
        stepping on lays the screen out only while the user reads; True when one grew. Nothing by default."""
        return False

    def wanted_for_next(self, row: QuestionRow) -> bool:
        """Rows that n / N stop at."""
        return row.failing

    # -- filling the detail panes

    def refill_detail(self, refocus: bool = False) -> None:
        """Fill the detail panes again once laid out at their new width (after the next refresh);
        ``refocus``: they were hidden, so the document scrolls to the gold as for a new question."""
        self._detail_key = None
        self.refocus_document = self.refocus_document or refocus
        self._detail_due = True
        self.filling_in_burst = False
        self.call_after_refresh(self._show_selection)

    def on_key(self, event: events.Key) -> None:
        # When the keys were typed (not when they are handled): a burst is keys typed close together.
        self._in_burst = event.time - self._key_typed_at < BURST_GAP
        self._key_typed_at = event.time
        self._key_handled_at = time.monotonic()  # Textual's event clock is not time.monotonic everywhere

    def selection_changed(self) -> None:
        """The model's selection changed: the list's cursor has moved; the status line and the detail panes follow
        at once, or, in a burst of keys, together when the panes are next filled (see schedule_detail)."""
        self._stop_preparing()
        # Textual repaints the box around all changed regions: a paint of the list and the full-width status
        # line draws every line of the detail panes again. So the status line changes with the panes: in a
        # burst, the frames between fills hold the list's column alone.
        if self._in_burst:
            self._status_due = True
            self.schedule_detail(burst=True)
        else:
            # One key at a time: the panes are filled in this turn, so the list, the status line and the
            # panes change in one paint.
            self.sync_status()
            self._show_selection()

    def schedule_detail(self, burst: bool = False) -> None:
        """Fill the detail panes for the selection: next, or, while keys come in a burst (``burst``: typed
        less than BURST_GAP apart), at most once per fill interval, for the latest selection.

        Keys move the selection, the list's cursor and the status line at once (cheap); the panes cost
        milliseconds to fill and paint, so keys typed faster than that do not each wait behind panes nobody
        will see: the panes follow at a pace (a throttle, not a wait for the keys to stop), showing the
        selection the keys reached whenever they are filled. Keys slower than a fill get every question shown.
        """
        if burst:
            self._watch_for_pause()
            wait = self._filled_at + BURST_FILL_SHARE * self.typical_fill_seconds - time.monotonic()
            if wait > 0:
                if self._fill_timer is None:
                    self._fill_timer = self.set_timer(wait, self._fill_in_burst)
                return
        if not self._detail_due:
            self._detail_due = True
            self.filling_in_burst = burst  # the panel keeps its height while keys still come
            self.call_later(self._show_selection)

    def fill_detail(self) -> None:
        """Fill the detail panes for the selection now (a fill already scheduled is done with it)."""
        self.filling_in_burst = False
        self._show_selection()

    def _fill_in_burst(self) -> None:
        self._fill_timer = None
        self.filling_in_burst = True
        self._show_selection()

    def _watch_for_pause(self) -> None:
        # One timer per burst, not one restarted per key (a timer is a task of its own): it looks again when
        # it fires.
        if self._pause_timer is None:
            self._pause_timer = self.set_timer(BURST_GAP, self._burst_paused)

    def _burst_paused(self) -> None:
        """No key for BURST_GAP: panels kept tall during the burst may shrink to the text they show."""
        quiet_for = time.monotonic() - self._key_handled_at
        if quiet_for < BURST_GAP:
            self._pause_timer = self.set_timer(BURST_GAP - quiet_for, self._burst_paused)
            return
        self._pause_timer = None
        self.filling_in_burst = False
        for panel in self.query(FittedPanel):
            panel.settle()
        self._prepare_soon()  # preparing between the keys of a burst was measured to make them wait

    @property
    def typical_fill_seconds(self) -> float:
        """The median cost of the last fills of the detail panes (0 before the first)."""
        return statistics.median(self._fill_costs) if self._fill_costs else 0.0

    @property
    def detail_pending(self) -> bool:
        """The detail panes are still to be filled for the current selection."""
        return self._detail_due or self._fill_timer is not None

    @property
    def settling(self) -> bool:
        """Something delayed is still to change on screen: the detail panes, a panel's shrink."""
        return (
            self.detail_pending
            or self._pause_timer is not None
            or any(panel.shrink_pending for panel in self.query(FittedPanel))
        )

    def _show_selection(self) -> None:
        self._detail_due = False
        if self._status_due:
            self._status_due = False
            self.sync_status()
        if self._fill_timer is not None:
            self._fill_timer.stop()
            self._fill_timer = None
        if self.is_mounted:
            started = time.monotonic()
            self.show_detail(self.session.selected_row(self.VIEW))
            self.refocus_document = False
            self._filled_at = time.monotonic()
            self._fill_costs.append(self._filled_at - started)
            if not self.filling_in_burst:  # in a burst, once the keys pause (_burst_paused)
                self._prepare_soon()

    # -- preparing the questions a key will most likely show next (while the user reads this one)

    def _prepare_soon(self) -> None:
        """Prepare the likely next questions' detail once this one is painted, unless a key comes first."""
        self._stop_preparing()
        self._prepare_timer = self.set_timer(PREPARE_AFTER, self._start_preparing)

    @property
    def preparing(self) -> bool:
        """The likely next questions' detail is still to be prepared (or being prepared)."""
        return self._prepare_timer is not None or bool(self._to_prepare) or self._preparing_again

    def on_quiet_scroll_view_resized(self, message: QuietScrollView.Resized) -> None:
        # A pane changed size (a panel above it shrank or grew, the terminal was resized): what was prepared
        # at the old size would not be shown, so prepare again now that the screen is laid out. (Rows already
        # prepared at this size are found in the caches: a second pane's report costs little.)
        if not self.detail_pending:
            self._stop_preparing()
            self._preparing_again = True
            self.call_after_refresh(self._start_preparing)

    def _stop_preparing(self) -> None:
        if self._prepare_timer is not None:
            self._prepare_timer.stop()
            self._prepare_timer = None
        self._to_prepare.clear()
        self._prepare_serial += 1

    def _start_preparing(self) -> None:
        self._prepare_timer = None
        if time.monotonic() - self._key_handled_at < BURST_GAP:
            # Keys are coming (a layout at a burst's start reports resized panes): prepare once they pause.
            self._prepare_soon()
            return
        self._preparing_again = False
        collect_young()  # no key waits: the garbage of the last steps goes now, not in the next
        likely = self._likely_next()
        if self.reserve_panels(() if likely is None else (likely,)):
            # The panes below get shorter at the next layout: prepare at their new size, when they report it
            # (on_quiet_scroll_view_resized), or after RESIZE_WAIT should none change.
            self._prepare_timer = self.set_timer(RESIZE_WAIT, self._start_preparing)
            return
        rows = self.session.neighbours(self.VIEW, self.wanted_for_next)
        if likely is not None:  # the question the same key shows first: keys may come before the rest is done
            rows = (likely, *rows)
        self._queue_preparation((*rows, *self._rows_ahead()))
        self._prepare_next(self._prepare_serial)

    def _likely_next(self) -> QuestionRow | None:
        """The row the same key as the last one would select: the user steps on the way they stepped."""
        if self._last_step is None:
            return None
        to_wanted, step = self._last_step
        return self.session.step_target(self.VIEW, step, self.wanted_for_next if to_wanted else _any_row)

    def _rows_ahead(self) -> tuple[QuestionRow, ...]:
        """The READ_AHEAD rows the last key, pressed again and again, would select. None after a jump (a search,
        a click, a page): nobody holds a key that did not step, and preparing 64 questions after every jump
        would keep the interpreter busy for half a second each time."""
        if self._last_step is None:
            return ()
        to_wanted, step = self._last_step
        return self.session.ahead(self.VIEW, step, self.wanted_for_next if to_wanted else _any_row, READ_AHEAD)

    def _queue_preparation(self, rows: Iterable[QuestionRow]) -> None:
        """Queue the pieces that prepare ``rows`` in turn, leaving out the rows already prepared (for what the
        panes show now: other results, sizes or looks start afresh)."""
        context = self._preparation_context()
        if context != self._prepared_in:
            if self._prepared_in is None or self._prepared_in[0] != context[0]:
                # Other results: what was kept for the last ones (up to READ_AHEAD questions of rows) goes.
                for pane in self.query(QuietScrollView):
                    pane.forget_rows()
            self._prepared_in = context
            self._prepared.clear()
        queued: set[str] = set()
        for row in rows:
            question_id = row.question.id
            if question_id in self._prepared or question_id in queued:
                continue
            queued.add(question_id)
            works = self.prepare_detail(row)
            self._to_prepare.extend((question_id, work, last) for last, work in _with_last(works))

    def _preparation_context(self) -> tuple[Hashable, Hashable]:
        """What prepared detail depends on besides its question: the results shown, the panes' sizes and looks."""
        shown = tuple(id(slot.shown) for slot in self.session.slots())
        return shown, tuple(pane.prepared_for for pane in self.query(QuietScrollView))

    def _prepare_next(self, serial: int) -> None:
        """One piece of the preparation, then the next after the keys typed meanwhile.

        The next piece goes through the app's message queue, where the keys arrive, not through this screen's:
        the screen's loop takes its queued callbacks one after another without letting the app's task run, so
        a chain of pieces there would hold the keys back.
        """
        if serial != self._prepare_serial or not self.is_mounted:
            return
        if self.session.evaluating:
            # New results are coming, and the panes are prepared afresh for them; meanwhile the pieces would
            # only take the interpreter from the worker computing them.
            self._to_prepare.clear()
            return
        if not self._to_prepare:
            return
        question_id, work, last = self._to_prepare.popleft()
        work()
        if last:
            self._prepared[question_id] = None
            self._prepared.move_to_end(question_id)
            if len(self._prepared) > PREPARED_KEPT:
                self._prepared.popitem(last=False)
        collect_young(BETWEEN_PIECES)
        if self._to_prepare:
            self.app.call_later(self._prepare_next, serial)
