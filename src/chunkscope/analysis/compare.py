"""Paired comparison of configurations on the same questions, with significance tests.

:func:`compare` tests one pair (p-values not corrected: ``correction ==
"none"``); :func:`compare_all` tests every pair of two or more configurations,
Holm-corrected over every (pair, metric) test of one question group; each tag
group (``by_tag``) is a family of its own. The values returned, and what each
count means, are defined in :mod:`chunkscope.analysis.comparison`; the tests
in :mod:`chunkscope.analysis.paired`; the metrics tested (by default every
``tested`` metric: Recall@5, Recall@20, MRR@10, nDCG@10, complete and the
character-overlap evidence recall, precision, IoU and precision Ω) in
:mod:`chunkscope.metrics.registry`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.comparison import (
    NOT_SIGNIFICANT_NOTE,
    STATES,
    Comparison,
    ComparisonSet,
    MetricTest,
    MoveColumns,
    QuestionMove,
    QuestionMoves,
    State,
    state_of,
)
from chunkscope.analysis.groups import tag_positions
from chunkscope.analysis.paired import DEFAULT_PERMUTATIONS, PairedSettings, metric_values, pair_tests, tested_metrics
from chunkscope.analysis.stats import DrawsAhead
from chunkscope.errors import ChunkscopeError
from chunkscope.results import ConfigResult, question_ids

__all__ = [
    "DEFAULT_PERMUTATIONS",
    "NOT_SIGNIFICANT_NOTE",
    "STATES",
    "Comparison",
    "ComparisonSet",
    "MetricTest",
    "PairTestsAhead",
    "QuestionMove",
    "State",
    "compare",
    "compare_all",
    "metric_values",
    "state_of",
]


def compare(
    a: ConfigResult,
    b: ConfigResult,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = 0,
    alpha: float = 0.05,
    *,
    tags: Mapping[str, Sequence[str]] | None = None,
    resamples: int | None = None,
    metrics: Sequence[str] | None = None,
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
    metrics: Sequence[str] | None = None,
    correct: bool = True,
    ahead: PairTestsAhead | None = None,
) -> ComparisonSet:
    """Compare every pair of ``results`` (A = earlier, B = later in the list).

    With ``correct`` (the default), p-values are Holm-adjusted over every (pair, metric)
    test of the question group; each tag is its own family. ``ahead``: what the tests on every
    question computed while the results came in (:class:`PairTestsAhead`), used when it holds these results.
    Raises ChunkscopeError for fewer than two results, or results over different questions.
    """
    if len(results) < 2:
        raise ChunkscopeError("a comparison needs at least two configurations")
    if not 0.0 < alpha < 1.0:
        raise ChunkscopeError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    ids = _common_question_ids(results)
    if not ids:
        raise ChunkscopeError("no questions to compare")
    settings = PairedSettings(permutations, resamples or permutations, seed, alpha, correct, tested_metrics(metrics))
    taken = [None if ahead is None else ahead.taken(p, result, settings.metrics) for p, result in enumerate(results)]
    values = [metric_values(r, settings.metrics) if t is None else t[0] for r, t in zip(results, taken, strict=True)]
    columns = [
        MoveColumns.of(r.questions, r.config) if t is None else t[1] for r, t in zip(results, taken, strict=True)
    ]
    everything = tuple(range(len(ids)))
    inputs = _Inputs(results, values, columns)
    by_tag = tuple(
        _compare_group(inputs, positions, tag, settings, ())
        for tag, positions in tag_positions(ids, tags or {}).items()
    )
    draws = None if ahead is None else ahead.draws_for(settings, len(ids))
    return _compare_group(inputs, everything, "all", settings, by_tag, draws)


class PairTestsAhead:
    """The part of :func:`compare_all`'s work that can be done before every result is in.

    The tests' random numbers depend only on the number of questions and the settings: they are drawn
    in a background thread from :meth:`start` (:class:`chunkscope.analysis.stats.DrawsAhead`). Each
    result given to :meth:`add` has its metric values and move columns taken at once (with worker
    processes, while the others are still evaluated). :func:`compare_all` uses what fits: the draws
    for tests on as many questions with the same settings, the values of the very results it is given.
    """

    def __init__(
        self,
        questions: int,
        permutations: int = DEFAULT_PERMUTATIONS,
        seed: int = 0,
        *,
        resamples: int | None = None,
        metrics: Sequence[str] | None = None,
    ) -> None:
        self.metrics = tested_metrics(metrics)
        self.draws = DrawsAhead(max(questions, 1), permutations, resamples or permutations, seed)
        self._taken: dict[int, tuple[ConfigResult, npt.NDArray[np.float64], MoveColumns]] = {}

    def start(self) -> None:
        """Start drawing (a daemon thread: nothing waits for it at exit)."""
        self.draws.start()

    def add(self, position: int, result: ConfigResult) -> None:
        """The result of configuration ``position`` (its place in the list :func:`compare_all` will get)."""
        values = metric_values(result, self.metrics)
        self._taken[position] = (result, values, MoveColumns.of(result.questions, result.config))

    def taken(
        self, position: int, result: ConfigResult, metrics: Sequence[str]
    ) -> tuple[npt.NDArray[np.float64], MoveColumns] | None:
        """The metric values and move columns taken of ``result`` when it was added at ``position``."""
        entry = self._taken.get(position)
        if entry is None or entry[0] is not result or tuple(metrics) != self.metrics:
            return None
        return entry[1], entry[2]

    def draws_for(self, settings: PairedSettings, questions: int) -> DrawsAhead | None:
        """The draws, when they are those of tests on ``questions`` questions with ``settings``."""
        fits = self.draws.fits(questions, settings.permutations, settings.resamples, settings.seed)
        return self.draws if fits else None


@dataclass(frozen=True, slots=True)
class _Inputs:
    results: Sequence[ConfigResult]
    values: list[npt.NDArray[np.float64]]
    columns: list[MoveColumns]
    """What the moves read of each configuration's questions."""


def _common_question_ids(results: Sequence[ConfigResult]) -> tuple[str, ...]:
    """The shared question ids; ChunkscopeError naming the first mismatch otherwise."""
    first = results[0]
    ids = question_ids(first.questions)
    for other in results[1:]:
        other_ids = question_ids(other.questions)
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
    settings: PairedSettings,
    by_tag: tuple[ComparisonSet, ...],
    draws: DrawsAhead | None = None,
) -> ComparisonSet:
    results = inputs.results
    index = np.asarray(positions, dtype=np.int64)
    pairs = list(itertools.combinations(range(len(results)), 2))
    values = [v[:, index] for v in inputs.values]
    tested = pair_tests(values, pairs, settings, draws)
    comparisons = []
    for p, (i, j) in enumerate(pairs):
        moves = QuestionMoves(inputs.columns[i], inputs.columns[j], positions)
        comparisons.append(
            Comparison(
                a=results[i].config,
                b=results[j].config,
                group=group,
                moves=moves,
                transitions=moves.transitions(),
                tests=tested.tests[p],
                permutations=settings.permutations,
                resamples=settings.resamples,
                seed=settings.seed,
                alpha=settings.alpha,
                correction="holm" if settings.correct else "none",
                family_size=tested.family_size,
                by_tag=tuple(tag_set.pairs[p] for tag_set in by_tag),
            )
        )
    means = tuple(tuple(float(v[m].mean()) for m in range(len(settings.metrics))) for v in values)
    return ComparisonSet(
        configs=tuple(r.config for r in results),
        means=means,
        metrics=settings.metrics,
        pairs=tuple(comparisons),
        alpha=settings.alpha,
        by_tag=by_tag,
        group=group,
    )
