"""What the single view and the split view share: the question list, filters, search, stepping through
failing questions, the live-configuration keys and the way results reach the screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from chunkscope.analysis.diagnose import FailureCause
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk
from chunkscope.results import Config, QuestionResult
from chunkscope.tui import messages
from chunkscope.tui.session import (
    QuestionRow,
    Session,
    Side,
    StepError,
    cycle,
    cycle_overflow,
    cycle_overlap,
    cycle_strategy,
    filter_cycle,
    step_budget,
    step_size,
    step_through,
    step_top_k,
)
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList

MOVE = Binding.Group("failing")
FILTER = Binding.Group("filter")
SIZE = Binding.Group("size", compact=True)


def config_step(name: str, session: Session, step: int) -> Callable[[Config], Config]:
    """The configuration change a key asks for, as a function of the current configuration."""
    steps: dict[str, Callable[[Config], Config]] = {
        "chunker": lambda c: cycle_strategy(c, "chunker", step, session.remembered_specs),
        "retriever": lambda c: cycle_strategy(c, "retriever", step, session.remembered_specs),
        "size": lambda c: step_size(c, step),
        "overlap": cycle_overlap,
        "top_k": lambda c: step_top_k(c, step),
        "budget": lambda c: step_budget(c, step),
        "overflow": cycle_overflow,
    }
    return steps[name]


def waiting_text(session: Session) -> str:
    """What the detail pane says when no question is shown: why, and what to do."""
    failed = next((slot for slot in session.slots() if slot.error is not None), None)
    if failed is not None:
        return f"Could not evaluate {failed.requested.label}: {failed.error}. Press e to change the configuration."
    if session.a.shown is None:
        return f"Evaluating {session.a.requested.label}…"
    return "No question matches the filter (esc shows all)."


class SyncedScreen(Screen[None]):
    """A screen showing the session's results; it re-reads the session whenever it becomes current."""

    def __init__(self, session: Session, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.session = session
        self.ready = False
        """True once composed and mounted: only then can it show anything."""

    def on_mount(self) -> None:
        # Runs after the subclass's on_mount (Textual dispatches down the MRO), so widgets exist.
        self.ready = True
        self.sync_session()

    def sync_session(self) -> None:
        """Show what the session holds now (results, filter, selection)."""
        raise NotImplementedError

    def sync_status(self) -> None:
        """Show the evaluation progress only (called often while a worker runs)."""

    def on_screen_resume(self) -> None:
        if self.ready:
            self.sync_session()


class SessionScreen(SyncedScreen):
    """A screen with the question list and the detail panes of the selected question."""

    VIEW: ClassVar[str] = "inspect"
    """Which of the session's view states (filter) this screen uses."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "question_mark",
            "app.help",
            "help",
            id="view.help",
            key_display="?",
            tooltip="Every key of every screen, with its id for remapping",
        ),
        Binding(
            "n",
            "next_failing(1)",
            "next failing",
            id="question.next-failing",
            group=MOVE,
            tooltip="Select the next failing question in the list, staying in the current pane",
        ),
        Binding(
            "N",
            "next_failing(-1)",
            "previous failing",
            id="question.previous-failing",
            group=MOVE,
            tooltip="Select the previous failing question in the list, staying in the current pane",
        ),
        Binding(
            "f",
            "filter_next(1)",
            "next filter",
            id="filter.next",
            group=FILTER,
            tooltip="Cycle the list filter: all, failing, lost, cut, incomplete (+ movement in the split view)",
        ),
        Binding(
            "F",
            "cause_next",
            "next cause filter",
            id="filter.cause",
            show=False,
            group=FILTER,
            tooltip="Cycle the failure-cause filter through the causes present",
        ),
        Binding(
            "slash",
            "search",
            "search",
            id="filter.search",
            show=False,
            key_display="/",
            tooltip="Search questions by id or query text",
        ),
        Binding(
            "escape",
            "clear_filter",
            "clear filter",
            id="filter.clear",
            show=False,
            tooltip="Show every question again (clears filter, cause, cell and search)",
        ),
        Binding(
            "c",
            "config('chunker', 1)",
            "chunker",
            id="config.chunker-next",
            tooltip="Next chunker (a chunker used before keeps its parameters)",
        ),
        Binding(
            "C",
            "config('chunker', -1)",
            "previous chunker",
            id="config.chunker-previous",
            show=False,
            tooltip="Previous chunker",
        ),
        Binding("r", "config('retriever', 1)", "retriever", id="config.retriever-next", tooltip="Next retriever"),
        Binding(
            "R",
            "config('retriever', -1)",
            "previous retriever",
            id="config.retriever-previous",
            show=False,
            tooltip="Previous retriever",
        ),
        Binding(
            "plus,equals_sign",
            "config('size', 1)",
            "bigger chunks",
            id="config.size-up",
            group=SIZE,
            key_display="+",
            tooltip="Next larger chunk size (overlap kept in proportion)",
        ),
        Binding(
            "minus",
            "config('size', -1)",
            "smaller chunks",
            id="config.size-down",
            group=SIZE,
            key_display="-",
            tooltip="Next smaller chunk size (overlap kept in proportion)",
        ),
        Binding(
            "o",
            "config('overlap', 1)",
            "overlap",
            id="config.overlap",
            tooltip="Cycle overlap: none, 20% of the size, 50%",
        ),
        Binding(
            "O",
            "config('overflow', 1)",
            "overflow",
            id="config.overflow",
            show=False,
            tooltip="Cycle what the first chunk over the budget does: stop, skip, truncate",
        ),
        Binding(
            "k",
            "config('top_k', 1)",
            "top-k",
            id="config.top-k-up",
            tooltip="Next larger top-k (1, 2, 3, 5, 10, 20, wrapping)",
        ),
        Binding(
            "K",
            "config('top_k', -1)",
            "smaller top-k",
            id="config.top-k-down",
            show=False,
            tooltip="Next smaller top-k",
        ),
        Binding(
            "b",
            "config('budget', 1)",
            "budget",
            id="config.budget-up",
            tooltip="Next larger context budget in characters (none after the largest, wrapping)",
        ),
        Binding(
            "B",
            "config('budget', -1)",
            "smaller budget",
            id="config.budget-down",
            show=False,
            tooltip="Next smaller context budget",
        ),
        Binding(
            "p",
            "previous_config",
            "previous config",
            id="config.previous",
            show=False,
            tooltip="Switch back to the configuration before the last change (instant: results are cached)",
        ),
        Binding(
            "e",
            "edit_config",
            "edit",
            id="config.edit",
            tooltip="Edit the whole configuration in a form (free-text chunker and retriever specs)",
        ),
        Binding(
            "s",
            "summary",
            "summary",
            id="view.summary",
            tooltip="Metrics table and rank-bucket chart (with the transition matrix in the split view)",
        ),
        Binding(
            "x",
            "export",
            "export",
            id="export.dialog",
            tooltip="Write the current question's case file (Markdown) or the whole report (JSON)",
        ),
    ]

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

    def _apply_filter(self, **changes: object) -> None:
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
            config = config_step(name, self.session, step)(current)
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
        """Open the configuration form for the side being edited."""
        from chunkscope.tui.screens.config_form import ConfigForm

        side = self.editing_side

        def apply(config: Config | None) -> None:
            if config is not None:
                self.post_message(messages.ConfigRequested(side, config))

        title = f"Configuration {side.upper()}" if self.compare else "Configuration"
        self.app.push_screen(ConfigForm(self.session.slot(side).requested, title), apply)

    # -- other screens

    def action_summary(self) -> None:
        """Open the summary of the shown configuration(s)."""
        from chunkscope.tui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.session, compare=self.compare))

    def action_export(self) -> None:
        """Open the export dialog for the selected question and the report."""
        from chunkscope.tui.screens.export import ExportDialog

        if self.session.a.shown is None:
            self.notify("Nothing to export yet: the evaluation is still running.", severity="warning")
            return
        self.app.push_screen(ExportDialog(self.session, compare=self.compare))
