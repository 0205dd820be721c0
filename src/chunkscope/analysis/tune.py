"""Tuning: successive halving over question subsets, then the cheapest configuration as good as the best.

The recommendation (docs/metrics.md, "Tuning") is defined over configurations evaluated on every
question: the best is the highest mean of the target metric; a configuration is *eligible* when its
difference from the best is not significantly negative (paired sign-flip test, Holm-corrected over
every configuration tested against the best) and, when a margin is given, the two are equivalent
within it (TOST, Holm-corrected likewise); the recommendation is the cheapest eligible one.
:func:`recommend` computes it; :func:`successive_halving` drops configurations on growing question
subsets first, so that only the promising ones are evaluated on every question.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.analysis.stats import bootstrap_ci, holm, one_sided_permutation_pvalues, paired_permutation_pvalues
from chunkscope.results import Config

FloatArray = np.ndarray


@dataclass(frozen=True, slots=True)
class Scored:
    """One configuration's per-question values of the target metric (on some questions) and its cost."""

    config: Config
    values: FloatArray
    cost: float

    @property
    def mean(self) -> float:
        """Mean of the target metric over the questions evaluated."""
        return float(self.values.mean()) if len(self.values) else math.nan


@dataclass(frozen=True, slots=True)
class TuneSettings:
    """How configurations are tested against the best."""

    alpha: float = 0.05
    permutations: int = 10_000
    seed: int = 0
    margin: float | None = None
    """TOST equivalence margin of the target metric (None: eligibility is 'not significantly worse' only)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One configuration against the best, on every question."""

    scored: Scored
    delta: float
    """``mean(config - best)``."""
    ci_low: float
    ci_high: float
    """Percentile bootstrap 95% interval of ``delta``."""
    p_worse: float
    """Holm-adjusted two-sided p-value of ``delta`` (1 for the best itself)."""
    p_equivalent: float | None
    """Holm-adjusted TOST p-value within the margin (None without a margin; 0 for the best itself)."""
    eligible: bool


@dataclass(frozen=True, slots=True)
class Recommendation:
    """The best configuration, the recommended one, and every finalist's standing (cheapest first)."""

    best: Scored
    recommended: Scored
    standings: tuple[Standing, ...]


def recommend(finalists: Sequence[Scored], settings: TuneSettings) -> Recommendation:
    """The cheapest configuration not significantly worse than the best (and equivalent within the margin).

    Best: highest mean (ties: lower cost, then order given). Ties in cost among the eligible: higher
    mean, then order given. Every finalist must hold values for the same questions, in the same order.
    """
    if not finalists:
        raise ValueError("nothing to recommend from: no configuration was evaluated")
    order = range(len(finalists))
    best_at = min(order, key=lambda i: (-finalists[i].mean, finalists[i].cost, i))
    best = finalists[best_at]
    others = [i for i in order if i != best_at]
    differences = np.array([finalists[i].values - best.values for i in others], dtype=np.float64)
    differences = differences.reshape(len(others), len(best.values))
    p_worse = np.ones(len(finalists))
    p_equivalent: list[float | None] = [None] * len(finalists)
    intervals = np.zeros((len(finalists), 2))
    if others:
        raw = paired_permutation_pvalues(differences, settings.permutations, settings.seed)
        p_worse[others] = holm(raw.tolist())
        intervals[others] = bootstrap_ci(differences, 0.95, settings.permutations, settings.seed)
        if settings.margin is not None:
            margin = settings.margin
            shifted = np.vstack([differences + margin, margin - differences])
            one_sided = one_sided_permutation_pvalues(shifted, settings.permutations, settings.seed)
            tost = holm(np.maximum(one_sided[: len(others)], one_sided[len(others) :]).tolist())
            for row, i in enumerate(others):
                p_equivalent[i] = float(tost[row])
    if settings.margin is not None:
        p_equivalent[best_at] = 0.0
    standings = []
    for i, scored in enumerate(finalists):
        delta = float((scored.values - best.values).mean()) if len(best.values) else 0.0
        worse = bool(p_worse[i] < settings.alpha and delta < 0)
        equivalent = p_equivalent[i] is None or bool(p_equivalent[i] < settings.alpha)  # type: ignore[operator]
        standings.append(
            Standing(
                scored, delta, float(intervals[i, 0]), float(intervals[i, 1]), float(p_worse[i]),
                p_equivalent[i], (not worse and equivalent) or i == best_at,
            )
        )  # fmt: skip
    ranked = sorted(range(len(standings)), key=lambda i: (finalists[i].cost, -finalists[i].mean, i))
    recommended = next(finalists[i] for i in ranked if standings[i].eligible)
    return Recommendation(best, recommended, tuple(standings[i] for i in ranked))


@dataclass(frozen=True, slots=True)
class Round:
    """One round of successive halving: how many questions, which configurations, which were kept."""

    questions: int
    evaluated: tuple[Scored, ...]
    kept: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class Halving:
    """Every round, and the recommendation among the configurations evaluated on every question."""

    rounds: tuple[Round, ...]
    recommendation: Recommendation

    @property
    def evaluations(self) -> int:
        """Configuration evaluations over all rounds."""
        return sum(len(one.evaluated) for one in self.rounds)


def subset_sizes(questions: int, configs: int, eta: int, min_questions: int) -> list[int]:
    """Questions per round, growing by ``eta`` to all of them: enough rounds to halve ``configs`` to one.

    Round ``r`` of ``R + 1`` takes ``ceil(questions / eta^(R - r))``; the first takes at least
    ``min_questions`` (fewer rounds when the questions are few).
    """
    if questions <= 0:
        return [questions]
    rounds = math.ceil(math.log(configs, eta)) if configs > 1 else 0
    while rounds > 0 and math.ceil(questions / eta**rounds) < min_questions:
        rounds -= 1
    return [math.ceil(questions / eta ** (rounds - r)) for r in range(rounds + 1)]


Evaluate = Callable[[Sequence[Config], np.ndarray], list[Scored]]
"""Scores of configurations on the questions at the given positions (in that order)."""


def successive_halving(
    configs: Sequence[Config],
    questions: int,
    evaluate: Evaluate,
    settings: TuneSettings,
    eta: int = 2,
    min_questions: int = 200,
) -> Halving:
    """Evaluate on nested random question subsets (seeded), keeping each round's promising configurations.

    A round keeps the best ``ceil(k / eta)`` of its ``k`` configurations by mean, and every other one
    whose difference from the round's best is not significantly negative (Holm over the round): only
    configurations shown worse on the subset are dropped. The last round takes every question and
    gives the recommendation.
    """
    order = np.random.default_rng(settings.seed).permutation(questions)
    sizes = subset_sizes(questions, len(configs), eta, min_questions)
    alive = list(configs)
    rounds: list[Round] = []
    for size in sizes[:-1]:
        positions = np.sort(order[:size])
        evaluated = evaluate(alive, positions)
        kept = _kept(evaluated, eta, settings)
        rounds.append(Round(size, tuple(evaluated), kept))
        alive = [scored.config for scored, keep in zip(evaluated, kept, strict=True) if keep]
    final = evaluate(alive, np.arange(questions))
    rounds.append(Round(questions, tuple(final), tuple(True for _ in final)))
    return Halving(tuple(rounds), recommend(final, settings))


def _kept(evaluated: Sequence[Scored], eta: int, settings: TuneSettings) -> tuple[bool, ...]:
    """Which configurations of a round go on: the top ``ceil(k / eta)`` and those not shown worse."""
    count = len(evaluated)
    by_mean = sorted(range(count), key=lambda i: (-evaluated[i].mean, evaluated[i].cost, i))
    top = set(by_mean[: math.ceil(count / eta)])
    best = by_mean[0]
    others = [i for i in range(count) if i != best]
    if not others:
        return (True,)
    differences = np.array([evaluated[i].values - evaluated[best].values for i in others], dtype=np.float64)
    adjusted = holm(paired_permutation_pvalues(differences, settings.permutations, settings.seed).tolist())
    worse = {i for row, i in enumerate(others) if adjusted[row] < settings.alpha and differences[row].mean() < 0}
    return tuple(i in top or i not in worse for i in range(count))
