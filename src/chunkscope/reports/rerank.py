"""Rerank-stage report pieces: written only for configurations that rerank, so other reports keep their bytes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkscope.analysis.rerank import RerankEffect, rank_metric_names
from chunkscope.reports.format import metric_label
from chunkscope.results import Config, ConfigResult

RerankEffects = Mapping[Config, RerankEffect]
"""Each reranking configuration's measured effect."""

CSV_COLUMNS = ("first_stage_rank", "rank_change")
"""Columns added to a per-question CSV when some configuration reranks."""


def rerank_dict(effect: RerankEffect) -> dict[str, Any]:
    """The ``rerank`` entry of a configuration in JSON."""
    return {
        "first_stage": effect.first_stage,
        "candidates": effect.candidates,
        "metrics": {name: {"before": before, "after": after} for name, before, after in effect.metrics},
        "improved": effect.improved,
        "worsened": effect.worsened,
        "added_seconds_mean": effect.seconds_mean,
        "added_seconds_p95": effect.seconds_p95,
        "questions": [
            {"question": m.question_id, "before": m.before, "after": m.after, "change": m.change} for m in effect.moves
        ],
    }


def csv_cells(effect: RerankEffect | None, position: int) -> list[object]:
    """The added CSV cells of one question (empty for a configuration that does not rerank)."""
    if effect is None:
        return ["", ""]
    move = effect.moves[position]
    return ["" if move.before is None else move.before, "" if move.change is None else move.change]


def compare_csv_columns() -> tuple[str, ...]:
    """Columns added to the compare CSV when A or B reranks: each side's first-stage rank and rank change."""
    return tuple(f"{column}_{side}" for side in ("a", "b") for column in CSV_COLUMNS)


def summary_csv_columns() -> tuple[str, ...]:
    """Columns added to a per-configuration CSV (the sweep's) when some configuration reranks.

    The first stage's spec, each rank metric under the first stage alone (the configuration's own
    columns hold the value after the rerank), the questions moved up and down, and the added seconds
    per question (mean and p95).
    """
    return (
        "rerank_first_stage",
        *(f"{name}_first_stage" for name in rank_metric_names()),
        "rerank_improved",
        "rerank_worsened",
        "rerank_seconds_mean",
        "rerank_seconds_p95",
    )


def summary_csv_cells(effect: RerankEffect | None) -> list[object]:
    """The added cells of one configuration's row (empty for a configuration that does not rerank)."""
    if effect is None:
        return [""] * len(summary_csv_columns())
    return [
        effect.first_stage,
        *(f"{before:.6f}" for _, before, _ in effect.metrics),
        effect.improved,
        effect.worsened,
        f"{effect.seconds_mean:.6f}",
        f"{effect.seconds_p95:.6f}",
    ]


def markdown_section(results: Sequence[ConfigResult], effects: RerankEffects) -> list[str]:
    """A ``## Rerank`` section: metrics before and after, moves, added time (empty without effects)."""
    lines: list[str] = []
    for result in results:
        effect = effects.get(result.config)
        if effect is None:
            continue
        lines += [
            "",
            f"## Rerank: {result.config.label}",
            "",
            f"First stage `{effect.first_stage}`, its top {effect.candidates} re-ordered. "
            f"Evidence moved up for {effect.improved} questions, down for {effect.worsened}. "
            f"Added time per question: mean {effect.seconds_mean * 1000:.1f} ms, "
            f"p95 {effect.seconds_p95 * 1000:.1f} ms.",
            "",
            "| metric | first stage | reranked | change |",
            "|---|---:|---:|---:|",
        ]
        lines += [
            f"| {metric_label(name)} | {before:.4f} | {after:.4f} | {after - before:+.4f} |"
            for name, before, after in effect.metrics
        ]
    return lines
