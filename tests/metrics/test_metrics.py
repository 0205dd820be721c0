"""Every metric of the README's Metrics section, hand-checked on a tiny corpus with hand-made rankings.

Corpus (chunked with ``fixed:size=10``, 25 units, indices in brackets):
  a: 30 characters -> a#0 [0,10) [0], a#1 [10,20) [1], a#2 [20,30) [2]
  b: 20 characters -> b#0 [0,10) [3], b#1 [10,20) [4]
  c: 200 characters -> c#0 .. c#19 [5 .. 24], c#k = [10k, 10k+10)
"""

from __future__ import annotations

import math

import pytest

from chunkscope.io.dataset import Dataset
from chunkscope.metrics.rank import ndcg_single, recall_at, reciprocal_rank
from chunkscope.metrics.summary import summarize
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, measure_question
from chunkscope.results import Config, Cut, QuestionResult, Ranking

CORPUS = Corpus(
    (
        Document("a", "".join(chr(ord("A") + i % 26) for i in range(30))),
        Document("b", "".join(chr(ord("a") + i % 26) for i in range(20))),
        Document("c", "".join(str(i % 10) for i in range(200))),
    )
)
C = list(range(5, 25))  # indices of c#0 .. c#19


def item(*spans: tuple[str, int, int]) -> EvidenceItem:
    return EvidenceItem(tuple(Span(*s) for s in spans))


# q1: one item inside a#1; ranked first.
Q1 = Question("q1", "one", (item(("a", 12, 15)),))
# q2: two required items, in a#0 and b#1.
Q2 = Question("q2", "two", (item(("a", 2, 5)), item(("b", 14, 18))))
# q3: its only span [8,13) crosses the a#0 | a#1 boundary at 10: lost.
Q3 = Question("q3", "cut", (item(("a", 8, 13)),))
# q4: one item with two alternatives: the cut a[8,13) or b[2,4) inside b#0.
Q4 = Question("q4", "any", (item(("a", 8, 13), ("b", 2, 4)),))
# q5: inside c#19.
Q5 = Question("q5", "deep", (item(("c", 195, 198)),))

RANKINGS = {
    "q1": (1, 3),
    "q2": (3, 0, 2, 4, 1),  # a#0 (item 1) at rank 2, b#1 (item 2) at rank 4
    "q3": (5, 6),
    "q4": (0, 1, 2, 4, 5, 6, 3),  # b#0 at rank 7
    "q5": tuple(C),  # c#19 at rank 20
}
CONFIG = make_config("fixed:size=10", "overlap", top_k=5)


def measure(question: Question, indices: tuple[int, ...], config: Config = CONFIG) -> QuestionResult:
    evaluator = Evaluator(CORPUS, [question])
    ranking = Ranking(indices, tuple(float(100 - r) for r in range(len(indices))))
    return measure_question(question, ranking, evaluator.chunking(config.chunker), config)


@pytest.fixture(scope="module")
def results() -> dict[str, QuestionResult]:
    return {q.id: measure(q, RANKINGS[q.id]) for q in (Q1, Q2, Q3, Q4, Q5)}


def test_index_layout_matches_the_docstring() -> None:
    units = Evaluator(CORPUS, []).chunking("fixed:size=10,overlap=0").chunking.units
    assert [u.id for u in units[:5]] == ["a#0", "a#1", "a#2", "b#0", "b#1"]
    assert [(u.doc, u.start, u.end) for u in units[5:7]] == [("c", 0, 10), ("c", 10, 20)]
    assert len(units) == 25


# ------------------------------------------------------------------ before retrieval


def test_evidence_exists_and_lost(results: dict[str, QuestionResult]) -> None:
    assert {qid: r.evidence_exists for qid, r in results.items()} == {
        "q1": True,
        "q2": True,
        "q3": False,
        "q4": True,
        "q5": True,
    }
    assert [qid for qid, r in results.items() if r.lost] == ["q3"]


def test_cut_lists_boundaries_and_pieces(results: dict[str, QuestionResult]) -> None:
    assert results["q3"].cuts == (Cut(Span("a", 8, 13), (10,), ("a#0", "a#1")),)
    # q4's cut alternative is reported although the other alternative survives.
    assert results["q4"].cuts == (Cut(Span("a", 8, 13), (10,), ("a#0", "a#1")),)
    assert results["q1"].cuts == ()


def test_cut_across_two_boundaries() -> None:
    result = measure(Question("q", "x", (item(("a", 8, 23)),)), ())
    assert result.cuts == (Cut(Span("a", 8, 23), (10, 20), ("a#0", "a#1", "a#2")),)


def test_a_span_ending_exactly_at_a_boundary_is_not_cut() -> None:
    # [10,20) is exactly a#1: boundaries 10 and 20 are not strictly inside it.
    result = measure(Question("q", "x", (item(("a", 10, 20)),)), ())
    assert result.evidence_exists
    assert result.cuts == ()


def test_overlapping_windows_recover_a_cut_span() -> None:
    # fixed:size=10,overlap=5 has a window [5,15) that holds [8,13).
    result = measure(Q3, (), make_config("fixed:size=10,overlap=5", "overlap"))
    assert result.evidence_exists
    assert result.cuts == ()


# ------------------------------------------------------------------ ranks


def test_first_correct_rank_and_buckets(results: dict[str, QuestionResult]) -> None:
    # q2 needs both items: item 1 first at rank 2, item 2 first at rank 4, so r = max(2, 4) = 4.
    assert {qid: r.first_correct_rank for qid, r in results.items()} == {
        "q1": 1,
        "q2": 4,
        "q3": None,
        "q4": 7,
        "q5": 20,
    }
    assert {qid: r.bucket for qid, r in results.items()} == {
        "q1": "1",
        "q2": "2-5",
        "q3": "miss",
        "q4": "6-20",
        "q5": "6-20",
    }
    assert results["q2"].item_ranks == ((2,), (4,))
    assert results["q4"].item_ranks == ((7,),)


def test_first_correct_rank_needs_every_item() -> None:
    # Item 1 (a#0) at rank 1, item 2 (b#1) never ranked: no correct rank at all.
    assert measure(Q2, (0, 1, 2)).first_correct_rank is None
    # Both items in the ranking several times: each item's first rank counts.
    result = measure(Q2, (4, 3, 4, 0, 0))
    assert result.item_ranks == ((4, 5), (1, 3))
    assert result.first_correct_rank == 4


def test_two_items_in_one_chunk_are_found_at_its_rank() -> None:
    question = Question("q", "x", (item(("c", 41, 43)), item(("c", 45, 49))))  # both in c#4 (index 9)
    assert measure(question, (5, 9)).first_correct_rank == 2


def test_miss_beyond_the_ranking() -> None:
    assert measure(Q1, ()).bucket == "miss"
    assert measure(Q1, (0, 2, 3)).first_correct_rank is None


# ------------------------------------------------------------------ delivery


def test_delivery_metrics(results: dict[str, QuestionResult]) -> None:
    # top-5, no budget: the first five ranked chunks are sent, 10 characters each.
    assert {qid: r.sent_chars for qid, r in results.items()} == {
        "q1": 20,
        "q2": 50,
        "q3": 20,
        "q4": 50,
        "q5": 50,
    }
    assert {qid: r.duplicate_chars for qid, r in results.items()} == dict.fromkeys(results, 0)
    # q3 gets c#0, c#1: no chunk of document a is delivered.
    assert {qid: r.doc_hit for qid, r in results.items()} == {
        "q1": True,
        "q2": True,
        "q3": False,
        "q4": True,
        "q5": True,
    }
    assert results["q2"].covered == (True, True)
    assert results["q2"].complete
    # q4: a#0 and a#1 are both delivered, but [8,13) lies in neither alone, and b#0 (rank 7) is not sent.
    assert results["q4"].covered == (False,)
    assert not results["q4"].complete
    assert [qid for qid, r in results.items() if r.complete] == ["q1", "q2"]


def test_covered_is_per_item() -> None:
    # Top-5 of (3, 0, 2, 1, 5, 4) sends b#0, a#0, a#2, a#1, c#0: item 1 (a#0) yes, item 2 (b#1, rank 6) no.
    result = measure(Q2, (3, 0, 2, 1, 5, 4))
    assert result.covered == (True, False)
    assert not result.complete
    assert result.first_correct_rank == 6


def test_budget_truncation_decides_coverage() -> None:
    # Budget 15 with truncate: a#0 (10) then 5 characters of a#1, i.e. [10,15): holds q1's [12,15).
    truncated = measure(Q1, (0, 1), make_config("fixed:size=10", "overlap", top_k=5, budget=15, overflow="truncate"))
    assert [(d.start, d.end) for d in truncated.delivered] == [(0, 10), (10, 15)]
    assert truncated.covered == (True,)
    assert truncated.sent_chars == 15
    # Budget 14: [10,14) misses position 14 of the span.
    short = measure(Q1, (0, 1), make_config("fixed:size=10", "overlap", top_k=5, budget=14, overflow="truncate"))
    assert short.covered == (False,)
    assert short.doc_hit  # a chunk of document a was still delivered


def test_duplicate_chars_with_overlapping_windows() -> None:
    config = make_config("fixed:size=10,overlap=5", "overlap", top_k=3)
    units = Evaluator(CORPUS, []).chunking(config.chunker).chunking.units
    # Windows of a: [0,10) [5,15) [10,20) [15,25) [20,30): indices 0..4.
    assert [(u.start, u.end) for u in units[:5]] == [(0, 10), (5, 15), (10, 20), (15, 25), (20, 30)]
    result = measure(Q1, (0, 1, 2), config)
    # Sent 30 characters; distinct positions [0,20) = 20; so 10 were sent twice.
    assert result.sent_chars == 30
    assert result.duplicate_chars == 10
    assert [d.duplicate_chars for d in result.delivered] == [0, 5, 5]


# ------------------------------------------------------------------ per configuration


def test_single_question_formulas() -> None:
    assert reciprocal_rank(1) == 1.0
    assert reciprocal_rank(4) == 0.25
    assert reciprocal_rank(10) == 0.1
    assert reciprocal_rank(11) == 0.0
    assert reciprocal_rank(None) == 0.0
    assert ndcg_single(1) == 1.0
    assert ndcg_single(3) == 0.5  # 1 / log2(4)
    assert ndcg_single(7) == pytest.approx(1 / 3)  # 1 / log2(8)
    assert ndcg_single(11) == 0.0
    assert ndcg_single(None) == 0.0
    assert recall_at(5, 5) == 1.0
    assert recall_at(6, 5) == 0.0
    assert recall_at(None, 20) == 0.0


def test_summary(results: dict[str, QuestionResult]) -> None:
    units = Evaluator(CORPUS, []).chunking(CONFIG.chunker).chunking.units
    summary = summarize(list(results.values()), units)
    # r = 1, 4, None, 7, 20 for q1..q5.
    assert summary.questions == 5
    assert summary["index_chunks"] == 25
    assert summary["indexed_chars"] == 30 + 20 + 200
    assert (summary["evidence_exists"], summary["lost"]) == (4, 1)
    assert summary["doc_hits"] == 4
    assert summary["complete"] == 2
    # Recall@5: r <= 5 for q1, q2 -> 2/5. Recall@20: q1, q2, q4, q5 -> 4/5.
    assert summary["recall_at_5"] == pytest.approx(2 / 5)
    assert summary["recall_at_20"] == pytest.approx(4 / 5)
    # MRR@10: (1 + 1/4 + 0 + 1/7 + 0) / 5 = 0.278571...; q5's rank 20 counts 0.
    assert summary["mrr_at_10"] == pytest.approx((1 + 1 / 4 + 1 / 7) / 5)
    assert summary["mrr_at_10"] == pytest.approx(0.2785714, abs=1e-7)
    # nDCG@10: (1/log2 2 + 1/log2 5 + 0 + 1/log2 8 + 0) / 5 = (1 + 0.4306766 + 0.3333333) / 5 = 0.3528020.
    assert summary["ndcg_at_10"] == pytest.approx((1 + 1 / math.log2(5) + 1 / 3) / 5)
    assert summary["ndcg_at_10"] == pytest.approx(0.3528020, abs=1e-7)
    assert dict(summary.rank_buckets) == {"1": 1, "2-5": 1, "6-20": 2, "miss": 1}
    assert summary["sent_chars"] == 20 + 50 + 20 + 50 + 50
    assert summary["duplicate_chars"] == 0


def test_summary_of_no_questions_does_not_divide_by_zero() -> None:
    summary = summarize([], ())
    assert (summary.questions, summary["recall_at_5"], summary["mrr_at_10"], summary["ndcg_at_10"]) == (
        0,
        0.0,
        0.0,
        0.0,
    )


def test_evaluator_end_to_end_with_the_overlap_retriever() -> None:
    documents = (Document("x", "alpha beta\n\ngamma delta\n\nalpha gamma"), Document("y", "beta beta"))
    question = Question("q", "alpha gamma", (item(("x", 0, 5)), item(("x", 12, 17))))
    result = Evaluator(Corpus(documents), [question]).evaluate(make_config("paragraph", "overlap", top_k=2))
    # Paragraphs x#0 "alpha beta" (1 query token), x#1 "gamma delta" (1), x#2 "alpha gamma" (2), y#0 (0).
    # Ranking: x#2 (2), then x#0 and x#1 tied on 1, by start; y#0 scores 0 and is not retrieved.
    assert [(hit.chunk.id, hit.score) for hit in result.questions[0].ranked] == [
        ("x#2", 2.0),
        ("x#0", 1.0),
        ("x#1", 1.0),
    ]
    # alpha [0,5) is first found at rank 2 (x#0), gamma [12,17) at rank 3 (x#1): r = 3.
    assert result.questions[0].first_correct_rank == 3
    # Top-2 delivers x#2 and x#0: item 1 covered, item 2 not.
    assert result.questions[0].covered == (True, False)
    assert result.summary["recall_at_5"] == 1.0
    assert result.summary["mrr_at_10"] == pytest.approx(1 / 3)
    assert result.summary["index_chunks"] == 4


def test_evaluator_caches_and_keeps_question_order(sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    config = make_config("paragraph")
    first = evaluator.evaluate(config)
    assert evaluator.evaluate(config) is first
    assert evaluator.cached(config) is first
    assert [r.question_id for r in first.questions] == [q.id for q in sample.questions.questions]


def test_sample_cut_inside_a_japanese_compound(sample: Dataset) -> None:
    # q39's quote is [380, 421) of ja/rx200-torisetsu.md; 200-character windows cut it at 400
    # (低温時バッテ | リー保護機能); with overlap 40 the window [320, 520) holds it whole.
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    index = [q.id for q in sample.questions.questions].index("q39")
    cut = evaluator.evaluate(make_config("fixed:size=200")).questions[index]
    assert cut.lost
    assert cut.cuts == (
        Cut(Span("ja/rx200-torisetsu.md", 380, 421), (400,), ("ja/rx200-torisetsu.md#1", "ja/rx200-torisetsu.md#2")),
    )
    text = sample.corpus.by_id["ja/rx200-torisetsu.md"].text
    assert text[394:400] + "|" + text[400:406] == "低温時バッテ|リー保護機能"
    whole = evaluator.evaluate(make_config("fixed:size=200,overlap=40")).questions[index]
    assert whole.evidence_exists and whole.cuts == ()
