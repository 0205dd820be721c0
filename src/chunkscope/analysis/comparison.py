"""Values of a paired comparison: how each question moved from configuration A to B, and each metric's test.

Per question (:class:`QuestionMove`), A against B:

* rank change: ``better`` when B's first correct rank is smaller than A's,
  ``worse`` when larger, ``same`` otherwise; a missing rank (``None``) counts
  as infinity, so two misses are ``same``;
* ``recovered``: the evidence is lost in A (no chunk contains it) and exists in
  B; ``newly_lost``: it exists in A and is lost in B;
* ``complete_gained`` / ``complete_lost``: every required item delivered in B
  but not in A, or the reverse.

The transition matrix counts questions by (state in A, state in B) over the
states ``1``, ``2-5``, ``6-20``, ``pieces``, ``miss`` and ``lost``: ``pieces``
when the question has no correct rank (lost, or bucket ``miss``) yet every
character of its evidence was delivered, split across chunks
(``QuestionResult.in_pieces``); otherwise ``lost`` (evidence does not exist)
takes precedence over the rank bucket, so chunking losses are kept apart from
retrieval misses. Recovered and newly lost read the evidence itself, not the
state, so a lost question delivered in pieces still counts as lost.

Each tested metric's :class:`MetricTest` is computed by
:mod:`chunkscope.analysis.paired`; :mod:`chunkscope.analysis.compare` puts the
pieces together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.diagnose import FailureCause, failure_causes
from chunkscope.results import RANKING_DEPTH, BuiltOnUse, Config, QuestionResult, QuestionResults, ResultColumns

__all__ = [
    "NOT_SIGNIFICANT_NOTE",
    "STATES",
    "Comparison",
    "ComparisonSet",
    "MetricTest",
    "MoveColumns",
    "MoveTally",
    "Movement",
    "QuestionMove",
    "QuestionMoves",
    "State",
    "state_of",
    "tally",
]

State = Literal["1", "2-5", "6-20", "pieces", "miss", "lost"]
STATES: tuple[State, ...] = ("1", "2-5", "6-20", "pieces", "miss", "lost")
"""Transition-matrix states, best first."""

Movement = Literal["better", "worse", "same"]

NOT_SIGNIFICANT_NOTE = "not significant does not mean equal: the question set cannot tell the difference apart"


def state_of(result: QuestionResult) -> State:
    """``pieces`` when no prefix of the ranking holds the evidence (lost, or bucket ``miss``) but every
    character of it was delivered; else ``lost`` when the evidence does not exist, else the rank bucket."""
    if result.in_pieces and (result.lost or result.bucket == "miss"):
        return "pieces"
    if not result.evidence_exists:
        return "lost"
    return result.bucket


def column_states(columns: ResultColumns) -> tuple[State, ...]:
    """:func:`state_of` of every question, from its results' columns."""
    ranks = columns.first_correct_rank
    miss = (ranks == 0) | (ranks > RANKING_DEPTH)
    lost = ~columns.evidence_exists
    codes = np.select(
        [columns.in_pieces & (lost | miss), lost, miss, ranks == 1, ranks <= 5],
        [STATES.index(state) for state in ("pieces", "lost", "miss", "1", "2-5")],
        STATES.index("6-20"),
    )
    return tuple(STATES[code] for code in codes.tolist())


@dataclass(frozen=True, slots=True)
class QuestionMove:
    """How one question changed from configuration A to B."""

    question_id: str
    rank_a: int | None
    """First correct rank under A (None: not within the ranking depth)."""
    rank_b: int | None
    """First correct rank under B."""
    state_a: State
    state_b: State
    complete_a: bool
    complete_b: bool
    lost_a: bool
    """The evidence is lost under A (no chunk contains it), whatever the state says."""
    lost_b: bool
    """The evidence is lost under B."""
    cause_a: FailureCause
    """Failure label under A."""
    cause_b: FailureCause
    """Failure label under B."""

    @property
    def movement(self) -> Movement:
        """``better`` when B's first correct rank is smaller (None = infinity), ``worse`` when larger."""
        a = math.inf if self.rank_a is None else self.rank_a
        b = math.inf if self.rank_b is None else self.rank_b
        if b < a:
            return "better"
        if b > a:
            return "worse"
        return "same"

    @property
    def rank_change(self) -> float:
        """``rank_b - rank_a`` (None = infinity; 0 when both are None): positive means worse."""
        if self.rank_a == self.rank_b:
            return 0.0
        a = math.inf if self.rank_a is None else self.rank_a
        b = math.inf if self.rank_b is None else self.rank_b
        return b - a

    @property
    def recovered(self) -> bool:
        """Evidence lost under A exists under B."""
        return self.lost_a and not self.lost_b

    @property
    def newly_lost(self) -> bool:
        """Evidence that exists under A is lost under B."""
        return not self.lost_a and self.lost_b

    @property
    def complete_gained(self) -> bool:
        """Complete under B, not under A."""
        return self.complete_b and not self.complete_a

    @property
    def complete_lost(self) -> bool:
        """Complete under A, not under B."""
        return self.complete_a and not self.complete_b

    @property
    def moved(self) -> bool:
        """Anything changed: rank, evidence existence or completeness."""
        return (
            self.movement != "same"
            or self.state_a != self.state_b
            or self.complete_a != self.complete_b
            or self.cause_a != self.cause_b
        )

    @property
    def severity(self) -> tuple[int, float, float]:
        """Sort key, worst first: newly lost, then the biggest rank drops, then completeness lost,
        completeness gained, the smallest to biggest rank gains, and recovered last."""
        a = math.inf if self.rank_a is None else float(self.rank_a)
        if self.newly_lost:
            return (0, a, 0.0)
        if self.movement == "worse":
            return (1, -self.rank_change, a)
        if self.complete_lost:
            return (2, a, 0.0)
        if self.recovered:
            return (5, -self.rank_change, 0.0)
        if self.movement == "same":
            return (3, a, 0.0)
        return (4, -self.rank_change, a)


_CAUSES = tuple(FailureCause)


@dataclass(frozen=True, slots=True, eq=False)
class MoveColumns:
    """What a move reads of one configuration's questions, as columns: built once per configuration."""

    question_ids: tuple[str, ...]
    ranks: tuple[int | None, ...]
    """First correct ranks."""
    states: tuple[State, ...]
    complete: tuple[bool, ...]
    lost: tuple[bool, ...]
    causes: tuple[FailureCause, ...]
    rank_keys: npt.NDArray[np.float64] = field(repr=False)
    """``ranks`` with infinity for None (the order of :attr:`QuestionMove.movement`)."""
    state_codes: npt.NDArray[np.int64] = field(repr=False)
    """Each state's position in :data:`STATES`."""
    cause_codes: npt.NDArray[np.int64] = field(repr=False)
    """Each cause's position in :class:`FailureCause`."""
    complete_flags: npt.NDArray[np.bool_] = field(repr=False)
    lost_flags: npt.NDArray[np.bool_] = field(repr=False)

    @classmethod
    def of(cls, questions: Sequence[QuestionResult], config: Config) -> MoveColumns:
        """The columns of one configuration's question results."""
        if isinstance(questions, QuestionResults):
            columns = questions.columns
            ids = columns.question_ids
            ranks = tuple(rank or None for rank in columns.first_correct_rank.tolist())
            states = column_states(columns)
            complete = tuple(columns.complete.tolist())
            lost = tuple((~columns.evidence_exists).tolist())
        else:
            ids = tuple(q.question_id for q in questions)
            ranks = tuple(q.first_correct_rank for q in questions)
            states = tuple(state_of(q) for q in questions)
            complete = tuple(q.complete for q in questions)
            lost = tuple(q.lost for q in questions)
        causes = failure_causes(questions, config)
        count = len(questions)
        return cls(
            ids,
            ranks,
            states,
            complete,
            lost,
            causes,
            np.fromiter((math.inf if r is None else r for r in ranks), dtype=np.float64, count=count),
            np.fromiter(map(STATES.index, states), dtype=np.int64, count=count),
            np.fromiter(map(_CAUSES.index, causes), dtype=np.int64, count=count),
            np.fromiter(complete, dtype=np.bool_, count=count),
            np.fromiter(lost, dtype=np.bool_, count=count),
        )


class MoveTally(NamedTuple):
    """Questions per kind of move (see the :class:`Comparison` properties of the same names)."""

    better: int
    worse: int
    same: int
    recovered: int
    newly_lost: int
    complete_gained: int
    complete_lost: int


class QuestionMoves(BuiltOnUse[QuestionMove]):
    """The moves of one comparison, kept as the two configurations' columns and built on first use.

    A sweep reads only how many questions moved which way, counted from the columns; the
    :class:`QuestionMove` values are made when something reads the moves themselves.
    """

    __slots__ = ("_a", "_b", "_items", "_positions", "_tally")

    def __init__(self, a: MoveColumns, b: MoveColumns, positions: Sequence[int]) -> None:
        """The moves from ``a`` to ``b`` of the questions at ``positions`` (indices into both columns)."""
        self._a = a
        self._b = b
        self._positions = tuple(positions)
        self._items: tuple[QuestionMove, ...] | None = None
        self._tally: MoveTally | None = None

    def _move(self, position: int) -> QuestionMove:
        a, b = self._a, self._b
        return QuestionMove(
            question_id=a.question_ids[position],
            rank_a=a.ranks[position],
            rank_b=b.ranks[position],
            state_a=a.states[position],
            state_b=b.states[position],
            complete_a=a.complete[position],
            complete_b=b.complete[position],
            lost_a=a.lost[position],
            lost_b=b.lost[position],
            cause_a=a.causes[position],
            cause_b=b.causes[position],
        )

    def _built(self) -> tuple[QuestionMove, ...]:
        if self._items is None:
            self._items = tuple(map(self._move, self._positions))
        return self._items

    def _index(self) -> npt.NDArray[np.int64]:
        return np.asarray(self._positions, dtype=np.int64)

    def tally(self) -> MoveTally:
        """Questions per kind of move, counted from the columns."""
        if self._tally is None:
            index = self._index()
            a, b = self._a, self._b
            rank_a, rank_b = a.rank_keys[index], b.rank_keys[index]
            lost_a, lost_b = a.lost_flags[index], b.lost_flags[index]
            complete_a, complete_b = a.complete_flags[index], b.complete_flags[index]
            better = int(np.count_nonzero(rank_b < rank_a))
            worse = int(np.count_nonzero(rank_b > rank_a))
            self._tally = MoveTally(
                better,
                worse,
                len(index) - better - worse,
                int(np.count_nonzero(lost_a & ~lost_b)),
                int(np.count_nonzero(~lost_a & lost_b)),
                int(np.count_nonzero(complete_b & ~complete_a)),
                int(np.count_nonzero(complete_a & ~complete_b)),
            )
        return self._tally

    def transitions(self) -> tuple[tuple[int, ...], ...]:
        """``[i][j]``: questions in state ``STATES[i]`` under A and ``STATES[j]`` under B."""
        index = self._index()
        cells = self._a.state_codes[index] * len(STATES) + self._b.state_codes[index]
        counts = np.bincount(cells, minlength=len(STATES) ** 2).reshape(len(STATES), len(STATES))
        return tuple(tuple(row) for row in counts.tolist())

    def moved(self) -> tuple[QuestionMove, ...]:
        """The moves with a change (see :attr:`QuestionMove.moved`), in question order."""
        index = self._index()
        a, b = self._a, self._b
        changed = (
            (a.rank_keys[index] != b.rank_keys[index])
            | (a.state_codes[index] != b.state_codes[index])
            | (a.complete_flags[index] != b.complete_flags[index])
            | (a.cause_codes[index] != b.cause_codes[index])
        )
        if self._items is not None:
            return tuple(self._items[i] for i in np.flatnonzero(changed).tolist())
        return tuple(self._move(self._positions[i]) for i in np.flatnonzero(changed).tolist())

    def __len__(self) -> int:
        return len(self._positions)

    def __reduce__(self) -> tuple[Any, ...]:
        return QuestionMoves, (self._a, self._b, self._positions)


def tally(moves: Sequence[QuestionMove]) -> MoveTally:
    """Questions per kind of move: from the columns of :class:`QuestionMoves`, else move by move."""
    if isinstance(moves, QuestionMoves):
        return moves.tally()
    movements = [m.movement for m in moves]
    return MoveTally(
        movements.count("better"),
        movements.count("worse"),
        movements.count("same"),
        sum(m.recovered for m in moves),
        sum(m.newly_lost for m in moves),
        sum(m.complete_gained for m in moves),
        sum(m.complete_lost for m in moves),
    )


@dataclass(frozen=True, slots=True)
class MetricTest:
    """One metric compared between A and B."""

    metric: str
    """The metric's key in :data:`chunkscope.metrics.registry.REGISTRY`."""
    mean_a: float
    """Mean of the per-question values under A."""
    mean_b: float
    """Mean of the per-question values under B."""
    delta: float
    """``mean_b - mean_a`` (the mean paired difference)."""
    ci_low: float
    """Lower end of the bootstrap 95% interval of ``delta``."""
    ci_high: float
    """Upper end of the bootstrap 95% interval of ``delta``."""
    p_value_raw: float
    """Two-sided permutation p-value, unadjusted."""
    p_value: float
    """The p-value to read: Holm-adjusted within the family when a correction applies, else raw."""
    significant: bool
    """``p_value < alpha``."""
    exact: bool
    """True when every sign vector was enumerated (``2**n <= permutations``)."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """Configuration A against B on the same questions (one question group)."""

    a: Config
    b: Config
    group: str
    """``all`` for every question, else the tag."""
    moves: Sequence[QuestionMove]
    """Per question, in question-set order (a tuple, or :class:`QuestionMoves` from :func:`compare_all`)."""
    transitions: tuple[tuple[int, ...], ...]
    """``transitions[i][j]``: questions in state ``STATES[i]`` under A and ``STATES[j]`` under B."""
    tests: tuple[MetricTest, ...]
    """One per tested metric, in the order the metrics were given."""
    permutations: int
    resamples: int
    seed: int
    alpha: float
    correction: str
    """``none`` or ``holm``."""
    family_size: int
    """Tests adjusted together (1 when uncorrected)."""
    by_tag: tuple[Comparison, ...] = ()
    """The same comparison per tag (``group`` = tag), in tag order."""

    @property
    def questions(self) -> int:
        """Questions compared."""
        return len(self.moves)

    def count(self, movement: Movement) -> int:
        """Questions whose first correct rank moved this way."""
        return int(getattr(tally(self.moves), movement))

    @property
    def better(self) -> int:
        """Questions with a smaller first correct rank under B."""
        return tally(self.moves).better

    @property
    def worse(self) -> int:
        """Questions with a larger first correct rank under B."""
        return tally(self.moves).worse

    @property
    def same(self) -> int:
        """Questions whose first correct rank did not change."""
        return tally(self.moves).same

    @property
    def recovered(self) -> int:
        """Questions lost under A whose evidence exists under B."""
        return tally(self.moves).recovered

    @property
    def newly_lost(self) -> int:
        """Questions whose evidence exists under A but is lost under B."""
        return tally(self.moves).newly_lost

    @property
    def complete_gained(self) -> int:
        """Questions complete under B only."""
        return tally(self.moves).complete_gained

    @property
    def complete_lost(self) -> int:
        """Questions complete under A only."""
        return tally(self.moves).complete_lost

    @property
    def moved(self) -> tuple[QuestionMove, ...]:
        """Questions that changed, worst first (see ``QuestionMove.severity``)."""
        changed = self.moves.moved() if isinstance(self.moves, QuestionMoves) else (m for m in self.moves if m.moved)
        return tuple(sorted(changed, key=lambda m: m.severity))

    def test(self, metric: str) -> MetricTest:
        """The test of one metric (KeyError when not tested)."""
        for test in self.tests:
            if test.metric == metric:
                return test
        raise KeyError(metric)

    def move(self, question_id: str) -> QuestionMove:
        """The move of one question (KeyError when unknown)."""
        for move in self.moves:
            if move.question_id == question_id:
                return move
        raise KeyError(question_id)

    def tag(self, tag: str) -> Comparison:
        """The comparison restricted to one tag (KeyError when absent)."""
        for comparison in self.by_tag:
            if comparison.group == tag:
                return comparison
        raise KeyError(tag)


@dataclass(frozen=True, slots=True)
class ComparisonSet:
    """Every pair of two or more configurations, Holm-corrected within each question group."""

    configs: tuple[Config, ...]
    """The configurations, in the order given."""
    means: tuple[tuple[float, ...], ...]
    """``means[c][m]``: mean of ``metrics[m]`` under ``configs[c]`` over all questions."""
    metrics: tuple[str, ...]
    """The tested metrics' keys."""
    pairs: tuple[Comparison, ...]
    """``(configs[i], configs[j])`` for ``i < j``, in lexicographic order of ``(i, j)``."""
    alpha: float
    by_tag: tuple[ComparisonSet, ...] = ()
    """The same per tag (each its own Holm family)."""
    group: str = "all"

    @property
    def family_size(self) -> int:
        """Tests adjusted together: pairs x metrics."""
        return len(self.pairs) * len(self.metrics)

    def pair(self, first: int, second: int) -> Comparison:
        """The comparison of ``configs[first]`` (as A) against ``configs[second]`` (as B), first < second."""
        if not 0 <= first < second < len(self.configs):
            raise IndexError((first, second))
        k = len(self.configs)
        index = first * k - first * (first + 1) // 2 + (second - first - 1)
        return self.pairs[index]

    def best(self, metric: str) -> int:
        """Index of the configuration with the highest mean (the first on ties)."""
        column = self.metrics.index(metric)
        values = [row[column] for row in self.means]
        return values.index(max(values))

    def differs_from_best(self, metric: str, index: int) -> MetricTest | None:
        """The corrected test of ``configs[index]`` against the best when significant, else None."""
        best = self.best(metric)
        if index == best:
            return None
        test = self.pair(min(index, best), max(index, best)).test(metric)
        return test if test.significant else None

    def tag(self, tag: str) -> ComparisonSet:
        """The set restricted to one tag (KeyError when absent)."""
        for group in self.by_tag:
            if group.group == tag:
                return group
        raise KeyError(tag)
