"""Character overlap and the pieces state of one question, measured through ``measure_question``.

Every case is worked by hand on one 30-character document cut into three units
``u0 = [0, 10)``, ``u1 = [10, 20)``, ``u2 = [20, 30)`` (no overlap); a property test
checks the character counts against sets of positions.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import Chunking
from chunkscope.metrics import overlap as formulas
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.pipeline.evaluate import IndexedChunking, measure_question
from chunkscope.pipeline.locate import UnitLocator
from chunkscope.pipeline.overlap import delivered_unions, measure_overlap, union_of
from chunkscope.results import Config, DeliveredChunk, Overflow, QuestionResult, Ranking

TEXT = "abcdefghijklmnopqrstuvwxyz0123"


def units(prefix: str = "") -> tuple[Chunk, ...]:
    return tuple(Chunk(f"d#{i}", "d", s, s + 10, TEXT[s : s + 10], prefix=prefix) for i, s in enumerate((0, 10, 20)))


def measure(
    items: list[list[tuple[int, int]]],
    ranked: list[int],
    *,
    top_k: int = 5,
    budget: int | None = None,
    overflow: Overflow = "stop",
    prefix: str = "",
) -> QuestionResult:
    """The question whose items have these alternative ranges, ranked ``ranked`` (positions into the units)."""
    chunks = units(prefix)
    indexed = IndexedChunking(Chunking(chunks), UnitLocator(chunks), tuple(range(len(chunks))))
    evidence = tuple(EvidenceItem(tuple(Span("d", s, e) for s, e in alternatives)) for alternatives in items)
    ranking = Ranking(tuple(ranked), tuple(float(10 - r) for r in range(len(ranked))))
    return measure_question(
        Question("q", "query", evidence), ranking, indexed, Config("fixed", "bm25", top_k, budget, overflow)
    )


def values(result: QuestionResult) -> tuple[float, float, float, float]:
    return (
        formulas.evidence_recall(result),
        formulas.precision(result),
        formulas.iou(result),
        formulas.precision_omega(result),
    )


def test_a_span_split_across_two_delivered_chunks_is_delivered_in_pieces() -> None:
    # [5, 15) is cut at 10; u0 and u1 are delivered at ranks 1 and 2.
    result = measure([[(5, 15)]], [0, 1])
    assert result.lost and not result.complete
    assert result.piece_ranks == ((1, 2),) and result.in_pieces
    # recall 10/10; precision 10/20 sent; IoU 10/(20 + 0); Ω: u0 and u1 hold it, 10/|[0, 20)|.
    assert values(result) == (1.0, 0.5, 0.5, 0.5)


def test_a_piece_not_delivered_is_no_pieces() -> None:
    # [5, 15): u0 delivered (5 characters), u1 not (u2 instead).
    result = measure([[(5, 15)]], [0, 2])
    assert result.piece_ranks == ((),) and not result.in_pieces
    # recall 5/10; precision 5/20; IoU 5/(20 + 5); Ω unchanged (it does not depend on delivery).
    assert values(result) == (0.5, 0.25, 0.2, 0.5)


def test_pieces_ranks_follow_rank_order_not_document_order() -> None:
    result = measure([[(5, 15)]], [1, 2, 0])
    assert result.piece_ranks == ((1, 3),) and result.in_pieces


def test_a_question_is_in_pieces_only_when_every_item_is_whole_or_in_pieces() -> None:
    whole_and_pieces = measure([[(21, 25)], [(5, 15)]], [2, 0, 1])
    assert whole_and_pieces.covered == (True, False)
    assert whole_and_pieces.piece_ranks == ((), (2, 3)) and whole_and_pieces.in_pieces
    whole_and_part = measure([[(21, 25)], [(5, 15)]], [2, 0])
    assert whole_and_part.piece_ranks == ((), ()) and not whole_and_part.in_pieces
    complete = measure([[(21, 25)], [(2, 8)]], [2, 0])
    assert complete.complete and not complete.in_pieces and complete.piece_ranks == ((), ())


def test_a_span_cut_by_the_budget_is_not_delivered_in_pieces() -> None:
    # u0 (cost 12 with its 2-character prefix) fits the budget of 16; u1 is truncated to
    # 16 - 12 - 2 = 2 body characters [10, 12): 7 of the 10 evidence characters are sent.
    result = measure([[(5, 15)]], [0, 1], budget=16, overflow="truncate", prefix="T:")
    assert [(d.start, d.end, d.sent_chars) for d in result.delivered] == [(0, 10, 12), (10, 12, 4)]
    assert not result.in_pieces
    # recall 7/10; precision 7/16 sent; IoU 7/(16 + 3); Ω: 10/(|[0, 20)| + 2 + 2 prefix characters).
    assert values(result) == pytest.approx((7 / 10, 7 / 16, 7 / 19, 10 / 24), abs=1e-15)


def test_overlapping_references_are_summed_like_chromas() -> None:
    # Items [5, 15) and [10, 20), both fully delivered by u0 and u1: 15 distinct characters, 20 summed.
    result = measure([[(5, 15)], [(10, 20)]], [0, 1])
    assert result.overlap.evidence_chars == 20 and result.overlap.delivered_evidence_chars == 15
    # Ω: u2 starts where [10, 20) ends, so it touches and counts: 15/|[0, 30)|.
    assert values(result) == (15 / 20, 15 / 20, 15 / 20, 15 / 30)


def test_a_unit_touching_the_evidence_counts_in_precision_omega() -> None:
    # [10, 15) shares no character with u0, which ends at 10: Ω = 5/|[0, 20)|, not 5/10.
    assert formulas.precision_omega(measure([[(10, 15)]], [1])) == 5 / 20
    # [12, 18) touches neither u0 nor u2: Ω = 6/10.
    assert formulas.precision_omega(measure([[(12, 18)]], [1])) == 6 / 10


def test_an_item_is_scored_by_its_best_delivered_alternative_and_its_best_omega_alternative() -> None:
    # Alternatives [5, 15) (5 of 10 delivered) and [22, 26) (4 of 4): delivery scores [22, 26).
    # Ω alone: [5, 15) gives 10/20, [22, 26) gives 4/10, so Ω scores [5, 15).
    result = measure([[(5, 15), (22, 26)]], [0, 2])
    assert result.overlap.evidence_chars == 4 and result.overlap.delivered_evidence_chars == 4
    assert values(result) == (1.0, 4 / 20, 4 / 20, 0.5)


def test_ties_between_alternatives_go_to_the_first_listed() -> None:
    # Neither [1, 3) nor [21, 25) is delivered (u1 only): the first one, 2 characters, is scored.
    result = measure([[(1, 3), (21, 25)]], [1])
    assert result.overlap.evidence_chars == 2 and result.overlap.undelivered_evidence_chars == 2


def test_nothing_delivered_gives_zero_not_a_division_by_zero() -> None:
    result = measure([[(5, 15)]], [])
    assert result.sent_chars == 0 and not result.in_pieces
    assert values(result) == (0.0, 0.0, 0.0, 0.5)


def test_a_repeated_unit_is_delivered_once() -> None:
    # Parent-style delivery: both hits deliver u0; it is sent (and summed in precision) once.
    chunks = units()
    indexed = IndexedChunking(Chunking(chunks), UnitLocator(chunks), tuple(range(3)))
    question = Question("q", "query", (EvidenceItem((Span("d", 2, 8),)),))
    result = measure_question(question, Ranking((0, 0), (2.0, 1.0)), indexed, Config("fixed", "bm25", 5))
    assert result.sent_chars == 10 and formulas.precision(result) == 6 / 10


# ------------------------------------------------------------ against sets of positions

ranges = st.tuples(st.integers(0, 60), st.integers(1, 25)).map(lambda t: (t[0], t[0] + t[1]))


def positions(spans: list[tuple[int, int]]) -> set[int]:
    return {p for s, e in spans for p in range(s, e)}


@settings(max_examples=300, deadline=None)
@given(delivered=st.lists(ranges, max_size=6), references=st.lists(ranges, min_size=1, max_size=4))
def test_counts_equal_those_of_position_sets(
    delivered: list[tuple[int, int]], references: list[tuple[int, int]]
) -> None:
    doc_text = "x" * 100
    chunks = [Chunk(f"c{i}", "d", s, e, doc_text[s:e]) for i, (s, e) in enumerate(delivered)]
    sent = [DeliveredChunk(i + 1, c, c.start, c.end, c.length, 0) for i, c in enumerate(chunks)]
    evidence = [EvidenceItem((Span("d", s, e),)) for s, e in references]
    measured = measure_overlap(evidence, delivered_unions(sent), lambda span: [])
    seen = positions(delivered)
    assert measured.evidence_chars == sum(e - s for s, e in references)
    assert measured.delivered_evidence_chars == len(positions(references) & seen)
    assert measured.undelivered_evidence_chars == sum(len(positions([r]) - seen) for r in references)
    assert sum(e - s for s, e in union_of(delivered)) == len(seen)


@pytest.mark.parametrize("alternatives", [[(5, 5)], [(5, 15), (12, 12)], [(9, 4)]])
def test_an_empty_or_reversed_evidence_span_is_refused_when_built(alternatives: list[tuple[int, int]]) -> None:
    # Its delivered share would be 0/0; the loaders refuse such spans with file and line.
    with pytest.raises(ValueError, match=r"evidence span d\[\d+:\d+\] is empty"):
        EvidenceItem(tuple(Span("d", s, e) for s, e in alternatives))
