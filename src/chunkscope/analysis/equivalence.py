"""Equivalence tests: can a question set show that A and B differ by less than a margin?

"No detectable difference" is not "equal". Two one-sided tests (TOST) on the
paired per-question differences ``d_i = b_i - a_i`` of a metric, with margin
``M > 0``:

* lower: H0 ``mean(d) <= -M`` against ``mean(d) > -M``, the one-sided sign-flip
  permutation test of the shifted differences ``d_i + M``
  (:func:`chunkscope.analysis.stats.one_sided_permutation_pvalues`);
* upper: H0 ``mean(d) >= M`` against ``mean(d) < M``, the same test of
  ``M - d_i``.

The TOST p-value is ``max(p_lower, p_upper)``. Both tests use the same sign
vectors as the difference test (exact enumeration when ``2**n <=
permutations``, else ``permutations`` vectors from ``seed``). With a
correction (``sweep``: every pair and metric; ``compare``: none, like its
difference tests), the TOST p-values of a family are Holm-adjusted together,
apart from the difference tests. Verdict, with ``alpha``:

* ``equivalent within ±M`` when the (adjusted) TOST p-value is below ``alpha``
  (a significant difference smaller than ``M`` reads equivalent too: it is
  negligible by the margin's own definition);
* else ``different`` when the difference test is significant;
* else ``neither shown``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.comparison import Comparison, MetricTest
from chunkscope.analysis.paired import metric_values
from chunkscope.analysis.stats import holm, one_sided_permutation_pvalues
from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.registry import REGISTRY
from chunkscope.results import ConfigResult

__all__ = [
    "EquivalenceTest",
    "equivalence_tests",
    "format_margin",
    "pairs_equivalence",
    "parse_margins",
    "verdict_text",
]

FloatArray = npt.NDArray[np.float64]

EQUIVALENT = "equivalent"
DIFFERENT = "different"
NEITHER = "neither shown"


@dataclass(frozen=True, slots=True)
class EquivalenceTest:
    """TOST of one metric between A and B."""

    metric: str
    margin: float
    delta: float
    """``mean(b - a)``."""
    p_lower: float
    """One-sided p-value of H0 ``delta <= -margin``."""
    p_upper: float
    """One-sided p-value of H0 ``delta >= margin``."""
    p_value_raw: float
    """``max(p_lower, p_upper)``."""
    p_value: float
    """Holm-adjusted within the family when a correction applies, else raw."""
    verdict: str
    """``equivalent``, ``different`` or ``neither shown``."""

    @property
    def verdict_text(self) -> str:
        """The verdict as reports write it: ``equivalent within ±0.02``, ``different``, ``neither shown``."""
        return verdict_text(self.verdict, self.margin)


def verdict_text(verdict: str, margin: float) -> str:
    """``equivalent within ±M`` for an equivalence verdict, else the verdict itself."""
    return f"equivalent within ±{format_margin(margin)}" if verdict == EQUIVALENT else verdict


def format_margin(margin: float) -> str:
    """A margin as written back: ``0.02``."""
    return f"{margin:g}"


def parse_margins(text: str, metrics: Sequence[str]) -> dict[str, float]:
    """``--equivalence-margin``: one number for every tested metric, or ``metric=M,...`` (any alias).

    Raises ChunkscopeError for an unknown or untested metric, a repeated metric, or a margin that is
    not a positive finite number.
    """
    text = text.strip()
    if "=" not in text:
        margin = _margin(text, "--equivalence-margin")
        return dict.fromkeys(metrics, margin)
    margins: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ChunkscopeError(f"--equivalence-margin: expected METRIC=M, got {part.strip()!r}")
        try:
            key = REGISTRY.parse(name.strip()).name
        except Exception:
            raise ChunkscopeError(f"--equivalence-margin: unknown metric {name.strip()!r}") from None
        if key not in metrics:
            raise ChunkscopeError(f"--equivalence-margin: {name.strip()} is not a tested metric ({', '.join(metrics)})")
        if key in margins:
            raise ChunkscopeError(f"--equivalence-margin: {name.strip()} is given twice")
        margins[key] = _margin(value, f"--equivalence-margin {name.strip()}")
    return margins


def _margin(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ChunkscopeError(f"{where}: expected a number, got {text.strip()!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ChunkscopeError(f"{where}: the margin must be a positive number, got {text.strip()!r}")
    return value


def equivalence_tests(
    differences: Sequence[FloatArray],
    difference_tests: Sequence[Sequence[MetricTest]],
    margins: Mapping[str, float],
    permutations: int,
    seed: int,
    alpha: float,
    correct: bool,
) -> tuple[tuple[EquivalenceTest | None, ...], ...]:
    """TOST per pair and metric: ``differences[p]`` has one row per metric of ``difference_tests[p]``.

    A metric without a margin gets ``None``. With ``correct``, the TOST p-values of every
    (pair, metric) with a margin are Holm-adjusted together.
    """
    rows: list[tuple[int, int, float]] = []
    shifted: list[FloatArray] = []
    for p, (matrix, tests) in enumerate(zip(differences, difference_tests, strict=True)):
        for m, test in enumerate(tests):
            margin = margins.get(test.metric)
            if margin is None:
                continue
            rows.append((p, m, margin))
            shifted.append(matrix[m] + margin)  # H0 mean <= -M becomes mean(d + M) <= 0
            shifted.append(margin - matrix[m])  # H0 mean >= M becomes mean(M - d) <= 0
    if not rows:
        return tuple(tuple(None for _ in tests) for tests in difference_tests)
    one_sided = one_sided_permutation_pvalues(np.vstack(shifted), permutations, seed)
    lower, upper = one_sided[0::2], one_sided[1::2]
    raw = np.maximum(lower, upper)
    adjusted = holm(raw.tolist()) if correct else raw
    found: dict[tuple[int, int], EquivalenceTest] = {}
    for row, (p, m, margin) in enumerate(rows):
        test = difference_tests[p][m]
        equivalent = bool(adjusted[row] < alpha)
        verdict = EQUIVALENT if equivalent else DIFFERENT if test.significant else NEITHER
        found[(p, m)] = EquivalenceTest(
            metric=test.metric,
            margin=margin,
            delta=float(differences[p][m].mean()),
            p_lower=float(lower[row]),
            p_upper=float(upper[row]),
            p_value_raw=float(raw[row]),
            p_value=float(adjusted[row]),
            verdict=verdict,
        )
    return tuple(tuple(found.get((p, m)) for m in range(len(tests))) for p, tests in enumerate(difference_tests))


def pairs_equivalence(
    results: Sequence[ConfigResult],
    comparisons: Sequence[Comparison],
    margins: Mapping[str, float],
    correct: bool,
) -> tuple[tuple[EquivalenceTest | None, ...], ...]:
    """TOST for every comparison of ``results`` (A and B found among them), with its own settings."""
    if not comparisons:
        return ()
    first = comparisons[0]
    configs = [r.config for r in results]
    metrics = [t.metric for t in first.tests]
    values = [metric_values(result, metrics) for result in results]
    differences = [values[configs.index(c.b)] - values[configs.index(c.a)] for c in comparisons]
    return equivalence_tests(
        differences, [c.tests for c in comparisons], margins, first.permutations, first.seed, first.alpha, correct
    )
