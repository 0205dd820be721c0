"""Context assembly with hand-built rankings: top-k, budget, stop/skip/truncate, prefixes, duplicates, parents."""

from __future__ import annotations

import pytest

from chunkscope.model import Chunk
from chunkscope.pipeline.assembly import Delivery, assemble
from chunkscope.results import RankedChunk

TEXT = "".join(chr(ord("a") + i % 26) for i in range(100))


def chunk(start: int, end: int, doc: str = "d", prefix: str = "", name: str | None = None) -> Chunk:
    return Chunk(name or f"{doc}[{start},{end})", doc, start, end, TEXT[start:end], prefix=prefix)


A = chunk(0, 40)
B = chunk(30, 70)  # overlaps A on [30,40)
C = chunk(60, 100)  # overlaps B on [60,70)
WHOLE = chunk(0, 100)
E = chunk(0, 25, doc="e")
PREFIXED = chunk(25, 45, doc="e", prefix="Sec > ")  # costs 6 + 20 = 26


def ranked(*chunks: Chunk, parents: tuple[Chunk, ...] | None = None) -> list[RankedChunk]:
    return [
        RankedChunk(rank, c, 10.0 - rank, delivers=None if parents is None else parents[rank - 1])
        for rank, c in enumerate(chunks, start=1)
    ]


def shape(delivery: Delivery) -> list[tuple[int, str, int, int, int, int]]:
    return [(d.rank, d.chunk.doc, d.start, d.end, d.sent_chars, d.duplicate_chars) for d in delivery.delivered]


def test_no_budget_sends_top_k_and_counts_duplicates() -> None:
    delivery = assemble(ranked(A, B, C, E), top_k=3, budget=None, overflow="stop")
    # B re-sends [30,40) of A: 10; C re-sends [60,70) of B: 10. E (rank 4) is beyond top-3.
    assert shape(delivery) == [(1, "d", 0, 40, 40, 0), (2, "d", 30, 70, 40, 10), (3, "d", 60, 100, 40, 10)]
    assert delivery.skipped_ranks == ()
    assert delivery.stop == "top_k"


def test_ranking_shorter_than_top_k_is_exhausted() -> None:
    delivery = assemble(ranked(A, E), top_k=5, budget=None, overflow="stop")
    assert [d.rank for d in delivery.delivered] == [1, 2]
    assert delivery.stop == "exhausted"
    assert assemble([], top_k=5, budget=None, overflow="stop").delivered == ()


def test_duplicates_count_positions_already_sent_by_any_earlier_chunk() -> None:
    delivery = assemble(ranked(A, C, B, WHOLE), top_k=4, budget=None, overflow="stop")
    # A [0,40), C [60,100) disjoint; B [30,70) repeats 30..39 and 60..69 = 20; WHOLE repeats all 100.
    assert [d.duplicate_chars for d in delivery.delivered] == [0, 0, 20, 100]
    # sent 40 + 40 + 40 + 100 = 220; distinct (document, position) pairs = 100, so duplicates = 120.
    assert sum(d.sent_chars for d in delivery.delivered) - 100 == 120


def test_duplicates_are_per_document() -> None:
    other = chunk(0, 40, doc="other")
    delivery = assemble(ranked(A, other), top_k=2, budget=None, overflow="stop")
    assert [d.duplicate_chars for d in delivery.delivered] == [0, 0]


def test_stop_ends_delivery_at_the_first_chunk_that_does_not_fit() -> None:
    delivery = assemble(ranked(A, WHOLE, E), top_k=3, budget=70, overflow="stop")
    # A costs 40 (40 used); WHOLE needs 100 more: stop. E would have fitted but is never tried.
    assert shape(delivery) == [(1, "d", 0, 40, 40, 0)]
    assert delivery.skipped_ranks == (2, 3)
    assert delivery.stop == "budget"


def test_a_chunk_that_exactly_fills_the_budget_fits() -> None:
    delivery = assemble(ranked(A, B), top_k=2, budget=80, overflow="stop")
    assert [d.rank for d in delivery.delivered] == [1, 2]  # 40 + 40 = 80 <= 80
    assert delivery.stop == "top_k"


def test_a_first_chunk_longer_than_the_budget_delivers_nothing_under_stop() -> None:
    delivery = assemble(ranked(WHOLE, A), top_k=2, budget=60, overflow="stop")
    assert delivery.delivered == ()
    assert delivery.skipped_ranks == (1, 2)


def test_skip_passes_over_and_tries_the_next() -> None:
    delivery = assemble(ranked(A, WHOLE, E, C), top_k=4, budget=70, overflow="skip")
    # A 40 (40 used); WHOLE 100 skipped; E 25 (65 used); C 40 -> 105 > 70, skipped.
    assert shape(delivery) == [(1, "d", 0, 40, 40, 0), (3, "e", 0, 25, 25, 0)]
    assert delivery.skipped_ranks == (2, 4)
    assert delivery.stop == "budget"


def test_truncate_cuts_the_chunk_to_the_remaining_budget_and_ends() -> None:
    delivery = assemble(ranked(A, WHOLE, E), top_k=3, budget=70, overflow="truncate")
    # A 40; WHOLE gets the remaining 30 characters [0,30), all already sent by A; E is not tried.
    assert shape(delivery) == [(1, "d", 0, 40, 40, 0), (2, "d", 0, 30, 30, 30)]
    assert delivery.delivered[1].truncated
    assert not delivery.delivered[0].truncated
    assert delivery.skipped_ranks == (3,)
    assert delivery.stop == "budget"


def test_truncate_sends_the_prefix_and_as_much_body_as_fits() -> None:
    delivery = assemble(ranked(A, PREFIXED), top_k=2, budget=50, overflow="truncate")
    # 10 characters left after A: the 6-character prefix plus 4 body characters [25,29).
    assert shape(delivery)[1] == (2, "e", 25, 29, 10, 0)


def test_truncate_sends_nothing_when_not_even_the_prefix_fits() -> None:
    delivery = assemble(ranked(A, PREFIXED, E), top_k=3, budget=45, overflow="truncate")
    # 5 characters left < 6-character prefix: nothing of rank 2, and delivery ends.
    assert [d.rank for d in delivery.delivered] == [1]
    assert delivery.skipped_ranks == (2, 3)


def test_truncate_never_sends_a_prefix_alone() -> None:
    # 6 characters left after A: exactly the 6-character prefix, no body character. By hand: A costs 40,
    # budget 46 leaves 6; 6 - len("Sec > ") = 0 body characters, so rank 2 is skipped and delivery ends.
    delivery = assemble(ranked(A, PREFIXED, E), top_k=3, budget=46, overflow="truncate")
    assert [d.rank for d in delivery.delivered] == [1]
    assert delivery.skipped_ranks == (2, 3)
    assert sum(d.sent_chars for d in delivery.delivered) == 40
    # One more character of budget sends the prefix and one body character [25,26).
    assert shape(assemble(ranked(A, PREFIXED), top_k=2, budget=47, overflow="truncate"))[1] == (2, "e", 25, 26, 7, 0)


def test_prefix_counts_in_the_cost_and_sent_chars_but_not_in_duplicates() -> None:
    delivery = assemble(ranked(PREFIXED, chunk(30, 40, doc="e")), top_k=2, budget=None, overflow="stop")
    # PREFIXED sends 6 + 20 = 26; the second chunk repeats body positions 30..39 of "e": 10.
    assert shape(delivery) == [(1, "e", 25, 45, 26, 0), (2, "e", 30, 40, 10, 10)]
    assert assemble(ranked(PREFIXED), top_k=1, budget=25, overflow="stop").delivered == ()  # 26 > 25


def test_budget_zero_sends_nothing() -> None:
    for overflow in ("stop", "skip", "truncate"):
        delivery = assemble(ranked(A, E), top_k=2, budget=0, overflow=overflow)  # type: ignore[arg-type]
        assert delivery.delivered == ()
        assert delivery.skipped_ranks == (1, 2)


# ------------------------------------------------------------------ parents

PARENT_X = chunk(0, 60, name="X")
PARENT_Y = chunk(60, 100, name="Y")
CHILD_1 = chunk(0, 20, name="X/0")
CHILD_2 = chunk(20, 40, name="X/1")
CHILD_3 = chunk(60, 80, name="Y/0")


def test_a_parent_shared_by_two_hits_is_sent_once_and_costs_nothing_the_second_time() -> None:
    hits = ranked(CHILD_1, CHILD_2, CHILD_3, parents=(PARENT_X, PARENT_X, PARENT_Y))
    delivery = assemble(hits, top_k=3, budget=None, overflow="stop")
    assert [(d.rank, d.chunk.id, d.start, d.end, d.sent_chars) for d in delivery.delivered] == [
        (1, "X", 0, 60, 60),
        (3, "Y", 60, 100, 40),
    ]
    assert delivery.skipped_ranks == ()  # rank 2 was not skipped: its parent was already there
    assert sum(d.duplicate_chars for d in delivery.delivered) == 0


def test_parent_costs_count_against_the_budget() -> None:
    hits = ranked(CHILD_1, CHILD_2, CHILD_3, parents=(PARENT_X, PARENT_X, PARENT_Y))
    delivery = assemble(hits, top_k=3, budget=80, overflow="stop")
    # X costs 60; rank 2 is free; Y needs 40 more: 100 > 80, so delivery stops at rank 3.
    assert [d.chunk.id for d in delivery.delivered] == ["X"]
    assert delivery.skipped_ranks == (3,)
    delivery = assemble(hits, top_k=3, budget=50, overflow="stop")
    # X (60) does not fit: ranks 1 and 2 (same parent) and 3 are all left out.
    assert delivery.delivered == ()
    assert delivery.skipped_ranks == (1, 2, 3)


@pytest.mark.parametrize("overflow", ["stop", "skip", "truncate"])
def test_rank_and_chunk_of_a_delivered_parent(overflow: str) -> None:
    hits = ranked(CHILD_3, parents=(PARENT_Y,))
    (delivered,) = assemble(hits, top_k=1, budget=None, overflow=overflow).delivered  # type: ignore[arg-type]
    assert (delivered.rank, delivered.chunk) == (1, PARENT_Y)
