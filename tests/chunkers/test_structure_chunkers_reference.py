"""The markdown, recursive and parent-child chunkers against their documented definitions.

None of the oracles here follows the implementation's steps:

- markdown: documents are built block by block with their structure recorded (markdown_oracle),
  and the grouping is the unique one satisfying the definition, found among all candidate groups;
- recursive: the README's four rules, with pieces from ``str.split`` and each chunk found as the
  longest run of pieces that fits, its successor as the first start the overlap rule allows;
- parent-child: each parent's body chunked as a document of its own, with fixed windows by
  arithmetic and paragraphs as runs of non-blank lines.

Hand-worked examples pin the grammar corners the generator does not produce.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_oracle import Built, built_documents, built_from, expected_markdown, read_blocks, text_lines

from chunkscope.chunkers import chunk_corpus
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.paragraph import ParagraphChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Corpus, Document

# --- markdown ------------------------------------------------------------------------------------


def spans(chunks: list[Chunk]) -> list[tuple[int, int, str, str | None]]:
    return [(c.start, c.end, c.prefix, c.section) for c in chunks]


def markdown(text: str, max_chars: int = 1500, levels: int = 3, prefix: str | None = None) -> list[Chunk]:
    return MarkdownChunker(max_chars, levels, prefix).chunk_document(Document("d", text))


@settings(max_examples=300, deadline=None)
@given(built_documents())
def test_reader_reads_built_documents(built: Built) -> None:
    # The reader serves documents with no recorded structure; here it must find what was built.
    assert read_blocks(built.text) == built.blocks


@settings(max_examples=500, deadline=None)
@given(built_documents(), st.integers(1, 80), st.integers(1, 6), st.sampled_from([None, "path"]))
def test_markdown_matches_definition_on_built_documents(
    built: Built, max_chars: int, levels: int, prefix: str | None
) -> None:
    assert markdown(built.text, max_chars, levels, prefix) == expected_markdown(built, max_chars, levels, prefix)


PARAMETERS = [(1500, 3, None), (1500, 6, "path"), (200, 2, "path"), (60, 1, None), (17, 3, "path"), (5, 4, None)]


@pytest.mark.parametrize(("max_chars", "levels", "prefix"), PARAMETERS)
def test_markdown_matches_definition_on_sample_data(
    sample: Dataset, max_chars: int, levels: int, prefix: str | None
) -> None:
    for document in sample.corpus.documents:
        built = Built(document.text, read_blocks(document.text))
        expected = expected_markdown(built, max_chars, levels, prefix, doc=document.id)
        assert MarkdownChunker(max_chars, levels, prefix).chunk_document(document) == expected, document.id


@pytest.mark.jsquad
def test_markdown_matches_definition_on_jsquad(jsquad: Dataset) -> None:
    for max_chars, levels, prefix in ((1500, 3, None), (300, 3, "path")):
        chunker = MarkdownChunker(max_chars, levels, prefix)
        for document in jsquad.corpus.documents:
            built = Built(document.text, read_blocks(document.text))
            assert chunker.chunk_document(document) == expected_markdown(
                built, max_chars, levels, prefix, doc=document.id
            ), document.id


def test_hand_built_document_gives_the_hand_computed_chunks() -> None:
    built = built_from(
        ("heading", ["# Fees"], 1, "Fees"),
        "",
        ("paragraph", ["aaaa bbbb", "cccc"]),
        "",
        ("table", ["| k | v |", "|---|---|", "| 1 | a |", "| 2 | b |"]),
    )
    # "# Fees" 0-6 | "aaaa bbbb\ncccc" 8-22 | header 24-33, delimiter 34-43, rows 44-53, 54-63.
    # max_chars 22: heading + paragraph span 0-22 (22) fits; the table (39) is split between rows:
    # 24-43 (header and delimiter), then 44-63 (both rows, 19) with the header rows as prefix.
    header = "| k | v |\n|---|---|\n"
    expected = [(0, 22, "", "Fees"), (24, 43, "", "Fees"), (44, 63, header, "Fees")]
    assert spans(expected_markdown(built, 22, 3, None)) == expected
    assert spans(markdown(built.text, 22)) == expected


def test_unclosed_fence_runs_to_the_end_less_its_trailing_blank_lines() -> None:
    text = "intro\n\n```\ncode\n# not a heading\n\n  \n"
    # "intro" 0-5 | fence 7-30 ("```" 7-10, "code" 11-15, "# not a heading" 16-31): no section starts.
    assert spans(markdown(text, 20)) == [(0, 5, "", None), (7, 15, "", None), (16, 31, "", None)]
    assert spans(markdown(text)) == [(0, 31, "", None)]


def test_backtick_info_string_with_a_backtick_opens_no_fence() -> None:
    text = "``` `x`\n# Real\nbody"
    # "``` `x`" is paragraph text, so "# Real" is a heading that starts a section at 8.
    assert spans(markdown(text)) == [(0, 7, "", None), (8, 19, "", "Real")]


def test_only_a_long_enough_run_of_the_same_character_closes_a_fence() -> None:
    text = "````\n```\n~~~~\n`````  \n# After"
    # "```" (3 < 4) and "~~~~" (other character) stay inside; "`````  " closes at 21.
    assert spans(markdown(text)) == [(0, 21, "", None), (22, 29, "", "After")]


def test_rows_without_a_delimiter_row_are_a_paragraph_cut_into_windows() -> None:
    # As a table "| a |\n| b |" would split between rows (0-5, 6-11); as a paragraph it is windows of 6.
    assert spans(markdown("| a |\n| b |", 6)) == [(0, 6, "", None), (6, 11, "", None)]
    assert spans(markdown("| a |\n|---|\n| b |", 6)) == [
        (0, 5, "", None),
        (6, 11, "", None),
        (12, 17, "| a |\n|---|\n", None),
    ]


def test_a_row_without_a_pipe_ends_the_table() -> None:
    text = "| a |\n|---|\n| b |\nplain line"
    # table 0-17, paragraph 18-28; max_chars 17: the table fits alone, the paragraph does not join it.
    assert spans(markdown(text, 17)) == [(0, 17, "", None), (18, 28, "", None)]


def test_a_long_row_becomes_windows_and_keeps_the_header_prefix() -> None:
    text = "|h|\n|-|\n|0123456789|"
    # header 0-3, delimiter 4-7, row 8-20 (12 > 8): windows 8-16, 16-20 after the header group 0-7.
    header = "|h|\n|-|\n"
    assert spans(markdown(text, 8)) == [(0, 7, "", None), (8, 16, header, None), (16, 20, header, None)]


def test_a_group_that_exactly_fills_max_chars_is_kept_whole() -> None:
    text = "aaaa\n\nbbbb\n\ncc"
    # "aaaa" 0-4, "bbbb" 6-10, "cc" 12-14. "aaaa\n\nbbbb" is 10 characters: with max_chars 10 it is
    # one chunk; with 9 it is not, and "bbbb\n\ncc" (8) is grouped instead.
    assert [(c.start, c.end) for c in markdown(text, 10)] == [(0, 10), (12, 14)]
    assert [(c.start, c.end) for c in markdown(text, 9)] == [(0, 4), (6, 14)]


def test_heading_longer_than_max_chars_is_cut_into_windows() -> None:
    assert spans(markdown("# abcdefgh\nxy", 4)) == [
        (0, 4, "", "abcdefgh"),
        (4, 8, "", "abcdefgh"),
        (8, 10, "", "abcdefgh"),
        (11, 13, "", "abcdefgh"),
    ]


def test_closing_hashes_and_deeper_headings_in_the_path() -> None:
    text = "# A #\n### C ###\n## B\n#### D\nx"
    # "### C" sits under A (no level 2 yet); "## B" replaces it; "#### D" is below levels=3: text.
    assert [c.section for c in markdown(text, 1500, 3, "path")] == ["A", "A > C", "A > B"]
    assert [c.prefix for c in markdown(text, 1500, 3, "path")] == ["A\n", "A > C\n", "A > B\n"]


# --- recursive -----------------------------------------------------------------------------------

SEPARATORS = ("\n\n", "\n", "。", ". ", "! ", "? ", " ")
"""The README's separators in order of priority; after them, single characters."""


def pieces_of(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """``text[start:end]`` cut after every ``separator``: the separator ends the piece before it."""
    parts = text[start:end].split(separator)
    lengths = [len(part) + len(separator) for part in parts[:-1]] + [len(parts[-1])]
    result, position = [], start
    for length in lengths:
        if length:
            result.append((position, position + length))
        position += length
    return result


def merged(pieces: list[tuple[int, int]], size: int, overlap: int) -> list[tuple[int, int]]:
    """Rule 2: each chunk is the longest run of pieces from its start that fits ``size``; the next
    starts at the first piece from which the carried rest is at most ``overlap`` and leaves room."""

    def total(first: int, last: int) -> int:
        return sum(end - start for start, end in pieces[first : last + 1])

    chunks: list[tuple[int, int]] = []
    first = 0
    while first < len(pieces):
        last = max(k for k in range(first, len(pieces)) if total(first, k) <= size)
        chunks.append((pieces[first][0], pieces[last][1]))
        if last == len(pieces) - 1:
            break
        first = min(k for k in range(first + 1, last + 2) if total(k, last) <= overlap and total(k, last + 1) <= size)
    return chunks


def untrimmed(text: str, start: int, end: int, level: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Rules 1-3 on ``text[start:end]`` with the separators from ``level`` on."""
    found = [i for i in range(level, len(SEPARATORS)) if SEPARATORS[i] in text[start:end]]
    if not found:  # single characters: windows of size advancing by size - overlap, up to the end
        result = []
        for window_start in range(start, end, size - overlap):
            result.append((window_start, min(window_start + size, end)))
            if window_start + size >= end:
                break
        return result
    level = found[0]
    chunks: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for piece in pieces_of(text, start, end, SEPARATORS[level]):
        if piece[1] - piece[0] <= size:
            run.append(piece)
            continue
        chunks += merged(run, size, overlap) if run else []
        run = []
        chunks += untrimmed(text, piece[0], piece[1], level + 1, size, overlap)
    return chunks + (merged(run, size, overlap) if run else [])


def expected_recursive(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Rule 4 on top: whitespace trimmed off, blank chunks dropped, chunks inside another dropped."""
    trimmed = []
    for start, end in untrimmed(text, 0, len(text), 0, size, overlap):
        body = text[start:end]
        if body.strip():
            trimmed.append((start + len(body) - len(body.lstrip()), end - len(body) + len(body.rstrip())))
    distinct = list(dict.fromkeys(trimmed))
    return [s for s in distinct if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in distinct)]


def recursive(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in RecursiveChunker(size, overlap).chunk_document(Document("d", text))]


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from([*"ab .!?。\n\t", "語", "😀", "\u3000"]), max_size=150),
    st.integers(1, 30),
    st.data(),
)
def test_recursive_matches_definition_on_random_text(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    assert recursive(text, size, overlap) == expected_recursive(text, size, overlap)


@pytest.mark.parametrize(("size", "overlap"), [(400, 0), (400, 80), (120, 30), (37, 11)])
def test_recursive_matches_definition_on_sample_data(sample: Dataset, size: int, overlap: int) -> None:
    for document in sample.corpus.documents:
        assert recursive(document.text, size, overlap) == expected_recursive(document.text, size, overlap), document.id


def test_recursive_cuts_only_at_the_highest_priority_separator_present() -> None:
    text = "a b. c\n\nd e"
    # "\n\n" occurs, so the text is cut there only ("a b. c\n\n" 0-8, "d e" 8-11), although ". ",
    # " " and "\n" occur too; with size 8 both pieces fit and stay whole.
    assert recursive(text, 8, 0) == [(0, 6), (8, 11)]
    # Without the blank line the first separator present is "\n": "a b. c\n" 0-7, "d e" 7-10.
    assert recursive("a b. c\nd e", 7, 0) == [(0, 6), (7, 10)]


def test_recursive_oversized_piece_is_split_by_the_next_separators_without_merging() -> None:
    text = "xy\n\naaa bbb ccc\n\nz"
    # At "\n\n": "xy\n\n" 0-4, "aaa bbb ccc\n\n" 4-17 (13 > 8), "z" 17-18. The long piece is cut at
    # "\n": "aaa bbb ccc\n" 4-16 (12 > 8), "\n" 16-17; the first again at " ": "aaa " 4-8, "bbb " 8-12,
    # "ccc\n" 12-16, merged to 4-12 and 12-16. "xy\n\n" + "aaa " would fit in 8 but pieces of a
    # split piece never merge with its neighbours. Trimmed: 0-2, 4-11, 12-15, 16-17 (blank, dropped), 17-18.
    assert recursive(text, 8, 0) == [(0, 2), (4, 11), (12, 15), (17, 18)]


# --- parent-child --------------------------------------------------------------------------------


def fixed_windows(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Windows at multiples of ``size - overlap``, stopping after the first that reaches the end."""
    step = size - overlap
    return [(s, min(s + size, length)) for s in range(0, length, step) if s == 0 or s - step + size < length]


def paragraph_runs(document: Document) -> list[tuple[int, int]]:
    """Recorded paragraphs, or maximal runs of non-blank lines (from first line start to last content end)."""
    if document.paragraphs is not None:
        return [(s, e) for s, e in document.paragraphs if e > s]
    runs: list[tuple[int, int]] = []
    previous_blank = True
    for line in text_lines(document.text):
        if not document.text[line.start : line.end].strip():
            previous_blank = True
        elif previous_blank:
            runs.append((line.start, line.end))
            previous_blank = False
        else:
            runs[-1] = (runs[-1][0], line.end)
    return runs


def expected_units(chunker: object, document: Document) -> list[Chunk]:
    """What the definition of a document chunker gives, computed without calling it."""
    text, doc = document.text, document.id
    if isinstance(chunker, MarkdownChunker):
        built = Built(text, read_blocks(text))
        return expected_markdown(built, chunker.max_chars, chunker.levels, chunker.prefix, doc=doc)
    if isinstance(chunker, FixedChunker):
        found = fixed_windows(len(text), chunker.size, chunker.overlap)
    elif isinstance(chunker, ParagraphChunker):
        found = paragraph_runs(document)
    else:
        raise AssertionError(f"no oracle for {chunker!r}")
    return [Chunk(f"{doc}#{i}", doc, s, e, text[s:e]) for i, (s, e) in enumerate(found)]


def body_document(document: Document, parent: Chunk) -> Document:
    """The parent's body as a document: recorded paragraphs cut to the parent and shifted into it."""
    paragraphs = None
    if document.paragraphs is not None:
        inside = [(max(s, parent.start), min(e, parent.end)) for s, e in document.paragraphs]
        paragraphs = tuple((s - parent.start, e - parent.start) for s, e in inside if s < e)
    return Document(document.id, parent.text, document.title, paragraphs)


def check_parent_definition(chunker: ParentChildChunker, corpus: Corpus) -> None:
    children: list[Chunk] = []
    parents: list[Chunk] = []
    for document in corpus.documents:
        for parent in expected_units(chunker.parent, document):
            for index, child in enumerate(expected_units(chunker.child, body_document(document, parent))):
                start, end = parent.start + child.start, parent.start + child.end
                section = child.section or parent.section
                children.append(
                    Chunk(f"{parent.id}/{index}", document.id, start, end, child.text, child.prefix, section)
                )
                parents.append(parent)
    chunking = chunk_corpus(chunker, corpus)
    assert list(chunking.units) == children
    assert chunking.parents is not None and list(chunking.parents) == parents


@settings(max_examples=200, deadline=None)
@given(built_documents(), st.integers(5, 80), st.integers(1, 30), st.data())
def test_parent_child_matches_definition_on_built_documents(
    built: Built, parent_size: int, child_size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, child_size - 1))
    chunker = ParentChildChunker(FixedChunker(child_size, overlap), MarkdownChunker(parent_size))
    parents = expected_markdown(built, parent_size, 3, None)
    chunking = chunk_corpus(chunker, Corpus((Document("d", built.text),)))
    expected = [
        (f"{p.id}/{i}", p.start + s, p.start + e, p.section)
        for p in parents
        for i, (s, e) in enumerate(fixed_windows(p.length, child_size, overlap))
    ]
    assert [(c.id, c.start, c.end, c.section) for c in chunking.units] == expected
    assert chunking.parents is not None
    assert [p.id for p in chunking.parents] == [child_id.split("/")[0] for child_id, *_ in expected]


PARENT_CHILD = [
    ParentChildChunker(child=FixedChunker(200), parent=MarkdownChunker()),
    ParentChildChunker(child=FixedChunker(50, 20), parent=MarkdownChunker(300, 2, "path")),
    ParentChildChunker(child=FixedChunker(7, 3), parent=FixedChunker(40, 10)),
    ParentChildChunker(child=ParagraphChunker(), parent=MarkdownChunker(400)),
    ParentChildChunker(child=MarkdownChunker(40), parent=FixedChunker(300)),
]


@pytest.mark.parametrize("chunker", PARENT_CHILD, ids=str)
def test_parent_child_matches_definition_on_sample_data(sample: Dataset, chunker: ParentChildChunker) -> None:
    check_parent_definition(chunker, sample.corpus)


@pytest.mark.jsquad
@pytest.mark.parametrize("chunker", PARENT_CHILD[:2] + PARENT_CHILD[3:4], ids=str)
def test_parent_child_matches_definition_on_jsquad(jsquad: Dataset, chunker: ParentChildChunker) -> None:
    check_parent_definition(chunker, jsquad.corpus)


def test_paragraph_children_are_recorded_paragraphs_cut_to_their_parent() -> None:
    text = "0123456789abcdefghij"
    document = Document("d", text, paragraphs=((0, 6), (6, 14), (14, 20)))
    chunker = ParentChildChunker(child=ParagraphChunker(), parent=FixedChunker(10))
    chunking = chunk_corpus(chunker, Corpus((document,)))
    # parents 0-10 and 10-20; paragraph 6-14 straddles them: 6-10 in the first, 10-14 in the second.
    assert [(c.id, c.start, c.end) for c in chunking.units] == [
        ("d#0/0", 0, 6),
        ("d#0/1", 6, 10),
        ("d#1/0", 10, 14),
        ("d#1/1", 14, 20),
    ]
    check_parent_definition(chunker, Corpus((document,)))
