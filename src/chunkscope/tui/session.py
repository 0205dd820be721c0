"""The inspector's view-model: the dataset, an Evaluator, configurations A and B, filters and the selection.

Plain Python (no textual): screens read it, the app's evaluation worker fills it. Every number
shown comes from a core value (``ConfigResult``, ``chunkscope.analysis.compare.Comparison``,
``chunkscope.analysis.diagnose.failure_cause``); this module only classifies, filters and steps through
them, and derives neighbouring configurations for the live-configuration keys.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Literal

from chunkscope.analysis.compare import Comparison, QuestionMove, State, state_of
from chunkscope.analysis.diagnose import FailureCause, failure_cause
from chunkscope.chunkers import parse_chunker
from chunkscope.errors import SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.io.outputs import input_conflict
from chunkscope.model import Chunk, Question
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult, Overflow, QuestionResult
from chunkscope.retrievers import parse_retriever
from chunkscope.spec.grammar import format_spec
from chunkscope.spec.registry import registry

Side = Literal["a", "b"]


class Status(Enum):
    """What happened to a question's evidence, as a glyph that carries the meaning without colour."""

    LOST = ("✂", "lost")
    """A boundary cut the gold before retrieval: no chunk contains a required item."""
    MISSED = ("✗", "not delivered")
    """The evidence exists but none of the required items was delivered."""
    PARTIAL = ("◐", "partial")
    """Some, not all, required items were delivered."""
    COMPLETE = ("✓", "complete")
    """Every required item was delivered."""

    @property
    def glyph(self) -> str:
        """One terminal cell shown in the question list."""
        return self.value[0]

    @property
    def word(self) -> str:
        """The meaning in words."""
        return self.value[1]


def status_of(result: QuestionResult) -> Status:
    """Classify one question's result by what reached the context."""
    if result.lost:
        return Status.LOST
    if result.complete:
        return Status.COMPLETE
    if any(result.covered):
        return Status.PARTIAL
    return Status.MISSED


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """One line of the question list: a question with its result under the shown configuration."""

    index: int
    """Position in the question set."""
    question: Question
    result: QuestionResult
    status: Status
    state: State
    """``lost`` or the rank bucket (the transition-matrix state)."""
    cause: FailureCause
    result_b: QuestionResult | None = None
    """The result under B, in the split view."""
    status_b: Status | None = None
    """The status under B, in the split view."""
    move: QuestionMove | None = None
    """How the question moved from A to B, in the split view (once the comparison is computed)."""
    cause_b: FailureCause | None = None
    """The failure cause under B, in the split view."""

    @property
    def results(self) -> tuple[QuestionResult, ...]:
        """The result under A, and under B in the split view."""
        return (self.result,) if self.result_b is None else (self.result, self.result_b)

    @property
    def failing(self) -> bool:
        """Not every required item was delivered (under A or, in the split view, under B)."""
        return not all(result.complete for result in self.results)


STATE_FILTERS: tuple[str, ...] = ("all", "failing", "lost", "cut", "incomplete")
"""``failing``: not complete; ``lost``: evidence cut before retrieval; ``cut``: some gold span (even one
alternative) is split by a boundary; ``incomplete``: the evidence exists but was not all delivered."""

MOVE_FILTERS: tuple[str, ...] = ("moved", "better", "worse", "recovered", "newly lost")
"""Split-view filters on ``QuestionMove``: anything changed, rank better/worse, lost in A only, lost in B only."""


def _state_accepts(name: str, row: QuestionRow) -> bool:
    """In the split view a question matches when it matches under A or under B."""
    return any(_result_accepts(name, result) for result in row.results)


def _result_accepts(name: str, result: QuestionResult) -> bool:
    if name == "failing":
        return not result.complete
    if name == "lost":
        return result.lost
    if name == "cut":
        return bool(result.cuts)
    if name == "incomplete":
        return not result.lost and not result.complete
    return True


def _move_accepts(name: str, move: QuestionMove) -> bool:
    if name == "moved":
        return move.moved
    if name == "recovered":
        return move.recovered
    if name == "newly lost":
        return move.newly_lost
    return move.movement == name


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which questions the list shows; every part must accept a row."""

    state: str = "all"
    """One of STATE_FILTERS, or one of MOVE_FILTERS in the split view."""
    cause: FailureCause | None = None
    """Only questions with this failure cause (under A, or under B in the split view)."""
    cell: tuple[State, State] | None = None
    """Only questions in this (state under A, state under B) transition cell."""
    text: str = ""
    """Case-insensitive substring of the question id or query."""

    def accepts(self, row: QuestionRow) -> bool:
        """True when the row passes every part of the filter."""
        if self.state in MOVE_FILTERS:
            if row.move is None or not _move_accepts(self.state, row.move):
                return False
        elif not _state_accepts(self.state, row):
            return False
        if self.cause is not None and self.cause not in (row.cause, row.cause_b):
            return False
        if self.cell is not None and (row.move is None or (row.move.state_a, row.move.state_b) != self.cell):
            return False
        if self.text:
            needle = self.text.casefold()
            return needle in row.question.id.casefold() or needle in row.question.query.casefold()
        return True

    def describe(self) -> str:
        """A short description for the list title, e.g. ``failing · CUT · "q1"``."""
        parts = [self.state]
        if self.cause is not None:
            parts.append(self.cause.value)
        if self.cell is not None:
            parts.append(f"A {self.cell[0]} → B {self.cell[1]}")
        if self.text:
            parts.append(f'"{self.text}"')
        return " · ".join(parts)


def cycle(values: Sequence[str], current: str, step: int) -> str:
    """The value ``step`` places after ``current`` in ``values``, wrapping around (first when absent)."""
    if current not in values:
        return values[0]
    return values[(values.index(current) + step) % len(values)]


def filter_cycle(compare: bool) -> tuple[str, ...]:
    """The filters ``f`` steps through: the state filters, plus the movement filters in the split view."""
    return STATE_FILTERS + MOVE_FILTERS if compare else STATE_FILTERS


# ---------------------------------------------------------------- live configuration steps

SIZE_STEPS: tuple[int, ...] = (50, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2000, 3000, 4000)
"""Chunk sizes ``+``/``-`` step through."""
SIZE_FIELDS: tuple[str, ...] = ("size", "max_chars")
"""Chunker parameters that set a chunk's size, in the order they are looked for."""
OVERLAP_SHARES: tuple[float, ...] = (0.0, 0.2, 0.5)
"""Overlap as a share of the size, cycled by ``o``: none, the studies' 20%, half (the crowding case)."""
TOP_K_STEPS: tuple[int, ...] = (1, 2, 3, 5, 10, 20)
BUDGET_STEPS: tuple[int | None, ...] = (None, 200, 300, 400, 600, 800, 1000, 1200, 1600, 2000, 4000)
"""Context budgets in characters; ``None`` is no budget."""
OVERFLOWS: tuple[Overflow, ...] = ("stop", "skip", "truncate")


class StepError(Exception):
    """A configuration key that cannot apply to the current configuration (shown as a notification)."""


def _chunker_params(config: Config) -> tuple[object, set[str]]:
    chunker = parse_chunker(config.chunker)
    return chunker, {f.name for f in dataclasses.fields(chunker) if f.init}  # type: ignore[arg-type]


def _with_chunker(config: Config, chunker: object) -> Config:
    return make_config(format_spec(chunker), config.retriever, config.top_k, config.budget, config.overflow)


def step_size(config: Config, direction: int) -> Config:
    """The next larger (``direction`` 1) or smaller (-1) size on SIZE_STEPS, overlap kept in proportion."""
    chunker, names = _chunker_params(config)
    name = next((n for n in SIZE_FIELDS if n in names), None)
    if name is None:
        raise StepError(f"{config.label}: this chunker has no size parameter (edit it with e)")
    size = getattr(chunker, name)
    candidates = [s for s in SIZE_STEPS if (s > size if direction > 0 else s < size)]
    if not candidates:
        raise StepError(f"size {size} is already the {'largest' if direction > 0 else 'smallest'} step")
    new_size = candidates[0] if direction > 0 else candidates[-1]
    changes: dict[str, int] = {name: new_size}
    overlap = getattr(chunker, "overlap", 0) if "overlap" in names else 0
    if overlap:
        changes["overlap"] = min(round(overlap * new_size / size), new_size - 1)
    return _with_chunker(config, replace(chunker, **changes))  # type: ignore[type-var]


def cycle_overlap(config: Config) -> Config:
    """The next overlap share of OVERLAP_SHARES above the current one (back to none after the last)."""
    chunker, names = _chunker_params(config)
    size_name = next((n for n in SIZE_FIELDS if n in names), None)
    if "overlap" not in names or size_name is None:
        raise StepError(f"{config.label}: this chunker has no overlap parameter (edit it with e)")
    size, overlap = getattr(chunker, size_name), chunker.overlap  # type: ignore[attr-defined]
    choices = sorted({min(round(share * size), size - 1) for share in OVERLAP_SHARES})
    larger = [value for value in choices if value > overlap]
    return _with_chunker(config, replace(chunker, overlap=larger[0] if larger else 0))  # type: ignore[type-var]


def _defaults_parse(kind: str, name: str) -> bool:
    parse = parse_chunker if kind == "chunker" else parse_retriever
    try:
        parse(name)
    except (SpecError, ValueError, TypeError):
        return False
    return True


def cyclable_names(kind: str) -> tuple[str, ...]:
    """Registered strategies of ``kind`` that work with default parameters (the ones c / r cycle through)."""
    return tuple(name for name in registry(kind).names if _defaults_parse(kind, name))


def spec_name(spec: str) -> str:
    """The strategy name of a spec string (``fixed`` for ``fixed:size=200``)."""
    return spec.split(":", 1)[0]


def cycle_strategy(
    config: Config, kind: Literal["chunker", "retriever"], step: int, remembered: dict[str, str]
) -> Config:
    """The next chunker or retriever by name; a strategy used before comes back with its last parameters."""
    current = config.chunker if kind == "chunker" else config.retriever
    remembered[spec_name(current)] = current
    names = cyclable_names(kind)
    if not names:
        raise StepError(f"no {kind} works with default parameters")
    name = cycle(names, spec_name(current), step)
    spec = remembered.get(name, name)
    if kind == "chunker":
        return make_config(spec, config.retriever, config.top_k, config.budget, config.overflow)
    return make_config(config.chunker, spec, config.top_k, config.budget, config.overflow)


def _ladder_step(values: Sequence[int | None], current: int | None, step: int) -> int | None:
    """The value ``step`` places from ``current`` on an ascending ladder (``None``, no limit, last), wrapping."""
    ladder: list[int | None] = [*sorted(v for v in values if v is not None), *([None] if None in values else [])]
    if current in ladder:
        return ladder[(ladder.index(current) + step) % len(ladder)]
    # A value from the command line that is not on the ladder: the nearest step in the asked direction.
    assert current is not None
    above = [v for v in ladder if v is None or v > current]
    below = [v for v in ladder if v is not None and v < current]
    if step > 0:
        return above[0] if above else ladder[0]
    return below[-1] if below else ladder[-1]


def step_top_k(config: Config, step: int) -> Config:
    """The next (``step`` 1) or previous (-1) top-k of TOP_K_STEPS, wrapping around."""
    top_k = _ladder_step(TOP_K_STEPS, config.top_k, step)
    assert top_k is not None
    return replace(config, top_k=top_k)


def step_budget(config: Config, step: int) -> Config:
    """The next or previous budget of BUDGET_STEPS (no budget after the largest), wrapping around."""
    return replace(config, budget=_ladder_step(BUDGET_STEPS, config.budget, step))


def cycle_overflow(config: Config) -> Config:
    """stop -> skip -> truncate -> stop."""
    return replace(config, overflow=OVERFLOWS[(OVERFLOWS.index(config.overflow) + 1) % len(OVERFLOWS)])


# ---------------------------------------------------------------- the session


@dataclass
class Slot:
    """One side of the inspector: the configuration asked for and the result on screen."""

    requested: Config
    """What the user asked for (shown with a progress mark until its result arrives)."""
    shown: ConfigResult | None = None
    """The result on screen (the previous one while the requested configuration is computed)."""
    previous: Config | None = None
    """The configuration before the last change (``p`` switches back)."""
    error: str | None = None
    """Why the first configuration of this side could not be evaluated (nothing to show instead)."""

    @property
    def pending(self) -> bool:
        """The requested configuration's result has not arrived yet (and has not failed)."""
        return self.error is None and (self.shown is None or self.shown.config != self.requested)


@dataclass
class ViewState:
    """Filter and list of one view (the single view and the split view filter independently)."""

    filter: RowFilter = field(default_factory=RowFilter)
    kept: str | None = None
    """A question listed even though the filter rejects it: the one selected when new results arrived,
    so a configuration change never takes the question under study off the screen."""


class Session:
    """Everything the screens show, and the single place that turns core values into rows."""

    def __init__(self, dataset: Dataset, config_a: Config, config_b: Config | None = None) -> None:
        self.dataset = dataset
        self.questions: tuple[Question, ...] = dataset.questions.questions
        self.evaluator = Evaluator(dataset.corpus, self.questions)
        self.a = Slot(config_a)
        self.b: Slot | None = Slot(config_b) if config_b is not None else None
        self.views = {"inspect": ViewState(), "compare": ViewState()}
        self.selected_id: str | None = self.questions[0].id if self.questions else None
        self.progress = ""
        """What the evaluation worker is doing, e.g. ``fixed:size=300/bm25: ranking``."""
        self.remembered_specs: dict[str, str] = {}
        """Last spec used per strategy name, so cycling back restores its parameters."""
        self._comparisons: dict[tuple[Config, Config], Comparison] = {}
        self._rows: dict[tuple[Config, Config | None, bool], tuple[QuestionRow, ...]] = {}
        self._doc_chunks: dict[str, dict[str, tuple[Chunk, ...]]] = {}
        self.question_index: dict[str, int] = {q.id: i for i, q in enumerate(self.questions)}
        """Question id -> position in the question set."""

    # -- configurations and results

    def slot(self, side: Side) -> Slot:
        """Slot A or B (B must exist)."""
        if side == "a":
            return self.a
        if self.b is None:
            raise StepError("there is no configuration B: open the split view with v")
        return self.b

    def slots(self) -> tuple[Slot, ...]:
        """A, and B when set."""
        return (self.a,) if self.b is None else (self.a, self.b)

    def request(self, side: Side, config: Config) -> bool:
        """Ask for ``config`` on ``side``; True when its result is already known (shown at once)."""
        if side == "b" and self.b is None:
            self.b = Slot(config)
        slot = self.slot(side)
        if config != slot.requested:
            slot.previous = slot.requested
        slot.requested = config
        slot.error = None
        cached = self.evaluator.cached(config)
        if cached is not None:
            slot.shown = cached
        return cached is not None

    def store(self, result: ConfigResult) -> None:
        """A worker's result: shown on every side that still asks for it."""
        for slot in self.slots():
            if slot.requested == result.config:
                slot.shown = result

    def give_up(self, config: Config, error: str) -> None:
        """Evaluation of ``config`` failed: sides asking for it fall back to what they show (or keep the error)."""
        for slot in self.slots():
            if slot.requested == config:
                if slot.shown is None:
                    slot.error = error
                else:
                    slot.requested = slot.shown.config
                    slot.previous = None

    def missing(self, compare: bool) -> tuple[Config, ...]:
        """Requested configurations without a result, A first (B only in the split view)."""
        slots = self.slots() if compare else (self.a,)
        wanted = [s.requested for s in slots if self.evaluator.cached(s.requested) is None]
        return tuple(dict.fromkeys(wanted))

    def open_compare(self) -> None:
        """Give the split view a B: the configuration before the last change becomes A, the current one B;
        without history B is A with the overlap switched on (or off)."""
        if self.b is not None:
            return
        current = self.a.requested
        if self.a.previous is not None and self.a.previous != current:
            self.b = Slot(current, self.evaluator.cached(current))
            self.a = Slot(self.a.previous, self.evaluator.cached(self.a.previous))
            return
        try:
            partner = cycle_overlap(current)
        except StepError:
            partner = current
        self.b = Slot(partner, self.evaluator.cached(partner))

    # -- comparison

    def comparison(self) -> Comparison | None:
        """The comparison of the shown A and B results, when computed."""
        key = self.shown_pair()
        return self._comparisons.get(key) if key is not None else None

    def shown_pair(self) -> tuple[Config, Config] | None:
        """(A, B) configurations on screen, when both have results."""
        if self.b is None or self.a.shown is None or self.b.shown is None:
            return None
        return self.a.shown.config, self.b.shown.config

    def requested_pair(self) -> tuple[Config, Config] | None:
        """(A, B) configurations asked for, in the split view."""
        return (self.a.requested, self.b.requested) if self.b is not None else None

    def has_comparison(self, a: Config, b: Config) -> bool:
        """True when A against B was compared before."""
        return (a, b) in self._comparisons

    def store_comparison(self, comparison: Comparison) -> None:
        """A worker's comparison."""
        self._comparisons[(comparison.a, comparison.b)] = comparison

    # -- rows, filters, selection

    def rows(self, compare: bool) -> tuple[QuestionRow, ...]:
        """Every question as a row under the shown A (with B and the move to B in the split view)."""
        result = self.a.shown
        if result is None:
            return ()
        result_b = self.b.shown if compare and self.b is not None else None
        comparison = self.comparison() if result_b is not None else None
        key = (result.config, result_b.config if result_b is not None else None, comparison is not None)
        if key not in self._rows:
            count = len(result.questions)
            results_b: Sequence[QuestionResult | None] = result_b.questions if result_b is not None else [None] * count
            moves: Sequence[QuestionMove | None] = comparison.moves if comparison is not None else [None] * count
            self._rows[key] = tuple(
                QuestionRow(
                    index,
                    question,
                    question_result,
                    status_of(question_result),
                    state_of(question_result),
                    failure_cause(question_result, result.config),
                    b,
                    status_of(b) if b is not None else None,
                    move,
                    failure_cause(b, result_b.config) if b is not None and result_b is not None else None,
                )
                for index, (question, question_result, b, move) in enumerate(
                    zip(self.questions, result.questions, results_b, moves, strict=True)
                )
            )
        return self._rows[key]

    def visible_rows(self, view: str) -> tuple[QuestionRow, ...]:
        """The rows the view's filter accepts, plus the kept question."""
        state = self.views[view]
        accepts = state.filter.accepts
        return tuple(row for row in self.rows(view == "compare") if accepts(row) or row.question.id == state.kept)

    def set_filter(self, view: str, **changes: object) -> RowFilter:
        """Change parts of a view's filter (which ends keeping a filtered-out question) and return it."""
        state = self.views[view]
        state.filter = replace(state.filter, **changes)  # type: ignore[arg-type]
        state.kept = None
        return state.filter

    def keep_selected(self, view: str) -> None:
        """List the selected question in ``view`` until the filter changes, whatever the filter says."""
        self.views[view].kept = self.selected_id

    def causes_present(self, compare: bool = False) -> tuple[FailureCause, ...]:
        """Failure causes (other than OK) of the shown A (and B, in the split view), in priority order."""
        present: set[FailureCause | None] = set()
        for row in self.rows(compare):
            present.update((row.cause, row.cause_b))
        return tuple(cause for cause in FailureCause if cause in present and cause is not FailureCause.OK)

    def question(self, question_id: str) -> Question:
        """A question by id."""
        return self.questions[self.question_index[question_id]]

    def result_for(self, side: Side, question_id: str) -> QuestionResult | None:
        """One question's shown result on a side."""
        slot = self.a if side == "a" else self.b
        if slot is None or slot.shown is None:
            return None
        return slot.shown.questions[self.question_index[question_id]]

    def document_chunks(self, config: Config, doc_id: str) -> tuple[Chunk, ...]:
        """The retrieval units of one document under ``config``, in document order (cached per chunker)."""
        by_doc = self._doc_chunks.get(config.chunker)
        if by_doc is None:
            result = self.evaluator.cached(config)
            units = result.chunks if result is not None else self.evaluator.chunking(config.chunker).chunking.units
            grouped: dict[str, list[Chunk]] = {}
            for unit in units:
                grouped.setdefault(unit.doc, []).append(unit)
            by_doc = {doc: tuple(sorted(chunks, key=lambda c: (c.start, c.end))) for doc, chunks in grouped.items()}
            self._doc_chunks[config.chunker] = by_doc
        return by_doc.get(doc_id, ())

    # -- exports

    def input_paths(self) -> tuple[Path, ...]:
        """Every input file or directory, resolved (exports must never write over or into them)."""
        return tuple(Path(source.path).resolve() for source in self.dataset.sources)

    def is_input_path(self, target: str | Path) -> bool:
        """True when writing ``target`` would change an input (the rule of ``chunkscope.io.outputs.input_conflict``)."""
        return input_conflict(Path(target).expanduser(), self.input_paths()) is not None


def step_through(
    rows: Sequence[QuestionRow], current_id: str | None, step: int, wanted: Callable[[QuestionRow], bool]
) -> QuestionRow | None:
    """The next row after (``step`` 1) or before (-1) ``current_id`` that ``wanted`` accepts, wrapping around."""
    if not rows:
        return None
    ids = [row.question.id for row in rows]
    start = ids.index(current_id) if current_id in ids else (-1 if step > 0 else 0)
    for offset in range(1, len(rows) + 1):
        row = rows[(start + step * offset) % len(rows)]
        if wanted(row):
            return row
    return None
