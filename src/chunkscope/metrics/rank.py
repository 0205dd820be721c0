"""Rank metrics of one question from its first correct rank."""

from __future__ import annotations

import math


def reciprocal_rank(rank: int | None, cutoff: int = 10) -> float:
    """1/r when r <= cutoff, else 0."""
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def ndcg_single(rank: int | None, cutoff: int = 10) -> float:
    """nDCG with one relevant item at rank r: 1/log2(r + 1) when r <= cutoff, else 0."""
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= cutoff else 0.0


def recall_at(rank: int | None, k: int) -> float:
    """1 when the first correct rank is within k, else 0."""
    return 1.0 if rank is not None and rank <= k else 0.0
