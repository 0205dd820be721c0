"""BM25 (Okapi) with exactly rank_bm25's formula, scored from numpy postings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, retrievers, tie_break_positions
from chunkscope.retrievers.lexical import BLOCK, INDEX_STEPS, Postings
from chunkscope.retrievers.query_terms import QueryTerms
from chunkscope.retrievers.scoring import LongLists, batch_scores, rank_queries


@retrievers.register("bm25")
@dataclass(frozen=True, slots=True)
class BM25:
    """BM25Okapi as in rank_bm25 0.2.2 (``BM25Okapi``).

    idf(t) = ln(N - df + 0.5) - ln(df + 0.5); a negative idf is replaced by
    ``epsilon * mean idf over the vocabulary`` (rank_bm25's floor).
    score(q, d) = sum over query tokens t (repeats count) of
    idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl)).
    """

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    tokenizer: str = "default"

    def __post_init__(self) -> None:
        if self.k1 < 0:
            raise ValueError(f"k1 must not be negative, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise ValueError(f"b must lie between 0 and 1, got {self.b}")

    def build(self, units: Sequence[Chunk]) -> BM25Index:
        return BM25Index(self, units)

    def build_over(self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None) -> BM25Index:
        """The index over units cut from ``corpus``, whose documents are tokenised once for every chunking."""
        return BM25Index(self, units, corpus, progress)


def bm25_idf(
    document_frequency: np.ndarray, unit_count: int, epsilon: float, first_seen: np.ndarray | None = None
) -> np.ndarray:
    """rank_bm25's Okapi idf with its floor for negative values.

    The floor's mean is taken over the terms in ``first_seen`` order (rank_bm25's
    vocabulary order), so that it is bit-identical to rank_bm25's whatever the
    order of the ids.
    """
    df = document_frequency.astype(np.float64)
    idf = np.log(unit_count - df + 0.5) - np.log(df + 0.5)
    if len(idf):
        in_order = idf if first_seen is None else idf[first_seen]
        floor = epsilon * float(in_order.mean())
        idf = np.where(idf < 0, floor, idf)
    return idf


class BM25Index:
    """Per-posting BM25 weights precomputed, so a query is one gather and one sum per posting."""

    def __init__(
        self, params: BM25, units: Sequence[Chunk], corpus: Corpus | None = None, progress: Progress | None = None
    ) -> None:
        self.postings = postings = Postings(units, params.tokenizer, corpus, progress)
        self.tie_break = tie_break_positions(units)
        self.idf = bm25_idf(postings.document_frequency, postings.unit_count, params.epsilon, postings.first_seen)
        if progress is not None:
            progress(INDEX_STEPS - 1, INDEX_STEPS)
        self.weights = bm25_weights(params, postings, self.idf)
        self.long_lists = LongLists(postings.pointers, postings.units, self.weights, postings.unit_count)
        """The long posting lists in numpy's fastest forms, for the numpy ranking path (built on its first use)."""

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every unit for the query text."""
        postings = self.postings
        terms = QueryTerms.of([postings.query_term_ids(query)])
        scores: np.ndarray = batch_scores(postings.pointers, postings.units, self.weights, postings.unit_count, terms)[
            0
        ]
        return scores

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        postings = self.postings
        queries = postings.queries_term_ids([q.query for q in questions])
        return rank_queries(
            postings.pointers,
            postings.units,
            self.weights,
            postings.unit_count,
            self.tie_break,
            queries,
            depth,
            progress=progress,
            long_lists=self.long_lists,
        )


def bm25_weights(params: BM25, postings: Postings, idf: np.ndarray) -> np.ndarray:
    """Each posting's weight idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)), as rank_bm25 computes it.

    ChunkscopeError when a weight is not finite: parameters so large (``k1=1e308``) that the arithmetic
    overflows would otherwise rank by infinities and write them into reports.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        weights = _weights(params, postings, idf)
    if not np.isfinite(weights).all() or not np.isfinite(idf).all():
        raise ChunkscopeError(
            f"bm25 with k1={params.k1:g}, b={params.b:g}, epsilon={params.epsilon:g}: the weights overflow "
            "(not finite numbers); give smaller values"
        )
    return weights


def _weights(params: BM25, postings: Postings, idf: np.ndarray) -> np.ndarray:
    total = postings.unit_lengths.sum()
    average_length = total / postings.unit_count if postings.unit_count else 0.0
    weights = np.zeros(len(postings.units), dtype=np.float64)
    if average_length == 0:
        return weights
    norm = params.k1 * (1 - params.b + params.b * postings.unit_lengths / average_length)
    if postings.compiled:
        from chunkscope.retrievers import compiled

        return compiled.bm25_weights(postings.pointers, postings.units, postings.frequencies, idf, norm, params.k1)
    pointers = postings.pointers
    # Blocks of whole terms bound the temporaries; each element gets the same operations as in one expression.
    first_term = 0
    while first_term < len(idf):
        end_term = max(int(np.searchsorted(pointers, pointers[first_term] + BLOCK, side="right")) - 1, first_term + 1)
        end_term = min(end_term, len(idf))
        low, high = int(pointers[first_term]), int(pointers[end_term])
        tf = postings.frequencies[low:high].astype(np.float64)
        term_idf = np.repeat(idf[first_term:end_term], postings.document_frequency[first_term:end_term])
        weights[low:high] = term_idf * (tf * (params.k1 + 1) / (tf + norm[postings.units[low:high]]))
        first_term = end_term
    return weights
