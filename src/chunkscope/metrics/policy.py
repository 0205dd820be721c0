"""What every number means: the policy recorded in every report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chunkscope.results import RANKING_DEPTH

METRIC_POLICY: Mapping[str, Any] = {
    "ranking_depth": RANKING_DEPTH,
    "tie_break": "score descending, then document id, then chunk start",
    "zero_scores": "units scoring 0 or less are not retrieved",
    "relevance": (
        "a ranked hit satisfies an evidence item when its delivered unit wholly contains one of the "
        "item's alternative spans; a question is correct at rank r when ranks 1..r satisfy every item"
    ),
    "span_edges": ("a unit contains a gold span when it contains the span without its leading and trailing whitespace"),
    "cutoffs": {"recall": [5, 20], "mrr": 10, "ndcg": 10},
}


"""What every number means; two reports are comparable only when their policies agree."""


SUMMARY_FIELDS = (
    "questions",
    "index_chunks",
    "indexed_chars",
    "evidence_exists",
    "lost",
    "doc_hits",
    "complete",
    "recall_at_5",
    "recall_at_20",
    "mrr_at_10",
    "ndcg_at_10",
    "rank_buckets",
    "sent_chars",
    "duplicate_chars",
)
