"""The retriever contract, the ranking value, and the deterministic tie-break."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import Ranking
from chunkscope.spec.registry import Registry

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


retrievers: Registry[Retriever] = Registry("retriever")


def window_ends(index: RetrieverIndex) -> tuple[int, ...] | None:
    """Per unit, the body offset where the index's model stops reading, for a model with a token window.

    An index whose model cuts its input (a dense retriever with ``window``) has a ``window_ends``
    attribute; every other index sees its units whole and gives None.
    """
    ends = getattr(index, "window_ends", None)
    return None if ends is None else tuple(ends)


@runtime_checkable
class CorpusRetriever(Protocol):
    """A retriever that shares work across chunkings of one corpus (the lexical ones tokenise each document once)."""

    def build_over(
        self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None
    ) -> RetrieverIndex: ...


def build_index(
    retriever: Retriever, units: Sequence[Chunk], corpus: Corpus | None = None, progress: Progress | None = None
) -> RetrieverIndex:
    """``retriever`` built over ``units``; given the corpus they were cut from, retrievers that can reuse it do.

    ``progress`` is called between the steps of a build over the corpus (the caller's chance to cancel
    it); an index is the same with or without it.
    """
    if corpus is not None and isinstance(retriever, CorpusRetriever):
        return retriever.build_over(units, corpus, progress)
    return retriever.build(units)


def tie_break_positions(units: Sequence[Chunk]) -> np.ndarray:
    """Each unit's position in (document id, start, end, id) order: the tie-break key."""
    count = len(units)
    positions = np.empty(count, dtype=np.int64)
    if not count:
        return positions
    # numpy compares strings by code point, as Python does.
    documents = np.unique(np.array([u.doc for u in units]), return_inverse=True)[1]
    starts = np.fromiter((u.start for u in units), dtype=np.int64, count=count)
    ends = np.fromiter((u.end for u in units), dtype=np.int64, count=count)
    ids = np.unique(np.array([u.id for u in units]), return_inverse=True)[1]
    order = np.lexsort((ids, ends, starts, documents))
    positions[order] = np.arange(count)
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
