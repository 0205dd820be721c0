"""What the single view and the split view share: the question list, filters, search, stepping through
failing questions, the live-configuration keys and the way results reach the screen. How the detail panes follow
the keys (paced in bursts, prepared ahead) is :mod:`chunkscope.tui.screens.paced`.

Other screens (summary, export, configuration form) are opened by the app: these screens post a
request message upward, so they never import the screens they open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Unpack

from rich.markup import escape
from rich.text import Text
from textual import events
from textual.binding import ActiveBinding, BindingType
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from chunkscope.analysis.diagnose import FailureCause
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk
from chunkscope.results import Config, ConfigResult, QuestionResult, RankedChunk
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.export import ExportDialog
from chunkscope.tui.screens.gold import GoldScreen
from chunkscope.tui.screens.groups import ALL_QUESTIONS, GroupPicker
from chunkscope.tui.screens.paced import PacedScreen
from chunkscope.tui.state.case_text import case_file_text
from chunkscope.tui.state.config_steps import StepError, UnavailableStrategy, config_step
from chunkscope.tui.state.filters import ORDER_NAMES, FilterChanges, ViewName, filter_cycle
from chunkscope.tui.state.rows import QuestionRow
from chunkscope.tui.state.session import Session
from chunkscope.tui.state.slots import Side, Slot
from chunkscope.tui.state.stepping import cycle
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView

NARROW_BELOW = 100
"""Terminals narrower than this many columns show the question list and the detail in turns (``d``)."""
FOOTER_DELAY = 0.3
"""Seconds a computation runs (or has stopped) before the footer shows (or hides) esc."""


def waiting_text(session: Session) -> Text:
    """What the detail pane says when no question is shown: why, and what to do."""
    failed = next((slot for slot in session.slots() if slot.error is not None), None)
    if failed is not None:
        return Text(
            f"Could not evaluate {failed.requested.label}: {failed.error}. Press e to change the configuration."
        )
    if session.a.shown is None:
        return Text(f"Evaluating {session.a.requested.label}… (esc cancels)")
    return Text("No question matches the filter (esc shows all).")


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``12th``, ``13th``, ``21st``, ``112th``."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


_TYPED_BY_NAME = {"plus": "+", "minus": "-"}
"""Keys whose character Textual's ``key_to_character`` does not know (it gives None for both)."""


class SearchBox(Input):
    """An Input that claims ``+`` and ``-`` too: the footer then hides the screen's ``+ -`` keys while it
    has focus, as it hides the letter keys, since typing them goes into the box."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return super().check_consume_key(key, character if character is not None else _TYPED_BY_NAME.get(key))


def search_box(placeholder: str, id: str) -> Input:
    """The search box, hidden until ``/`` (hidden from the start, so it never takes the first keys)."""
    box = SearchBox(placeholder=placeholder, id=id)
    box.display = False
    return box


class SessionScreen(PacedScreen):
    """A screen with the question list and the detail panes of the selected question."""

    VIEW: ClassVar[ViewName] = "inspect"
    """Which of the session's view states (filter) this screen uses."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.SESSION)

    AUTO_FOCUS = "QuestionList"
    """Keys typed while the screen appears go to the list's bindings, never into the hidden search box."""

    def __init__(self, session: Session, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(session, name=name, id=id)
        self._config_steps: dict[Side, tuple[Slot, int, list[Config]]] = {}
        """Per side, the slot and its request count when a run of configuration keys began, and the
        configurations they posted since (see ``_config_ahead``)."""

    _listed_from: tuple[QuestionRow, ...] = ()
    """The rows the list was last built from (a new tuple means new results)."""
    _early_steps: tuple[int, ...] = ()
    """n / N pressed before the first results were listed, applied when they are."""
    _footer_evaluating = False
    """Whether the footer's bindings were last refreshed while a computation ran."""
    _footer_timer: Timer | None = None
    """The pending refresh of the footer's bindings, if any."""
    chunk_note = ""
    """The chunk the ranked chunks' cursor is on, for the status line (its id: production ids matter)."""

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

    def panes_preparation(
        self, ranked: RankedChunksView, document_view: DocumentView, row: QuestionRow, shown: ConfigResult
    ) -> tuple[Callable[[], None], ...]:
        """Preparing one side's panes (ranked chunks, document) to show ``row`` under ``shown``'s configuration."""
        session, config, question = self.session, shown.config, row.question
        result = shown.questions[row.index]  # the shown result, as show_detail takes it

        def prepare_document() -> None:
            doc_id = question.gold_spans[0].doc
            chunks = session.document_chunks(config, doc_id)
            document_view.prepare(session.dataset.corpus.by_id[doc_id], chunks, result, question)

        return (*ranked.preparation(question, result, config, session.dataset.corpus), prepare_document)

    def new_question_list(self, id: str) -> QuestionList:
        """The question list, telling this screen at once when the user moves its cursor."""
        return QuestionList(on_move=self.list_moved, id=id)

    # -- layout

    @property
    def narrow(self) -> bool:
        """The list and the detail take turns (the terminal is narrower than NARROW_BELOW columns)."""
        return self.has_class("-narrow")

    def on_resize(self, event: events.Resize) -> None:
        self.apply_width(event.size.width)
        self.refill_detail()  # the question panel's lines wrap anew at the new width

    def apply_width(self, width: int) -> None:
        """Switch between side-by-side panes and the narrow layout (list or detail) for ``width`` columns."""
        narrow = width < NARROW_BELOW
        if narrow == self.narrow:
            return
        self.set_class(narrow, "-narrow")
        if not narrow:
            self.remove_class("-detail")
            self.refill_detail(refocus=True)  # the detail shows again
        self.refresh_bindings()
        if self.is_mounted:
            self.sync_status()  # the status line's "d shows ..." hint belongs to the narrow layout only

    def action_toggle_pane(self) -> None:
        """In the narrow layout: show the detail instead of the list, or the list again."""
        showing_detail = not self.has_class("-detail")
        self.set_class(showing_detail, "-detail")
        if showing_detail:
            self.focus_detail()
            self.refill_detail(refocus=True)  # laid out at the width it gets now
        else:
            self.question_list.focus()
        self.sync_status()

    def focus_detail(self) -> None:
        """Focus the first pane of the detail (the ranked chunks)."""
        raise NotImplementedError

    def highlighted_hit(self) -> RankedChunk | None:
        """The ranked chunk under the cursor of the ranked chunks (the focused side's in the split view)."""
        raise NotImplementedError

    def sync_bindings(self) -> None:
        """Let the footer show esc (cancel) while a computation runs, ``FOOTER_DELAY`` after it starts or stops.

        Refreshing the footer's bindings rebuilds the footer and lays the whole screen out again (a few
        hundred milliseconds on a loaded machine): a computation shorter than the delay leaves the footer
        alone, and a cancelled one shows the side it goes back to before the footer is rebuilt. esc itself
        works from the first moment (``check_action`` asks the session when the key comes).
        """
        if self.session.evaluating == self._footer_evaluating:
            if self._footer_timer is not None:
                self._footer_timer.stop()
                self._footer_timer = None
        elif self._footer_timer is None:
            self._footer_timer = self.set_timer(FOOTER_DELAY, self._refresh_footer)

    def _refresh_footer(self) -> None:
        self._footer_timer = None
        if self.session.evaluating != self._footer_evaluating:
            self._footer_evaluating = self.session.evaluating
            self.refresh_bindings()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        # The footer builds itself from these: whether it shows esc is what it saw here, whenever it was
        # (re)composed. A footer composed while the first computation ran shows esc after a computation
        # shorter than FOOTER_DELAY too, unless sync_bindings compares with what it actually shows.
        self._footer_evaluating = self.session.evaluating
        return super().active_bindings

    @property
    def settling(self) -> bool:
        """Something delayed is still to change on screen: the detail panes, the footer's esc, a panel's shrink."""
        return super().settling or self._footer_timer is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_pane":
            return self.narrow
        if action == "cancel_evaluation":
            return self.session.evaluating
        return True

    # -- the list and the selection (the session's selected_id is the model; the list follows it)

    def refresh_list(self) -> None:
        """Rebuild the question list from the session's rows and the view's filter."""
        all_rows = self.session.rows(self.compare)
        new_results = all_rows is not self._listed_from
        if self._listed_from and new_results:
            # New results: the question under study stays listed even if the filter now rejects it.
            self.session.keep_selected(self.VIEW)
        self._listed_from = all_rows
        rows = self.session.visible_rows(self.VIEW)
        row = self.question_list.show(
            rows, self.session.selected_id, compare=self.compare, answers=self.has_answers, hops=self.session.multi_hop
        )
        if row is not None:
            self.session.selected_id = row.question.id
        total = len(all_rows)
        view = self.session.views[self.VIEW]
        described = view.filter.describe()
        if view.order != "default":
            described += f" · {ORDER_NAMES[view.order]}"
        if view.kept is not None and any(row.question.id == view.kept and not view.filter.accepts(row) for row in rows):
            described += f" (+{view.kept}, kept selected)"
        pane = self.question_list.parent
        if isinstance(pane, Widget):
            pane.border_title = f"Questions {len(rows)}/{total} · {described}"
        if rows and self._early_steps:
            steps, self._early_steps = self._early_steps, ()
            for step in steps:
                self.action_next_failing(step)
        self.sync_status()
        if rows and new_results:
            # The header shows the new results now: the panes change with it, in the same paint (a pane
            # filled a turn later showed the old scores under the new configuration's name).
            self.fill_detail()
        elif rows:
            self.schedule_detail()
        else:
            self.show_detail(None)

    def list_moved(self, row: QuestionRow) -> None:
        """The user moved the list's cursor (keys, mouse): that row is the selection now."""
        before = self.session.position(self.VIEW, self.session.selected_id)
        after = self.session.position(self.VIEW, row.question.id)
        moved = None if before is None or after is None else after - before
        self._last_step = (False, moved) if moved in (1, -1) else None
        self.session.selected_id = row.question.id
        self.selection_changed()

    def selection_changed(self) -> None:
        self.chunk_note = ""
        super().selection_changed()

    def where_text(self) -> str:
        """``q39 · 12th of 12`` (and the chunk under the ranked chunks' cursor), for the status line."""
        session = self.session
        index = session.position(self.VIEW, session.selected_id)
        if index is None or session.selected_id is None:
            return ""
        where = f"{session.selected_id} · {ordinal(index + 1)} of {len(session.visible_rows(self.VIEW))}"
        if self.chunk_note:
            where += f" · {self.chunk_note}"
        if self.narrow:
            where += " · d shows the list" if self.has_class("-detail") else " · d shows the detail"
        return where

    def show_document(
        self, view: DocumentView, config: Config, result: QuestionResult, doc_id: str, focus: int | None = None
    ) -> None:
        """Show one document with the chunks of ``config`` and ``result``'s marks in ``view``."""
        question = self.session.question(result.question_id)
        document = self.session.dataset.corpus.by_id[doc_id]
        if focus is None and self.refocus_document:
            focus = next((span.start for span in question.gold_spans if span.doc == doc_id), None)
        view.show(document, self.session.document_chunks(config, doc_id), result, question, focus)

    def follow_chunk(self, view: DocumentView, config: Config, result: QuestionResult, chunk: Chunk) -> None:
        """Let the document view follow a chunk chosen in the ranked chunks (switching document if needed);
        the status line names the chunk by its id (a production chunk's own id, with --chunks)."""
        if view.document is None or view.document.id != chunk.doc:
            self.show_document(view, config, result, chunk.doc, chunk.start)
        view.highlight_chunk(chunk)
        self.chunk_note = f"chunk {chunk.id}"
        self.sync_status()

    # -- filters and search

    def _apply_filter(self, **changes: Unpack[FilterChanges]) -> None:
        self.session.set_filter(self.VIEW, **changes)
        self.refresh_list()

    def action_filter_next(self, step: int) -> None:
        """Next list filter."""
        current = self.session.views[self.VIEW].filter.state
        filters = filter_cycle(self.compare, self.has_fragility, self.has_answers, self.session.multi_hop)
        self._apply_filter(state=cycle(filters, current, step), cell=None)

    @property
    def has_fragility(self) -> bool:
        """The list's rows carry the fragility of the shown configuration (computed with ``u``)."""
        rows = self.session.rows(self.compare)
        return bool(rows) and rows[0].fragility is not None

    @property
    def has_answers(self) -> bool:
        """The list's rows carry answers attributed under the shown configuration (``--answers``, shown
        under the configuration they belong to)."""
        if self.session.answers is None:
            return False
        return any(row.answer is not None for row in self.session.rows(self.compare))

    def action_group_picker(self) -> None:
        """Open the picker of the tags and groups present; the chosen one restricts the list."""
        session = self.session
        current = session.views[self.VIEW].filter.tag
        picker = GroupPicker(session.tags_present(), len(session.questions), current)
        self.app.push_screen(picker, self._group_chosen)

    def _group_chosen(self, tag: str | None) -> None:
        if tag is not None:
            self.action_set_group(tag)

    def action_set_group(self, tag: str) -> None:
        """List only the questions carrying ``tag`` (from the picker or the command palette); '' lists all."""
        self._apply_filter(tag=None if tag == ALL_QUESTIONS else tag)

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
        self.session.set_filter(self.VIEW, state="all", cause=None, cell=None, text="", tag=None)
        self.refresh_list()
        if self.focused is None or isinstance(self.focused, Input):
            self.question_list.focus()

    def action_cancel_evaluation(self) -> None:
        """Ask the app to stop the computation that is running (esc does this while one runs)."""
        self.app.post_message(messages.CancelRequested())  # straight to the app: no hop through the screen

    def action_next_failing(self, step: int) -> None:
        """Select the next (1) or previous (-1) failing question of the list; focus stays where it is.

        Steps from the session's selection, so every press moves exactly one question however fast
        the keys come; before the first results are listed the presses wait for them.
        """
        session = self.session
        if not self.question_list.rows and session.a.shown is None and session.a.error is None:
            self._early_steps = (*self._early_steps, step)
            return
        row = session.step_selection(self.VIEW, step, self.wanted_for_next)
        self._last_step = (True, step)
        if row is None:
            self.notify("No failing question in this list.", severity="warning")
            return
        self.question_list.select(row.question.id, session.position(self.VIEW, row.question.id))
        self.selection_changed()

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
        self.session.selected_id = question_id
        index = self.session.position(self.VIEW, question_id)
        if index is None:
            self.action_clear_filter()
            return
        self.question_list.select(question_id, index)
        self.selection_changed()

    # -- configuration

    def action_config(self, name: str, step: int) -> None:
        """Apply one live-configuration key to the side being edited, on top of the keys before it."""
        side = self.editing_side
        current = self._config_ahead(side)
        try:
            config = config_step(name, step, self.session.remembered_specs, self.session.cycle_state)(current)
        except UnavailableStrategy as unavailable:
            # Shown dimmed, with the line that installs it; the configuration stays, the next key goes on.
            self.notify(
                f"[dim]{escape(unavailable.name)}[/dim] (not installed): {escape(str(unavailable.error))}",
                title=f"{unavailable.kind.title()} not available",
                severity="warning",
            )
            return
        except (StepError, ChunkscopeError, ValueError) as error:
            self.notify(str(error), title="Configuration", severity="warning", markup=False)
            return
        self._config_steps[side][2].append(config)
        self.app.post_message(messages.ConfigRequested(side, config))

    def _config_ahead(self, side: Side) -> Config:
        """The configuration the keys of ``side`` have asked for so far.

        The app applies each ConfigRequested in order, so until it has applied the last one the session
        still holds an earlier step: keys in a burst (``K b``, ``k k k``) then step from the last posted
        one, not from the session's, and none is lost. Once the session has applied as many requests as
        the keys posted, it holds the latest (or what came after them: the form, ``u``, a what-if applied).
        """
        slot = self.session.slot(side)
        stepped, applied, posted = self._config_steps.get(side, (slot, slot.requests, []))
        # A new slot (B made again after the split view closed) has applied none of the keys posted to the old.
        if not posted or stepped is not slot or slot.requests - applied >= len(posted):
            self._config_steps[side] = (slot, slot.requests, [])
            return slot.requested
        return posted[-1]

    def action_previous_config(self) -> None:
        """Back to the configuration before the last change."""
        slot = self.session.slot(self.editing_side)
        if slot.previous is None:
            self.notify("No earlier configuration yet.", severity="warning")
            return
        self.app.post_message(messages.ConfigRequested(self.editing_side, slot.previous))

    def action_toggle_compare(self) -> None:
        """Ask the app for the split view (or the single view), after the configuration keys typed before."""
        self.app.post_message(messages.CompareToggleRequested())

    def action_edit_config(self) -> None:
        """Ask the app for the configuration form of the side being edited."""
        side = self.editing_side
        title = f"Configuration {side.upper()}" if self.compare else "Configuration"
        self.post_message(messages.ConfigFormRequested(side, title))

    # -- the clipboard

    def action_copy_chunk(self) -> None:
        """Copy the highlighted ranked chunk's text."""
        hit = self.highlighted_hit()
        if hit is None:
            self.notify("No ranked chunk to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(hit.chunk.text)
        chars = len(hit.chunk.text)
        self.notify(f"Copied chunk {hit.chunk.id} (rank {hit.rank}, {chars:,} chars).", title="Clipboard", markup=False)

    def action_copy_case(self) -> None:
        """Copy the selected question's case file (the Markdown the export writes)."""
        question_id = self.session.selected_id
        if question_id is None or self.session.a.shown is None:
            self.notify("No question to copy yet.", severity="warning")
            return
        text = case_file_text(self.session, question_id, self.compare)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the case file of {question_id} ({len(text):,} chars).", title="Clipboard", markup=False)

    # -- other screens

    def action_summary(self) -> None:
        """Ask the app for the summary of the shown configuration(s)."""
        self.post_message(messages.SummaryRequested(self.compare))

    def action_export(self) -> None:
        """The export dialog of the selected question and the report."""
        if self.session.a.shown is None:
            self.notify("Nothing to export yet: the evaluation is still running.", severity="warning")
            return
        # Opened here, not through the app's queue: keys typed with x (x Enter) are already queued behind it.
        self.app.push_screen(ExportDialog(self.session, compare=self.compare))
