"""DocumentView: one document with chunk boundaries, gold spans, cuts and ranks, rendered line by line.

Only visible lines are rendered (Textual's Line API). Each document is wrapped to
the widget width once per (document, width, marks) and each rendered line is kept
in an LRU cache keyed by what changes its look, so scrolling a 300k-character
document re-renders nothing it has shown before.

Glyphs carry every meaning and colour repeats it:

- ``│`` a chunk boundary, ``«`` / ``»`` where an overlap (text in two chunks) starts / ends;
  consecutive chunks alternate shading, overlaps have their own.
- ``⟦`` ``⟧`` a gold span; ``✂`` a boundary inside a gold span that no chunk holds whole.
- In the gutter: the starting offset of each paragraph's first line; for an extracted document (a structure
  map), ``p. 3`` where page 3 starts and the kind of each block where it starts (``h2``, ``list``, ``table``;
  paragraphs unmarked), dimmed, and ``⊣`` on a table row the result delivered without its header row; and ``●#n`` /
  ``○#n``, a retrieved chunk's rank, delivered / not delivered, on the line that starts
  with the chunk. A ranked chunk starting mid-line begins a new visual line, so a rank tag
  never touches the text (``+`` after a tag: more ranked chunks start on that line). When
  the chunk starts inside a word of a spaced script, the line starts with that word (up to
  ``cells.WORD_LOOK_BACK`` characters back) and the boundary mark sits inside it
  (``●#1 soft✂ware``): words stay whole. CJK text breaks at the boundary itself.

Paragraphs are the hard lines: each line terminator ends one, and so does each
paragraph span the loader recorded (``Document.paragraphs``: SQuAD joins an
article's paragraphs without a separator).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from chunkscope.analysis.marks import TextMarks
from chunkscope.model import Chunk, Document, Question
from chunkscope.results import QuestionResult
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.cells import WrappedText
from chunkscope.tui.widgets._marked_text import (
    DELIVERED,
    DUPLICATE,
    GAP,
    GOLD,
    GOLD_PARTIAL,
    ODD,
    OVERLAP,
    QUERY,
)
from chunkscope.tui.widgets.component_styles import ComponentStyles
from chunkscope.tui.widgets.document_layers import SEVERED_TAG, ChunkLayer, RenderState, render_state
from chunkscope.tui.widgets.quiet_scroll import QuietScrollView
from chunkscope.tui.widgets.scroll_size import set_scroll_size

LEGEND = "│ chunk boundary · «» overlap · ⟦gold⟧ · ✂ cut · gutter: offset, ●#n rank sent, ○#n not sent"

STATES_KEPT = 96
"""Render states kept at most (one per question shown or prepared ahead)."""
STATE_CHARACTERS_KEPT = 4_000_000
"""Characters of document the kept render states may span together: each holds arrays over its whole document
(about 12 bytes a character), so many states are kept for short documents and few for long ones (48 MiB)."""


class _KeptStates:
    """The render states last used, at most STATES_KEPT spanning at most STATE_CHARACTERS_KEPT characters
    together (the last one used is always kept)."""

    def __init__(self) -> None:
        self._states: OrderedDict[Hashable, RenderState] = OrderedDict()
        self._characters = 0

    def get(self, key: Hashable) -> RenderState | None:
        state = self._states.get(key)
        if state is not None:
            self._states.move_to_end(key)
        return state

    def set(self, key: Hashable, state: RenderState) -> None:
        previous = self._states.pop(key, None)
        if previous is not None:
            self._characters -= len(previous.layer.document.text)
        self._states[key] = state
        self._characters += len(state.layer.document.text)
        while len(self._states) > 1 and (len(self._states) > STATES_KEPT or self._characters > STATE_CHARACTERS_KEPT):
            _, dropped = self._states.popitem(last=False)
            self._characters -= len(dropped.layer.document.text)

    def clear(self) -> None:
        self._states.clear()
        self._characters = 0

    def __len__(self) -> int:
        return len(self._states)


class DocumentView(QuietScrollView, can_focus=True):
    """Scrollable view of one document showing chunk boundaries, gold spans, cuts and ranks."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.DOCUMENT)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "document-view--chunk-even",
        "document-view--chunk-odd",
        "document-view--overlap",
        "document-view--gap",
        "document-view--gold",
        "document-view--gold-cut",
        "document-view--cut",
        "document-view--boundary",
        "document-view--rank",
        "document-view--rank-delivered",
        "document-view--query",
        "document-view--duplicate",
        "document-view--delivered",
        "document-view--gutter",
        "document-view--structure",
        "document-view--severed",
        "document-view--highlight",
    }

    class Scrolled(Message):
        """The user scrolled the view (not posted for programmatic scrolls)."""

        def __init__(self, view: DocumentView, scroll_y: float, offset: int) -> None:
            super().__init__()
            self.view = view
            self.scroll_y = scroll_y
            """New vertical scroll position in lines."""
            self.offset = offset
            """Character offset at the top line, to follow a view whose lines wrap differently."""

        @property
        def control(self) -> DocumentView:
            """The view that scrolled."""
            return self.view

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None, disabled: bool = False
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._state: RenderState | None = None
        # Sized for the questions the screen prepares ahead (about 80, a screen of lines each, in a few documents).
        self._states = _KeptStates()
        self._layers: LRUCache[Hashable, ChunkLayer] = LRUCache(32)
        self._lines: LRUCache[Hashable, Strip] = LRUCache(4096)
        self._styles = ComponentStyles(self, "document-view")
        self._quiet_scrolls = 0
        self._pending_focus: int | None = None
        self._pending_top: int | None = None
        self._highlight: tuple[int, int] | None = None
        self._layout_width = 0
        self._frame: tuple[int, int, int] | None = None

    # ----------------------------------------------------------------- public API

    @property
    def document(self) -> Document | None:
        """The document shown, if any."""
        return self._state.document if self._state else None

    @property
    def marks(self) -> TextMarks | None:
        """The marks of what is shown (offsets into the document text)."""
        return self._state.marks if self._state else None

    def show(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        result: QuestionResult | None,
        question: Question | None,
        focus_offset: int | None = None,
    ) -> None:
        """Display ``document`` with the boundaries of ``chunks`` (other documents' chunks are
        ignored), the question's gold spans and the result's ranks, then scroll to ``focus_offset``.

        Without ``focus_offset``: when the document or the question changed, scroll to the
        first gold span in the document (else the best-ranked chunk in it, else the top);
        otherwise (another configuration of the same question) keep the text at the top line.
        """
        previous = self._state
        same_place = (
            previous is not None
            and previous.document.id == document.id
            and (previous.question.id if previous.question else None) == (question.id if question else None)
        )
        keep_offset = self.top_offset() if same_place and self._layout() is not None else None
        state = self._state_for(document, chunks, result, question)
        self._state = state
        self._highlight = None
        pages = len(document.structure.pages) if document.structure is not None else 0
        count = f" · {pages} page{'s' if pages != 1 else ''}" if pages else ""
        self.border_title = f"{document.title or document.id}{count} · {LEGEND}"
        if focus_offset is not None:
            self._pending_focus = focus_offset
            self._pending_top = None
        elif keep_offset is not None:
            self._pending_focus = None
            self._pending_top = keep_offset
        else:
            self._pending_focus = self._default_focus(state.marks)
            self._pending_top = None
        self._relayout()

    def prepare(
        self, document: Document, chunks: Sequence[Chunk], result: QuestionResult | None, question: Question | None
    ) -> None:
        """Compute what showing this would (marks, wrapped lines) and render the lines it would show first,
        into the caches: showing it later draws cached lines (the screen prepares the questions a key most
        likely shows next while the user reads this one)."""
        self._check_styles()
        width = self.scrollable_content_region.width
        if width <= 0:
            return
        state = self._state_for(document, chunks, result, question)
        text_width = max(1, width - self._gutter_width_of(state))
        layout = state.layout(text_width)
        height = self.scrollable_content_region.height
        # Where show() scrolls a question new to the view: its focus a third down, within the scroll range.
        focus_line = layout.line_of(self._default_focus(state.marks))
        top = max(0, min(focus_line - height // 3, layout.line_count - height))
        lines = range(top, min(layout.line_count, top + height))
        self.finish_rows_ahead([self._line_strip(state, layout, line, width, text_width, False) for line in lines])

    def _state_for(
        self, document: Document, chunks: Sequence[Chunk], result: QuestionResult | None, question: Question | None
    ) -> RenderState:
        """The render state of showing this, cached (by the identity of what is shown)."""
        key = (document.id, id(chunks), id(result), id(question))
        state = self._states.get(key)
        if state is None:
            state = render_state(self._layers, document, chunks, result, question)
            self._states.set(key, state)
        return state

    def clear(self) -> None:
        """Show nothing (e.g. when no question is selected)."""
        self._state = None
        self._highlight = None
        self._pending_focus = self._pending_top = None
        self.border_title = ""
        self.virtual_size = Size(0, 0)
        self._quiet_scroll(0, animate=False)
        self.refresh()

    def scroll_to_offset(self, offset: int, *, animate: bool = False) -> None:
        """Scroll so the line holding character ``offset`` is about a third down the view."""
        layout = self._layout()
        if layout is None:
            self._pending_focus = offset
            return
        line = layout.line_of(offset)
        self._quiet_scroll(max(0, line - self.scrollable_content_region.height // 3), animate=animate)

    def highlight_chunk(self, chunk: Chunk | None, *, scroll: bool = True) -> None:
        """Mark the lines of ``chunk`` in the gutter (``None`` clears) and scroll to its start."""
        if chunk is None or self._state is None or chunk.doc != self._state.document.id:
            self._highlight = None
        else:
            self._highlight = (chunk.start, chunk.end)
            if scroll:
                self.scroll_to_offset(chunk.start)
        self.refresh()

    def sync_scroll(self, y: float, offset: int | None = None) -> None:
        """Follow another view's scroll without posting :class:`Scrolled` back.

        With ``offset`` (from :class:`Scrolled`) the view aligns that character to its
        top line, which stays right when the two views wrap differently.
        """
        layout = self._layout()
        if offset is not None and layout is not None:
            y = layout.line_of(offset)
        self._quiet_scroll(y, animate=False)

    def mark_offsets(self) -> list[int]:
        """Offsets worth jumping to: gold span starts and cuts, ascending."""
        marks = self.marks
        if marks is None:
            return []
        return sorted({g.start for g in marks.gold} | set(marks.cuts))

    def action_next_mark(self) -> None:
        """Scroll to the first gold start or cut after the one a third down the view."""
        self._jump_mark(forward=True)

    def action_previous_mark(self) -> None:
        """Scroll to the last gold start or cut before the one a third down the view."""
        self._jump_mark(forward=False)

    def _jump_mark(self, forward: bool) -> None:
        layout = self._layout()
        offsets = self.mark_offsets()
        if layout is None or not offsets:
            return
        anchor_line = min(layout.line_count - 1, int(self.scroll_offset.y) + self.scrollable_content_region.height // 3)
        anchor = layout.owned(anchor_line)
        if forward:
            target = next((o for o in offsets if o >= anchor[1]), None)
        else:
            target = next((o for o in reversed(offsets) if o < anchor[0]), None)
        if target is not None:
            self.scroll_to_offset(target)

    def top_offset(self) -> int:
        """Offset of the first character on the top visible line."""
        layout = self._layout()
        if layout is None:
            return 0
        line = min(int(self.scroll_offset.y), layout.line_count - 1)
        return int(layout.starts[line])

    # ----------------------------------------------------------------- layout

    def _default_focus(self, marks: TextMarks) -> int:
        if marks.gold:
            return marks.gold[0].start
        if marks.ranks:
            return min(marks.ranks, key=lambda r: r.rank).offset
        return 0

    def _text_width(self) -> int:
        return max(1, self.scrollable_content_region.width - self._gutter_width())

    def _gutter_width(self) -> int:
        """Offset digits, a space, the rank column and a space (when there are ranks), the highlight mark."""
        return 0 if self._state is None else self._gutter_width_of(self._state)

    @staticmethod
    def _gutter_width_of(state: RenderState) -> int:
        ranks, labels = state.rank_cells, state.layer.label_cells
        return len(str(len(state.document.text))) + 2 + (labels + 1 if labels else 0) + (ranks + 1 if ranks else 0)

    def _layout(self) -> WrappedText | None:
        if self._state is None or self.scrollable_content_region.width <= 0:
            return None
        return self._state.layout(self._text_width())

    def _relayout(self) -> None:
        """Recompute lines for the current width and restore the pending focus."""
        layout = self._layout()
        if layout is None:
            set_scroll_size(self, Size(0, 0))
            return
        width = self.scrollable_content_region.width
        self._layout_width = width
        # No layout of the screen per question: the vertical scrollbar is always shown (overflow-y: scroll).
        set_scroll_size(self, Size(width, layout.line_count))
        if self._pending_focus is not None:
            focus, self._pending_focus = self._pending_focus, None
            self.scroll_to_offset(focus)
        elif self._pending_top is not None:
            top, self._pending_top = self._pending_top, None
            self._quiet_scroll(layout.line_of(top), animate=False)
        self.refresh()

    def on_resize(self) -> None:
        if self._state is None or self.scrollable_content_region.width == self._layout_width:
            return
        if self._pending_focus is None and self._pending_top is None and self._layout_width:
            old = self._state.layouts.get(max(1, self._layout_width - self._gutter_width()))
            if old is not None:
                line = min(int(self.scroll_offset.y), old.line_count - 1)
                self._pending_top = int(old.starts[line])
        self._relayout()

    # ----------------------------------------------------------------- scrolling

    def _quiet_scroll(self, y: float, *, animate: bool) -> None:
        self._quiet_scrolls += 1
        self.scroll_to(y=y, animate=animate, immediate=True, force=True)
        self.call_after_refresh(self._end_quiet)

    def _end_quiet(self) -> None:
        self._quiet_scrolls = max(0, self._quiet_scrolls - 1)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value) and not self._quiet_scrolls and self._state is not None:
            self.post_message(self.Scrolled(self, new_value, self.top_offset()))

    # ----------------------------------------------------------------- styles

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.invalidate()

    def _check_styles(self) -> None:
        """Drop cached lines when the look changed (theme, CSS), not on every restyle."""
        if self._styles.check():
            self._lines.clear()

    def forget_rows(self) -> None:
        super().forget_rows()
        self._states.clear()
        self._layers.clear()
        self._lines.clear()

    @property
    def prepared_for(self) -> Hashable:
        self._check_styles()
        return (self.size, self._styles.generation)

    def _code_style(self, code: int) -> Style:
        return self._styles.cached(("code", code), lambda: self._build_code_style(code))

    def _build_code_style(self, code: int) -> Style:
        styles = self._styles
        style = styles.base
        if code & GAP:
            style += styles.layer("gap")
        elif code & OVERLAP:
            style += styles.layer("overlap")
        else:
            style += styles.layer("chunk-odd" if code & ODD else "chunk-even")
        if code & DELIVERED:
            style += styles.layer("delivered")
        if code & DUPLICATE:
            style += styles.layer("duplicate")
        if code & (GOLD | GOLD_PARTIAL):
            style += styles.layer("gold" if code & GOLD else "gold-cut")
        if code & QUERY:
            style += styles.layer("query", background=False)
        return style

    # ----------------------------------------------------------------- rendering

    def render_lines(self, crop: Region) -> list[Strip]:
        # The geometry every line needs, measured once per paint: each measure walks up the DOM.
        self._frame = self._measure()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _measure(self) -> tuple[int, int, int]:
        """(content width, text width, top line) for rendering lines now."""
        self._check_styles()
        width = self.scrollable_content_region.width
        return width, max(1, width - self._gutter_width()), int(self.scroll_offset.y)

    def render_line(self, y: int) -> Strip:
        width, text_width, top = self._frame or self._measure()
        state = self._state
        layout = state.layout(text_width) if state is not None and width > 0 else None
        line = top + y
        if layout is None or state is None or line >= layout.line_count:
            return Strip.blank(width, self._styles.base)
        start, end = layout.owned(line)
        marked = self._highlight is not None and start < self._highlight[1] and end > self._highlight[0]
        return self._line_strip(state, layout, line, width, text_width, marked)

    def _line_strip(
        self, state: RenderState, layout: WrappedText, line: int, width: int, text_width: int, marked: bool
    ) -> Strip:
        """One line: gutter and text, from the line cache when drawn before."""
        key = (state.serial, line, width, text_width, marked, self._styles.generation)
        strip = self._lines.get(key)
        if strip is None:
            segments = self._gutter_segments(state, layout, line, text_width, marked)
            segments += self._text_segments(state, layout, line)
            strip = Strip(segments).adjust_cell_length(width, self._styles.base)
            self._lines.set(key, strip)
        return strip

    def _gutter_segments(
        self, state: RenderState, layout: WrappedText, line: int, text_width: int, marked: bool
    ) -> list[Segment]:
        """The paragraph's starting offset on its first line, the structure label of a page or element starting
        on the line, the rank tag of a chunk starting on the line, the highlight mark of the chunk picked in the
        ranked list."""
        gutter = self._gutter_width_of(state)
        start = layout.owned(line)[0]
        number = f"{start}" if state.layer.starts_paragraph(layout, line) else ""
        gutter_style = self._styles.component("gutter")
        labels = state.layer.label_cells
        digits = gutter - 2 - (labels + 1 if labels else 0) - (state.rank_cells + 1 if state.rank_cells else 0)
        segments = [Segment(number.rjust(digits) + " ", gutter_style)]
        if labels:
            label = state.structure_tags(text_width).get(line, "")
            kind = "severed" if label == SEVERED_TAG else "structure"
            segments += [
                Segment(label, self._styles.component(kind)),
                Segment(" " * (labels - len(label) + 1), gutter_style),
            ]
        if state.rank_cells:
            tag, kind = state.rank_tags(text_width).get(line, ("", "gutter"))
            segments += [
                Segment(tag, self._styles.component(kind)),
                Segment(" " * (state.rank_cells - cell_len(tag) + 1), gutter_style),
            ]
        marker, marker_style = ("▌", self._styles.component("highlight")) if marked else (" ", gutter_style)
        segments.append(Segment(marker, marker_style))
        return segments

    def _text_segments(self, state: RenderState, layout: WrappedText, line: int) -> list[Segment]:
        """One line of document text with its marker glyphs."""
        start, owned_end = layout.owned(line)
        return state.text.segments(start, int(layout.ends[line]), owned_end, self._code_style, self._styles.component)
