"""Tuning reports: the rounds of successive halving and the recommendation, as JSON, Markdown and CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.fragility import FragilitySummary
from chunkscope.analysis.tune import Halving, Standing, TuneSettings
from chunkscope.reports.compare import config_ref
from chunkscope.reports.eval import inline
from chunkscope.reports.format import metric_label

RUNNER_UPS_SHOWN = 10


def _standing(standing: Standing) -> dict[str, Any]:
    scored = standing.scored
    return {
        **config_ref(scored.config),
        "mean": scored.mean,
        "cost": scored.cost,
        "delta": standing.delta,
        "ci_low": standing.ci_low,
        "ci_high": standing.ci_high,
        "p_worse": standing.p_worse,
        "p_equivalent": standing.p_equivalent,
        "eligible": standing.eligible,
    }


def tune_report(
    halving: Halving,
    settings: TuneSettings,
    context: dict[str, Any],
    fragility: FragilitySummary | str | None,
) -> dict[str, Any]:
    """The JSON report: settings, every round, the best, the recommendation, every finalist, its fragility."""
    recommendation = halving.recommendation
    if isinstance(fragility, FragilitySummary):
        fragile: Any = {
            "questions": fragility.questions,
            "robust_ok": fragility.robust_ok,
            "fragile_ok": fragility.fragile_ok,
            "ok_nearby": fragility.ok_nearby,
            "not_ok": fragility.not_ok,
            "mean_share": fragility.mean_share,
        }
    else:
        fragile = {"skipped": fragility or "not asked"}
    return {
        "chunkscope_version": __version__,
        **context,
        "alpha": settings.alpha,
        "permutations": settings.permutations,
        "seed": settings.seed,
        "margin": settings.margin,
        "evaluations": halving.evaluations,
        "rounds": [
            {
                "questions": one.questions,
                "configs": [
                    {"label": scored.config.label, "mean": scored.mean, "kept": keep}
                    for scored, keep in zip(one.evaluated, one.kept, strict=True)
                ],
            }
            for one in halving.rounds
        ],
        "best": config_ref(recommendation.best.config),
        "recommended": config_ref(recommendation.recommended.config),
        "finalists": [_standing(standing) for standing in recommendation.standings],
        "fragility": fragile,
    }


def tune_markdown(
    halving: Halving,
    settings: TuneSettings,
    metric: str,
    cost: str,
    fragility: FragilitySummary | str | None,
    shown: int = RUNNER_UPS_SHOWN,
) -> str:
    """The Markdown report: the recommendation, the runner-ups with intervals, the rounds."""
    recommendation = halving.recommendation
    best, chosen = recommendation.best, recommendation.recommended
    label = metric_label(metric)
    rule = "not significantly worse than the best (Holm)"
    if settings.margin is not None:
        rule += f" and equivalent to it within ±{settings.margin:g} (TOST, Holm)"
    lines = [
        f"# Tuning: recommended {inline(chosen.config.label)}",
        "",
        f"The cheapest configuration by {cost} that is {rule}, at alpha {settings.alpha:g}: "
        f"**{inline(chosen.config.label)}** ({label} {chosen.mean:.4f}, {cost} {chosen.cost:,.0f}). "
        f"Best: {inline(best.config.label)} ({label} {best.mean:.4f}, {cost} {best.cost:,.0f}).",
        "",
    ]
    if isinstance(fragility, FragilitySummary):
        lines += [
            f"Fragility of the recommendation (chunk size and overlap moved by 10-20%): {fragility.robust_ok} "
            f"robust OK, {fragility.fragile_ok} fragile OK of {fragility.questions} questions; mean share of "
            f"neighbours that change a question's state {fragility.mean_share:.4f}.",
            "",
        ]
    elif fragility:
        lines += [f"Fragility: {inline(fragility)}.", ""]
    lines += [
        f"## Finalists, cheapest first ({min(shown, len(recommendation.standings))} of "
        f"{len(recommendation.standings)})",
        "",
        f"| configuration | {cost} | {label} | Δ vs best | 95% CI | p (Holm) | eligible |",
        "|---|---|---|---|---|---|---|",
    ]
    for standing in recommendation.standings[:shown]:
        scored = standing.scored
        mark = " ★" if scored is chosen else ""
        lines.append(
            f"| {inline(scored.config.label)}{mark} | {scored.cost:,.0f} | {scored.mean:.4f} | {standing.delta:+.4f} "
            f"| [{standing.ci_low:+.4f}, {standing.ci_high:+.4f}] | {standing.p_worse:.4f} "
            f"| {'yes' if standing.eligible else 'no'} |"
        )
    lines += ["", "## Successive halving", "", "| round | questions | evaluated | kept |", "|---|---|---|---|"]
    for number, one in enumerate(halving.rounds, start=1):
        lines.append(f"| {number} | {one.questions:,} | {len(one.evaluated)} | {sum(one.kept)} |")
    return "\n".join(lines) + "\n"


def tune_csv(halving: Halving) -> str:
    """One row per finalist, cheapest first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = ["label", "chunker", "retriever", "top_k", "mean", "cost", "delta", "ci_low", "ci_high"]
    writer.writerow([*columns, "p_worse", "p_equivalent", "eligible"])
    for standing in halving.recommendation.standings:
        row = _standing(standing)
        writer.writerow([*(row[c] for c in columns), row["p_worse"], row["p_equivalent"], row["eligible"]])
    return buffer.getvalue()
