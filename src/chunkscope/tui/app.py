"""The inspector app: screens, global keys, and the one worker that evaluates configurations."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.console import RenderableType
from textual import work
from textual.actions import ActionParseResult
from textual.app import App, ScreenStackError
from textual.binding import BindingType
from textual.dom import DOMNode
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from chunkscope.allocator import release_free_memory
from chunkscope.analysis.compare import compare
from chunkscope.analysis.fragility import fragility, neighbours
from chunkscope.pipeline.evaluate import EvaluationCancelled
from chunkscope.results import Config
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.collector import pace_collector
from chunkscope.tui.commands import ChunkscopeCommands
from chunkscope.tui.long_work import LongWorkGate
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.export import write_export_target
from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.screens.summary import SummaryScreen
from chunkscope.tui.screens.sweep_map import SweepInput, SweepMapScreen
from chunkscope.tui.screens.synced import SyncedScreen
from chunkscope.tui.screens.whatif import WhatIfScreen
from chunkscope.tui.state.case_text import case_file_renderer, report_renderer
from chunkscope.tui.state.notes import fragility_note
from chunkscope.tui.state.session import Session
from chunkscope.tui.terminal import KeyReadingDriver, exit_on_signals

INDEXES_KEPT = 4
"""Retriever indexes the inspector keeps (the most recently used): each configuration's rankings and
results stay, so every configuration visited is shown again at once; an index costs about the corpus
in memory (dense: its embeddings), so trying many chunkings on a large corpus would otherwise fill it."""
INDEX_BYTES_KEPT = 256 * 2**20
"""The indexes kept take at most this much memory (the most recent one stays whatever it takes): a few MB each
on JSQuAD (four stay), hundreds on a 50 MB corpus (one lexical index of 200-character chunks takes 190 MB)."""

PROGRESS_INTERVAL_S = 0.2
"""The status line shows the worker's progress at most this often (the latest report, once the interval is over):
each update re-renders the status bar, and an evaluation on a 50 MB corpus reports about 70 times in a few
seconds, UI-thread time the worker then waits for (the GIL)."""

KEYMAP_VARIABLE = "CHUNKSCOPE_KEYMAP"
"""``binding-id=key;binding-id=key``: remap keys by binding id (the ``?`` screen lists the ids)."""


@dataclass(frozen=True)
class EvaluationJob:
    """One run of the evaluation worker: what it computes and the token that stops it."""

    number: int
    """Increases with every job: messages of an older (cancelled) job are recognised and ignored."""
    configs: tuple[Config, ...]
    """Configurations to evaluate, in order."""
    pair: tuple[Config, Config] | None
    """A and B to compare afterwards (split view)."""
    fragility: Config | None = None
    """A configuration whose fragility to compute afterwards (``u``)."""
    stop: threading.Event = field(default_factory=threading.Event, compare=False)
    """Set to cancel: the core checks it at every progress report of the evaluation."""

    @property
    def wants(self) -> tuple[tuple[Config, ...], tuple[Config, Config] | None, Config | None]:
        """What the job computes (a request for the same leaves it running)."""
        return self.configs, self.pair, self.fragility


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
    DEFAULT_MODE: ClassVar[str] = "inspect"

    def __init__(self, session: Session, open_compare: bool = False, sweep: SweepInput | None = None) -> None:
        super().__init__()
        self.session = session
        self.open_compare_at_start = open_compare
        self.sweep = sweep
        """The sweep the inspector was opened on (``chunkscope sweep --inspect``): its map opens first."""
        self.compare_open = False
        self.exiting = False
        """Quit was asked for: keys typed after it (``qe``) must not open screens on an app shutting down."""
        self.job: EvaluationJob | None = None
        """The evaluation running now, if any."""
        self._jobs = 0
        self._worker: Worker[None] | None = None
        self._progress_shown_at = -PROGRESS_INTERVAL_S
        self._progress_due: Timer | None = None
        self._remove_signal_handlers: Callable[[], None] = lambda: None
        """The status update scheduled for the end of the interval (None: none is due)."""
        self.long_work = LongWorkGate(self, self.session, self.open_screen)
        """Asks before a computation estimated at over ``ASK_OVER_S`` seconds."""
        # The single view is the base screen of the app's only mode, so it is there from the first frame,
        # its list focused: keys typed while the app starts reach its bindings (not an empty screen).
        self.add_mode(self.DEFAULT_MODE, lambda: InspectScreen(self.session))
        keymap = parse_keymap(os.environ.get(KEYMAP_VARIABLE, ""))
        if keymap:
            self.set_keymap(keymap)

    def get_driver_class(self) -> type[Driver]:
        # Textual's POSIX driver, reading every key of a multi-key read (see tui/terminal.py).
        driver = super().get_driver_class()
        return KeyReadingDriver if driver is LinuxDriver else driver

    def on_mount(self) -> None:
        # SIGTERM and SIGHUP quit like q: the driver restores the terminal (alternate screen, mouse, cursor).
        self._remove_signal_handlers = exit_on_signals(self)
        # The dataset, every result and the widgets' line caches live as long as the app; full collections
        # only re-scan them (30-50 ms pauses per key on JSQuAD). Freeze what is loaded (see on_results_ready),
        # let full collections run ten times less often, and the young ones while the user reads.
        self._gc_threshold = pace_collector()
        self.install_screen(CompareScreen(self.session), name="compare")
        if self.open_compare_at_start:
            self.action_compare()
        else:
            self.request_results()
        if self.sweep is not None:
            self.action_sweep_map()

    def on_unmount(self) -> None:
        self._remove_signal_handlers()
        self.cancel_job()  # the worker thread stops at its next check instead of running on after the app
        gc.set_threshold(*self._gc_threshold)

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """Quit; the keys typed after quit are dropped and the running computation is cancelled."""
        self.exiting = True
        self.cancel_job()
        super().exit(result, return_code, message)

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        if self.exiting:
            return True  # handled: nothing more happens once quit was asked for
        return await super().run_action(action, default_namespace, namespaces)

    def open_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None:
        """Push ``screen`` unless the app is quitting (a request posted just before ``q``)."""
        if not self.exiting:
            self.push_screen(screen, callback)

    # -- views

    def action_compare(self) -> None:
        """Open the split view (A | B), or close it when it is open."""
        if self.compare_open:
            self.compare_open = False
            screen = self.screen
            self.session.close_compare(screen.editing_side if isinstance(screen, CompareScreen) else "a")
            self.pop_screen()
            self.request_results()  # what only the split view needed (B, the comparison) is not wanted now
            return
        if self.exiting:
            return
        self.session.open_compare()
        self.compare_open = True
        self.push_screen("compare")
        self.request_results()

    def on_compare_toggle_requested(self, message: messages.CompareToggleRequested) -> None:
        self.action_compare()

    def action_help(self) -> None:
        """Every key of every screen."""
        if not isinstance(self.screen, HelpScreen):
            self.open_screen(HelpScreen())

    def action_sweep_map(self) -> None:
        """The sweep map, when the inspector was opened on a sweep."""
        if self.sweep is None:
            self.notify("No sweep loaded: open one with chunkscope sweep ... --inspect", severity="warning")
        elif not isinstance(self.screen, SweepMapScreen):
            self.push_screen(SweepMapScreen(self.sweep))

    def on_sweep_map_screen_config_chosen(self, message: SweepMapScreen.ConfigChosen) -> None:
        """The chosen configuration as A, the best as B, in the split view listing the failing questions."""
        self.open_pair(message.config, message.best, failing=True)

    def on_what_if_screen_option_chosen(self, message: WhatIfScreen.OptionChosen) -> None:
        """The what-if option's configuration as B beside A, in the split view, on the same question."""
        self.open_pair(message.current, message.config)

    def open_pair(self, a: Config, b: Config, failing: bool = False) -> None:
        """Back to the question views, ``a`` and ``b`` in the split view (``failing``: list only failing questions)."""
        while not isinstance(self.screen, (InspectScreen, CompareScreen)):
            self.pop_screen()
        self.session.request("a", a)
        self.session.request("b", b)
        if failing:
            self.session.set_filter("compare", state="failing")
        if self.compare_open:
            self.request_results()
        else:
            self.action_compare()

    def on_summary_requested(self, message: messages.SummaryRequested) -> None:
        self.open_screen(SummaryScreen(self.session, compare=message.compare))

    def on_config_form_requested(self, message: messages.ConfigFormRequested) -> None:
        """The form for one side; what it applies is requested like any configuration change."""
        side = message.side

        def apply(config: Config | None) -> None:
            if config is not None:
                self.post_message(messages.ConfigRequested(side, config))

        self.open_screen(ConfigForm(self.session.slot(side).requested, message.title), apply)

    def sync_screen(self) -> None:
        """Let the current screen show the session's new state."""
        if isinstance(self.screen, SyncedScreen) and self.screen.ready:
            self.screen.sync_session()

    # -- evaluation

    def on_config_requested(self, message: messages.ConfigRequested) -> None:
        if self.long_work.holds(message.side, message.config):
            return  # asked first: long work starts only once the user says so
        self.session.request(message.side, message.config)
        self.request_results()

    def request_results(self) -> None:
        """Start the worker for whatever the visible configurations still need; a running computation
        that is no longer what they need is cancelled (superseded)."""
        missing = self.session.missing(self.compare_open)
        pair = self.session.requested_pair() if self.compare_open else None
        if pair is not None and self.session.has_comparison(*pair):
            pair = None
        fragile = self.session.missing_fragility()
        if self.job is not None and not self._still_wanted(self.job, missing, pair, fragile):
            self.cancel_job()
        if (missing or pair is not None or fragile is not None) and self.job is None and not self.exiting:
            self._jobs += 1
            self.job = EvaluationJob(self._jobs, missing, pair, fragile)
            self.session.progress = (
                f"{missing[0].label}: starting" if missing else "comparing A and B" if pair else "fragility: starting"
            )
            self._worker = self.evaluate(self.job)
        self.session.evaluating = self.job is not None
        self.sync_screen()

    def _still_wanted(
        self,
        job: EvaluationJob,
        missing: tuple[Config, ...],
        pair: tuple[Config, Config] | None,
        fragile: Config | None,
    ) -> bool:
        """True when everything ``job`` computes is still wanted: it runs on, and what else is wanted
        starts when it ends (a change on the other side does not throw away a long embedding)."""
        evaluator = self.session.evaluator
        configs_wanted = all(config in missing or evaluator.cached(config) is not None for config in job.configs)
        return configs_wanted and (job.pair is None or job.pair == pair) and job.fragility in (None, fragile)

    def cancel_job(self) -> None:
        """Stop the running computation: its thread stops at the core's next check, its messages are ignored."""
        job, self.job = self.job, None
        if job is None:
            return
        job.stop.set()
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        self.session.progress = ""
        self.session.evaluating = False

    def on_cancel_requested(self, message: messages.CancelRequested) -> None:
        """esc while computing: stop, and let the sides that waited show what they showed before."""
        if self.job is None:
            return
        fragile = self.job.fragility
        self.cancel_job()
        abandoned = self.session.abandon()
        self.session.fragility_wanted = None
        self.sync_screen()
        if abandoned or fragile is None:
            names = ", ".join(config.label for config in abandoned) or "the comparison of A and B"
            self.notify(f"Cancelled {names}. p asks for it again.", title="Cancelled", markup=False)
        else:
            note = f"Cancelled the fragility of {fragile.label}. u asks for it again."
            self.notify(note, title="Cancelled", markup=False)

    @work(thread=True, exit_on_error=False, group="evaluate", description="evaluate")
    def evaluate(self, job: EvaluationJob) -> None:
        """Evaluate the job's configurations (then compare its pair) off the UI thread, posting each result.

        Cancellation is cooperative: the core asks ``job.stop`` at every progress report and raises
        EvaluationCancelled, so an abandoned computation stops within one step instead of running on.
        """
        evaluator = self.session.evaluator
        cancelled = job.stop.is_set

        def progress(config: Config) -> Callable[[str, int, int], None]:
            def report(stage: str, done: int, total: int) -> None:
                self.post_message(messages.EvaluationProgress(job.number, config, stage, done, total))

            return report

        try:
            for config in job.configs:
                result = evaluator.evaluate(config, progress(config), cancelled)
                evaluator.evict_indexes(keep=INDEXES_KEPT, max_bytes=INDEX_BYTES_KEPT)
                if cancelled():
                    break
                if self.session.answers is not None:
                    self.session.answers.attribution(result)  # here, not on the UI thread: ~0.1 s on JSQuAD
                self.post_message(messages.ResultsReady(result))
            if job.pair is not None:
                a, b = job.pair
                self.post_message(messages.EvaluationProgress(job.number, b, "comparing A and B", 0, 0))
                if not cancelled():
                    comparison = compare(evaluator.evaluate(a, None, cancelled), evaluator.evaluate(b, None, cancelled))
                    if not cancelled():
                        self.post_message(messages.ComparisonReady(comparison))
            if job.fragility is not None and not cancelled():
                self._evaluate_fragility(job, job.fragility)
        except EvaluationCancelled:
            pass
        # Not in a finally: a failure is reported by the worker's error state (and must not be retried).
        self.post_message(messages.EvaluationFinished(job.number))

    def _evaluate_fragility(self, job: EvaluationJob, config: Config) -> None:
        """Evaluate the neighbours one at a time, each cancellable as any evaluation (the core's
        ``fragility`` only checks between evaluations), then take the core's fragility from the cache."""
        evaluator = self.session.evaluator
        nearby = neighbours(config)
        for number, neighbour in enumerate(nearby, 1):
            stage = f"fragility {number}/{len(nearby)} · {neighbour.rule}"
            report = self._progress_reporter(job, neighbour.config, stage)
            evaluator.evaluate(neighbour.config, report, job.stop.is_set)
            evaluator.evict_indexes(keep=INDEXES_KEPT, max_bytes=INDEX_BYTES_KEPT)
        self.post_message(messages.FragilityReady(fragility(evaluator, config)))

    def _progress_reporter(self, job: EvaluationJob, config: Config, prefix: str) -> Callable[[str, int, int], None]:
        """Progress reports of one evaluation of a fragility job, ``prefix`` before the stage."""

        def report(stage: str, done: int, total: int) -> None:
            self.post_message(messages.EvaluationProgress(job.number, config, f"{prefix} · {stage}", done, total))

        return report

    def on_fragility_requested(self, message: messages.FragilityRequested) -> None:
        self.request_results()

    def on_fragility_ready(self, message: messages.FragilityReady) -> None:
        self.session.store_fragility(message.result)
        self.sync_screen()
        self.notify(f"Fragility of {message.result.config.label}: {fragility_note(message.result)}", markup=False)

    def on_evaluation_progress(self, message: messages.EvaluationProgress) -> None:
        if self.job is None or message.job != self.job.number:
            return  # a cancelled computation's last reports
        self.session.progress = f"{message.config.label}: {message.stage}"
        if message.total:
            self.session.progress += f" {message.done}/{message.total}"
        if self._progress_due is None:
            wait = self._progress_shown_at + PROGRESS_INTERVAL_S - time.monotonic()
            if wait > 0:
                self._progress_due = self.set_timer(wait, self._show_progress)
            else:
                self._show_progress()

    def _show_progress(self) -> None:
        """The status line shows the session's progress as it is now (the latest report)."""
        self._progress_due = None
        self._progress_shown_at = time.monotonic()
        try:
            screen = self.screen
        except ScreenStackError:
            return  # the app is closing: its screens went before this timer fired
        if isinstance(screen, SyncedScreen) and screen.ready:
            screen.sync_status()

    def on_evaluation_finished(self, message: messages.EvaluationFinished) -> None:
        if self.job is not None and message.job == self.job.number:
            self.job = self._worker = None
            self.session.progress = ""
            self.session.evaluating = False
            self.request_results()  # anything asked for meanwhile that this job did not include

    def on_results_ready(self, message: messages.ResultsReady) -> None:
        self.session.store(message.result)
        self.sync_screen()
        # Results and their rows live as long as the app (they are cached). Freezing them keeps every
        # full collection from re-scanning them: on JSQuAD such scans paused key handling for ~100 ms.
        gc.freeze()
        release_free_memory()  # the worker's heap keeps what the evaluation freed

    def on_comparison_ready(self, message: messages.ComparisonReady) -> None:
        self.session.store_comparison(message.comparison)
        self.sync_screen()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "evaluate":
            if event.worker is not self._worker:
                return  # a cancelled computation failing on its way out: nobody waits for it
            for slot in self.session.slots():
                if slot.pending:
                    self.session.give_up(slot.requested, str(error))
            self.session.fragility_wanted = None  # asked again with u, not retried at every change
            self.job = self._worker = None
            self.session.progress = ""
            self.session.evaluating = False
            self.sync_screen()
        self.notify(
            str(error),
            title="Could not evaluate" if event.worker.group == "evaluate" else "Error",
            severity="error",
            timeout=8,
            markup=False,  # messages name files and extras: chunkscope[dense] is not markup
        )

    # -- exports

    def on_export_requested(self, message: messages.ExportRequested) -> None:
        """Write the selected question's case file (``case``) or the report (``report``)."""
        what, path, with_b = message.what, message.path, message.with_b
        session = self.session
        if what == "case":
            question_id = session.selected_id
            if question_id is None:
                self.notify("No question selected.", severity="warning")
                return
            self.write_export(path, what, case_file_renderer(session, question_id, with_b))
        else:
            self.write_export(path, what, report_renderer(session, with_b))

    @work(thread=True, exit_on_error=False, group="export", description="export")
    def write_export(self, path: str, what: messages.ExportKind, render: Callable[[], str]) -> None:
        """Render and write an export off the UI thread (the values it renders are immutable)."""
        write_export_target(self.session, path, render)
        self.post_message(messages.ExportWritten(path, what))

    def on_export_written(self, message: messages.ExportWritten) -> None:
        what = "case file" if message.what == "case" else "report"
        self.notify(f"wrote {what} {message.path}", title="Export", markup=False)
