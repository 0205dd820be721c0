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
from dataclasses import dataclass
from typing import Literal

from chunkscope.analysis.diagnose import FailureCause
from chunkscope.results import Config, QuestionResult

__all__ = [
    "NOT_SIGNIFICANT_NOTE",
    "STATES",
    "Comparison",
    "ComparisonSet",
    "MetricTest",
    "Movement",
    "QuestionMove",
    "State",
    "state_of",
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
    moves: tuple[QuestionMove, ...]
    """Per question, in question-set order."""
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
        return sum(m.movement == movement for m in self.moves)

    @property
    def better(self) -> int:
        """Questions with a smaller first correct rank under B."""
        return self.count("better")

    @property
    def worse(self) -> int:
        """Questions with a larger first correct rank under B."""
        return self.count("worse")

    @property
    def same(self) -> int:
        """Questions whose first correct rank did not change."""
        return self.count("same")

    @property
    def recovered(self) -> int:
        """Questions lost under A whose evidence exists under B."""
        return sum(m.recovered for m in self.moves)

    @property
    def newly_lost(self) -> int:
        """Questions whose evidence exists under A but is lost under B."""
        return sum(m.newly_lost for m in self.moves)

    @property
    def complete_gained(self) -> int:
        """Questions complete under B only."""
        return sum(m.complete_gained for m in self.moves)

    @property
    def complete_lost(self) -> int:
        """Questions complete under A only."""
        return sum(m.complete_lost for m in self.moves)

    @property
    def moved(self) -> tuple[QuestionMove, ...]:
        """Questions that changed, worst first (see ``QuestionMove.severity``)."""
        return tuple(sorted((m for m in self.moves if m.moved), key=lambda m: m.severity))

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
