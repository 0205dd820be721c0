"""The chunk-text locator against a brute-force oracle: every placement of every piece is tried."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers.library_offsets import Collapsed, LocateError, locate_joined, locate_texts


def occurrences(text: str, piece: str) -> list[int]:
    return [i for i in range(len(text) - len(piece) + 1) if text[i : i + len(piece)] == piece]


def allowed(text: str, pieces: list[str], starts: tuple[int, ...], max_overlap: int | None, gap: str | None) -> bool:
    """The module's three rules, checked literally on one complete placement."""
    spans = [(s, s + len(p)) for s, p in zip(starts, pieces, strict=True)]
    for (a_start, a_end), (b_start, b_end) in itertools.pairwise(spans):
        if not (b_start > a_start or (b_start == a_start and b_end >= a_end)):
            return False
        shared = min(a_end, b_end) - b_start
        if max_overlap is not None and shared > max_overlap:
            return False
        if gap is not None and b_start > a_end and not re.fullmatch(gap, text[a_end:b_start], re.DOTALL):
            return False
    if gap is not None:
        if not re.fullmatch(gap, text[: spans[0][0]], re.DOTALL):
            return False
        if not re.fullmatch(gap, text[spans[-1][1] :], re.DOTALL):
            return False
    return True


def brute_force(text: str, pieces: list[str], max_overlap: int | None, gap: str | None) -> list[tuple[int, ...]]:
    choices = [occurrences(text, piece) for piece in pieces]
    return [starts for starts in itertools.product(*choices) if allowed(text, pieces, starts, max_overlap, gap)]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[str], int | None, str | None]:
    text = draw(st.text(alphabet="ab \n", min_size=1, max_size=14))
    count = draw(st.integers(1, 4))
    pieces = []
    for _ in range(count):
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, min(len(text), start + 6)))
        pieces.append(text[start:end])
    max_overlap = draw(st.one_of(st.none(), st.integers(0, 4)))
    gap = draw(st.sampled_from([None, r"\s*", ""]))
    return text, pieces, max_overlap, gap


@settings(max_examples=600, deadline=None)
@given(cases())
def test_placement_is_the_only_one_the_rules_allow(case: tuple[str, list[str], int | None, str | None]) -> None:
    text, pieces, max_overlap, gap = case
    placements = brute_force(text, pieces, max_overlap, gap)
    if len(placements) == 1:
        spans = locate_texts(text, pieces, "test", "doc", max_overlap, gap)
        assert [start for start, _ in spans] == list(placements[0])
        assert all(text[start:end] == piece for (start, end), piece in zip(spans, pieces, strict=True))
        return
    with pytest.raises(LocateError) as caught:
        locate_texts(text, pieces, "test", "doc", max_overlap, gap)
    assert ("ambiguous" in str(caught.value)) == (len(placements) > 1)


def test_repeated_passages_go_to_successive_copies() -> None:
    passage = "Returns are free within 30 days."
    text = "\n\n".join([passage, "Shipping takes two days.", passage, "Gift cards cannot be returned.", passage])
    pieces = [passage, "Shipping takes two days.", passage, "Gift cards cannot be returned.", passage]
    spans = locate_texts(text, pieces, "test", "doc", gap=r"\s*")
    copies = [m.start() for m in re.finditer(re.escape(passage), text)]
    assert [spans[0][0], spans[2][0], spans[4][0]] == copies
    # Without the covering rule the order alone still fixes them: each copy must follow the one before.
    assert locate_texts(text, pieces, "test", "doc") == spans


def test_a_lone_repeated_text_is_ambiguous_and_named() -> None:
    with pytest.raises(
        LocateError, match=r"test: chunk 0 of document 'doc' \('A B'\) fits at offset 0 and at offset 4"
    ):
        locate_texts("A B A B", ["A B"], "test", "doc")


def test_missing_and_misordered_texts_are_named() -> None:
    with pytest.raises(LocateError, match=r"chunk 1 of document 'doc' \('zebra'\) is not in the document"):
        locate_texts("alpha beta", ["alpha", "zebra"], "test", "doc")
    with pytest.raises(LocateError, match=r"chunk 1 .*'alpha'.* has no place after chunk 0"):
        locate_texts("alpha beta", ["beta", "alpha"], "test", "doc")
    with pytest.raises(LocateError, match=r"chunk 0 .* is empty"):
        locate_texts("alpha", [""], "test", "doc")
    with pytest.raises(LocateError, match="after the last chunk"):
        locate_texts("alpha beta", ["alpha"], "test", "doc", gap=r"\s*")


def test_the_same_text_twice_at_one_place_is_allowed() -> None:
    # A splitter that carries a whole stripped chunk over as overlap returns it again.
    assert locate_texts(
        "x https://a.b y", ["x https://a.b", "https://a.b", "https://a.b", "https://a.b y"], "t", "d"
    ) == [
        (0, 13),
        (2, 13),
        (2, 13),
        (2, 15),
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab-\n", max_size=30), st.sampled_from(["-", "\n", "ab"]))
def test_collapsed_text_maps_back_to_the_runs_it_replaced(text: str, separator: str) -> None:
    pattern = re.escape(separator)
    collapsed = Collapsed(text, pattern, separator)
    assert collapsed.text == re.sub(f"(?:{pattern})+", lambda _: separator, text)
    # Every character of the collapsed text maps to the original character, or to its whole run.
    runs = [(m.start(), m.end()) for m in re.finditer(f"(?:{pattern})+", text)]
    position = 0
    for index, char in enumerate(collapsed.text):
        start, end = collapsed.original(index, index + 1)
        run = next(((a, b) for a, b in runs if a == start), None)
        if run is not None and text[start:end] != char:
            assert (start, end) == run
        else:
            assert text[start:end] == char
        assert start >= position
        position = start


def test_glued_chunks_take_the_document_text_they_came_from() -> None:
    text = "one\n\n\n\ntwo\n\nthree"
    # A splitter that cut at "\n\n" and glued with one "\n\n" returns "one\n\ntwo".
    spans = locate_joined(text, ["one\n\ntwo", "three"], "t", "d", re.escape("\n\n"), "\n\n", gap=r"(?:\s|\n\n)*")
    assert [text[s:e] for s, e in spans] == ["one\n\n\n\ntwo", "three"]
