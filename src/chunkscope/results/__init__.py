"""Result values produced by an evaluation: immutable, shared by CLI, reports and inspector.

One module per family of values, every name importable from here:

- :mod:`~chunkscope.results.config`: a configuration, its summary and result, and how imported chunks were placed;
- :mod:`~chunkscope.results.question`: one question's result (ranking, cuts, evidence counts, rank buckets);
- :mod:`~chunkscope.results.delivery`: what context assembly delivered and why each hit was or was not sent;
- :mod:`~chunkscope.results.columns`: a configuration's question results as metric columns;
- :mod:`~chunkscope.results.lazy`: sequences built on first use.
"""

from __future__ import annotations

from chunkscope.results.columns import QuestionResults, ResultColumns, ResultRecipe, question_ids
from chunkscope.results.config import (
    ChunkImport,
    Config,
    ConfigResult,
    Overflow,
    Summary,
    UnplacedChunk,
    document_key_note,
)
from chunkscope.results.delivery import (
    BudgetStop,
    DeliveredChunk,
    DeliveredChunks,
    DeliveryDecisions,
    DeliveryStatus,
    DeliveryStop,
    HitDelivery,
    SeenPositions,
    TopKEnd,
)
from chunkscope.results.lazy import BuiltOnUse
from chunkscope.results.question import (
    BUCKETS,
    NO_OVERLAP,
    RANKING_DEPTH,
    Attribution,
    Bucket,
    CharacterOverlap,
    Cut,
    QuestionResult,
    RankedChunk,
    Ranking,
    bucket_of,
    ranked_chunks,
)

__all__ = [
    "BUCKETS",
    "NO_OVERLAP",
    "RANKING_DEPTH",
    "Attribution",
    "Bucket",
    "BudgetStop",
    "BuiltOnUse",
    "CharacterOverlap",
    "ChunkImport",
    "Config",
    "ConfigResult",
    "Cut",
    "DeliveredChunk",
    "DeliveredChunks",
    "DeliveryDecisions",
    "DeliveryStatus",
    "DeliveryStop",
    "HitDelivery",
    "Overflow",
    "QuestionResult",
    "QuestionResults",
    "RankedChunk",
    "Ranking",
    "ResultColumns",
    "ResultRecipe",
    "SeenPositions",
    "Summary",
    "TopKEnd",
    "UnplacedChunk",
    "bucket_of",
    "document_key_note",
    "question_ids",
    "ranked_chunks",
]
