"""Property tests: the offset invariant and coverage for the structure-aware chunkers.

Random documents mix CJK, emoji, CRLF and LF line breaks, and markdown-like
lines (headings, fences, table rows, blank lines).
"""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import chunk_corpus
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.imported import read_chunks
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.model import Chunk, Corpus, Document

MARKDOWN_LINES = st.sampled_from(
    [
        "",
        "   ",
        "# Title",
        "## Fees ##",
        "### Deep",
        "#### Deeper",
        "#not-a-heading",
        "```",
        "```python",
        "~~~",
        "| k | v |",
        "|---|:-:|",
        "| 1 | 返品 |",
        "- item one",
        "今日は晴れ。明日は雨。",
        "Sentence one. Sentence two! Three? ",
        "😀🎉 emoji 👍",
    ]
)
FREE_TEXT = st.text(
    alphabet=st.sampled_from([*list("ab .!?。、|#`~-\t"), "語", "日", "😀", "\u3000", "\r"]), max_size=40
)
LINES = st.lists(st.one_of(MARKDOWN_LINES, FREE_TEXT), max_size=30)
DOCUMENTS = st.builds(lambda lines, crlf: ("\r\n" if crlf else "\n").join(lines), LINES, st.booleans())


def check_offsets(text: str, chunks: list[Chunk]) -> None:
    for chunk in chunks:
        assert 0 <= chunk.start < chunk.end <= len(text)
        assert text[chunk.start : chunk.end] == chunk.text


def uncovered_non_whitespace(text: str, chunks: list[Chunk]) -> list[int]:
    covered = bytearray(len(text))
    for chunk in chunks:
        covered[chunk.start : chunk.end] = b"\x01" * chunk.length
    return [i for i, char in enumerate(text) if not covered[i] and not char.isspace()]


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.integers(1, 60), st.integers(1, 6), st.sampled_from([None, "path"]))
def test_markdown_offsets_disjoint_coverage(text: str, max_chars: int, levels: int, prefix: str | None) -> None:
    chunks = MarkdownChunker(max_chars, levels, prefix).chunk_document(Document("d", text))
    check_offsets(text, chunks)
    ordered = sorted(chunks, key=lambda c: c.start)
    assert ordered == chunks  # document order
    for before, after in itertools.pairwise(ordered):
        assert before.end <= after.start  # no character in two chunks
    assert uncovered_non_whitespace(text, chunks) == []
    assert all(chunk.text.strip() for chunk in chunks)


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.integers(1, 60))
def test_markdown_bodies_respect_max_chars(text: str, max_chars: int) -> None:
    chunks = MarkdownChunker(max_chars=max_chars).chunk_document(Document("d", text))
    assert all(chunk.length <= max_chars for chunk in chunks)


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.integers(1, 50), st.data())
def test_recursive_offsets_size_coverage(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = RecursiveChunker(size, overlap).chunk_document(Document("d", text))
    check_offsets(text, chunks)
    assert all(chunk.length <= size for chunk in chunks)
    assert all(not chunk.text[0].isspace() and not chunk.text[-1].isspace() for chunk in chunks)
    assert uncovered_non_whitespace(text, chunks) == []
    starts = [chunk.start for chunk in chunks]
    assert starts == sorted(starts)


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, st.integers(5, 80), st.integers(1, 30))
def test_parent_children_lie_in_their_parents(text: str, parent_size: int, child_size: int) -> None:
    corpus = Corpus((Document("d", text),))
    chunker = ParentChildChunker(child=FixedChunker(child_size), parent=MarkdownChunker(max_chars=parent_size))
    chunking = chunk_corpus(chunker, corpus)
    assert chunking.parents is not None and len(chunking.parents) == len(chunking.units)
    check_offsets(text, list(chunking.units))
    check_offsets(text, list(chunking.parents))
    for child, parent in zip(chunking.units, chunking.parents, strict=True):
        assert parent.start <= child.start and child.end <= parent.end
    assert len({child.id for child in chunking.units}) == len(chunking.units)
    # fixed children tile each parent, so the children cover what the parents cover
    assert uncovered_non_whitespace(text, list(chunking.units)) == []


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS.filter(bool), st.data())
def test_imported_chunks_keep_the_offset_invariant(text: str, data: st.DataObject) -> None:
    spans = data.draw(
        st.lists(st.tuples(st.integers(0, len(text) - 1), st.integers(1, len(text))).filter(lambda s: s[0] < s[1]))
    )
    records = []
    for number, (start, end) in enumerate(spans):
        as_text = data.draw(st.booleans())
        body = {"text": text[start:end]} if as_text else {"start": start, "end": end}
        records.append({"id": f"c{number}", "doc": "d", **body})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "chunks.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        chunking = read_chunks(str(path), Corpus((Document("d", text),)))
    check_offsets(text, list(chunking.units))
    # every record is either a chunk or a listed unplaced chunk (with its warning), never silently dropped
    assert chunking.imported is not None
    assert len(chunking.units) + len(chunking.imported.unplaced) == len(records)
    # one warning per unplaced chunk and unordered document, and one when the document is left uncovered
    uncovered = int(not chunking.units and bool(text.strip()))
    assert len(chunking.problems) == len(chunking.imported.unplaced) + len(chunking.imported.unordered_docs) + uncovered
    given_offsets = {(r["start"], r["end"]) for r in records if "start" in r}
    assert given_offsets <= {(c.start, c.end) for c in chunking.units}
