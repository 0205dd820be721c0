"""Keyword overlap: how many distinct query tokens a unit contains."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, retrievers, tie_break_positions
from chunkscope.retrievers.lexical import Postings
from chunkscope.retrievers.query_terms import QueryTerms
from chunkscope.retrievers.scoring import LongLists, batch_scores, rank_queries


@retrievers.register("overlap")
@dataclass(frozen=True, slots=True)
class KeywordOverlap:
    """score(q, d) = number of distinct query tokens that occur in d."""

    tokenizer: str = "default"

    def build(self, units: Sequence[Chunk]) -> OverlapIndex:
        return OverlapIndex(self, units)

    def build_over(self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None) -> OverlapIndex:
        """The index over units cut from ``corpus``, whose documents are tokenised once for every chunking."""
        return OverlapIndex(self, units, corpus, progress)


class OverlapIndex:
    """Counts distinct matching query terms per unit from the postings."""

    def __init__(
        self,
        params: KeywordOverlap,
        units: Sequence[Chunk],
        corpus: Corpus | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.postings = Postings(units, params.tokenizer, corpus, progress)
        self.tie_break = tie_break_positions(units)
        self.long_lists = LongLists(self.postings.pointers, self.postings.units, None, self.postings.unit_count)
        """The long posting lists in numpy's fastest forms, for the numpy ranking path (built on its first use)."""

    def scores(self, query: str) -> np.ndarray:
        """Number of distinct query tokens in every unit."""
        postings = self.postings
        terms = QueryTerms.of([postings.query_term_ids(query)]).distinct()
        scores: np.ndarray = batch_scores(postings.pointers, postings.units, None, postings.unit_count, terms)[0]
        return scores

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        postings = self.postings
        queries = postings.queries_term_ids([q.query for q in questions]).distinct()
        return rank_queries(
            postings.pointers,
            postings.units,
            None,
            postings.unit_count,
            self.tie_break,
            queries,
            depth,
            progress=progress,
            long_lists=self.long_lists,
        )
