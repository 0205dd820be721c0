"""The recursive splitter on hand-computed cases, including its overlap rule."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.recursive import RecursiveChunker, recursive_spans
from chunkscope.errors import SpecError
from chunkscope.model import Document


def test_words_merge_up_to_size_and_carry_whole_pieces_as_overlap() -> None:
    text = "aaaa bbbb cccc dddd"
    # pieces (separator " " ends each): "aaaa " 0-5, "bbbb " 5-10, "cccc " 10-15, "dddd" 15-19.
    # size 10: [aaaa bbbb ] -> emit 0-10; drop "aaaa " (10 > overlap 5) keeps "bbbb " (5 <= 5, 5+5 <= 10);
    # [bbbb cccc ] -> emit 5-15; keep "cccc " ; [cccc dddd] (9) -> emit 10-19.
    # Trailing spaces leave the spans: 0-9, 5-14, 10-19.
    assert recursive_spans(text, 10, 5) == [(0, 9), (5, 14), (10, 19)]


def test_without_overlap_chunks_do_not_share_pieces() -> None:
    assert recursive_spans("aaaa bbbb cccc dddd", 10, 0) == [(0, 9), (10, 19)]


def test_overlap_only_carries_pieces_that_fit() -> None:
    # pieces "aaaaa " 0-6, "bb " 6-9, "cc" 9-11; size 8, overlap 3: after emitting 0-6 the
    # 6-character piece exceeds the overlap, so nothing is carried; then "bb cc" 6-11.
    assert recursive_spans("aaaaa bb cc", 8, 3) == [(0, 5), (6, 11)]


def test_paragraphs_first_then_sentences_inside_a_long_paragraph() -> None:
    text = "First para.\n\nSecond para is longer. It has two sentences."
    # "\n\n" pieces: 0-13 (fits 30) and 13-57 (44 > 30, split at ". ": 13-36 and 36-57).
    # The long paragraph's chunks are not merged with the first paragraph.
    assert recursive_spans(text, 30, 0) == [(0, 11), (13, 35), (36, 57)]


def test_japanese_sentence_ends() -> None:
    # "今日は晴れ。" 0-6, "明日は雨。" 6-11: 6 + 5 > 6, so two chunks
    assert recursive_spans("今日は晴れ。明日は雨。", 6, 0) == [(0, 6), (6, 11)]


def test_character_fallback_is_windows_advancing_by_size_minus_overlap() -> None:
    assert recursive_spans("abcdefghij", 4, 2) == [(0, 4), (2, 6), (4, 8), (6, 10)]


def test_line_breaks_and_crlf() -> None:
    text = "line one\r\nline two\r\nline three"
    # no "\n\n": pieces at "\n": 0-10, 10-20, 20-30; size 12 keeps each line alone; "\r\n" is stripped
    assert recursive_spans(text, 12, 0) == [(0, 8), (10, 18), (20, 30)]


def test_chunks_carry_exact_offsets() -> None:
    text = "Alpha beta. Gamma delta! Epsilon?\n\nZeta"
    document = Document("d", text)
    chunks = RecursiveChunker(14, 6).chunk_document(document)
    assert chunks
    for index, chunk in enumerate(chunks):
        assert chunk.id == f"d#{index}"
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.length <= 14


@pytest.mark.parametrize("params", ["size=0", "overlap=-1", "size=10,overlap=10"])
def test_invalid_parameters(params: str) -> None:
    with pytest.raises(SpecError):
        parse_chunker(f"recursive:{params}")


def test_no_chunk_lies_inside_the_previous_one_after_trimming() -> None:
    # "x\n\n" | "aaaa\nbbbb\ncccc\ndddd\neeee\n\n" (27 > 15, split at "\n") | "y".
    # Merging the line pieces with size 15, overlap 5 gives [3,18), [13,28) and, for
    # the trailing "\n" piece, [23,29); trimmed, the last is 'eeee' [23,27), which lies
    # wholly inside 'cccc\ndddd\neeee' [13,27): it must not be emitted.
    text = "x\n\naaaa\nbbbb\ncccc\ndddd\neeee\n\ny"
    spans = recursive_spans(text, 15, 5)
    assert spans == [(0, 1), (3, 17), (13, 27), (29, 30)]
    for (s1, e1), (s2, e2) in itertools.pairwise(spans):
        assert not (s1 <= s2 and e2 <= e1)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab 。.!?\n")), max_size=120),
    size=st.integers(min_value=2, max_value=30),
    data=st.data(),
)
def test_recursive_chunks_never_nest_in_their_predecessor(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(min_value=0, max_value=size - 1))
    spans = recursive_spans(text, size, overlap)
    for (s1, e1), (s2, e2) in itertools.pairwise(spans):
        assert s1 < s2 and e1 < e2
