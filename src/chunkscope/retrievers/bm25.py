"""BM25 (Okapi) with exactly rank_bm25's formula, scored from numpy postings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import REPORT_EVERY, Progress, retrievers, tie_break_positions, top_hits
from chunkscope.retrievers.lexical import Postings


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


def bm25_idf(document_frequency: np.ndarray, unit_count: int, epsilon: float) -> np.ndarray:
    """rank_bm25's Okapi idf with its floor for negative values."""
    df = document_frequency.astype(np.float64)
    idf = np.log(unit_count - df + 0.5) - np.log(df + 0.5)
    if len(idf):
        floor = epsilon * float(idf.mean())
        idf = np.where(idf < 0, floor, idf)
    return idf


class BM25Index:
    """Per-posting BM25 weights precomputed, so a query is one gather and one bincount."""

    def __init__(self, params: BM25, units: Sequence[Chunk]) -> None:
        self.postings = postings = Postings(units, params.tokenizer)
        self.tie_break = tie_break_positions(units)
        self.idf = bm25_idf(postings.document_frequency, postings.unit_count, params.epsilon)
        total = postings.unit_lengths.sum()
        average_length = total / postings.unit_count if postings.unit_count else 0.0
        if average_length == 0:
            self.weights = np.zeros_like(postings.frequencies)
            return
        tf = postings.frequencies
        norm = params.k1 * (1 - params.b + params.b * postings.unit_lengths[postings.units] / average_length)
        term_of_posting = np.repeat(np.arange(len(self.idf)), postings.document_frequency)
        self.weights = self.idf[term_of_posting] * (tf * (params.k1 + 1) / (tf + norm))

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every unit for the query text."""
        units, weights = self.postings.gather(self.postings.query_term_ids(query), self.weights)
        return np.bincount(units, weights=weights, minlength=self.postings.unit_count)

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        rankings = []
        for number, question in enumerate(questions):
            if progress is not None and number % REPORT_EVERY == 0:
                progress(number, len(questions))  # lets a caller follow and cancel a long ranking
            rankings.append(top_hits(self.scores(question.query), self.tie_break, depth))
        return rankings
