"""What the single view and the split view share: the question list, filters, search, stepping through
failing questions, the live-configuration keys and the way results reach the screen.

Other screens (summary, export, configuration form) are opened by the app: these screens post a
request message upward, so they never import the screens they open.
"""

from __future__ import annotations

from typing import ClassVar, Unpack

from textual.binding import BindingType
from textual.widget import Widget
from textual.widgets import Input

from chunkscope.analysis.diagnose import FailureCause
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk
from chunkscope.results import Config, QuestionResult
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.gold import GoldScreen
from chunkscope.tui.screens.synced import SyncedScreen
from chunkscope.tui.state.config_steps import StepError, config_step
from chunkscope.tui.state.filters import FilterChanges, ViewName, filter_cycle
from chunkscope.tui.state.rows import QuestionRow
from chunkscope.tui.state.session import Session
from chunkscope.tui.state.slots import Side
from chunkscope.tui.state.stepping import cycle, step_through
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList


def waiting_text(session: Session) -> str:
    """What the detail pane says when no question is shown: why, and what to do."""
    failed = next((slot for slot in session.slots() if slot.error is not None), None)
    if failed is not None:
        return f"Could not evaluate {failed.requested.label}: {failed.error}. Press e to change the configuration."
    if session.a.shown is None:
        return f"Evaluating {session.a.requested.label}…"
    return "No question matches the filter (esc shows all)."


class SessionScreen(SyncedScreen):
    """A screen with the question list and the detail panes of the selected question."""

    VIEW: ClassVar[ViewName] = "inspect"
    """Which of the session's view states (filter) this screen uses."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.SESSION)

    _listed_from: tuple[QuestionRow, ...] = ()
    """The rows the list was last built from (a new tuple means new results)."""

    # -- what subclasses provide

    @property
    def question_list(self) -> QuestionList:
        """This screen's question list."""
        return self.query_one(QuestionList)

    @property
    def search_input(self) -> Input:
        """This screen's search box."""
        return self.query_one(Input)

    @property
    def editing_side(self) -> Side:
        """The side the configuration keys change."""
        return "a"

    @property
    def compare(self) -> bool:
        """True in the split view."""
        return self.VIEW == "compare"

    def wanted_for_next(self, row: QuestionRow) -> bool:
        """Rows that n / N stop at."""
        return row.failing

    # -- the list

    def refresh_list(self) -> None:
        """Rebuild the question list from the session's rows and the view's filter."""
        all_rows = self.session.rows(self.compare)
        if self._listed_from and all_rows is not self._listed_from:
            # New results: the question under study stays listed even if the filter now rejects it.
            self.session.keep_selected(self.VIEW)
        self._listed_from = all_rows
        rows = self.session.visible_rows(self.VIEW)
        self.question_list.show(rows, self.session.selected_id, compare=self.compare)
        total = len(all_rows)
        view = self.session.views[self.VIEW]
        described = view.filter.describe()
        if view.kept is not None and any(row.question.id == view.kept and not view.filter.accepts(row) for row in rows):
            described += f" (+{view.kept}, kept selected)"
        pane = self.question_list.parent
        if isinstance(pane, Widget):
            pane.border_title = f"Questions {len(rows)}/{total} · {described}"
        if not rows:
            self.show_detail(None)

    def on_question_list_highlighted(self, message: QuestionList.Highlighted) -> None:
        self.session.selected_id = message.row.question.id
        self.show_detail(message.row)

    def show_detail(self, row: QuestionRow | None) -> None:
        """Show the selected question in the detail panes (None: nothing selected)."""
        raise NotImplementedError

    def show_document(
        self, view: DocumentView, config: Config, result: QuestionResult, doc_id: str, focus: int | None = None
    ) -> None:
        """Show one document with the chunks of ``config`` and ``result``'s marks in ``view``."""
        question = self.session.question(result.question_id)
        document = self.session.dataset.corpus.by_id[doc_id]
        view.show(document, self.session.document_chunks(config, doc_id), result, question, focus)

    def follow_chunk(self, view: DocumentView, config: Config, result: QuestionResult, chunk: Chunk) -> None:
        """Let the document view follow a chunk chosen in the ranked chunks (switching document if needed)."""
        if view.document is None or view.document.id != chunk.doc:
            self.show_document(view, config, result, chunk.doc, chunk.start)
        view.highlight_chunk(chunk)

    # -- filters and search

    def _apply_filter(self, **changes: Unpack[FilterChanges]) -> None:
        self.session.set_filter(self.VIEW, **changes)
        self.refresh_list()

    def action_filter_next(self, step: int) -> None:
        """Next list filter."""
        current = self.session.views[self.VIEW].filter.state
        self._apply_filter(state=cycle(filter_cycle(self.compare), current, step), cell=None)

    def action_set_filter(self, state: str) -> None:
        """A named list filter (from the command palette)."""
        self._apply_filter(state=state, cell=None)

    def action_cause_next(self) -> None:
        """Next failure-cause filter among the causes present (then none)."""
        causes: list[FailureCause | None] = [None, *self.session.causes_present(self.compare)]
        current = self.session.views[self.VIEW].filter.cause
        index = causes.index(current) if current in causes else 0
        self._apply_filter(cause=causes[(index + 1) % len(causes)])

    def action_set_cause(self, cause: str) -> None:
        """Filter on one failure cause (from the command palette); '' clears it."""
        self._apply_filter(cause=FailureCause(cause) if cause else None)

    def action_search(self) -> None:
        """Show and focus the search box."""
        box = self.search_input
        box.display = True
        box.focus()

    def on_input_changed(self, message: Input.Changed) -> None:
        if message.input is self.search_input:
            self._apply_filter(text=message.value.strip())

    def on_input_submitted(self, message: Input.Submitted) -> None:
        if message.input is self.search_input:
            if not message.value.strip():
                self.search_input.display = False
            self.question_list.focus()

    def action_clear_filter(self) -> None:
        """Back to every question."""
        self.search_input.value = ""
        self.search_input.display = False
        self.session.set_filter(self.VIEW, state="all", cause=None, cell=None, text="")
        self.refresh_list()
        if self.focused is None or isinstance(self.focused, Input):
            self.question_list.focus()

    def action_next_failing(self, step: int) -> None:
        """Select the next (1) or previous (-1) failing question of the list; focus stays where it is."""
        question_list = self.question_list
        row = step_through(question_list.rows, self.session.selected_id, step, self.wanted_for_next)
        if row is None:
            self.notify("No failing question in this list.", severity="warning")
            return
        question_list.select(row.question.id)

    def action_gold(self) -> None:
        """Open the gold integrity list; choosing a finding selects its question."""
        self.app.push_screen(GoldScreen(self.session.gold_check()), self._go_to_finding)

    def _go_to_finding(self, question_id: str | None) -> None:
        if question_id is not None and question_id in self.session.question_index:
            # The model first: the screen re-syncs its list from the session when the dialog closes.
            self.session.selected_id = question_id
            self.go_to_question(question_id)

    def go_to_question(self, question_id: str) -> None:
        """Select a question, clearing the filter when it hides the question."""
        if not self.question_list.select(question_id):
            self.session.selected_id = question_id
            self.action_clear_filter()

    # -- configuration

    def action_config(self, name: str, step: int) -> None:
        """Apply one live-configuration key to the side being edited."""
        side = self.editing_side
        current = self.session.slot(side).requested
        try:
            config = config_step(name, step, self.session.remembered_specs)(current)
        except (StepError, ChunkscopeError, ValueError) as error:
            self.notify(str(error), title="Configuration", severity="warning")
            return
        self.post_message(messages.ConfigRequested(side, config))

    def action_previous_config(self) -> None:
        """Back to the configuration before the last change."""
        slot = self.session.slot(self.editing_side)
        if slot.previous is None:
            self.notify("No earlier configuration yet.", severity="warning")
            return
        self.post_message(messages.ConfigRequested(self.editing_side, slot.previous))

    def action_edit_config(self) -> None:
        """Ask the app for the configuration form of the side being edited."""
        side = self.editing_side
        title = f"Configuration {side.upper()}" if self.compare else "Configuration"
        self.post_message(messages.ConfigFormRequested(side, title))

    # -- other screens

    def action_summary(self) -> None:
        """Ask the app for the summary of the shown configuration(s)."""
        self.post_message(messages.SummaryRequested(self.compare))

    def action_export(self) -> None:
        """Ask the app for the export dialog of the selected question and the report."""
        if self.session.a.shown is None:
            self.notify("Nothing to export yet: the evaluation is still running.", severity="warning")
            return
        self.post_message(messages.ExportDialogRequested(self.compare))
