"""Ranking order for every retriever: score descending, then document id, then chunk start.

Zero (and negative) scores are not retrieved; the ranking keeps max(20, top_k) hits.
"""

from __future__ import annotations

import numpy as np
import pytest

from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.base import tie_break_positions, top_hits


def chunk(doc: str, start: int, end: int, text: str = "x") -> Chunk:
    return Chunk(f"{doc}@{start}-{end}", doc, start, end, text)


def test_tie_break_positions_sort_by_document_then_start() -> None:
    units = [chunk("b", 0, 5), chunk("a", 10, 15), chunk("a", 0, 5), chunk("B", 3, 4), chunk("a", 0, 3)]
    # Sorted: ("B",3) < ("a",0,3) < ("a",0,5) < ("a",10) < ("b",0): code-point order puts "B" before "a".
    assert tie_break_positions(units).tolist() == [4, 3, 2, 0, 1]


def test_top_hits_orders_by_score_then_tie_break_and_drops_non_positive() -> None:
    scores = np.array([0.5, 2.0, 2.0, 0.0, -1.0, 2.0])
    tie_break = np.array([0, 5, 1, 2, 3, 4])
    ranking = top_hits(scores, tie_break, depth=10)
    # The three 2.0s by tie-break position (1, 4, 5 -> units 2, 5, 1), then 0.5; 0 and -1 are not retrieved.
    assert ranking.indices == (2, 5, 1, 0)
    assert ranking.scores == (2.0, 2.0, 2.0, 0.5)


def test_top_hits_cuts_ties_at_the_depth_by_tie_break() -> None:
    scores = np.array([1.0, 1.0, 1.0, 1.0, 3.0, 1.0])
    tie_break = np.array([5, 3, 4, 0, 1, 2])
    # 3.0 first, then the 1.0s in tie-break order 0 (unit 3), 2 (unit 5), 3 (unit 1), ...: keep 3 in all.
    assert top_hits(scores, tie_break, depth=3).indices == (4, 3, 5)


def test_top_hits_of_nothing() -> None:
    assert top_hits(np.zeros(4), np.arange(4), depth=3).indices == ()
    assert top_hits(np.array([]), np.array([], dtype=np.int64), depth=3).indices == ()


@pytest.mark.parametrize("retriever", ["bm25", "overlap"])
def test_retrievers_break_ties_by_document_then_start(retriever: str) -> None:
    # The same text in four places: equal scores, so only the tie-break orders them. Six other chunks keep
    # "rare" in fewer than half of the ten, so its BM25 idf ln(10 - 4 + 0.5) - ln(4 + 0.5) is positive.
    units = [
        chunk("beta", 0, 9, "rare word"),
        chunk("alpha", 50, 59, "rare word"),
        chunk("alpha", 5, 14, "rare word"),
        *(chunk("gamma", 10 * i, 10 * i + 4, "none") for i in range(6)),
        chunk("alpha", 0, 9, "rare word"),
    ]
    (ranking,) = parse_retriever(retriever).build(units).rank([Question("q", "rare", ())], depth=20)
    assert [(units[i].doc, units[i].start) for i in ranking.indices] == [
        ("alpha", 0),
        ("alpha", 5),
        ("alpha", 50),
        ("beta", 0),
    ]
    assert len(set(ranking.scores)) == 1


def corpus_of_matching_documents(count: int) -> tuple[Corpus, Question]:
    documents = tuple(Document(f"d{i:02d}", f"needle filler {i}") for i in range(count))
    question = Question("q", "needle", (EvidenceItem((Span("d29", 0, 6),)),))
    return Corpus(documents), question


@pytest.mark.parametrize(("top_k", "depth"), [(1, 20), (5, 20), (20, 20), (25, 25), (40, 35)])
def test_ranking_depth_is_max_of_20_and_top_k(top_k: int, depth: int) -> None:
    # 35 one-chunk documents, all containing the query word: the ranking is only limited by the depth.
    corpus, question = corpus_of_matching_documents(35)
    result = Evaluator(corpus, [question]).evaluate(make_config("paragraph", "overlap", top_k=top_k))
    assert len(result.questions[0].ranking.indices) == depth
    # All tie on score 1, so the order is by document id: d00, d01, ...
    ranked_docs = [hit.chunk.doc for hit in result.questions[0].ranked]
    assert ranked_docs == sorted(ranked_docs)
    # The evidence is in d29, at rank 30: inside the ranking only when the depth reaches 30.
    assert result.questions[0].first_correct_rank == (30 if depth >= 30 else None)


def test_bm25_retrieves_nothing_when_every_score_is_negative() -> None:
    # "rare" in 4 of 5 chunks: idf ln(1.5) - ln(4.5) = -ln 3 for "rare" and "word", +ln 3 for "none";
    # the mean idf -ln(3)/3 is negative, so rank_bm25's floor 0.25 * mean is negative too: every
    # score is below 0 and nothing is retrieved.
    units = [chunk(f"d{i}", 0, 9, "rare word") for i in range(4)] + [chunk("e", 0, 4, "none")]
    index = parse_retriever("bm25").build(units)
    assert (index.scores("rare")[:4] < 0).all()  # type: ignore[attr-defined]
    (ranking,) = index.rank([Question("q", "rare", ())], depth=20)
    assert ranking.indices == ()
