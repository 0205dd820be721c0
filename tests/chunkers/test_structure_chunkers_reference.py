"""The optimised markdown and parent-child chunkers against straightforward line-by-line references.

The references below are the first, per-line implementations of the two chunkers,
kept as oracles: the optimised code (one regex scan over the whole text, children
cut with window arithmetic) must produce exactly the same chunks, field for field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import chunk_corpus
from chunkscope.chunkers.fixed import FixedChunker, window_spans
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.paragraph import ParagraphChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Corpus, Document

# --- reference markdown chunker: classify every line, then walk the lines -------------------------

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_DELIMITER_ROW = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


class Line(NamedTuple):
    start: int
    end: int
    after: int


@dataclass(frozen=True)
class Block:
    kind: str
    start: int
    end: int
    lines: tuple[Line, ...]
    level: int = 0
    title: str = ""


def split_lines(text: str) -> list[Line]:
    lines = []
    position = 0
    for raw in text.split("\n"):
        end = position + len(raw)
        content_end = end - 1 if raw.endswith("\r") else end
        lines.append(Line(position, content_end, end + 1))
        position = end + 1
    if lines and lines[-1].start == len(text):
        lines.pop()
    elif lines:
        lines[-1] = Line(lines[-1].start, lines[-1].end, len(text))
    return lines


def heading_of(content: str) -> tuple[int, str] | None:
    match = _HEADING.match(content)
    if match is None:
        return None
    return len(match.group(1)), _CLOSING_HASHES.sub("", match.group(2) or "").strip()


def fence_of(content: str) -> str | None:
    match = _FENCE.match(content)
    if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
        return None
    return match.group(1)


def closes_fence(content: str, marker: str) -> bool:
    stripped = content.lstrip(" ")
    if len(content) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(marker[0]))
    return run >= len(marker) and not stripped[run:].strip()


def parse_blocks(text: str) -> list[Block]:
    lines = split_lines(text)
    contents = [text[line.start : line.end] for line in lines]
    count = len(lines)
    blank = [not content.strip() for content in contents]
    pipes = ["|" in content for content in contents]
    headings = [heading_of(c) if c.lstrip(" ")[:1] == "#" else None for c in contents]
    fences = [fence_of(c) if c.lstrip(" ")[:1] in ("`", "~") else None for c in contents]
    table_start = [
        pipes[i] and pipes[i + 1] and _DELIMITER_ROW.match(contents[i + 1]) is not None for i in range(count - 1)
    ] + [False]
    starts_block = [blank[i] or fences[i] or headings[i] or table_start[i] for i in range(count)]
    blocks: list[Block] = []
    index = 0
    while index < count:
        if blank[index]:
            index += 1
            continue
        marker, heading = fences[index], headings[index]
        if marker is not None:
            last = index + 1
            while last < count and not closes_fence(contents[last], marker):
                last += 1
            last = min(last, count - 1)
            while last > index and blank[last]:  # an unclosed fence ends at its last non-blank line
                last -= 1
            kind, stop = "code", last + 1
        elif heading is not None:
            kind, stop = "heading", index + 1
        elif table_start[index]:
            stop = index + 2
            while stop < count and pipes[stop] and not starts_block[stop]:
                stop += 1
            kind = "table"
        else:
            stop = index + 1
            while stop < count and not starts_block[stop]:
                stop += 1
            kind = "paragraph"
        group = tuple(lines[index:stop])
        level, title = heading if kind == "heading" and heading is not None else (0, "")
        blocks.append(Block(kind, group[0].start, group[-1].end, group, level, title))
        index = stop
    return blocks


def sections(blocks: list[Block], levels: int) -> list[tuple[str | None, list[Block]]]:
    result: list[tuple[str | None, list[Block]]] = []
    stack: list[tuple[int, str]] = []
    path: str | None = None
    current: list[Block] = []
    for block in blocks:
        if block.kind == "heading" and block.level <= levels:
            if current:
                result.append((path, current))
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
            path = " > ".join(title for _, title in stack)
            current = []
        current.append(block)
    if current:
        result.append((path, current))
    return result


def line_groups(text: str, lines: tuple[Line, ...], limit: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    group: list[int] | None = None
    for line in lines:
        if not text[line.start : line.end].strip():
            continue
        if line.end - line.start > limit:
            if group is not None:
                spans.append((group[0], group[1]))
                group = None
            spans.extend(window_spans(line.end - line.start, limit, 0, line.start))
        elif group is not None and line.end - group[0] <= limit:
            group[1] = line.end
        else:
            if group is not None:
                spans.append((group[0], group[1]))
            group = [line.start, line.end]
    if group is not None:
        spans.append((group[0], group[1]))
    return spans


def oversized_spans(text: str, block: Block, limit: int) -> list[tuple[int, int, str]]:
    if block.kind == "table" and len(block.lines) > 2:
        header = text[block.lines[0].start : block.lines[1].after]
        data_start = block.lines[2].start
        return [(s, e, header if s >= data_start else "") for s, e in line_groups(text, block.lines, limit)]
    if block.kind in ("code", "table"):
        return [(s, e, "") for s, e in line_groups(text, block.lines, limit)]
    return [(s, e, "") for s, e in window_spans(block.end - block.start, limit, 0, block.start)]


def section_spans(text: str, blocks: list[Block], limit: int) -> list[tuple[int, int, str]]:
    if blocks[-1].end - blocks[0].start <= limit:
        return [(blocks[0].start, blocks[-1].end, "")]
    spans: list[tuple[int, int, str]] = []
    group: list[int] | None = None
    for block in blocks:
        if block.end - block.start > limit:
            if group is not None:
                spans.append((group[0], group[1], ""))
                group = None
            spans.extend(s for s in oversized_spans(text, block, limit) if text[s[0] : s[1]].strip())
        elif group is not None and block.end - group[0] <= limit:
            group[1] = block.end
        else:
            if group is not None:
                spans.append((group[0], group[1], ""))
            group = [block.start, block.end]
    if group is not None:
        spans.append((group[0], group[1], ""))
    return spans


def reference_markdown(chunker: MarkdownChunker, document: Document) -> list[Chunk]:
    text = document.text
    chunks: list[Chunk] = []
    for path, blocks in sections(parse_blocks(text), chunker.levels):
        section_prefix = f"{path}\n" if path is not None and chunker.prefix == "path" else ""
        for start, end, extra in section_spans(text, blocks, chunker.max_chars):
            chunk_id = f"{document.id}#{len(chunks)}"
            chunks.append(Chunk(chunk_id, document.id, start, end, text[start:end], section_prefix + extra, path))
    return chunks


# --- reference parent-child chunker: each parent body as a document of its own ---------------------


def parent_document(document: Document, parent: Chunk) -> Document:
    paragraphs = None
    if document.paragraphs is not None:
        paragraphs = tuple(
            (max(start, parent.start) - parent.start, min(end, parent.end) - parent.start)
            for start, end in document.paragraphs
            if start < parent.end and end > parent.start
        )
    return Document(id=document.id, text=parent.text, title=document.title, paragraphs=paragraphs)


def reference_parent(chunker: ParentChildChunker, corpus: Corpus) -> tuple[list[Chunk], list[Chunk]]:
    children: list[Chunk] = []
    parents: list[Chunk] = []
    for parent in chunk_corpus(chunker.parent, corpus).units:
        part = parent_document(corpus.by_id[parent.doc], parent)
        for index, child in enumerate(chunker.child.chunk_document(part)):
            start, end = parent.start + child.start, parent.start + child.end
            section = child.section or parent.section
            children.append(Chunk(f"{parent.id}/{index}", parent.doc, start, end, child.text, child.prefix, section))
            parents.append(parent)
    return children, parents


# --- comparisons -------------------------------------------------------------------------------------

MARKDOWN_LINES = st.sampled_from(
    [
        "",
        "   ",
        "\t",
        "\u3000",
        "# Title",
        "## Fees ##",
        "### Deep",
        "#### Deeper",
        "####### seven",
        "#",
        "#\r",
        "# \r",
        "   # indented",
        "    # too indented",
        "#not-a-heading",
        "```",
        "````",
        "```python",
        "``` `x`",
        "   ```",
        "    ```",
        "~~~",
        "~~~~ tilde `ok`",
        "```   ",
        "| k | v |",
        "|---|:-:|",
        "|---|:-:|\r",
        "---",
        "-|-",
        " | :-- | --: |",
        "| 1 | 返品 |",
        "a | b",
        "- item one",
        "今日は晴れ。明日は雨。",
        "Sentence one. Sentence two! Three? ",
        "😀🎉 emoji 👍",
        "\x85\u2028",
        "text\r",
    ]
)
FREE_TEXT = st.text(
    alphabet=st.sampled_from([*list("ab .!?。、|#`~-:\t"), "語", "😀", "\u3000", "\r", "\x0b"]), max_size=40
)
DOCUMENTS = st.builds(
    lambda lines, crlf, final: ("\r\n" if crlf else "\n").join(lines) + final,
    st.lists(st.one_of(MARKDOWN_LINES, MARKDOWN_LINES, FREE_TEXT), max_size=40),
    st.booleans(),
    st.sampled_from(["", "\n", "\r\n", "\n\n  \n", "\r"]),
)
PARAMETERS = [(1500, 3, None), (1500, 6, "path"), (200, 2, "path"), (60, 1, None), (17, 3, "path"), (5, 4, None)]


def markdown_chunkers() -> list[MarkdownChunker]:
    return [MarkdownChunker(max_chars, levels, prefix) for max_chars, levels, prefix in PARAMETERS]


@settings(max_examples=500, deadline=None)
@given(DOCUMENTS, st.integers(1, 80), st.integers(1, 6), st.sampled_from([None, "path"]))
def test_markdown_matches_reference_on_random_markdown(
    text: str, max_chars: int, levels: int, prefix: str | None
) -> None:
    chunker = MarkdownChunker(max_chars, levels, prefix)
    document = Document("d", text)
    assert chunker.chunk_document(document) == reference_markdown(chunker, document)


@pytest.mark.parametrize("chunker", markdown_chunkers(), ids=str)
def test_markdown_matches_reference_on_sample_data(sample: Dataset, chunker: MarkdownChunker) -> None:
    for document in sample.corpus.documents:
        assert chunker.chunk_document(document) == reference_markdown(chunker, document), document.id


@pytest.mark.jsquad
def test_markdown_matches_reference_on_jsquad(jsquad: Dataset) -> None:
    for chunker in (MarkdownChunker(), MarkdownChunker(300, 3, "path")):
        for document in jsquad.corpus.documents:
            assert chunker.chunk_document(document) == reference_markdown(chunker, document), document.id


def check_parent(chunker: ParentChildChunker, corpus: Corpus) -> None:
    chunking = chunk_corpus(chunker, corpus)
    children, parents = reference_parent(chunker, corpus)
    assert list(chunking.units) == children
    assert chunking.parents is not None and list(chunking.parents) == parents


PARENT_CHILD = [
    ParentChildChunker(child=FixedChunker(200), parent=MarkdownChunker()),
    ParentChildChunker(child=FixedChunker(50, 20), parent=MarkdownChunker(300, 2, "path")),
    ParentChildChunker(child=FixedChunker(7, 3), parent=FixedChunker(40, 10)),
    ParentChildChunker(child=ParagraphChunker(), parent=MarkdownChunker(400)),
    ParentChildChunker(child=MarkdownChunker(40), parent=FixedChunker(300)),
]


@settings(max_examples=200, deadline=None)
@given(DOCUMENTS, st.integers(5, 80), st.integers(1, 30), st.data())
def test_parent_child_matches_reference_on_random_markdown(
    text: str, parent_size: int, child_size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, child_size - 1))
    corpus = Corpus((Document("d", text), Document("e", text[::-1])))
    check_parent(ParentChildChunker(FixedChunker(child_size, overlap), MarkdownChunker(parent_size)), corpus)


@pytest.mark.parametrize("chunker", PARENT_CHILD, ids=str)
def test_parent_child_matches_reference_on_sample_data(sample: Dataset, chunker: ParentChildChunker) -> None:
    check_parent(chunker, sample.corpus)


@pytest.mark.jsquad
@pytest.mark.parametrize("chunker", PARENT_CHILD[:2] + PARENT_CHILD[3:4], ids=str)
def test_parent_child_matches_reference_on_jsquad(jsquad: Dataset, chunker: ParentChildChunker) -> None:
    check_parent(chunker, jsquad.corpus)
