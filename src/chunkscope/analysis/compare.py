"""Paired comparison of configurations on the same questions, with significance tests.

Per question (:class:`QuestionMove`), A against B:

* rank change: ``better`` when B's first correct rank is smaller than A's,
  ``worse`` when larger, ``same`` otherwise; a missing rank (``None``) counts
  as infinity, so two misses are ``same``;
* ``recovered``: the evidence is lost in A (no chunk contains it) and exists in
  B; ``newly_lost``: it exists in A and is lost in B;
* ``complete_gained`` / ``complete_lost``: every required item delivered in B
  but not in A, or the reverse.

The transition matrix counts questions by (state in A, state in B) over the
states ``1``, ``2-5``, ``6-20``, ``miss`` and ``lost``; ``lost`` (evidence does
not exist) takes precedence over the rank bucket, so chunking losses are kept
apart from retrieval misses.

Metrics tested (:data:`METRICS`), from per-question values:
``recall_at_5`` and ``recall_at_20`` (1 when the first correct rank r <= k,
else 0), ``mrr_at_10`` (1/r when r <= 10, else 0), ``ndcg_at_10``
(1/log2(r + 1) when r <= 10, else 0) and ``complete`` (1 when every required
item was delivered, else 0). For each metric, with ``d_i = b_i - a_i``:
mean A, mean B, ``delta = mean(d)``; a two-sided paired sign-flip permutation
test of H0 "mean(d) = 0" (:func:`chunkscope.analysis.stats.paired_permutation_pvalues`,
``permutations`` sign vectors from ``seed``; exact enumeration when
``2**n <= permutations``); a percentile bootstrap 95% interval of ``delta``
(:func:`chunkscope.analysis.stats.bootstrap_ci`, ``resamples`` resamples from ``seed``).

Multiple comparisons. :func:`compare` tests one pair: its p-values are not
corrected (``p_value == p_value_raw``, ``correction == "none"``).
:func:`compare_all` tests every pair of two or more configurations; its family
is every (pair, metric) test of one question group: ``C(k, 2) x len(metrics)``
tests for ``k`` configurations (8 configurations: 28 pairs x 5 metrics = 140),
adjusted together with Holm's step-down method. ``p_value`` is the adjusted
value, ``p_value_raw`` the unadjusted one. Each tag group (``by_tag``) is a
family of its own. A difference is significant when ``p_value < alpha``.
Not significant does not mean equal: it means this question set cannot tell.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.diagnose import FailureCause, failure_cause
from chunkscope.analysis.groups import tag_positions
from chunkscope.analysis.stats import bootstrap_ci, holm, paired_permutation_pvalues
from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.rank import ndcg_single, recall_at, reciprocal_rank
from chunkscope.results import Config, ConfigResult, QuestionResult

__all__ = [
    "METRICS",
    "NOT_SIGNIFICANT_NOTE",
    "STATES",
    "Comparison",
    "ComparisonSet",
    "MetricTest",
    "QuestionMove",
    "compare",
    "compare_all",
    "metric_values",
    "state_of",
]

State = Literal["1", "2-5", "6-20", "miss", "lost"]
STATES: tuple[State, ...] = ("1", "2-5", "6-20", "miss", "lost")
"""Transition-matrix states, best first."""

Movement = Literal["better", "worse", "same"]

METRICS: tuple[str, ...] = ("recall_at_5", "recall_at_20", "mrr_at_10", "ndcg_at_10", "complete")
"""Metrics tested, in display order; names are ``Summary`` fields."""

NOT_SIGNIFICANT_NOTE = "not significant does not mean equal: the question set cannot tell the difference apart"

DEFAULT_PERMUTATIONS = 10_000


def state_of(result: QuestionResult) -> State:
    """``lost`` when the evidence does not exist, else the rank bucket."""
    if not result.evidence_exists:
        return "lost"
    return result.bucket


def metric_value(result: QuestionResult, metric: str) -> float:
    """One question's value of ``metric`` (see the module docstring for the formulas)."""
    rank = result.first_correct_rank
    if metric == "recall_at_5":
        return recall_at(rank, 5)
    if metric == "recall_at_20":
        return recall_at(rank, 20)
    if metric == "mrr_at_10":
        return reciprocal_rank(rank, 10)
    if metric == "ndcg_at_10":
        return ndcg_single(rank, 10)
    if metric == "complete":
        return 1.0 if result.complete else 0.0
    raise ChunkscopeError(f"unknown metric {metric!r}; choose from {', '.join(METRICS)}")


def metric_values(result: ConfigResult, metrics: Sequence[str] = METRICS) -> npt.NDArray[np.float64]:
    """Per-question values, shape ``(len(metrics), questions)``."""
    return np.array([[metric_value(q, m) for q in result.questions] for m in metrics], dtype=np.float64).reshape(
        len(metrics), len(result.questions)
    )


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
        return self.state_a == "lost" and self.state_b != "lost"

    @property
    def newly_lost(self) -> bool:
        """Evidence that exists under A is lost under B."""
        return self.state_a != "lost" and self.state_b == "lost"

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
    mean_a: float
    mean_b: float
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
    """One per tested metric, in ``METRICS`` order."""
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


def compare(
    a: ConfigResult,
    b: ConfigResult,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    alpha: float = 0.05,
    *,
    tags: Mapping[str, Sequence[str]] | None = None,
    resamples: int | None = None,
    metrics: Sequence[str] = METRICS,
) -> Comparison:
    """Compare A against B question by question, with uncorrected paired tests per metric.

    ``tags`` (question id -> tags) adds one comparison per tag in ``by_tag``.
    ``resamples`` for the bootstrap defaults to ``permutations``.
    Raises ChunkscopeError when the two results do not hold the same questions in the same order.
    """
    return compare_all(
        [a, b], permutations, seed, alpha, tags=tags, resamples=resamples, metrics=metrics, correct=False
    ).pairs[0]


def compare_all(
    results: Sequence[ConfigResult],
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    alpha: float = 0.05,
    *,
    tags: Mapping[str, Sequence[str]] | None = None,
    resamples: int | None = None,
    metrics: Sequence[str] = METRICS,
    correct: bool = True,
) -> ComparisonSet:
    """Compare every pair of ``results`` (A = earlier, B = later in the list).

    With ``correct`` (the default), p-values are Holm-adjusted over every (pair, metric)
    test of the question group; each tag is its own family.
    Raises ChunkscopeError for fewer than two results, or results over different questions.
    """
    if len(results) < 2:
        raise ChunkscopeError("a comparison needs at least two configurations")
    if not 0.0 < alpha < 1.0:
        raise ChunkscopeError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    ids = _common_question_ids(results)
    if not ids:
        raise ChunkscopeError("no questions to compare")
    for metric in metrics:
        metric_value_check(metric)
    settings = _Settings(permutations, resamples or permutations, seed, alpha, correct, tuple(metrics))
    values = [metric_values(result, settings.metrics) for result in results]
    states = [tuple(state_of(q) for q in result.questions) for result in results]
    causes = [tuple(failure_cause(q, result.config) for q in result.questions) for result in results]
    everything = tuple(range(len(ids)))
    inputs = _Inputs(results, values, states, causes)
    by_tag = tuple(
        _compare_group(inputs, positions, tag, settings, ())
        for tag, positions in tag_positions(ids, tags or {}).items()
    )
    return _compare_group(inputs, everything, "all", settings, by_tag)


def metric_value_check(metric: str) -> None:
    """Raise ChunkscopeError unless ``metric`` is one of METRICS."""
    if metric not in METRICS:
        raise ChunkscopeError(f"unknown metric {metric!r}; choose from {', '.join(METRICS)}")


@dataclass(frozen=True, slots=True)
class _Settings:
    permutations: int
    resamples: int
    seed: int
    alpha: float
    correct: bool
    metrics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Inputs:
    results: Sequence[ConfigResult]
    values: list[npt.NDArray[np.float64]]
    states: list[tuple[State, ...]]
    causes: list[tuple[FailureCause, ...]]


def _common_question_ids(results: Sequence[ConfigResult]) -> tuple[str, ...]:
    """The shared question ids; ChunkscopeError naming the first mismatch otherwise."""
    first = results[0]
    ids = tuple(q.question_id for q in first.questions)
    for other in results[1:]:
        other_ids = tuple(q.question_id for q in other.questions)
        if other_ids == ids:
            continue
        if len(other_ids) != len(ids):
            raise ChunkscopeError(
                f"cannot compare {first.config.label} ({len(ids)} questions) with "
                f"{other.config.label} ({len(other_ids)} questions): question sets differ"
            )
        position = next(i for i, (x, y) in enumerate(zip(ids, other_ids, strict=True)) if x != y)
        raise ChunkscopeError(
            f"cannot compare {first.config.label} with {other.config.label}: question {position + 1} is "
            f"{ids[position]!r} in one and {other_ids[position]!r} in the other"
        )
    return ids


def _compare_group(
    inputs: _Inputs,
    positions: Sequence[int],
    group: str,
    settings: _Settings,
    by_tag: tuple[ComparisonSet, ...],
) -> ComparisonSet:
    results = inputs.results
    index = np.asarray(positions, dtype=np.int64)
    pairs = list(itertools.combinations(range(len(results)), 2))
    metric_count = len(settings.metrics)
    values = [v[:, index] for v in inputs.values]
    differences = np.vstack([values[j] - values[i] for i, j in pairs])
    raw = paired_permutation_pvalues(differences, settings.permutations, settings.seed)
    adjusted = holm(raw.tolist()) if settings.correct else raw
    intervals = bootstrap_ci(differences, 0.95, settings.resamples, settings.seed)
    exact = (1 << len(positions)) <= settings.permutations
    comparisons = []
    for p, (i, j) in enumerate(pairs):
        tests = tuple(
            MetricTest(
                metric=metric,
                mean_a=float(values[i][m].mean()),
                mean_b=float(values[j][m].mean()),
                delta=float(differences[p * metric_count + m].mean()),
                ci_low=float(intervals[p * metric_count + m, 0]),
                ci_high=float(intervals[p * metric_count + m, 1]),
                p_value_raw=float(raw[p * metric_count + m]),
                p_value=float(adjusted[p * metric_count + m]),
                significant=bool(adjusted[p * metric_count + m] < settings.alpha),
                exact=exact,
            )
            for m, metric in enumerate(settings.metrics)
        )
        moves = tuple(_move(inputs, i, j, position) for position in positions)
        comparisons.append(
            Comparison(
                a=results[i].config,
                b=results[j].config,
                group=group,
                moves=moves,
                transitions=_transitions(moves),
                tests=tests,
                permutations=settings.permutations,
                resamples=settings.resamples,
                seed=settings.seed,
                alpha=settings.alpha,
                correction="holm" if settings.correct else "none",
                family_size=len(raw) if settings.correct else 1,
                by_tag=tuple(tag_set.pairs[p] for tag_set in by_tag),
            )
        )
    means = tuple(tuple(float(v[m].mean()) for m in range(metric_count)) for v in values)
    return ComparisonSet(
        configs=tuple(r.config for r in results),
        means=means,
        metrics=settings.metrics,
        pairs=tuple(comparisons),
        alpha=settings.alpha,
        by_tag=by_tag,
        group=group,
    )


def _move(inputs: _Inputs, i: int, j: int, position: int) -> QuestionMove:
    qa = inputs.results[i].questions[position]
    qb = inputs.results[j].questions[position]
    return QuestionMove(
        question_id=qa.question_id,
        rank_a=qa.first_correct_rank,
        rank_b=qb.first_correct_rank,
        state_a=inputs.states[i][position],
        state_b=inputs.states[j][position],
        complete_a=qa.complete,
        complete_b=qb.complete,
        cause_a=inputs.causes[i][position],
        cause_b=inputs.causes[j][position],
    )


def _transitions(moves: Sequence[QuestionMove]) -> tuple[tuple[int, ...], ...]:
    counts = [[0] * len(STATES) for _ in STATES]
    for move in moves:
        counts[STATES.index(move.state_a)][STATES.index(move.state_b)] += 1
    return tuple(tuple(row) for row in counts)
