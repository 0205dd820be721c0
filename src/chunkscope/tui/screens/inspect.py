"""The single view: question list, ranked chunks and the evidence document for one configuration."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

from chunkscope.analysis.diagnose import failure_detail
from chunkscope.analysis.fragility import neighbours
from chunkscope.analysis.tables import severed_rows
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Corpus
from chunkscope.results import Config, RankedChunk
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.anatomy import AnatomyScreen, explainer_for
from chunkscope.tui.screens.base import SessionScreen, search_box, waiting_text
from chunkscope.tui.screens.whatif import WhatIfScreen
from chunkscope.tui.state.rows import QuestionRow
from chunkscope.tui.state.session import Session
from chunkscope.tui.widgets.answer_lines import answer_text
from chunkscope.tui.widgets.config_bar import ConfigBar, SideLine
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.hop_lines import HOPS_LEGEND, hops_line
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.status_bar import StatusBar
from chunkscope.tui.widgets.structure_rows import page_gold_lines


def question_line(row: QuestionRow, config: Config, corpus: Corpus | None = None) -> Text:
    """``✂ q39 · query`` and, below, the state and the core's one-line reason (with the table rows delivered
    without their header, given the ``corpus``; for a multi-hop question, its hops delivered and the missing ones by
    name), and the page gold (``gold: p. 12 of report.pdf``) if any."""
    text = Text(no_wrap=False)
    text.append(f"{row.status.glyph} ", style="bold")
    text.append(row.question.id, style="bold")
    text.append(f"  {' '.join(row.question.query.split())}\n")
    text.append(f"{row.status.word} · {row.cause.value}: ", style="dim")
    severed = severed_rows(row.result, corpus) if corpus is not None else ()
    text.append(failure_detail(row.result, config, severed=severed), style="dim italic")
    hops = hops_line(row.question, row.result)
    if hops:  # multi-hop questions only: every other question reads as before
        text.append(f"\n{hops}")
    for line in page_gold_lines(row.question, [("", row.result)]):
        text.append(f"\n{line}", style="dim")
    return text


class InspectScreen(SessionScreen):
    """One configuration: which questions fail, and why, one question at a time."""

    CSS_PATH = "inspect.tcss"
    VIEW = "inspect"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.INSPECT)

    def __init__(self, session: Session) -> None:
        super().__init__(session, id="inspect")

    def compose(self) -> ComposeResult:
        yield ConfigBar(id="inspect-config")
        with Horizontal(id="inspect-body"):
            with Vertical(id="inspect-questions"):
                yield search_box("search: id or query text (enter keeps it, esc clears)", "inspect-search")
                yield self.new_question_list("inspect-list")
            with Vertical(id="inspect-detail"):
                yield FittedPanel(6 if self.session.multi_hop else 4, id="inspect-question")
                answer = FittedPanel(6, id="inspect-answer")
                answer.display = self.session.answers is not None  # only with --answers: no line otherwise
                yield answer
                yield RankedChunksView(id="inspect-ranked")
                yield DocumentView(id="inspect-document")
        yield StatusBar(id="inspect-status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.apply_width(self.app.size.width)

    def focus_detail(self) -> None:
        self.query_one(RankedChunksView).focus()

    def highlighted_hit(self) -> RankedChunk | None:
        return self.query_one(RankedChunksView).highlighted

    def action_fragility(self) -> None:
        """Compute the fragility of the shown configuration in the background (esc cancels)."""
        session = self.session
        shown = session.a.shown
        if shown is None or session.a.pending:
            self.notify("Fragility needs the shown results: wait for the evaluation.", severity="warning")
            return
        if session.fragility(shown.config) is not None:
            self.notify(f"Fragility of {shown.config.label} is shown: f lists fragile OK and robust OK.")
            return
        try:
            count = len(neighbours(shown.config))
        except ChunkscopeError as error:
            self.notify(str(error), title="Fragility", severity="warning", markup=False)
            return
        session.fragility_wanted = shown.config
        self.notify(f"Evaluating {count} neighbours of {shown.config.label} (esc cancels).", markup=False)
        self.app.post_message(messages.FragilityRequested())

    def sync_session(self) -> None:
        session = self.session
        self.query_one(ConfigBar).show(
            session.dataset.name,
            len(session.questions),
            [SideLine("", session.a.requested, session.a.shown, session.a.pending)],
        )
        self.sync_status()
        self.refresh_list()

    def sync_status(self) -> None:
        bar = self.query_one(StatusBar)
        bar.show_progress(self.session.progress if self.session.evaluating else None)
        where = self.where_text()
        if self.has_fragility:
            where += f"{' · ' if where else ''}~ fragile OK · + OK nearby"
        if self.session.multi_hop:
            where += f"{' · ' if where else ''}{HOPS_LEGEND}"
        note = self.answers_note()
        if note:
            where += f"{' · ' if where else ''}{note}"
        bar.show_where(where)
        self.sync_bindings()

    def answers_note(self) -> str:
        """The status line's reading of the answer marks, or whose answers they are under another configuration."""
        answers, shown = self.session.answers, self.session.a.shown
        if answers is None or shown is None:
            return ""
        if answers.belongs_to(shown.config):
            return "answers: o ok · g generation · r retrieval · u unsupported"
        return f"answers of {answers.config.label} (not attributed here)"

    def show_detail(self, row: QuestionRow | None) -> None:
        shown = self.session.a.shown
        question_panel = self.query_one("#inspect-question", FittedPanel)
        if row is None or shown is None:
            self._detail_key = None
            question_panel.show(waiting_text(self.session))
            self.query_one("#inspect-answer", FittedPanel).show(Text())
            if row is None:  # no question to show (a filter or search matches none): not the last one's panes
                self.query_one(RankedChunksView).clear()
                self.query_one(DocumentView).clear()
            return
        key = (row.question.id, shown.config)
        if key == self._detail_key:
            return
        self._detail_key = key
        config = shown.config
        # the shown result, not row.result: a row highlighted before new results came in is from the old ones
        result = shown.questions[row.index]
        corpus = self.session.dataset.corpus
        question_panel.show(question_line(row, config, corpus), hold=self.filling_in_burst)
        answers = self.session.answers
        if answers is not None:
            answer = answer_text(row.question, config, answers, row.answer)
            self.query_one("#inspect-answer", FittedPanel).show(answer, hold=self.filling_in_burst)
        self.query_one(RankedChunksView).show(row.question, result, config, self.session.dataset.corpus)
        self.show_document(self.query_one(DocumentView), config, result, row.question.gold_spans[0].doc)

    def reserve_panels(self, rows: Sequence[QuestionRow]) -> bool:
        shown = self.session.a.shown
        if shown is None:
            return False
        panel = self.query_one("#inspect-question", FittedPanel)
        corpus = self.session.dataset.corpus
        return panel.reserve([question_line(row, shown.config, corpus) for row in rows])

    def prepare_detail(self, row: QuestionRow) -> tuple[Callable[[], None], ...]:
        shown = self.session.a.shown
        if shown is None:
            return ()
        return self.panes_preparation(self.query_one(RankedChunksView), self.query_one(DocumentView), row, shown)

    def selected_and_shown(self, waiting: str) -> tuple[QuestionRow, Config] | None:
        """The selected row and the shown configuration; None (saying ``waiting``) before the first results."""
        row = self.session.selected_row(self.VIEW)
        shown = self.session.a.shown
        if row is None or shown is None:
            self.notify(f"{waiting}: the evaluation is still running.", severity="warning")
            return None
        return row, shown.config

    def action_anatomy(self) -> None:
        """Open the score anatomy of the selected question under the shown configuration."""
        selected = self.selected_and_shown("Nothing to explain yet")
        if selected is None:
            return
        row, config = selected
        try:
            explanation = explainer_for(self.session.evaluator).explain(config, row.question.id)
        except ChunkscopeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.push_screen(AnatomyScreen(explanation))

    def action_whatif(self) -> None:
        """Open the boundary what-if of the selected question under the shown configuration."""
        selected = self.selected_and_shown("No what-if yet")
        if selected is not None:
            row, config = selected
            self.app.push_screen(WhatIfScreen(self.session.evaluator, row.question, config))

    def on_ranked_chunks_view_chunk_highlighted(self, message: RankedChunksView.ChunkHighlighted) -> None:
        row = self.session.selected_row(self.VIEW)
        shown = self.session.a.shown
        if row is not None and shown is not None:
            result = shown.questions[row.index]
            self.follow_chunk(self.query_one(DocumentView), shown.config, result, message.chunk)
