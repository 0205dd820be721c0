"""Keyword overlap: how many distinct query tokens a unit contains."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import REPORT_EVERY, Progress, retrievers, tie_break_positions, top_hits
from chunkscope.retrievers.lexical import Postings


@retrievers.register("overlap")
@dataclass(frozen=True, slots=True)
class KeywordOverlap:
    """score(q, d) = number of distinct query tokens that occur in d."""

    tokenizer: str = "default"

    def build(self, units: Sequence[Chunk]) -> OverlapIndex:
        return OverlapIndex(self, units)


class OverlapIndex:
    """Counts distinct matching query terms per unit from the postings."""

    def __init__(self, params: KeywordOverlap, units: Sequence[Chunk]) -> None:
        self.postings = Postings(units, params.tokenizer)
        self.tie_break = tie_break_positions(units)
        self.ones = np.ones_like(self.postings.frequencies)

    def scores(self, query: str) -> np.ndarray:
        """Number of distinct query tokens in every unit."""
        distinct = list(dict.fromkeys(self.postings.query_term_ids(query)))
        units, ones = self.postings.gather(distinct, self.ones)
        return np.bincount(units, weights=ones, minlength=self.postings.unit_count)

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        rankings = []
        for number, question in enumerate(questions):
            if progress is not None and number % REPORT_EVERY == 0:
                progress(number, len(questions))  # lets a caller follow and cancel a long ranking
            rankings.append(top_hits(self.scores(question.query), self.tie_break, depth))
        return rankings
