"""Markdown sections: one chunk per heading section, re-split only when too long."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from chunkscope.chunkers.base import chunkers
from chunkscope.chunkers.fixed import window_spans
from chunkscope.model import Chunk, Document

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_DELIMITER_ROW = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")

PATH_SEPARATOR = " > "


class Line(NamedTuple):
    """One line of the document: ``start``, end of content, end after the line break."""

    start: int
    end: int
    after: int


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph, heading, fenced code block or table: the unit re-splitting groups."""

    kind: str
    """``paragraph``, ``heading``, ``code`` or ``table``."""
    start: int
    end: int
    """End of the block's last line, line break excluded."""
    lines: tuple[Line, ...]
    level: int = 0
    """Heading level (headings only)."""
    title: str = ""
    """Heading text without the ``#`` marks (headings only)."""


@dataclass(frozen=True, slots=True)
class Piece:
    """A span to become one chunk, with its prefix and section path."""

    start: int
    end: int
    prefix: str
    section: str | None


@chunkers.register("markdown")
@dataclass(frozen=True, slots=True)
class MarkdownChunker:
    """One chunk per section: an ATX heading of level <= ``levels`` and everything
    up to the next such heading; text before the first heading is a section of its own.

    A section longer than ``max_chars`` is re-split: its blocks (paragraphs,
    headings, fenced code blocks, tables) are grouped in order while the group's
    span stays within ``max_chars``. A block longer than ``max_chars`` on its own
    becomes separate chunks: a paragraph as fixed windows of ``max_chars``, a code
    block between lines, a table between rows where every piece after the first
    carries the header and delimiter rows as its ``prefix``. ``max_chars`` bounds
    the body (the span); prefixes come on top. A line longer than ``max_chars``
    inside code or a table falls back to fixed windows.

    Each chunk's ``section`` is the path of headings above it (``A > B``); with
    ``prefix=path`` that path and a line break are also prefixed. Chunk spans
    carry no leading or trailing blank lines; every other character belongs to
    exactly one chunk. Headings inside fenced code are text, not headings.
    """

    max_chars: int = 1500
    levels: int = 3
    prefix: str | None = None
    """``path`` to prefix each chunk with its section path, or none."""

    def __post_init__(self) -> None:
        if self.max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, got {self.max_chars}")
        if not 1 <= self.levels <= 6:
            raise ValueError(f"levels must be between 1 and 6, got {self.levels}")
        if self.prefix not in (None, "path"):
            raise ValueError(f"prefix must be path or none, got {self.prefix!r}")

    def chunk_document(self, document: Document) -> list[Chunk]:
        text = document.text
        pieces: list[Piece] = []
        for path, blocks in sections(parse_blocks(text), self.levels):
            section_prefix = f"{path}\n" if path is not None and self.prefix == "path" else ""
            pieces.extend(self._section_pieces(text, blocks, path, section_prefix))
        return [
            Chunk(
                id=f"{document.id}#{index}",
                doc=document.id,
                start=piece.start,
                end=piece.end,
                text=text[piece.start : piece.end],
                prefix=piece.prefix,
                section=piece.section,
            )
            for index, piece in enumerate(pieces)
        ]

    def _section_pieces(self, text: str, blocks: list[Block], path: str | None, prefix: str) -> list[Piece]:
        limit = self.max_chars
        if blocks[-1].end - blocks[0].start <= limit:
            return [Piece(blocks[0].start, blocks[-1].end, prefix, path)]
        pieces: list[Piece] = []
        group: list[int] | None = None  # [start, end] of the blocks grouped so far
        for block in blocks:
            if block.end - block.start > limit:
                if group is not None:
                    pieces.append(Piece(group[0], group[1], prefix, path))
                    group = None
                pieces.extend(
                    Piece(s, e, prefix + extra, path)
                    for s, e, extra in oversized_spans(text, block, limit)
                    if text[s:e].strip()  # a window of only spaces is no chunk
                )
            elif group is not None and block.end - group[0] <= limit:
                group[1] = block.end
            else:
                if group is not None:
                    pieces.append(Piece(group[0], group[1], prefix, path))
                group = [block.start, block.end]
        if group is not None:
            pieces.append(Piece(group[0], group[1], prefix, path))
        return pieces


def oversized_spans(text: str, block: Block, limit: int) -> list[tuple[int, int, str]]:
    """(start, end, prefix) pieces of one block longer than ``limit``."""
    if block.kind == "table" and len(block.lines) > 2:
        header = text[block.lines[0].start : block.lines[1].after]
        data_start = block.lines[2].start
        return [(s, e, header if s >= data_start else "") for s, e in line_groups(text, block.lines, limit)]
    if block.kind in ("code", "table"):
        return [(s, e, "") for s, e in line_groups(text, block.lines, limit)]
    return [(s, e, "") for s, e in window_spans(block.end - block.start, limit, 0, block.start)]


def line_groups(text: str, lines: tuple[Line, ...], limit: int) -> list[tuple[int, int]]:
    """Consecutive lines grouped while the span stays within ``limit``; longer lines become windows.

    Blank lines end up inside a group only between two of its lines.
    """
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


def split_lines(text: str) -> list[Line]:
    """Every line, split at ``\\n``; a ``\\r`` before it is part of the break, not the content."""
    lines = []
    position = 0
    for raw in text.split("\n"):
        end = position + len(raw)
        content_end = end - 1 if raw.endswith("\r") else end
        lines.append(Line(position, content_end, end + 1))
        position = end + 1
    if lines and lines[-1].start == len(text):
        lines.pop()  # the empty "line" after a final line break
    elif lines:
        last = lines[-1]
        lines[-1] = Line(last.start, last.end, len(text))
    return lines


def heading_of(content: str) -> tuple[int, str] | None:
    """(level, title) when ``content`` is an ATX heading line."""
    match = _HEADING.match(content)
    if match is None:
        return None
    title = _CLOSING_HASHES.sub("", match.group(2) or "").strip()
    return len(match.group(1)), title


def fence_of(content: str) -> str | None:
    """The fence marker (e.g. ``````` or ``~~~~``) when ``content`` opens a fenced code block."""
    match = _FENCE.match(content)
    if match is None:
        return None
    marker = match.group(1)
    if marker[0] == "`" and "`" in match.group(2):
        return None
    return marker


def closes_fence(content: str, marker: str) -> bool:
    """True when ``content`` closes a fence opened by ``marker``."""
    stripped = content.lstrip(" ")
    if len(content) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(marker[0]))
    return run >= len(marker) and not stripped[run:].strip()


def parse_blocks(text: str) -> list[Block]:
    """The document's blocks in order; blank lines belong to none."""
    lines = split_lines(text)
    contents = [text[line.start : line.end] for line in lines]
    count = len(lines)
    blank = [not content.strip() for content in contents]
    fences: list[str | None] = [None] * count
    headings: list[tuple[int, str] | None] = [None] * count
    pipes = ["|" in content for content in contents]
    for i, content in enumerate(contents):
        first = content.lstrip(" ")[:1]
        if first == "#":
            headings[i] = heading_of(content)
        elif first in ("`", "~"):
            fences[i] = fence_of(content)
    table_start = [
        pipes[i] and pipes[i + 1] and "-" in contents[i + 1] and _DELIMITER_ROW.match(contents[i + 1]) is not None
        for i in range(count - 1)
    ] + [False]
    starts_block = [
        blank[i] or fences[i] is not None or headings[i] is not None or table_start[i] for i in range(count)
    ]
    blocks: list[Block] = []
    index = 0
    while index < count:
        if blank[index]:
            index += 1
            continue
        marker = fences[index]
        heading = headings[index]
        if marker is not None:
            last = index + 1
            while last < count and not closes_fence(contents[last], marker):
                last += 1
            last = min(last, count - 1)
            blocks.append(_block("code", lines[index : last + 1]))
            index = last + 1
        elif heading is not None:
            blocks.append(_block("heading", lines[index : index + 1], *heading))
            index += 1
        elif table_start[index]:
            last = index + 2
            while last < count and pipes[last] and not starts_block[last]:
                last += 1
            blocks.append(_block("table", lines[index:last]))
            index = last
        else:
            last = index + 1
            while last < count and not starts_block[last]:
                last += 1
            blocks.append(_block("paragraph", lines[index:last]))
            index = last
    return _trim_code_tails(text, blocks)


def _block(kind: str, lines: list[Line], level: int = 0, title: str = "") -> Block:
    return Block(kind, lines[0].start, lines[-1].end, tuple(lines), level, title)


def _trim_code_tails(text: str, blocks: list[Block]) -> list[Block]:
    """An unclosed fence runs to the end of the document: drop its trailing blank lines."""
    trimmed = []
    for block in blocks:
        lines = block.lines
        while len(lines) > 1 and not text[lines[-1].start : lines[-1].end].strip():
            lines = lines[:-1]
        trimmed.append(Block(block.kind, block.start, lines[-1].end, lines, block.level, block.title))
    return trimmed


def sections(blocks: list[Block], levels: int) -> list[tuple[str | None, list[Block]]]:
    """(section path, blocks) per section; the text before the first heading has path None."""
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
            path = PATH_SEPARATOR.join(title for _, title in stack)
            current = []
        current.append(block)
    if current:
        result.append((path, current))
    return result
