"""Markdown sections: one chunk per heading section, re-split only when too long."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

from chunkscope.chunkers.base import chunkers
from chunkscope.chunkers.fixed import window_spans
from chunkscope.model import Chunk, Document

PATH_SEPARATOR = " > "

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")

# The scanners below work on the whole text, one regex match per section or block, so the
# per-line work happens inside the regex engine. Each line fragment matches a whole line from
# its first character and consumes its break. A line's content is the line without its break
# and without one "\r" before it; blank means whitespace only (\s is exactly str.isspace).
_EOL = r"(?:\n|\Z)"
_LINE = r"[^\n]*+" + _EOL
_BLANK_LINE = r"[^\S\n]*" + _EOL
_FENCE_LINE = r" {0,3}(?:`{3,}[^`\n]*|~{3,}[^\n]*)" + _EOL
_DELIMITER_ROW = r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?" + _EOL
_HAS_PIPE = r"(?=[^|\n]*\|)"
# Scanning a line for a pipe is slow in the regex engine: it comes after the cheap tests.
_TABLE_START = rf"(?=[^\n]*+\n(?={_DELIMITER_ROW}){_HAS_PIPE}){_HAS_PIPE}[^\n]*\n[^\n]*{_EOL}"
"""A line with a pipe, then a delimiter row with a pipe: the first two lines of a table."""


def _heading_line(levels: int) -> str:
    """An ATX heading line of level <= ``levels``."""
    return rf" {{0,3}}#{{1,{levels}}}(?:[ \t][^\n]*)?\r?{_EOL}"


def _fence(group: str, char: str) -> str:
    """A fenced code block opened by ``char`` (a backtick or tilde), up to its closing line or the end.

    Closing: at least as many of the opening characters, then only whitespace.
    """
    info = r"[^`\n]*" if char == "`" else r"[^\n]*"  # a backtick fence's info string has no backtick
    opening = rf" {{0,3}}(?P<{group}>{char}{{3,}}){info}{_EOL}"
    closing = rf" {{0,3}}(?P={group}){char}*[^\S\n]*{_EOL}"
    return rf"{opening}(?:(?!{closing}){_LINE})*(?:{closing})?"


_CODE = rf"(?:{_fence('tick', '`')}|{_fence('tilde', '~')})"
_BLOCK = re.compile(
    r"(?:[^\S\n]*\n)*"  # blank lines before the block belong to no block
    rf"(?:(?P<code>{_CODE})"
    # the group ends where the heading's content ends
    rf"|(?P<heading> {{0,3}}#{{1,6}}(?:[ \t][^\n]*?)?)\r?{_EOL}"
    # header and delimiter rows, then rows with a pipe that start no other block
    rf"|(?P<table>{_TABLE_START}(?:(?!{_FENCE_LINE}|{_heading_line(6)}|{_TABLE_START})[^|\n]*\|{_LINE})*)"
    # a non-blank line, then lines that start no other block
    rf"|(?P<paragraph>[^\S\n]*\S{_LINE}(?:(?!{_BLANK_LINE}|{_FENCE_LINE}|{_heading_line(6)}|{_TABLE_START}){_LINE})*))"
)
"""Blank lines, then one block; the alternatives are tried in order of precedence."""


@cache
def _section_pattern(levels: int) -> re.Pattern[str]:
    """A section heading (absent before the first one), then every line up to the next one.

    Fenced code is consumed whole, so a heading inside it is text. Any other line that
    looks like a heading is one: headings and fences end paragraphs and tables.
    """
    plain = rf"[^ #`~\n]{_LINE}"  # neither a heading nor a fence: the common case, tried first
    return re.compile(
        rf"(?:(?P<heading> {{0,3}}(?P<hashes>#{{1,{levels}}})(?:[ \t]+(?P<title>[^\n]*?))?)\r?{_EOL})?"
        rf"(?:{plain}|{_CODE}|(?!{_heading_line(levels)}){_LINE})*"
    )


class Line(NamedTuple):
    """One line of the document: ``start``, end of content, end after the line break."""

    start: int
    end: int
    after: int


class Section(NamedTuple):
    """A heading section's span: from its first block to the end of its last one."""

    path: str | None
    """Headings above and including this one (``A > B``); None before the first heading."""
    start: int
    end: int
    """End of the last block's last line, line break excluded."""
    after: int
    """End of the last block's last line, line break included."""


class Block(NamedTuple):
    """A paragraph, heading, fenced code block or table: the unit re-splitting groups."""

    kind: str
    """``paragraph``, ``heading``, ``code`` or ``table``."""
    start: int
    end: int
    """End of the block's last line, line break excluded."""
    after: int
    """End of the block's last line, line break included."""


class Piece(NamedTuple):
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
        for path, start, end, after in sections(text, self.levels):
            prefix = f"{path}\n" if path is not None and self.prefix == "path" else ""
            if end - start <= self.max_chars:
                pieces.append(Piece(start, end, prefix, path))
            else:
                pieces.extend(self._split_section(text, parse_blocks(text, start, after), path, prefix))
        doc = document.id
        return [
            Chunk(f"{doc}#{index}", doc, start, end, text[start:end], prefix, path)
            for index, (start, end, prefix, path) in enumerate(pieces)
        ]

    def _split_section(self, text: str, blocks: list[Block], path: str | None, prefix: str) -> list[Piece]:
        """Blocks grouped while the group's span stays within ``max_chars``; longer blocks split alone."""
        limit = self.max_chars
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
    if block.kind in ("code", "table"):
        lines = block_lines(text, block)
        if block.kind == "table" and len(lines) > 2:
            header = text[lines[0].start : lines[1].after]
            data_start = lines[2].start
            return [(s, e, header if s >= data_start else "") for s, e in line_groups(text, lines, limit)]
        return [(s, e, "") for s, e in line_groups(text, lines, limit)]
    return [(s, e, "") for s, e in window_spans(block.end - block.start, limit, 0, block.start)]


def line_groups(text: str, lines: list[Line], limit: int) -> list[tuple[int, int]]:
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
    return len(match.group(1)), heading_title(match.group(2))


def heading_title(raw: str | None) -> str:
    """A heading's text after its ``#`` marks, without closing ``#`` marks and surrounding space."""
    if not raw:
        return ""
    return (_CLOSING_HASHES.sub("", raw) if "#" in raw else raw).strip()


def sections(text: str, levels: int) -> list[Section]:
    """The sections started by headings of level <= ``levels``, in order; text before the
    first heading is a section with path None unless it is blank."""
    result: list[Section] = []
    stack: list[tuple[int, str]] = []  # (level, title) of the headings in the current path
    path: str | None = None
    for match in _section_pattern(levels).finditer(text):
        if match.group("heading") is not None:
            level = len(match.group("hashes"))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading_title(match.group("title"))))
            path = PATH_SEPARATOR.join(title for _, title in stack)
            start = match.start()
        else:
            start = first_line_start(text, match.start(), match.end())
        if start < match.end():
            after = last_line_after(text, start, match.end())
            result.append(Section(path, start, content_end(text, after), after))
    return result


def parse_blocks(text: str, start: int, stop: int) -> list[Block]:
    """The blocks of ``text[start:stop]`` in order; blank lines belong to none.

    ``start`` must be a line boundary and ``text[start:stop]`` must end with a non-blank line
    (a section's span), so every match ends at a block's last line.
    """
    blocks = []
    for match in _BLOCK.finditer(text, start, stop):
        kind = match.lastgroup or ""
        block_start, after = match.span(kind)
        if kind == "heading":
            blocks.append(Block(kind, block_start, after, match.end()))
            continue
        if kind == "code":  # an unclosed fence runs to the end of the document, less its trailing blank lines
            after = last_line_after(text, block_start, after)
        blocks.append(Block(kind, block_start, content_end(text, after), after))
    return blocks


def first_line_start(text: str, start: int, stop: int) -> int:
    """Start of the first non-blank line in ``text[start:stop]``; ``stop`` when all are blank.

    ``start`` must be a line boundary.
    """
    first_visible = stop - len(text[start:stop].lstrip())
    if first_visible == stop:
        return stop
    line_break = text.rfind("\n", start, first_visible)
    return start if line_break == -1 else line_break + 1


def last_line_after(text: str, start: int, stop: int) -> int:
    """End (break included) of the last non-blank line in ``text[start:stop]``; ``start`` when all are blank.

    ``stop`` must be a line boundary.
    """
    last_visible = start + len(text[start:stop].rstrip())
    if last_visible == start:
        return start
    line_break = text.find("\n", last_visible, stop)
    return stop if line_break == -1 else line_break + 1


def content_end(text: str, after: int) -> int:
    """End of the content of the line that ends (break included) at ``after``."""
    end = after - 1 if text[after - 1] == "\n" else after
    return end - 1 if text[end - 1] == "\r" else end


def block_lines(text: str, block: Block) -> list[Line]:
    """The lines of one block, offsets in the document."""
    offset = block.start
    return [Line(offset + s, offset + e, offset + a) for s, e, a in split_lines(text[offset : block.after])]
