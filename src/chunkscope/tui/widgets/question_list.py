"""The question list: one line per question with its status glyph, rank state and cause (or movement).

A Line API widget: only visible rows are rendered, so filtering thousands of questions is a
tuple swap. Widths are terminal cells (Japanese queries take two cells per character).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.strip import Strip

from chunkscope.analysis.answers import AnswerRow
from chunkscope.analysis.compare import QuestionMove, state_of
from chunkscope.analysis.diagnose import FailureCause
from chunkscope.analysis.fragility import FRAGILE_MARK, NEARBY_MARK, FragilityRow
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.cells import pad, truncate
from chunkscope.tui.state.answers import ANSWER_MARKS
from chunkscope.tui.state.rows import APPROXIMATE_MARK, QuestionRow, Status, approximate_matches
from chunkscope.tui.widgets.hop_lines import hop_mark
from chunkscope.tui.widgets.quiet_scroll import QuietScrollView

ID_WIDTH_LIMIT = 16
STATE_WIDTH = 4
"""Cells of the state column, widened to the longest state shown (``pieces``)."""
CAUSE_WIDTH = 13
HOPS_WIDTH = 3
"""Cells of the hop-count column (``1/2``), widened to the longest count shown; only for multi-hop sets."""
QUERY_ROOM = 16
"""Cells the query keeps at least before the cause column is shown."""

STATUS_CLASSES = {
    Status.PIECES: "question-list--pieces",
    Status.LOST: "question-list--lost",
    Status.MISSED: "question-list--missed",
    Status.PARTIAL: "question-list--partial",
    Status.COMPLETE: "question-list--complete",
}


def move_mark(move: QuestionMove | None) -> tuple[str, str]:
    """One-cell movement mark and its component class: R recovered, L newly lost, ▲ better, ▼ worse, = same."""
    if move is None:
        return " ", "question-list--dim"
    if move.recovered:
        return "R", "question-list--better"
    if move.newly_lost:
        return "L", "question-list--worse"
    if move.movement == "better":
        return "▲", "question-list--better"
    if move.movement == "worse":
        return "▼", "question-list--worse"
    return "=", "question-list--dim"


FRAGILITY_CLASSES = {FRAGILE_MARK: "question-list--fragile", NEARBY_MARK: "question-list--nearby"}
"""Component class of each fragility mark (a space, robust OK or not OK, has none)."""


def fragility_mark(fragility: FragilityRow | None) -> tuple[str, str | None]:
    """The core's one-cell fragility mark (``~`` fragile OK, ``+`` OK nearby, else a space) and its class."""
    mark = fragility.mark if fragility is not None else " "
    return mark, FRAGILITY_CLASSES.get(mark)


ANSWER_CLASSES = {
    "ok": "question-list--complete",
    "generation": "question-list--worse",
    "retrieval": "question-list--missed",
    "unsupported": "question-list--partial",
}
"""Component class of each attribution class's mark (colour repeats the letter, never replaces it)."""


def answer_mark(answer: AnswerRow | None) -> tuple[str, str | None]:
    """The one-cell mark of a question's attribution (``o`` ok, ``g`` generation, ``r`` retrieval,
    ``u`` unsupported; a space without an answer) and its class."""
    if answer is None:
        return " ", None
    return ANSWER_MARKS[answer.attribution], ANSWER_CLASSES[answer.attribution]


def text_cells(text: str) -> int:
    """Terminal cells of ``text`` (printable ASCII takes one per character; measuring it is slow)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def single_line(text: str) -> str:
    """Text shown on one line: line breaks and tabs become spaces."""
    return " ".join(text.split())


class QuestionList(QuietScrollView, can_focus=True):
    """Questions with their state; the cursor row is the selected question."""

    DEFAULT_CSS = (Path(__file__).with_suffix(".tcss")).read_text(encoding="utf-8")

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "question-list--cursor",
        "question-list--pieces",
        "question-list--lost",
        "question-list--missed",
        "question-list--partial",
        "question-list--complete",
        "question-list--better",
        "question-list--worse",
        "question-list--dim",
        "question-list--fragile",
        "question-list--nearby",
    }

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.LIST)

    def __init__(
        self,
        *,
        on_move: Callable[[QuestionRow], None] | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: tuple[QuestionRow, ...] = ()
        self.cursor = -1
        self.compare = False
        self.marks_fragility = False
        """The rows carry fragility: a mark column follows the status glyph."""
        self.marks_answers = False
        """The rows carry answers attributed under the shown configuration: a mark column follows."""
        self.marks_hops = False
        """The question set has multi-hop questions: a hop-count column follows the state (single view)."""
        self._hops_width = HOPS_WIDTH
        self.on_move = on_move
        """Called with the new row when the user moves the cursor (keys, mouse), in the same turn: the
        selection model must follow a key before the next key is handled, which a message would not."""
        self._id_width = 4
        self._state_width = STATE_WIDTH
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        """Rendered rows by (index, width, cursor, focus); cleared on new rows and when the styles change."""
        self._base_styles: dict[bool, Style] = {}
        """The list's style with and without focus, until the styles change."""
        self._layered_styles: dict[tuple[Style, str], Style] = {}
        """A base style with a component class's style over it, until the styles change."""
        self._queries: LRUCache[tuple[str, int], str] = LRUCache(4096)
        """Each query as one line cut to a width (measuring Japanese text cell by cell is slow)."""
        self._frame: tuple[int, int, bool] | None = None
        """(width, top row, focused) while a paint renders rows."""

    @property
    def current(self) -> QuestionRow | None:
        """The row under the cursor."""
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def show(
        self,
        rows: Sequence[QuestionRow],
        selected_id: str | None,
        compare: bool = False,
        answers: bool = False,
        hops: bool = False,
    ) -> QuestionRow | None:
        """Show ``rows`` with the cursor on ``selected_id`` (the first row when it is not among them); ``answers``:
        the rows carry answers (the mark column stays when none of those listed is answered); ``hops``: the
        question set has multi-hop questions (the hop-count column stays when no listed question misses a hop).

        Returns the row under the cursor; the caller owns the selection, so nothing is announced.
        """
        self.rows = tuple(rows)
        self.compare = compare
        self.marks_fragility = not compare and any(row.fragility is not None for row in self.rows)
        self.marks_answers = not compare and (answers or any(row.answer is not None for row in self.rows))
        self.marks_hops = not compare and hops
        if self.marks_hops:
            self._hops_width = max([HOPS_WIDTH, *(len(hop_mark(row.result)) for row in self.rows)])
        self._strips.clear()
        # Thousands of rows on every change of configuration: ids are measured the cheap way when ASCII,
        # and each distinct state (a handful) once.
        self._id_width = min(ID_WIDTH_LIMIT, max((text_cells(r.question.id) for r in self.rows), default=4))
        states = {row.state for row in self.rows}
        if compare:
            states.update(state_of(row.result_b) for row in self.rows if row.result_b is not None)
        self._state_width = max([STATE_WIDTH, *(cell_len(state) for state in states)])
        self.virtual_size = Size(self.size.width, len(self.rows))
        self.refresh()
        self.cursor = -1
        index = next((i for i, row in enumerate(self.rows) if row.question.id == selected_id), 0)
        self._place_cursor(index)
        # A list that grew (a filter cleared) can scroll only once its new height is laid out: until then the
        # scroll above stops at the old, shorter end, and the cursor row may lie below the window.
        self.call_after_refresh(self._scroll_to_cursor)
        return self.current

    def _scroll_to_cursor(self) -> None:
        if 0 <= self.cursor < len(self.rows):
            self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, immediate=True)

    def select(self, question_id: str, index: int | None = None) -> bool:
        """Move the cursor to a question (at ``index`` when the caller knows it); False when not listed.

        Nothing is announced: the caller changed the selection and the list follows it.
        """
        if index is None or not 0 <= index < len(self.rows) or self.rows[index].question.id != question_id:
            index = next((i for i, row in enumerate(self.rows) if row.question.id == question_id), None)
        if index is None:
            return False
        self._place_cursor(index)
        return True

    def _place_cursor(self, index: int) -> None:
        if not self.rows:
            self.cursor = -1
            self.refresh()
            return
        index = max(0, min(index, len(self.rows) - 1))
        if index != self.cursor:
            # Only the old and the new cursor row change (a scroll below redraws the rest).
            if self.cursor >= 0:
                self.refresh_line(self.cursor)
            self.cursor = index
            self.refresh_line(index)
        self.scroll_to_region(Region(0, index, 1, 1), animate=False, immediate=True)

    def _move_cursor(self, index: int) -> None:
        """A move by the user: place the cursor and tell the owner of the selection at once."""
        if not self.rows:
            return
        self._place_cursor(index)
        row = self.current
        if row is not None and self.on_move is not None:
            self.on_move(row)

    def action_move(self, step: int) -> None:
        """Cursor up or down by ``step`` rows."""
        if self.rows:
            self._move_cursor(self.cursor + step)

    def action_page(self, direction: int) -> None:
        """Cursor one page up or down."""
        if self.rows:
            self._move_cursor(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, index: int) -> None:
        """Cursor to the first (0) or last (-1) row."""
        if self.rows:
            self._move_cursor(index if index >= 0 else len(self.rows) - 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and self.rows:
            index = offset.y + int(self.scroll_y)
            if index < len(self.rows):
                self._move_cursor(index)

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, len(self.rows))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._base_styles.clear()
        self._layered_styles.clear()

    def _base_style(self) -> Style:
        """The list's own style (``rich_style`` walks the ancestors: costly for every row of a scroll)."""
        focused = self.has_focus
        style = self._base_styles.get(focused)
        if style is None:
            style = self._base_styles[focused] = self.rich_style
        return style

    def render_lines(self, crop: Region) -> list[Strip]:
        # Measured once per paint (each measure walks up the DOM), not once per row.
        self._frame = (self.scrollable_content_region.width, int(self.scroll_y), self.has_focus)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        width, top, focused = self._frame or (self.scrollable_content_region.width, int(self.scroll_y), self.has_focus)
        index = y + top
        if index >= len(self.rows):
            return Strip.blank(width, self._base_style())
        row = self.rows[index]
        key = (index, width, index == self.cursor, focused)
        strip = self._strips.get(key)
        if strip is None:
            base = self._base_style()
            strip = Strip(self._row_segments(row, width, base)).adjust_cell_length(width, base)
            if index == self.cursor:
                strip = strip.apply_style(self.get_component_rich_style("question-list--cursor"))
            self._strips.set(key, strip)
        return strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _row_segments(self, row: QuestionRow, width: int, base: Style) -> list[Segment]:
        """The cells of one row; every segment carries a full style (NO_COLOR filters need one)."""

        def styled(name: str) -> Style:
            style = self._layered_styles.get((base, name))
            if style is None:
                style = self._layered_styles[(base, name)] = base + self.get_component_rich_style(name)
            return style

        segments = [Segment(" ", base), Segment(row.status.glyph, styled(STATUS_CLASSES[row.status]))]
        if self.compare:
            state_b = state_of(row.result_b) if row.result_b is not None else "…"
            glyph_b = (row.status_b.glyph, styled(STATUS_CLASSES[row.status_b])) if row.status_b else (" ", base)
            mark, mark_class = move_mark(row.move)
            segments += [
                Segment(*glyph_b),
                Segment(" ", base),
                Segment(mark, styled(mark_class)),
                Segment(" " + pad(row.question.id, self._id_width), base),
                Segment(" " + pad(row.state, self._state_width) + " " + pad(state_b, self._state_width), base),
            ]
        else:
            if self.marks_fragility:
                fragile, fragile_class = fragility_mark(row.fragility)
                segments.append(Segment(fragile, styled(fragile_class) if fragile_class else base))
            if self.marks_answers:
                answered, answer_class = answer_mark(row.answer)
                segments.append(Segment(answered, styled(answer_class) if answer_class else base))
            segments += [
                Segment(" " + pad(row.question.id, self._id_width), base),
                Segment(" " + pad(row.state, self._state_width), base),
            ]
            if self.marks_hops:  # 1/2: hops delivered of the question's hops, when some hop is missing
                hops = hop_mark(row.result)
                segments.append(Segment(" " + pad(hops, self._hops_width), styled("question-list--partial")))
            # The cause column only when the query keeps some room: in a narrow list the detail names it.
            if width - sum(segment.cell_length for segment in segments) - CAUSE_WIDTH - 2 >= QUERY_ROOM:
                cause = "" if row.cause is FailureCause.OK else row.cause.value.lower()
                segments.append(Segment(" " + pad(cause, CAUSE_WIDTH), styled("question-list--dim")))
        used = sum(segment.cell_length for segment in segments)
        room = width - used - 1
        if room > 0:
            key = (row.question.id, room)
            query = self._queries.get(key)
            if query is None:
                # ≈: the gold was located approximately, as the ranked chunks' header says (same test).
                approximate = f"{APPROXIMATE_MARK} " if approximate_matches(row.result) else ""
                query = " " + truncate(approximate + single_line(row.question.query), room)
                self._queries.set(key, query)
            segments.append(Segment(query, base))
        return segments
