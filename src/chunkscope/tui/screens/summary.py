"""``s``: metrics and rank buckets of the shown configuration; in the split view A and B side by side
with the bucket transition matrix, whose cells filter the question list. Above them, once computed, the
fragility counts of A (``u``) and, when the list is restricted to a group (``#``), that group's metrics."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Static

from chunkscope.analysis.diagnose import FailureCause, diagnose
from chunkscope.analysis.groups import TagGroup, by_tag
from chunkscope.results import ConfigResult
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.synced import SyncedScreen
from chunkscope.tui.state.notes import fragility_note
from chunkscope.tui.state.session import Session
from chunkscope.tui.widgets.config_bar import ConfigBar, SideLine
from chunkscope.tui.widgets.summary_widgets import (
    BucketChart,
    ChunkLengthChart,
    MetricsTable,
    SummaryWidget,
    TransitionMatrix,
)


def diagnosis_text(name: str, result: ConfigResult) -> Text:
    """Failure causes of one configuration and where the diagnosis procedure says to look first."""
    diagnosis = diagnose(result)
    text = Text()
    text.append(f"{name}{result.config.label}: ", style="bold")
    counts = [f"{cause.value} {count}" for cause, count in diagnosis.counts.items() if count]
    text.append(", ".join(counts))
    stage = diagnosis.look_first
    if stage is None:
        text.append("\n  every question complete")
    else:
        failing = sum(diagnosis.counts[c] for c in stage.causes if c is not FailureCause.OK)
        text.append(f"\n  look first at {stage.name} ({failing} questions): ", style="bold")
        text.append(stage.advice)
    return text


RIGHT_GAP = 2
"""Cells between the two columns (``#summary-right``'s left padding)."""


class SummaryScreen(SyncedScreen):
    """Aggregates of the configuration(s) on screen."""

    CSS_PATH = "summary.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.SUMMARY)

    def __init__(self, session: Session, compare: bool) -> None:
        super().__init__(session, id="summary")
        self.compare = compare
        self._matrix_focused = False
        self._group_key: tuple[object, ...] | None = None
        self._group: TagGroup | None = None

    def compose(self) -> ComposeResult:
        yield ConfigBar(id="summary-config")
        with VerticalScroll(id="summary-body"):
            with Horizontal(id="summary-columns"):
                with Vertical(id="summary-left"):
                    fragility = Static(id="summary-fragility", markup=False)
                    fragility.display = False  # until the fragility of the shown A is computed (u)
                    yield fragility
                    answers = Static(id="summary-answers", markup=False)
                    answers.display = self.session.answers is not None  # only with --answers
                    yield answers
                    group = MetricsTable(id="summary-group")
                    group.display = False  # until the list is restricted to a group (#)
                    yield group
                    yield MetricsTable(id="summary-metrics")
                    if self.compare:
                        yield TransitionMatrix(id="summary-transitions")
                with Vertical(id="summary-right"):
                    yield BucketChart(id="summary-buckets")
                    yield ChunkLengthChart(id="summary-lengths")
            diagnosis = Static(id="summary-diagnosis")
            diagnosis.border_title = "Failure causes and where to look first"
            yield diagnosis
        yield Footer(compact=True)

    def group(self, results: list[ConfigResult]) -> TagGroup | None:
        """The group the question list is restricted to (``#``), as the core's by-tag summary computes it."""
        tag = self.session.views["compare" if self.compare else "inspect"].filter.tag
        if tag is None:
            return None
        key = (tag, tuple(result.config for result in results))
        if key != self._group_key:  # the screen syncs at every result: the groups are computed once per results
            self._group_key = key
            self._group = next((group for group in by_tag(results, self.session.questions) if group.tag == tag), None)
        return self._group

    def _show_group(self, results: list[ConfigResult]) -> None:
        table = self.query_one("#summary-group", MetricsTable)
        group = self.group(results)
        table.display = group is not None
        if group is not None:
            table.border_title = (
                f"Group #{group.tag} · {len(group.question_ids)} of {len(self.session.questions)} questions"
            )
            table.show(group.results)

    def _show_fragility(self) -> None:
        line = self.query_one("#summary-fragility", Static)
        shown = self.session.a.shown
        fragility = self.session.fragility(shown.config) if shown is not None else None
        line.display = fragility is not None
        if fragility is not None:
            line.update(f"{'A ' if self.compare else ''}fragility: {fragility_note(fragility)}")

    def _show_answers(self) -> None:
        answers = self.session.answers
        if answers is not None:
            sides = zip(("A", "B") if self.compare else ("",), self._results(), strict=False)
            self.query_one("#summary-answers", Static).update(answers.summary_note(list(sides)))

    def _results(self) -> list[ConfigResult]:
        slots = self.session.slots() if self.compare else (self.session.a,)
        return [slot.shown for slot in slots if slot.shown is not None]

    def sync_session(self) -> None:
        session = self.session
        slots = session.slots() if self.compare else (session.a,)
        names = ("A", "B") if self.compare else ("",)
        lines = [
            SideLine(name, slot.requested, slot.shown, slot.pending) for name, slot in zip(names, slots, strict=False)
        ]
        self.query_one(ConfigBar).show(session.dataset.name, len(session.questions), lines)
        results = self._results()
        comparison = session.comparison() if self.compare else None
        if not results:
            return
        self.query_one("#summary-metrics", MetricsTable).show(results, comparison)
        self._show_group(results)
        self._show_fragility()
        self._show_answers()
        self.query_one(BucketChart).show(results)
        self.query_one(ChunkLengthChart).show(results)
        if self.compare and comparison is not None:
            matrix = self.query_one(TransitionMatrix)
            matrix.show(comparison)
            if not self._matrix_focused:
                matrix.focus()  # the only interactive part: arrows and Enter work at once
                self._matrix_focused = True
        prefixes = ("A ", "B ") if self.compare else ("",)
        diagnosis = Text("\n").join(diagnosis_text(p, r) for p, r in zip(prefixes, results, strict=False))
        self.query_one("#summary-diagnosis", Static).update(diagnosis)
        self._fit_columns()

    def on_resize(self) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Tables side by side with the charts when both fit their share of the width, else one under the other.

        The metrics table with its tests and the transition matrix are as wide as their cells: in a column
        too narrow for them every row wraps (at 80 and at 120 columns in the split view).
        """
        tables = [w for w in self.query("#summary-left > SummaryWidget").results(SummaryWidget) if w.display]
        charts = list(self.query("#summary-right > SummaryWidget").results(SummaryWidget))
        width = self.query_one("#summary-body").content_size.width or self.size.width
        room = width - RIGHT_GAP
        fits = all(w.natural_width() <= room * 3 // 5 for w in tables) and all(
            w.natural_width() <= room * 2 // 5 for w in charts
        )
        self.set_class(not fits, "-stacked")

    def on_transition_matrix_cell_selected(self, message: TransitionMatrix.CellSelected) -> None:
        """Filter the split view's question list to the questions of that cell, and go back to it."""
        self.session.set_filter("compare", state="all", cell=(message.state_a, message.state_b))
        self.app.pop_screen()
