"""The locator: texts without trustworthy offsets placed by their order, checked against brute force."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.io.locate import GramIndex, Piece, Placement, occurrences, place_in_order, place_one


def brute_force(text: str, pieces: list[Piece]) -> list[Placement]:
    """Every assignment of pieces to occurrences, filtered by the order rules (starts and ends never decrease, and
    no span twice in a row), best by the characters covered by at least one piece, then by kept offsets."""
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
        if all(a[0] <= b[0] and a[1] <= b[1] and a != b for a, b in itertools.pairwise(spans)):
            consistent.append(dict(zip(present, choice, strict=True)))
    if not consistent:
        return [alone(text, piece, found) for piece, found in zip(pieces, options, strict=True)]

    def score(assignment: dict[int, int]) -> tuple[int, int]:
        kept = sum(1 for i, start in assignment.items() if start == pieces[i].claimed)
        covered = {c for i, start in assignment.items() for c in range(start, start + len(pieces[i].text))}
        return len(covered), kept

    best = max(score(a) for a in consistent)
    optimal = [a for a in consistent if score(a) == best]
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


def test_a_long_document_is_placed_in_order() -> None:
    rng = random.Random(1)
    text = " ".join(rng.choice(["refund", "order", "the", "返品", "配送"]) for _ in range(20_000))
    spans = [(start, min(len(text), start + 40)) for start in range(0, len(text), 30)]
    placed = place_in_order(text, [Piece(text[s:e]) for s, e in spans]).placements
    assert [p.start for p in placed] == [s for s, _ in spans]


def test_a_chunk_may_end_where_its_predecessor_ends() -> None:
    # "ab" (0), its suffix "b" (1, ending with it, as LangChain emits), then "ab" (3). The old rule (ends
    # strictly increase) found no placement and placed each alone: all three ambiguous.
    text = "ab ab"
    placed = place_in_order(text, [Piece("ab"), Piece("b"), Piece("ab")])
    assert placed.order_break is None
    assert placed.placements == (Placement("relocated", 0), Placement("relocated", 1), Placement("relocated", 3))


def test_a_chunk_may_start_where_its_predecessor_starts() -> None:
    # "ab ab" (0), its suffix "ab" (3, equal ends), then "ab cd" extending it from the same start (3, equal starts:
    # LangChain emits both). The old rule found no placement: the middle "ab" had nowhere to go.
    text = "ab ab cd"
    placed = place_in_order(text, [Piece("ab ab"), Piece("ab"), Piece("ab cd")])
    assert placed.order_break is None
    assert placed.placements == (Placement("relocated", 0), Placement("relocated", 3), Placement("relocated", 3))
    # the same span twice in a row is still out of order: a dump listing a chunk twice
    assert place_in_order("ab", [Piece("ab"), Piece("ab")]).order_break == (1, 0)


def test_a_kept_offset_that_leaves_text_uncovered_loses_to_a_placement_that_covers_it() -> None:
    # "ha ha" stands at 3 and 6; the tool's offset says 3 (an earlier copy: both satisfy the order), but there
    # it leaves "ha " (8..11) outside every chunk, while at 6 the three chunks cover the whole text
    text = "so ha ha ha ok"
    pieces = [Piece("so ha h", 0), Piece("ha ha", 3), Piece(" ok", 11)]
    assert place_in_order(text, pieces).placements == (
        Placement("exact", 0),
        Placement("relocated", 6),
        Placement("exact", 11),
    )
    assert brute_force(text, pieces) == list(place_in_order(text, pieces).placements)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_splitter_like_chunks_match_brute_force(data: st.DataObject) -> None:
    # chunks cut front to back with overlaps (suffix chunks ending with their predecessor included), over a
    # text of few letters so that they repeat; offsets given, missing, or pointing at another copy
    text = data.draw(st.text(alphabet="ab ", min_size=2, max_size=14))
    pieces = []
    start = 0
    while start < len(text) and len(pieces) < 5:
        end = data.draw(st.integers(start + 1, min(len(text), start + 5)))
        body = text[start:end]
        claim = data.draw(st.one_of(st.none(), st.just(start), st.sampled_from(occurrences(text, body))))
        pieces.append(Piece(body, claim))
        start = data.draw(st.integers(start + 1, end))
    assert list(place_in_order(text, pieces).placements) == brute_force(text, pieces)


def boilerplate_document(repeats: int) -> tuple[str, list[Piece], list[int]]:
    """A long document in which a boilerplate line follows every paragraph, its chunks and their true starts."""
    notice = "Terms and conditions apply; see the notice.\n"
    pieces, starts, parts = [], [], []
    position = 0
    for number in range(repeats):
        paragraph = f"Paragraph {number} says something of its own.\n"
        for part in (paragraph, notice):
            pieces.append(Piece(part))
            starts.append(position)
            parts.append(part)
            position += len(part)
    return "".join(parts), pieces, starts


def test_repeated_boilerplate_is_placed_without_listing_every_occurrence() -> None:
    # 1,000 copies of a notice, each a chunk: listing every occurrence for every chunk holds 1,000,000 starts
    # (the old code peaked at about 100 MB here, and a 155 KB dump over a 300 KB document at 7.7 GB)
    import tracemalloc

    text, pieces, starts = boilerplate_document(1_000)
    tracemalloc.start()
    try:
        placed = place_in_order(text, pieces)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [p.start for p in placed.placements] == starts
    assert peak < 10 * len(text) + 1_000_000, f"peak {peak} bytes for a {len(text)}-character document"


def test_runs_past_the_budget_are_left_out_unweighed() -> None:
    # the same notice many times in a row, listed fewer times: every copy is a possible start for each chunk.
    # Weighed, they are ambiguous; with no budget they are left out unweighed, listing the first starts.
    notice = "see the notice. "
    text = "head " + notice * 50 + "tail"
    pieces = [Piece("head ")] + [Piece(notice) for _ in range(10)] + [Piece("tail")]
    weighed = place_in_order(text, pieces)
    assert weighed.unweighed == 0
    assert all(p.status == "ambiguous" for p in weighed.placements[1:-1])
    unweighed = place_in_order(text, pieces, budget=0)
    assert unweighed.unweighed == 10
    assert unweighed.placements[0] == Placement("relocated", 0)
    assert unweighed.placements[-1] == Placement("relocated", len(text) - 4)
    first = unweighed.placements[1]
    assert first.status == "ambiguous" and first.candidates[:2] == (5, 5 + len(notice))


def test_the_imported_chunker_warns_of_chunks_left_out_unweighed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkscope.chunkers.imported import read_chunks
    from chunkscope.io import locate
    from chunkscope.model import Corpus, Document

    monkeypatch.setattr(locate, "WEIGH_BUDGET_FACTOR", 0)
    monkeypatch.setattr(locate, "WEIGH_BUDGET_FLOOR", 0)
    notice = "see the notice. "
    texts = ["head ", notice, notice, "tail"]
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps({"id": str(i), "doc": "d", "text": t}) + "\n" for i, t in enumerate(texts)))
    chunking = read_chunks(str(dump), Corpus((Document("d", "head " + notice * 5 + "tail"),)))
    assert chunking.imported is not None and chunking.imported.ambiguous == 2
    assert f"{dump}: 2 chunks of 'd' each fit at many places in long runs of repeated text" in chunking.problems[0]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab", max_size=80), st.data(), st.integers(1, 5), st.integers(1, 5))
def test_the_gram_index_finds_what_a_scan_finds(text: str, data: st.DataObject, stride: int, gram: int) -> None:
    index = GramIndex(text, stride=stride, gram=gram)
    for _ in range(5):
        size = data.draw(st.integers(index.min_length, index.min_length + 10))
        if len(text) >= size and data.draw(st.booleans()):
            start = data.draw(st.integers(0, len(text) - size))
            needle = text[start : start + size]
        else:
            needle = data.draw(st.text(alphabet="ab", min_size=size, max_size=size))
        assert index.occurs(needle) == any(text.startswith(needle, i) for i in range(len(text)))


def test_texts_missing_from_a_long_document_are_found_missing_through_the_index() -> None:
    # a dump of another document's chunks: each miss used to scan the whole text; past a few, the index answers
    rng = random.Random(3)
    text = "".join(rng.choice("abcdefgh ") for _ in range(200_000))
    missing = [Piece("".join(rng.choice("xyz") for _ in range(40))) for _ in range(200)]
    present = Piece(text[1000:1050])
    placed = place_in_order(text, [*missing, present, *missing[:5]])
    assert placed.placements[len(missing)] == Placement("relocated", 1000)
    assert all(p.status == "not_found" for i, p in enumerate(placed.placements) if i != len(missing))
