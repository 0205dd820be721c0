"""Fixed windows and paragraph blocks, checked by hand on small documents."""

from __future__ import annotations

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.base import make_chunk
from chunkscope.chunkers.fixed import FixedChunker, window_spans
from chunkscope.chunkers.paragraph import ParagraphChunker, block_spans, text_lines
from chunkscope.errors import SpecError
from chunkscope.model import Corpus, Document


def spans(chunker: object, text: str) -> list[tuple[int, int]]:
    chunks = chunker.chunk_document(Document("d", text))  # type: ignore[attr-defined]
    for chunk in chunks:
        assert chunk.text == text[chunk.start : chunk.end]
    return [(c.start, c.end) for c in chunks]


# ------------------------------------------------------------------ fixed


@pytest.mark.parametrize(
    ("length", "size", "overlap", "expected"),
    [
        # step 3: starts 0, 3, 6; [6,10) reaches the end, so no [9,10) inside it.
        (10, 4, 1, [(0, 4), (3, 7), (6, 10)]),
        # the last window is short: [6,9).
        (9, 4, 1, [(0, 4), (3, 7), (6, 9)]),
        # step 2: [0,4) [2,6) [4,8); [4,8) reaches 8 = the end.
        (8, 4, 2, [(0, 4), (2, 6), (4, 8)]),
        (8, 4, 0, [(0, 4), (4, 8)]),
        (9, 4, 0, [(0, 4), (4, 8), (8, 9)]),
        (3, 4, 1, [(0, 3)]),  # shorter than one window
        (4, 4, 3, [(0, 4)]),  # exactly one window: nothing trails inside it
        (5, 4, 3, [(0, 4), (1, 5)]),
        (0, 4, 1, []),
        (1, 1, 0, [(0, 1)]),
    ],
)
def test_fixed_windows_by_hand(length: int, size: int, overlap: int, expected: list[tuple[int, int]]) -> None:
    assert window_spans(length, size, overlap) == expected
    assert spans(FixedChunker(size, overlap), "x" * length) == expected


def test_window_spans_shift_by_offset() -> None:
    assert window_spans(5, 3, 1, offset=100) == [(100, 103), (102, 105)]


def test_fixed_chunks_carry_ids_and_text_of_cjk_and_crlf() -> None:
    text = "寒帯ジェット気流\r\nです"  # 8 + 2 + 2 = 12 characters
    chunks = FixedChunker(5, 0).chunk_document(Document("ja", text))
    assert [c.id for c in chunks] == ["ja#0", "ja#1", "ja#2"]
    assert [c.text for c in chunks] == ["寒帯ジェッ", "ト気流\r\n", "です"]
    assert all(c.doc == "ja" and c.prefix == "" for c in chunks)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fixed:size=10,overlap=10", r"overlap \(10\) must be smaller than size \(10\)"),
        ("fixed:size=10,overlap=11", "must be smaller than size"),
        ("fixed:size=0", "size must be at least 1"),
        ("fixed:size=10,overlap=-1", "must not be negative"),
    ],
)
def test_fixed_rejects_bad_parameters(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_chunker(spec)


def test_fixed_defaults() -> None:
    assert parse_chunker("fixed") == FixedChunker(400, 0)


# ------------------------------------------------------------------ paragraph


def test_text_lines_split_at_newline_only_and_keep_terminators() -> None:
    assert text_lines("a\r\nb\n\nc") == ["a\r\n", "b\n", "\n", "c"]
    assert text_lines("a\n") == ["a\n"]
    assert text_lines("") == []


def test_paragraph_blocks_by_hand() -> None:
    text = "Title\n\nFirst line\nsecond line\n\n\nLast"
    # "Title" [0,5); blank line at 6; "First line\nsecond line" [7,29); blanks at 30, 31; "Last" [32,36).
    assert block_spans(text) == [(0, 5), (7, 29), (32, 36)]
    assert [text[s:e] for s, e in block_spans(text)] == ["Title", "First line\nsecond line", "Last"]


def test_paragraph_blocks_with_crlf_and_whitespace_only_lines() -> None:
    text = "  indented\r\nnext\r\n \t \r\n\u3000\r\nafter\r\n"
    # Line 1 "  indented\r\n" [0,12), line 2 "next\r\n" [12,18): block [0,16) ends before "\r\n".
    # " \t \r\n" and the ideographic-space line are blank. "after" starts at 18 + 5 + 3 = 26.
    assert block_spans(text) == [(0, 16), (26, 31)]
    assert [text[s:e] for s, e in block_spans(text)] == ["  indented\r\nnext", "after"]


def test_paragraph_blocks_of_blank_or_empty_text() -> None:
    assert block_spans("") == []
    assert block_spans("\n \n\r\n") == []
    assert block_spans("one") == [(0, 3)]


def test_paragraph_chunker_prefers_recorded_paragraphs() -> None:
    document = Document("d", "AAAABBBCC\n\nDD", paragraphs=((0, 4), (4, 7), (7, 7), (7, 13)))
    chunks = ParagraphChunker().chunk_document(document)
    assert [(c.start, c.end) for c in chunks] == [(0, 4), (4, 7), (7, 13)]  # the empty span is dropped
    assert [c.id for c in chunks] == ["d#0", "d#1", "d#3"]


def test_paragraph_chunker_without_recorded_paragraphs_uses_blocks() -> None:
    assert spans(ParagraphChunker(), "a\n\nb\nc\n") == [(0, 1), (3, 6)]


def test_chunk_corpus_keeps_document_order() -> None:
    corpus = Corpus((Document("b", "xx\n\ny"), Document("a", "zz")))
    chunking = chunk_corpus(parse_chunker("paragraph"), corpus)
    assert [c.id for c in chunking.units] == ["b#0", "b#1", "a#0"]
    assert chunking.parents is None
    assert chunking.delivered_units == chunking.units


def test_make_chunk_cuts_text_from_the_document() -> None:
    chunk = make_chunk(Document("d", "hello world"), 3, 6, 11)
    assert (chunk.id, chunk.doc, chunk.start, chunk.end, chunk.text) == ("d#3", "d", 6, 11, "world")
