"""Rank metrics of one question, from its first correct rank.

``r`` is the question's first correct rank: the smallest r such that ranks
1..r together satisfy every required evidence item (``None`` when no prefix of
the ranking does). A question has exactly one relevant "item" (its evidence,
complete), so each metric below is the standard IR measure with one relevant
document; the configuration's value is the mean over its questions.
"""

from __future__ import annotations

import math


def recall_at(rank: int | None, k: int) -> float:
    """Recall@k from the first correct rank r: ``1`` when ``r <= k``, else ``0`` (also when there is no r)."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None, cutoff: int = 10) -> float:
    """Reciprocal rank at k (``k = cutoff``; its mean is MRR@k) from the first correct rank r:
    ``1 / r`` when ``r <= k``, else ``0``."""
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def ndcg_single(rank: int | None, cutoff: int = 10) -> float:
    """nDCG@k (``k = cutoff``) from the first correct rank r, with one relevant item (ideal DCG 1):
    ``1 / log2(r + 1)`` when ``r <= k``, else ``0``."""
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= cutoff else 0.0
