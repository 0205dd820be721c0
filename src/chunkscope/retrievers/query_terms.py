"""Query term ids in one flat array: what both scoring paths (numpy and compiled) rank."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """Every query's term ids (repeats kept), concatenated, and where each query's run starts."""

    terms: np.ndarray
    """int64 term ids, query after query."""
    offsets: np.ndarray
    """int64 bounds: query ``q`` has ``terms[offsets[q]:offsets[q + 1]]``."""

    @classmethod
    def of(cls, queries: Sequence[Sequence[int] | np.ndarray]) -> QueryTerms:
        """From one sequence of term ids per query."""
        sizes = np.fromiter(map(len, queries), dtype=np.int64, count=len(queries))
        offsets = np.zeros(len(queries) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        terms = np.concatenate([np.asarray(q, dtype=np.int64) for q in queries]) if len(queries) else np.zeros(0)
        return cls(terms.astype(np.int64), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def sizes(self) -> np.ndarray:
        """Terms per query."""
        return np.diff(self.offsets)

    def part(self, first: int, last: int) -> QueryTerms:
        """Queries ``first`` to ``last`` (exclusive)."""
        low, high = int(self.offsets[first]), int(self.offsets[last])
        return QueryTerms(self.terms[low:high], self.offsets[first : last + 1] - low)

    def distinct(self) -> QueryTerms:
        """Each query's distinct terms, in order of first occurrence."""
        owner = np.repeat(np.arange(len(self), dtype=np.int64), self.sizes())
        keys = owner * (int(self.terms.max(initial=0)) + 1) + self.terms
        _, first = np.unique(keys, return_index=True)
        kept = np.sort(first)
        offsets = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner[kept], minlength=len(self)), out=offsets[1:])
        return QueryTerms(self.terms[kept], offsets)
