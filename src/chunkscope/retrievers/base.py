"""The retriever contract, the ranking value, and the deterministic tie-break."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.spec.grammar import registry

retrievers = registry("retriever")

Progress = Callable[[int, int], None]
"""Called with (done, total) during long work."""

REPORT_EVERY = 128
"""Questions ranked between two progress reports (the caller's chance to cancel)."""


EMPTY_RANKING = Ranking((), ())


class RetrieverIndex(Protocol):
    """A retriever built over one chunking."""

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        """Rank the units for every question, keeping at most ``depth`` hits each."""
        ...


class Retriever(Protocol):
    """A retrieval strategy; building it over units gives a RetrieverIndex."""

    def build(self, units: Sequence[Chunk]) -> RetrieverIndex: ...


def tie_break_positions(units: Sequence[Chunk]) -> np.ndarray:
    """Each unit's position in (document id, start, end, id) order: the tie-break key."""
    order = sorted(range(len(units)), key=lambda i: (units[i].doc, units[i].start, units[i].end, units[i].id))
    positions = np.empty(len(units), dtype=np.int64)
    positions[order] = np.arange(len(units))
    return positions


def top_hits(scores: np.ndarray, tie_break: np.ndarray, depth: int) -> Ranking:
    """The ``depth`` best units with a score above 0, by score descending then tie-break."""
    candidates = np.flatnonzero(scores > 0)
    if len(candidates) > depth:
        candidate_scores = scores[candidates]
        cut = len(candidates) - depth
        threshold = np.partition(candidate_scores, cut)[cut]
        candidates = candidates[candidate_scores >= threshold]
    order = np.lexsort((tie_break[candidates], -scores[candidates]))[:depth]
    best = candidates[order]
    return Ranking(tuple(best.tolist()), tuple(scores[best].tolist()))
