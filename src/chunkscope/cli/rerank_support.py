"""Rerank stages in eval, compare and sweep: evaluate each first stage alone and measure the difference."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from chunkscope.analysis.rerank import first_stage_config, rerank_effects
from chunkscope.cli import common
from chunkscope.io.dataset import Dataset
from chunkscope.reports.format import metric_label
from chunkscope.reports.rerank import RerankEffects
from chunkscope.results import ConfigResult


def effects_for(dataset: Dataset, results: Sequence[ConfigResult]) -> RerankEffects | None:
    """The effects of the configurations that rerank; ``None`` when none does (reports then stay as they were)."""
    firsts = [first_stage_config(result.config) for result in results]
    wanted = [config for config in firsts if config is not None]
    if not wanted:
        return None
    evaluated = dict(zip(wanted, common.evaluate_all(dataset, wanted), strict=True))
    return rerank_effects(results, [None if config is None else evaluated[config] for config in firsts])


def print_effects(console: Console, results: Sequence[ConfigResult], effects: RerankEffects | None) -> None:
    """One block per reranking configuration: rank metrics before -> after, moves, added time."""
    if not effects:
        return
    for result in results:
        effect = effects.get(result.config)
        if effect is None:
            continue
        metrics = ", ".join(
            f"{metric_label(name)} {before:.4f} -> {after:.4f}" for name, before, after in effect.metrics
        )
        console.print(
            f"rerank {result.config.label}: {metrics}; evidence up for {effect.improved}, down for "
            f"{effect.worsened} questions; added {effect.seconds_mean * 1000:.1f} ms per question "
            f"(p95 {effect.seconds_p95 * 1000:.1f} ms)",
            highlight=False,
        )
