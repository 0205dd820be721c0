"""Rerank-stage report pieces: written only for configurations that rerank, so other reports keep their bytes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkscope.analysis.rerank import RerankEffect
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
