"""Drift between two configurations over queries without gold: rank-biased overlap, top-1 changes, exposure.

Definitions (docs/metrics.md, "Drift"): RBO is Webber, Moffat and Zobel's (2010) extrapolated
rank-biased overlap ``RBO_ext`` of the two top-``depth`` lists (equation 32 of the paper, which
covers lists of different lengths); exposure of a document is ``sum over queries and over the ranks
r <= depth at which one of its chunks is a hit of 1 / log2(r + 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

DEFAULT_DEPTH = 10
DEFAULT_PERSISTENCE = 0.9


def rbo_ext(first: Sequence[Hashable], second: Sequence[Hashable], p: float = DEFAULT_PERSISTENCE) -> float:
    """Extrapolated rank-biased overlap of two rankings without repeats (Webber et al. 2010, eq. 32).

    With ``s`` the shorter length, ``l`` the longer, ``X_d`` the items the two share within their
    first ``d`` (the shorter list counts all of its ``s`` items past ``s``):

        RBO_ext = (1 - p) / p * (sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s * (d - s) / (s * d) * p^d)
                  + ((X_l - X_s) / l + X_s / s) * p^l

    Two empty rankings agree fully (1.0); one empty against one that is not shares nothing (0.0).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be between 0 and 1 (exclusive), got {p}")
    short, long = (first, second) if len(first) <= len(second) else (second, first)
    s, n = len(short), len(long)
    if n == 0:
        return 1.0
    if s == 0:
        return 0.0
    seen_short: set[Hashable] = set()
    seen_long: set[Hashable] = set()
    overlap = 0
    total = 0.0
    overlap_at_s = 0
    for depth in range(1, n + 1):
        item_long = long[depth - 1]
        if depth <= s:
            item_short = short[depth - 1]
            if item_short == item_long:
                overlap += 1
            else:
                overlap += (item_short in seen_long) + (item_long in seen_short)
            seen_short.add(item_short)
            seen_long.add(item_long)
            if depth == s:
                overlap_at_s = overlap
        else:
            overlap += item_long in seen_short
            seen_long.add(item_long)
        total += overlap / depth * p**depth
        if depth > s:
            total += overlap_at_s * (depth - s) / (s * depth) * p**depth
    return (1 - p) / p * total + ((overlap - overlap_at_s) / n + overlap_at_s / s) * p**n


def exposure_weight(rank: int) -> float:
    """The exposure an item gets at 1-based ``rank``: ``1 / log2(rank + 1)`` (1 at rank 1)."""
    return 1.0 / math.log2(rank + 1)


def document_exposure(rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Per document, the exposure summed over queries and hits.

    Each ranking lists the document of each hit, best first (a document repeats when several of its
    chunks are hits: each hit adds the weight of its own rank).
    """
    exposure: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            exposure[doc] = exposure.get(doc, 0.0) + exposure_weight(rank)
    return exposure


def first_occurrences(items: Sequence[str]) -> list[str]:
    """``items`` with later repeats dropped (a document ranking from its chunks' ranking)."""
    return list(dict.fromkeys(items))


@dataclass(frozen=True, slots=True)
class QueryDrift:
    """One query's two rankings (items compared: chunk ids or document ids) and how they differ."""

    line: int
    query: str
    first: tuple[str, ...]
    second: tuple[str, ...]
    rbo: float
    top1_changed: bool


@dataclass(frozen=True, slots=True)
class ExposureShift:
    """One document's exposure under each configuration."""

    doc: str
    first: float
    second: float

    @property
    def delta(self) -> float:
        """Second minus first: positive when the second configuration shows the document more."""
        return self.second - self.first


@dataclass(frozen=True, slots=True)
class Drift:
    """The drift of every query and every document between two configurations."""

    level: str
    """``chunk`` or ``document``: what the rankings compared list."""
    depth: int
    p: float
    queries: tuple[QueryDrift, ...]
    exposure: tuple[ExposureShift, ...]
    """Every document exposed by either configuration, largest gain first, largest loss last."""

    @property
    def mean_rbo(self) -> float:
        """Mean RBO over the queries (NaN without queries)."""
        return math.fsum(q.rbo for q in self.queries) / len(self.queries) if self.queries else math.nan

    @property
    def top1_change_rate(self) -> float:
        """Share of queries whose first item differs (NaN without queries)."""
        return sum(q.top1_changed for q in self.queries) / len(self.queries) if self.queries else math.nan

    def moved_most(self, count: int) -> list[QueryDrift]:
        """The ``count`` queries with the lowest RBO (ties: log order)."""
        order = sorted(range(len(self.queries)), key=lambda i: (self.queries[i].rbo, i))
        return [self.queries[i] for i in order[:count]]


def measure_drift(
    lines: Sequence[int],
    queries: Sequence[str],
    first: Sequence[Sequence[tuple[str, str]]],
    second: Sequence[Sequence[tuple[str, str]]],
    level: str,
    depth: int = DEFAULT_DEPTH,
    p: float = DEFAULT_PERSISTENCE,
) -> Drift:
    """Drift from each query's two rankings of (chunk id, document id) hits, best first.

    Each ranking is cut at ``depth`` hits. At ``document`` level a ranking lists each document at the
    rank of its first hit; exposure is always counted per document, from every hit of the cut rankings.
    """
    if level not in ("chunk", "document"):
        raise ValueError(f"level must be chunk or document, got {level!r}")
    drifts = []
    docs_first: list[list[str]] = []
    docs_second: list[list[str]] = []
    for line, query, hits_a, hits_b in zip(lines, queries, first, second, strict=True):
        cut_a, cut_b = list(hits_a[:depth]), list(hits_b[:depth])
        docs_first.append([doc for _, doc in cut_a])
        docs_second.append([doc for _, doc in cut_b])
        doc_a, doc_b = first_occurrences(docs_first[-1]), first_occurrences(docs_second[-1])
        items_a = [chunk for chunk, _ in cut_a] if level == "chunk" else doc_a
        items_b = [chunk for chunk, _ in cut_b] if level == "chunk" else doc_b
        changed = (items_a[:1] != items_b[:1]) if (items_a or items_b) else False
        drifts.append(QueryDrift(line, query, tuple(items_a), tuple(items_b), rbo_ext(items_a, items_b, p), changed))
    exposure_a = document_exposure(docs_first)
    exposure_b = document_exposure(docs_second)
    shifts = [
        ExposureShift(doc, exposure_a.get(doc, 0.0), exposure_b.get(doc, 0.0))
        for doc in sorted(set(exposure_a) | set(exposure_b))
    ]
    shifts.sort(key=lambda shift: (-shift.delta, shift.doc))
    return Drift(level, depth, p, tuple(drifts), tuple(shifts))
