"""The inspector app: screens, global keys, and the one worker that evaluates configurations."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.app import App
from textual.binding import BindingType
from textual.worker import Worker, WorkerState, get_current_worker

from chunkscope.analysis.compare import compare
from chunkscope.pipeline.evaluate import Progress
from chunkscope.reports.casefile import case_file
from chunkscope.reports.eval import eval_report, to_json
from chunkscope.results import Config
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.commands import ChunkscopeCommands
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.export import ExportDialog, write_export_target
from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.screens.summary import SummaryScreen
from chunkscope.tui.screens.sweep_map import SweepInput, SweepMapScreen
from chunkscope.tui.screens.synced import SyncedScreen
from chunkscope.tui.state.session import Session

KEYMAP_VARIABLE = "CHUNKSCOPE_KEYMAP"
"""``binding-id=key;binding-id=key``: remap keys by binding id (the ``?`` screen lists the ids)."""


class _Cancelled(Exception):
    """A newer request replaced this evaluation."""


def parse_keymap(text: str) -> dict[str, str]:
    """``id=key;id=key`` into a Textual keymap (a key may be a comma-separated list: ``id=j,down``)."""
    pairs = (item.split("=", 1) for item in text.split(";") if "=" in item)
    return {binding_id.strip(): key.strip() for binding_id, key in pairs}


class ChunkscopeApp(App[None]):
    """Step through failing questions, change the configuration live, compare two side by side."""

    CSS_PATH = "app.tcss"
    TITLE = "chunkscope"
    COMMANDS = App.COMMANDS | {ChunkscopeCommands}

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.APP)

    def __init__(self, session: Session, open_compare: bool = False, sweep: SweepInput | None = None) -> None:
        super().__init__()
        self.session = session
        self.open_compare_at_start = open_compare
        self.sweep = sweep
        """The sweep the inspector was opened on (``chunkscope sweep --inspect``): its map opens first."""
        self.compare_open = False
        keymap = parse_keymap(os.environ.get(KEYMAP_VARIABLE, ""))
        if keymap:
            self.set_keymap(keymap)

    def on_mount(self) -> None:
        # The dataset, every result and the widgets' line caches live as long as the app; full collections
        # only re-scan them (30-50 ms pauses per key on JSQuAD). Freeze what is loaded (see on_results_ready)
        # and let full collections run ten times less often.
        gc.freeze()
        self._gc_threshold = gc.get_threshold()
        gc.set_threshold(self._gc_threshold[0], self._gc_threshold[1], self._gc_threshold[2] * 10)
        self.install_screen(CompareScreen(self.session), name="compare")
        self.push_screen(InspectScreen(self.session))
        if self.open_compare_at_start:
            self.action_compare()
        else:
            self.request_results()
        if self.sweep is not None:
            self.action_sweep_map()

    def on_unmount(self) -> None:
        gc.set_threshold(*self._gc_threshold)

    # -- views

    def action_compare(self) -> None:
        """Open the split view (A | B), or close it when it is open."""
        if self.compare_open:
            self.compare_open = False
            self.pop_screen()
            return
        self.session.open_compare()
        self.compare_open = True
        self.push_screen("compare")
        self.request_results()

    def action_help(self) -> None:
        """Every key of every screen."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_sweep_map(self) -> None:
        """The sweep map, when the inspector was opened on a sweep."""
        if self.sweep is None:
            self.notify("No sweep loaded: open one with chunkscope sweep ... --inspect", severity="warning")
        elif not isinstance(self.screen, SweepMapScreen):
            self.push_screen(SweepMapScreen(self.sweep))

    def on_sweep_map_screen_config_chosen(self, message: SweepMapScreen.ConfigChosen) -> None:
        """The chosen configuration as A, the best as B, in the split view listing the failing questions."""
        while not isinstance(self.screen, (InspectScreen, CompareScreen)):
            self.pop_screen()
        self.session.request("a", message.config)
        self.session.request("b", message.best)
        self.session.set_filter("compare", state="failing")
        if self.compare_open:
            self.request_results()
        else:
            self.action_compare()

    def on_summary_requested(self, message: messages.SummaryRequested) -> None:
        self.push_screen(SummaryScreen(self.session, compare=message.compare))

    def on_export_dialog_requested(self, message: messages.ExportDialogRequested) -> None:
        self.push_screen(ExportDialog(self.session, compare=message.compare))

    def on_config_form_requested(self, message: messages.ConfigFormRequested) -> None:
        """The form for one side; what it applies is requested like any configuration change."""
        side = message.side

        def apply(config: Config | None) -> None:
            if config is not None:
                self.post_message(messages.ConfigRequested(side, config))

        self.push_screen(ConfigForm(self.session.slot(side).requested, message.title), apply)

    def sync_screen(self) -> None:
        """Let the current screen show the session's new state."""
        if isinstance(self.screen, SyncedScreen) and self.screen.ready:
            self.screen.sync_session()

    # -- evaluation

    def on_config_requested(self, message: messages.ConfigRequested) -> None:
        self.session.request(message.side, message.config)
        self.request_results()

    def request_results(self) -> None:
        """Start the worker for whatever the visible configurations still need."""
        missing = self.session.missing(self.compare_open)
        pair = self.session.requested_pair() if self.compare_open else None
        if missing or (pair is not None and not self.session.has_comparison(*pair)):
            self.session.progress = f"{missing[0].label}: starting" if missing else "comparing A and B"
            self.evaluate(missing, pair)
        self.sync_screen()

    @work(thread=True, exclusive=True, exit_on_error=False, group="evaluate", description="evaluate")
    def evaluate(self, configs: tuple[Config, ...], pair: tuple[Config, Config] | None) -> None:
        """Evaluate ``configs`` (then compare ``pair``) off the UI thread, posting each result."""
        worker = get_current_worker()
        evaluator = self.session.evaluator

        def progress(config: Config) -> Progress:
            def report(stage: str, done: int, total: int) -> None:
                if worker.is_cancelled:
                    raise _Cancelled
                self.post_message(messages.EvaluationProgress(config, stage, done, total))

            return report

        try:
            for config in configs:
                result = evaluator.evaluate(config, progress(config))
                if worker.is_cancelled:
                    return
                self.post_message(messages.ResultsReady(result))
            if pair is not None:
                self.post_message(messages.EvaluationProgress(pair[1], "comparing A and B", 0, 0))
                comparison = compare(evaluator.evaluate(pair[0]), evaluator.evaluate(pair[1]))
                if not worker.is_cancelled:
                    self.post_message(messages.ComparisonReady(comparison))
        except _Cancelled:
            return

    def on_evaluation_progress(self, message: messages.EvaluationProgress) -> None:
        self.session.progress = f"{message.config.label}: {message.stage}"
        if message.total:
            self.session.progress += f" {message.done}/{message.total}"
        if isinstance(self.screen, SyncedScreen) and self.screen.ready:
            self.screen.sync_status()

    def on_results_ready(self, message: messages.ResultsReady) -> None:
        self.session.store(message.result)
        self.sync_screen()
        # Results and their rows live as long as the app (they are cached). Freezing them keeps every
        # full collection from re-scanning them: on JSQuAD such scans paused key handling for ~100 ms.
        gc.freeze()

    def on_comparison_ready(self, message: messages.ComparisonReady) -> None:
        self.session.store_comparison(message.comparison)
        self.sync_screen()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "evaluate":
            for slot in self.session.slots():
                if slot.pending:
                    self.session.give_up(slot.requested, str(error))
            self.session.progress = ""
            self.sync_screen()
        self.notify(
            str(error),
            title="Could not evaluate" if event.worker.group == "evaluate" else "Error",
            severity="error",
            timeout=8,
        )

    # -- exports

    def on_export_requested(self, message: messages.ExportRequested) -> None:
        """Write the selected question's case file (``case``) or the report (``report``)."""
        what, path, with_b = message.what, message.path, message.with_b
        session = self.session
        results = tuple(slot.shown for slot in session.slots()[: 2 if with_b else 1] if slot.shown is not None)
        if what == "case":
            if session.selected_id is None:
                self.notify("No question selected.", severity="warning")
                return
            question = session.question(session.selected_id)
            comparison = session.comparison() if with_b else None
            name = session.dataset.name
            corpus = session.dataset.corpus
            self.write_export(path, what, lambda: case_file(question, corpus, results, name, comparison))
        else:
            dataset = session.dataset
            self.write_export(path, what, lambda: to_json(eval_report(dataset, results)))

    @work(thread=True, exit_on_error=False, group="export", description="export")
    def write_export(self, path: str, what: messages.ExportKind, render: Callable[[], str]) -> None:
        """Render and write an export off the UI thread (the values it renders are immutable)."""
        write_export_target(self.session, path, render)
        self.post_message(messages.ExportWritten(path, what))

    def on_export_written(self, message: messages.ExportWritten) -> None:
        what = "case file" if message.what == "case" else "report"
        self.notify(f"wrote {what} {message.path}", title="Export")
