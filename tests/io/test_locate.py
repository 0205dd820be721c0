"""The locator: texts without trustworthy offsets placed by their order, checked against brute force."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.io.locate import OccurrenceIndex, Piece, Placement, occurrences, place_in_order, place_one


def brute_force(text: str, pieces: list[Piece]) -> list[Placement]:
    """Every assignment of pieces to occurrences, filtered by the order rules, best by kept offsets."""
    options: list[list[int]] = []
    for piece in pieces:
        if piece.fixed:
            options.append([piece.claimed])  # type: ignore[list-item]
        else:
            options.append([i for i in range(len(text)) if text[i : i + len(piece.text)] == piece.text])
    present = [i for i, found in enumerate(options) if found]
    consistent = []
    for choice in itertools.product(*(options[i] for i in present)):
        spans = [(start, start + len(pieces[i].text)) for i, start in zip(present, choice, strict=True)]
        if all(a[0] < b[0] and a[1] < b[1] for a, b in itertools.pairwise(spans)):
            consistent.append(dict(zip(present, choice, strict=True)))
    if not consistent:
        return [alone(text, piece, found) for piece, found in zip(pieces, options, strict=True)]

    def kept(assignment: dict[int, int]) -> int:
        return sum(1 for i, start in assignment.items() if start == pieces[i].claimed)

    best = max(kept(a) for a in consistent)
    optimal = [a for a in consistent if kept(a) == best]
    result = []
    for i, piece in enumerate(pieces):
        if i not in present:
            result.append(Placement("not_found"))
            continue
        starts = sorted({a[i] for a in optimal})
        if len(starts) > 1:
            result.append(Placement("ambiguous", candidates=tuple(starts)))
        else:
            result.append(Placement("exact" if starts[0] == piece.claimed else "relocated", starts[0]))
    return result


def alone(text: str, piece: Piece, found: list[int]) -> Placement:
    if piece.claimed is not None and piece.claimed in found:
        return Placement("exact", piece.claimed)
    if len(found) == 1:
        return Placement("relocated", found[0])
    return Placement("ambiguous", candidates=tuple(found)) if found else Placement("not_found")


def test_order_rules_by_hand() -> None:
    text = "xx ab ab yy"  # "ab" at 3 and 6
    assert place_in_order(text, [Piece("xx"), Piece("ab"), Piece("ab"), Piece("yy")]).placements == (
        Placement("relocated", 0),
        Placement("relocated", 3),
        Placement("relocated", 6),
        Placement("relocated", 9),
    )
    # one "ab" between "xx" and "yy": it could be either; never guessed
    assert place_in_order(text, [Piece("xx"), Piece("ab"), Piece("yy")]).placements[1] == Placement(
        "ambiguous", candidates=(3, 6)
    )
    # the given offset settles it, and a wrong one does not
    assert place_in_order(text, [Piece("xx"), Piece("ab", 6), Piece("yy")]).placements[1] == Placement("exact", 6)
    assert place_in_order(text, [Piece("xx"), Piece("ab", 5), Piece("yy")]).placements[1].status == "ambiguous"


def test_a_first_occurrence_offset_is_corrected_by_the_order() -> None:
    # a tool that sets every offset to the first occurrence: the second "T" claims 0 but must follow "x"
    text = "T x T y"
    pieces = [Piece("T", 0), Piece("x", 2), Piece("T", 0), Piece("y", 6)]
    assert place_in_order(text, pieces).placements == (
        Placement("exact", 0),
        Placement("exact", 2),
        Placement("relocated", 4),
        Placement("exact", 6),
    )


def test_a_chunk_never_lands_inside_its_predecessor() -> None:
    # the old rule searched from the previous chunk's start and put "cat." inside "the cat. the dog"
    text = "the cat. the dog. the cat."
    pieces = [Piece("the cat. the dog."), Piece("the cat.")]
    assert place_in_order(text, pieces).placements[1] == Placement("relocated", 18)


def test_unordered_pieces_are_placed_alone() -> None:
    text = "aaa bbb aaa"
    pieces = [Piece("bbb", 4, fixed=True), Piece("aaa", 0, fixed=True), Piece("aaa"), Piece("bbb")]
    placed = place_in_order(text, pieces)
    assert placed.order_break == (1, 0)
    assert placed.placements == (
        Placement("exact", 4),
        Placement("exact", 0),
        Placement("ambiguous", candidates=(0, 8)),
        Placement("relocated", 4),
    )


def test_place_one() -> None:
    assert place_one("abab", "ab", 2) == Placement("exact", 2)
    assert place_one("abab", "ab", -1) == Placement("ambiguous", candidates=(0, 2))
    assert place_one("abab", "ba") == Placement("relocated", 1)
    assert place_one("abab", "c") == Placement("not_found")
    assert occurrences("aaaa", "aa") == [0, 1, 2]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_matches_brute_force(data: st.DataObject) -> None:
    text = data.draw(st.text(alphabet="ab", min_size=1, max_size=12))
    count = data.draw(st.integers(1, 4))
    pieces = []
    for _ in range(count):
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, min(len(text), start + 4)))
        body = (
            text[start:end] if data.draw(st.booleans()) else data.draw(st.text(alphabet="abc", min_size=1, max_size=3))
        )
        claim = data.draw(st.one_of(st.none(), st.just(start), st.integers(-1, len(text))))
        fixed = data.draw(st.booleans()) and body == text[start:end]
        pieces.append(Piece(body, start if fixed else claim, fixed))
    assert list(place_in_order(text, pieces).placements) == brute_force(text, pieces)


@pytest.mark.parametrize("seed", range(5))
def test_chunks_of_a_text_with_repeated_passages_are_placed_exactly(seed: int) -> None:
    rng = random.Random(seed)
    passages = ["Refunds take 5 days. ", "Contact support. ", "See the table below. "]
    text = "".join(rng.choice(passages) + f"Item {i}. " for i in range(40))
    spans = []
    start = 0
    while start < len(text):
        end = min(len(text), start + rng.randint(8, 30))
        spans.append((start, end))
        start = end - rng.randint(0, 5) if end < len(text) else end
    pieces = [Piece(text[s:e]) for s, e in spans]
    placed = place_in_order(text, pieces).placements
    assert [(p.status, p.start) for p in placed] == [("relocated", s) for s, _ in spans]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab", max_size=80), st.data(), st.integers(1, 5), st.integers(1, 5))
def test_the_occurrence_index_finds_what_a_scan_finds(text: str, data: st.DataObject, stride: int, gram: int) -> None:
    index = OccurrenceIndex(text, stride=stride, gram=gram)
    for _ in range(5):
        if text and data.draw(st.booleans()):
            start = data.draw(st.integers(0, len(text) - 1))
            needle = text[start : start + data.draw(st.integers(1, 20))]
        else:
            needle = data.draw(st.text(alphabet="ab", min_size=1, max_size=20))
        brute = [i for i in range(len(text)) if text.startswith(needle, i)]
        assert index.find_all(needle) == brute == occurrences(text, needle)


def test_a_long_document_is_placed_through_the_index() -> None:
    rng = random.Random(1)
    text = " ".join(rng.choice(["refund", "order", "the", "返品", "配送"]) for _ in range(20_000))
    spans = [(start, min(len(text), start + 40)) for start in range(0, len(text), 30)]
    placed = place_in_order(text, [Piece(text[s:e]) for s, e in spans]).placements
    assert [p.start for p in placed] == [s for s, _ in spans]
