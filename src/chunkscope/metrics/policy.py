"""What every number means: the policy recorded in every report.

Two reports are comparable only when their policies agree.
"""

from __future__ import annotations

from typing import Any

from chunkscope.metrics.registry import REGISTRY
from chunkscope.results import RANKING_DEPTH

RELEVANCE = (
    "a ranked hit satisfies an evidence item when its delivered unit wholly contains one of the "
    "item's alternative spans; a question is correct at rank r when ranks 1..r satisfy every item"
)
SPAN_EDGES = "a unit contains a gold span when it contains the span without its leading and trailing whitespace"


def metric_policy() -> dict[str, Any]:
    """Ranking depth, tie-break, zero scores, relevance, span edges and the rank metrics' cutoffs.

    ``cutoffs`` maps each rank measure of the registry to its k: a number when the
    measure has one cutoff, a list (registry order) when it has several.
    """
    return {
        "ranking_depth": RANKING_DEPTH,
        "tie_break": "score descending, then document id, then chunk start",
        "zero_scores": "units scoring 0 or less are not retrieved",
        "relevance": RELEVANCE,
        "span_edges": SPAN_EDGES,
        "cutoffs": _cutoffs(),
    }


def _cutoffs() -> dict[str, int | list[int]]:
    ks: dict[str, list[int]] = {}
    for metric in REGISTRY:
        if metric.cutoff is not None:
            measure, k = metric.cutoff
            ks.setdefault(measure, []).append(k)
    return {measure: values[0] if len(values) == 1 else values for measure, values in ks.items()}
