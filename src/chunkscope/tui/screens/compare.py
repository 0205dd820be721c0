"""The split view: configuration A left, B right, for the same question; documents scroll in step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

from chunkscope.analysis.diagnose import failure_detail
from chunkscope.analysis.tables import severed_rows
from chunkscope.model import Corpus, Question
from chunkscope.results import ConfigResult, QuestionResult, RankedChunk
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.base import SessionScreen, search_box, waiting_text
from chunkscope.tui.state.answers import InspectorAnswers
from chunkscope.tui.state.filters import LIST_ORDERS, ORDER_NAMES
from chunkscope.tui.state.rows import QuestionRow, status_of
from chunkscope.tui.state.session import Session
from chunkscope.tui.state.slots import Side, Slot
from chunkscope.tui.widgets.answer_lines import split_answer_line
from chunkscope.tui.widgets.config_bar import ConfigBar, SideLine
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.hop_lines import hops_line
from chunkscope.tui.widgets.question_list import move_mark
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.status_bar import StatusBar
from chunkscope.tui.widgets.structure_rows import page_gold_lines

SIDES: tuple[Side, Side] = ("a", "b")


def side_line(
    name: str,
    result: QuestionResult,
    shown: ConfigResult,
    corpus: Corpus | None = None,
    question: Question | None = None,
) -> Text:
    """``A ✂ lost · CUT: no chunk contains …`` for one side of the split view (with the table rows delivered
    without their header, given the ``corpus``, and, for a multi-hop ``question``, ``· hops 1 of 2 delivered ·
    missing: …``)."""
    status = status_of(result)
    text = Text()  # wraps: the reason's end (``cut at 800``) is the point
    text.append(f"{name} {status.glyph} {status.word}", style="bold")
    severed = severed_rows(result, corpus) if corpus is not None else ()
    detail = failure_detail(result, shown.config, severed=severed)
    text.append(f" · rank {result.first_correct_rank or '–'} · {detail}")
    hops = hops_line(question, result) if question is not None else ""
    if hops:
        text.append(f" · {hops}")
    return text


def compare_question_text(
    row: QuestionRow,
    shown_a: ConfigResult,
    shown_b: ConfigResult | None,
    answers: InspectorAnswers | None = None,
    corpus: Corpus | None = None,
) -> Text:
    """The selected question and how it moved from A to B, its page gold with each side's page hit, and (with
    ``answers``) the answer line."""
    text = Text()
    text.append(f"{row.question.id}", style="bold")
    text.append(f"  {' '.join(row.question.query.split())}")
    if row.move is not None:
        mark, _ = move_mark(row.move)
        notes: list[str] = [row.move.movement]
        if row.move.recovered:
            notes.append("recovered")
        if row.move.newly_lost:
            notes.append("newly lost")
        text.append(f"   {mark} {' · '.join(notes)}", style="bold")
    text.append("\n")
    text.append_text(side_line("A", row.result, shown_a, corpus, row.question))
    sides = [("A", row.result)]
    if row.result_b is not None and shown_b is not None:
        text.append("\n")
        text.append_text(side_line("B", row.result_b, shown_b, corpus, row.question))
        sides.append(("B", row.result_b))
    for line in page_gold_lines(row.question, sides):
        text.append(f"\n{line}", style="dim")
    if answers is not None:
        answer_sides = [("A", shown_a)] + ([("B", shown_b)] if shown_b is not None else [])
        text.append("\n")
        text.append_text(split_answer_line(row.question, answer_sides, answers))
    return text


class CompareScreen(SessionScreen):
    """A against B for the selected question; the list shows how each question moved."""

    CSS_PATH = "compare.tcss"
    VIEW = "compare"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.COMPARE)

    def __init__(self, session: Session) -> None:
        super().__init__(session, id="compare")
        self.side: Side = "b"
        self._syncing_ranked = False

    @property
    def editing_side(self) -> Side:
        return self.side

    def compose(self) -> ComposeResult:
        yield ConfigBar(id="compare-config")
        with Horizontal(id="compare-body"):
            with Vertical(id="compare-questions"):
                yield search_box("search: id or query text", "compare-search")
                yield self.new_question_list("compare-list")
            with Vertical(id="compare-detail"):
                yield FittedPanel(9 if self.session.multi_hop else 7, id="compare-question")
                with Horizontal(id="compare-ranked"):
                    yield RankedChunksView(id="compare-ranked-a")
                    yield RankedChunksView(id="compare-ranked-b")
                with Horizontal(id="compare-documents"):
                    yield DocumentView(id="compare-document-a")
                    yield DocumentView(id="compare-document-b")
        yield StatusBar(id="compare-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.apply_width(self.app.size.width)
        ranked_a, ranked_b = self._ranked("a"), self._ranked("b")
        self.watch(ranked_a, "scroll_y", lambda y: self._follow(ranked_b, y), init=False)
        self.watch(ranked_b, "scroll_y", lambda y: self._follow(ranked_a, y), init=False)

    def focus_detail(self) -> None:
        self._ranked(self.side).focus()

    def highlighted_hit(self) -> RankedChunk | None:
        focused = self.focused
        view = focused if isinstance(focused, RankedChunksView) else self._ranked(self.side)
        return view.highlighted

    def _ranked(self, side: Side) -> RankedChunksView:
        return self.query_one(f"#compare-ranked-{side}", RankedChunksView)

    def _document(self, side: Side) -> DocumentView:
        return self.query_one(f"#compare-document-{side}", DocumentView)

    def _slots(self) -> tuple[Slot, Slot]:
        assert self.session.b is not None
        return self.session.a, self.session.b

    def wanted_for_next(self, row: QuestionRow) -> bool:
        return row.failing or (row.result_b is not None and not row.result_b.complete)

    # -- syncing with the session

    def sync_session(self) -> None:
        session = self.session
        if session.b is None:
            return
        lines = [
            SideLine(name, slot.requested, slot.shown, slot.pending, editing=self.side == side)
            for name, side, slot in zip("AB", SIDES, self._slots(), strict=True)
        ]
        self.query_one(ConfigBar).show(session.dataset.name, len(session.questions), lines)
        self.sync_status()
        self.refresh_list()

    def sync_status(self) -> None:
        bar = self.query_one(StatusBar)
        session = self.session
        busy = any(slot.pending for slot in session.slots()) or (
            session.shown_pair() is not None and session.comparison() is None
        )
        bar.show_progress(session.progress if busy and session.evaluating else None)
        legend = "R recovered · L newly lost · ▲ better · ▼ worse · = same"
        where = self.where_text()
        bar.show_where(f"{where + ' · ' if where else ''}keys change {self.side.upper()} (t switches) · {legend}")
        self.sync_bindings()

    def show_detail(self, row: QuestionRow | None) -> None:
        a, b = self._slots()
        panel = self.query_one("#compare-question", FittedPanel)
        if row is None or a.shown is None:
            self._detail_key = None
            panel.show(waiting_text(self.session))
            if row is None:  # no question to show (a filter or search matches none): not the last one's panes
                for side in ("a", "b"):
                    self._ranked(side).clear()
                    self._document(side).clear()
            return
        key = (row.question.id, a.shown.config, b.shown.config if b.shown else None, row.move is not None)
        if key == self._detail_key:
            return
        self._detail_key = key
        corpus = self.session.dataset.corpus
        panel.show(
            compare_question_text(row, a.shown, b.shown, self.session.answers, corpus), hold=self.filling_in_burst
        )
        doc_id = row.question.gold_spans[0].doc
        sides: tuple[tuple[Side, ConfigResult | None], ...] = (("a", a.shown), ("b", b.shown))
        for side, shown in sides:
            if shown is None:
                continue
            # the shown result, not the row's: a row highlighted before new results came in is from the old ones
            result = shown.questions[row.index]
            self._ranked(side).show(row.question, result, shown.config, self.session.dataset.corpus)
            self.show_document(self._document(side), shown.config, result, doc_id)

    def reserve_panels(self, rows: Sequence[QuestionRow]) -> bool:
        a, b = self._slots()
        if a.shown is None:
            return False
        panel = self.query_one("#compare-question", FittedPanel)
        corpus = self.session.dataset.corpus
        return panel.reserve(
            [compare_question_text(row, a.shown, b.shown, self.session.answers, corpus) for row in rows]
        )

    def prepare_detail(self, row: QuestionRow) -> tuple[Callable[[], None], ...]:
        a, b = self._slots()
        sides: tuple[tuple[Side, ConfigResult | None], ...] = (("a", a.shown), ("b", b.shown))
        return tuple(
            work
            for side, shown in sides
            if shown is not None
            for work in self.panes_preparation(self._ranked(side), self._document(side), row, shown)
        )

    # -- panes in step

    def on_document_view_scrolled(self, message: DocumentView.Scrolled) -> None:
        """Keep the other side's document at the same text position."""
        other = self._document("b" if message.view.id == "compare-document-a" else "a")
        source = message.view.document
        if other.document is not None and source is not None and other.document.id == source.id:
            other.sync_scroll(message.scroll_y, message.offset)

    def _follow(self, other: RankedChunksView, y: float) -> None:
        if self._syncing_ranked:
            return
        self._syncing_ranked = True
        other.scroll_to(y=y, animate=False, immediate=True)
        self.call_after_refresh(self._end_ranked_sync)

    def _end_ranked_sync(self) -> None:
        self._syncing_ranked = False

    def on_ranked_chunks_view_chunk_highlighted(self, message: RankedChunksView.ChunkHighlighted) -> None:
        """The document on the same side follows the chunk."""
        side: Side = "b" if message.control.id == "compare-ranked-b" else "a"
        row = self.session.selected_row(self.VIEW)
        shown = self.session.slot(side).shown
        result = None if row is None else (row.result if side == "a" else row.result_b)
        if shown is not None and result is not None:
            self.follow_chunk(self._document(side), shown.config, result, message.chunk)

    # -- keys

    def action_toggle_side(self) -> None:
        """Switch which side the configuration keys change."""
        self.side = "a" if self.side == "b" else "b"
        self.sync_session()

    def action_sort_next(self) -> None:
        """Next list order: question order, biggest rank improvement first, biggest regression first."""
        view = self.session.views[self.VIEW]
        view.order = LIST_ORDERS[(LIST_ORDERS.index(view.order) + 1) % len(LIST_ORDERS)]
        if view.order != "default" and self.session.comparison() is None:
            self.notify("The comparison is still computing: the list is sorted once it arrives.")
        else:
            self.notify(f"Sorted: {ORDER_NAMES[view.order]}.")
        self.refresh_list()

    def action_swap(self) -> None:
        """Exchange A and B."""
        a, b = self._slots()
        self.app.post_message(messages.ConfigRequested("a", b.requested))
        self.app.post_message(messages.ConfigRequested("b", a.requested))
