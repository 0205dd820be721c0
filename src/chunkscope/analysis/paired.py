"""The paired-test engine: every (pair, metric) test of several configurations on the same questions.

A metric's per-question values are its registered ``per_question`` function
(:data:`chunkscope.metrics.registry.REGISTRY`); by default the ``tested``
metrics. For each metric and pair (A, B), with ``d_i = b_i - a_i``: mean A,
mean B, ``delta = mean(d)``; a two-sided paired sign-flip permutation test of
H0 "mean(d) = 0" (:func:`chunkscope.analysis.stats.paired_permutation_pvalues`,
``permutations`` sign vectors from ``seed``; exact enumeration when
``2**n <= permutations``); a percentile bootstrap 95% interval of ``delta``
(:func:`chunkscope.analysis.stats.bootstrap_ci`, ``resamples`` resamples from ``seed``).

Multiple comparisons. With ``correct``, the family is every (pair, metric) test
of one question group: ``C(k, 2) x len(metrics)`` tests for ``k``
configurations (8 configurations: 28 pairs x 9 metrics = 252), adjusted
together with Holm's step-down method; ``p_value`` is the adjusted value,
``p_value_raw`` the unadjusted one. Without it (one pair), ``p_value ==
p_value_raw``. A difference is significant when ``p_value < alpha``. Not
significant does not mean equal: it means this question set cannot tell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.comparison import MetricTest
from chunkscope.analysis.pair_differences import PairDifferences
from chunkscope.analysis.stats import (
    DrawsAhead,
    bootstrap_ci,
    holm,
    paired_permutation_pvalues,
)
from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.registry import REGISTRY, Metric, QuestionValue
from chunkscope.results import ConfigResult, QuestionResults

__all__ = ["DEFAULT_PERMUTATIONS", "PairTests", "PairedSettings", "metric_values", "pair_tests", "tested_metrics"]

DEFAULT_PERMUTATIONS = 10_000

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class PairedSettings:
    """How the tests run."""

    permutations: int
    """Sign vectors of the permutation test."""
    resamples: int
    """Bootstrap resamples."""
    seed: int
    """Seed of both."""
    alpha: float
    """Significance level."""
    correct: bool
    """Holm-adjust over the family of (pair, metric) tests."""
    metrics: tuple[str, ...]
    """Keys of the tested metrics."""


@dataclass(frozen=True, slots=True)
class PairTests:
    """Every pair's tests of one question group."""

    tests: tuple[tuple[MetricTest, ...], ...]
    """``tests[p][m]``: pair ``p``, metric ``settings.metrics[m]``."""
    family_size: int
    """Tests adjusted together (1 when uncorrected)."""


def tested_metrics(metrics: Sequence[str] | None = None) -> tuple[str, ...]:
    """The keys of ``metrics`` (any registered name; default: the tested metrics).

    Raises ChunkscopeError for an unknown name or a metric without per-question values.
    """
    if metrics is None:
        return tuple(m.name for m in REGISTRY.tested())
    per_question = [m for m in REGISTRY if m.per_question is not None]
    return tuple(REGISTRY.parse(name, per_question).name for name in metrics)


def metric_values(result: ConfigResult, metrics: Sequence[str] | None = None) -> FloatArray:
    """Per-question values, shape ``(len(metrics), questions)`` (default: the tested metrics).

    Taken from the results' columns when they keep them (:class:`chunkscope.results.QuestionResults`)
    and the metric has a column: the same numbers.
    """
    chosen = [REGISTRY[name] for name in tested_metrics(metrics)]
    questions = result.questions
    columns = questions.columns if isinstance(questions, QuestionResults) else None
    rows = [
        metric.column(columns)
        if columns is not None and metric.column is not None
        else list(map(_per_question(metric), questions))
        for metric in chosen
    ]
    return np.array(rows, dtype=np.float64).reshape(len(chosen), len(questions))


def pair_tests(
    values: Sequence[FloatArray],
    pairs: Sequence[tuple[int, int]],
    settings: PairedSettings,
    draws: DrawsAhead | None = None,
) -> PairTests:
    """Test ``values[j] - values[i]`` for every pair ``(i, j)`` and metric (rows of each ``values`` matrix).

    ``draws``: the tests' random numbers drawn ahead, used when they fit these questions and settings.
    """
    metric_count = len(settings.metrics)
    paired = PairDifferences.of(np.stack(values), pairs)
    differences = paired.differences
    if draws is not None and not draws.fits(
        differences.shape[1], settings.permutations, settings.resamples, settings.seed
    ):
        draws = None
    raw = paired_permutation_pvalues(
        differences,
        settings.permutations,
        settings.seed,
        products=paired.products,
        draws=draws,
        counter=paired.count_extreme,
    )
    adjusted = holm(raw.tolist()) if settings.correct else raw
    intervals = bootstrap_ci(
        differences, 0.95, settings.resamples, settings.seed, products=paired.products, draws=draws
    )
    exact = (1 << differences.shape[1]) <= settings.permutations
    tests = []
    for p, (i, j) in enumerate(pairs):
        rows = range(p * metric_count, (p + 1) * metric_count)
        tests.append(
            tuple(
                MetricTest(
                    metric=metric,
                    mean_a=float(values[i][m].mean()),
                    mean_b=float(values[j][m].mean()),
                    delta=float(differences[row].mean()),
                    ci_low=float(intervals[row, 0]),
                    ci_high=float(intervals[row, 1]),
                    p_value_raw=float(raw[row]),
                    p_value=float(adjusted[row]),
                    significant=bool(adjusted[row] < settings.alpha),
                    exact=exact,
                )
                for m, (metric, row) in enumerate(zip(settings.metrics, rows, strict=True))
            )
        )
    return PairTests(tuple(tests), len(raw) if settings.correct else 1)


def _per_question(metric: Metric) -> QuestionValue:
    if metric.per_question is None:
        raise ChunkscopeError(f"{metric.name} has no per-question value to test")
    return metric.per_question
