"""Each metric's formula on hand-computed cases, function by function and through the summary."""

from __future__ import annotations

import math

import pytest
from metric_cases import HAND_SUMMARY, UNITS, hand_results, question

from chunkscope.metrics import coverage, delivery, overlap, size
from chunkscope.metrics.rank import ndcg_single, recall_at, reciprocal_rank
from chunkscope.metrics.registry import REGISTRY
from chunkscope.metrics.summary import summarize
from chunkscope.results import CharacterOverlap, DeliveredChunk


@pytest.mark.parametrize(
    ("rank", "k", "expected"),
    [(1, 5, 1.0), (5, 5, 1.0), (6, 5, 0.0), (20, 20, 1.0), (21, 20, 0.0), (None, 5, 0.0)],
)
def test_recall_at_k(rank: int | None, k: int, expected: float) -> None:
    assert recall_at(rank, k) == expected


@pytest.mark.parametrize(
    ("rank", "expected"),
    [(1, 1.0), (2, 0.5), (4, 0.25), (10, 0.1), (11, 0.0), (None, 0.0)],
)
def test_reciprocal_rank_at_10(rank: int | None, expected: float) -> None:
    assert reciprocal_rank(rank, 10) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("rank", "cutoff", "expected"),
    # 1/log2(r + 1): log2 2 = 1, log2 4 = 2, log2 8 = 3, log2 16 = 4.
    [(1, 10, 1.0), (3, 10, 1 / 2), (7, 10, 1 / 3), (15, 10, 0.0), (15, 20, 1 / 4), (None, 10, 0.0)],
)
def test_ndcg_with_one_relevant_item(rank: int | None, cutoff: int, expected: float) -> None:
    assert ndcg_single(rank, cutoff) == pytest.approx(expected)


def test_coverage_values_of_one_question() -> None:
    complete = question("a", 1, covered=(True, True))
    partial = question("b", 2, covered=(True, False), doc_hit=False)
    lost = question("c", None, exists=False, covered=(False,))
    assert [coverage.evidence_exists(q) for q in (complete, partial, lost)] == [1, 1, 0]
    assert [coverage.lost(q) for q in (complete, partial, lost)] == [0, 0, 1]
    assert [coverage.doc_hit(q) for q in (complete, partial, lost)] == [1, 0, 1]
    assert [coverage.complete(q) for q in (complete, partial, lost)] == [1, 0, 0]


def test_delivery_values_sum_the_delivered_chunks() -> None:
    # 13 characters (3 prefix + 10 body), then 10 of which 5 were already sent, then a truncated 4.
    delivered = (
        DeliveredChunk(1, UNITS[0], 0, 10, 13, 0),
        DeliveredChunk(2, UNITS[1], 5, 15, 10, 5),
        DeliveredChunk(3, UNITS[1], 5, 9, 4, 4),
    )
    result = question("a", 1, delivered=delivered)
    assert delivery.sent_chars(result) == 27
    assert delivery.duplicate_chars(result) == 9


def test_overlap_values_of_one_question() -> None:
    # 8 evidence characters (summed over references), 6 of them delivered, 2 not; 13 characters sent;
    # Omega: 6 of 15.
    sent = (DeliveredChunk(1, UNITS[0], 0, 10, 13, 0),)
    result = question("a", 1, delivered=sent, overlap=CharacterOverlap(8, 6, 2, 6, 15))
    assert overlap.evidence_recall(result) == 6 / 8
    assert overlap.precision(result) == 6 / 13
    assert overlap.iou(result) == 6 / (13 + 2)
    assert overlap.precision_omega(result) == 6 / 15


def test_overlap_values_with_nothing_to_divide_by_are_zero() -> None:
    nothing = question("a", None)
    assert (overlap.evidence_recall(nothing), overlap.precision(nothing), overlap.iou(nothing)) == (0.0, 0.0, 0.0)
    assert overlap.precision_omega(nothing) == 0.0
    undelivered = question("b", None, overlap=CharacterOverlap(5, 0, 5, 5, 10))
    assert (overlap.precision(undelivered), overlap.iou(undelivered)) == (0.0, 0.0)


def test_pieces_value_of_one_question() -> None:
    pieces = question("a", None, exists=False, covered=(True, False), piece_ranks=((), (1, 3)))
    part = question("b", None, exists=False, covered=(True, False), piece_ranks=((), ()))
    complete = question("c", 1, covered=(True, True), piece_ranks=((), ()))
    unmeasured = question("d", None, covered=(False,))
    assert [coverage.pieces(q) for q in (pieces, part, complete, unmeasured)] == [1, 0, 0, 0]


def test_sizes_of_the_evaluation() -> None:
    results = hand_results()
    assert size.questions(results, UNITS) == 4
    assert size.index_chunks(results, UNITS) == 2
    assert size.indexed_chars(results, UNITS) == 13 + 10
    assert (size.questions((), ()), size.index_chunks((), ()), size.indexed_chars((), ())) == (0, 0, 0)


def test_every_metric_of_the_summary_by_hand() -> None:
    summary = summarize(hand_results(), UNITS)
    assert list(summary.values) == list(HAND_SUMMARY)
    for name, expected in HAND_SUMMARY.items():
        assert summary[name] == pytest.approx(expected), name
    assert dict(summary.rank_buckets) == {"1": 1, "2-5": 1, "6-20": 1, "miss": 1}


def test_counts_are_ints_and_rates_floats() -> None:
    summary = summarize(hand_results(), UNITS)
    for metric in REGISTRY:
        if metric.applies is not None:  # these questions have no token window: the summary leaves it out
            assert metric.name not in summary
            continue
        value = summary[metric.name]
        assert type(value) is (float if metric.kind == "rate" else int), metric.name
    assert summary.count("lost") == 1 and summary.rate("recall_at_5") == 0.5
    with pytest.raises(TypeError, match="rate"):
        summary.count("recall_at_5")
    with pytest.raises(TypeError, match="count"):
        summary.rate("lost")
    with pytest.raises(KeyError):
        summary["recall_at_7"]


def test_the_summary_of_no_questions_is_zero_everywhere() -> None:
    summary = summarize((), ())
    assert all(summary[m.name] == 0 for m in REGISTRY if m.applies is None)


def test_a_summary_is_the_mean_or_sum_of_the_per_question_values() -> None:
    results = hand_results((2, 9, None, 30))
    summary = summarize(results, UNITS)
    for metric in REGISTRY:
        if metric.per_question is None or metric.applies is not None:
            continue
        values = [metric.per_question(q) for q in results]
        expected = sum(values) / len(values) if metric.kind == "rate" else sum(values)
        assert summary[metric.name] == pytest.approx(expected), metric.name
        assert metric.question_mean(summary) == pytest.approx(sum(values) / len(values)), metric.name
    # r = 2, 9, None, 30: MRR@10 = (1/2 + 1/9) / 4, nDCG@10 = (1/log2 3 + 1/log2 10) / 4.
    assert summary["mrr_at_10"] == pytest.approx((1 / 2 + 1 / 9) / 4)
    assert summary["ndcg_at_10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(10)) / 4)


def test_every_metric_states_its_formula() -> None:
    for metric in REGISTRY:
        assert metric.definition, metric.name
    assert REGISTRY["mrr_at_10"].definition.startswith("Mean over the questions of: Reciprocal rank")
    assert REGISTRY["mrr_at_10"].definition.endswith("With k = 10.")
    assert REGISTRY["lost"].definition.startswith("Sum over the questions of: ``1 - evidence_exists``")
    assert "1 / log2(r + 1)" in REGISTRY["ndcg_at_10"].definition
    assert REGISTRY["indexed_chars"].definition.startswith("Characters indexed")
