"""An oracle for the markdown chunker that shares nothing with its implementation.

Documents are *built* from blocks (headings, paragraphs, fenced code, tables) by a
hypothesis strategy that records every block's offsets while it writes them, so the
structure is known by construction, not parsed. The expected chunks then follow the
documented definition (README, ``MarkdownChunker`` docstring) by brute force: every
way of cutting a section's blocks into consecutive groups is enumerated, and the one
where each group fits ``max_chars`` and none could take the next block is the answer
("grouped in order while the group's span stays within max_chars").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from chunkscope.model import Chunk

Span = tuple[int, int]


@dataclass(frozen=True)
class Line:
    """One line of a built document: ``start``, end of its content, end after its break."""

    start: int
    end: int
    after: int


@dataclass(frozen=True)
class Block:
    """A block of a built document, with the offsets it was written at."""

    kind: str
    lines: tuple[Line, ...]
    level: int = 0
    title: str = ""

    @property
    def start(self) -> int:
        return self.lines[0].start

    @property
    def end(self) -> int:
        return self.lines[-1].end


@dataclass(frozen=True)
class Built:
    """A built document and its blocks in order."""

    text: str
    blocks: tuple[Block, ...]


# --- the defining partition, by enumeration -----------------------------------------------------


def defining_partition(items: Sequence[Span], limit: int) -> list[range]:
    """The unique grouping of ``items`` (spans in order) where every group is either one item
    longer than ``limit`` or spans at most ``limit``, and no group could also take the next item.

    Every candidate group ``items[first..last]`` is considered; ``ways[first]`` counts the valid
    groupings of ``items[first:]``, so the assertion checks that the definition leaves exactly one.
    """
    count = len(items)

    def span(first: int, last: int) -> int:
        return items[last][1] - items[first][0]

    def allowed(first: int, last: int) -> bool:
        admissible = first == last or span(first, last) <= limit
        maximal = last == count - 1 or span(first, last + 1) > limit
        return admissible and maximal

    ways = [0] * count + [1]
    choice = [0] * count
    for first in reversed(range(count)):
        for last in range(first, count):
            if allowed(first, last) and ways[last + 1]:
                ways[first] += ways[last + 1]
                choice[first] = last
    assert count == 0 or ways[0] == 1, f"the definition must pick exactly one grouping, found {ways[0]}"
    groups, first = [], 0
    while first < count:
        groups.append(range(first, choice[first] + 1))
        first = choice[first] + 1
    return groups


def windows(start: int, end: int, size: int) -> list[Span]:
    """Fixed windows of ``size`` over ``[start, end)``: starts at multiples of ``size``."""
    return [(s, min(s + size, end)) for s in range(start, end, size)]


# --- expected chunks from the known structure ---------------------------------------------------


def sections(blocks: Sequence[Block], levels: int) -> list[tuple[str | None, list[Block]]]:
    """Blocks cut before every heading of level <= ``levels``, each with its heading path."""
    result: list[tuple[str | None, list[Block]]] = []
    path: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == "heading" and block.level <= levels:
            path = [(level, title) for level, title in path if level < block.level] + [(block.level, block.title)]
            result.append((" > ".join(title for _, title in path), [block]))
        elif result:
            result[-1][1].append(block)
        else:
            result.append((None, [block]))
    return result


def oversized_pieces(text: str, block: Block, limit: int) -> list[tuple[int, int, str]]:
    """(start, end, extra prefix) of a block longer than ``limit`` on its own."""
    if block.kind in ("paragraph", "heading"):
        return [(s, e, "") for s, e in windows(block.start, block.end, limit)]
    lines = [line for line in block.lines if text[line.start : line.end].strip()]
    header = ""
    data_start = len(text) + 1
    if block.kind == "table" and len(block.lines) > 2:
        header = text[block.lines[0].start : block.lines[1].after]
        data_start = block.lines[2].start
    pieces = []
    for group in defining_partition([(line.start, line.end) for line in lines], limit):
        first, last = lines[group[0]], lines[group[-1]]
        spans = [(first.start, last.end)] if last.end - first.start <= limit else windows(first.start, last.end, limit)
        pieces.extend((s, e, header if s >= data_start else "") for s, e in spans)
    return pieces


def expected_markdown(built: Built, max_chars: int, levels: int, prefix: str | None, doc: str = "d") -> list[Chunk]:
    """The chunks the documented definition gives for a built document."""
    text = built.text
    chunks: list[Chunk] = []
    for path, blocks in sections(built.blocks, levels):
        path_prefix = f"{path}\n" if prefix == "path" and path is not None else ""
        for group in defining_partition([(b.start, b.end) for b in blocks], max_chars):
            first, last = blocks[group[0]], blocks[group[-1]]
            if last.end - first.start <= max_chars:
                pieces = [(first.start, last.end, "")]
            else:
                pieces = [p for p in oversized_pieces(text, first, max_chars) if text[p[0] : p[1]].strip()]
            for start, end, extra in pieces:
                chunks.append(
                    Chunk(f"{doc}#{len(chunks)}", doc, start, end, text[start:end], path_prefix + extra, path)
                )
    return chunks


# --- building documents -------------------------------------------------------------------------

WORDS = ["Fees", "refund", "返品", "今日は晴れ。", "😀🎉", "x", "a#b", "Sentence one.", "語"]
TAIL = st.text(alphabet=st.sampled_from([*"ab .!?|#`~-:\t", "語", "😀", "\u3000"]), max_size=12)
BLANK_LINES = st.lists(st.sampled_from(["", "  ", "\t", "\u3000"]), min_size=1, max_size=2)
# Lines that look structural but are paragraph text: 7 hashes, no space after #, 4-space indents.
TRICKY_TEXT = ["####### seven", "#hashtag", "    # indented", "    ```", "- item", "x | y", "1. first"]


@st.composite
def heading_block(draw: st.DrawFn) -> tuple[str, list[str], int, str]:
    level = draw(st.integers(1, 6))
    title = " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=3)))
    gap = draw(st.sampled_from([" ", "\t", "  "]))
    closing = draw(st.sampled_from(["", " #", " ###"]))
    line = " " * draw(st.integers(0, 3)) + "#" * level + (gap + title if title else "") + closing
    return "heading", [line], level, title


@st.composite
def paragraph_block(draw: st.DrawFn) -> tuple[str, list[str], int, str]:
    # Each line starts with a word or a tricky text line, so none is blank, a heading, a fence or
    # a delimiter row; a pipe in it starts no table because no delimiter row follows.
    starts = st.sampled_from(WORDS + TRICKY_TEXT)
    lines = draw(st.lists(st.tuples(starts, TAIL).map("".join), min_size=1, max_size=3))
    return "paragraph", lines, 0, ""


@st.composite
def code_block(draw: st.DrawFn, last: bool) -> tuple[str, list[str], int, str]:
    char = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", " json"] if char == "`" else ["", "toml", " a`b"]))
    opening = " " * draw(st.integers(0, 3)) + char * length + info
    other = "~~~" if char == "`" else "```"
    # None of these closes the fence: shorter runs, the other character, an info string, 4-space indent.
    inside = ["# not a heading", "", "  ", "| a | b |", "|---|---|", "x = 1", char * 2, other, char * length + "x"]
    content = draw(st.lists(st.sampled_from([*inside, " " * 4 + char * length]), max_size=4))
    closed = not last or draw(st.booleans())
    closing = [
        " " * draw(st.integers(0, 3)) + char * (length + draw(st.integers(0, 2))) + draw(st.sampled_from(["", "  "]))
    ]
    return "code", [opening, *content, *(closing if closed else [])], 0, ""


@st.composite
def table_block(draw: st.DrawFn) -> tuple[str, list[str], int, str]:
    header = draw(st.sampled_from(["| k | v |", "k | v", "|返品|料金|"]))
    delimiter = draw(st.sampled_from(["|---|---|", "|:-:|--:|", " | :-- | --: |", "---|---", "|-|"]))
    rows = draw(st.lists(st.sampled_from(["| 1 | a |", "| 2 | 返品 |", "a | b", "|x|", "| 😀 |  |"]), max_size=5))
    return "table", [header, delimiter, *rows], 0, ""


def may_touch(before: str, after: str) -> bool:
    """Whether ``after`` may follow ``before`` with no blank line and still be its own block.

    Headings, fences and table starts interrupt anything; a paragraph line after a paragraph
    or a table row would continue it.
    """
    return after != "paragraph" or before in ("heading", "code")


@st.composite
def built_documents(draw: st.DrawFn, max_blocks: int = 9) -> Built:
    """A markdown document written block by block, its structure recorded as it is written."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    count = draw(st.integers(0, max_blocks))
    lines: list[str] = []
    owners: list[int | None] = []  # block number of each line, None for blank lines between blocks
    specs: list[tuple[str, int, str]] = []
    if draw(st.booleans()):
        lines += draw(BLANK_LINES)
        owners += [None] * (len(lines) - len(owners))
    for number in range(count):
        choice = draw(st.sampled_from(["heading", "paragraph", "code", "table"]))
        last = number == count - 1
        kind, block_lines, level, title = draw(
            {
                "heading": heading_block(),
                "paragraph": paragraph_block(),
                "code": code_block(last),
                "table": table_block(),
            }[choice]
        )
        if specs and (not may_touch(specs[-1][0], kind) or draw(st.booleans())):
            blank = draw(BLANK_LINES)
            lines += blank
            owners += [None] * len(blank)
        lines += block_lines
        owners += [number] * len(block_lines)
        specs.append((kind, level, title))
    if draw(st.booleans()):
        blank = draw(BLANK_LINES)
        lines += blank
        owners += [None] * len(blank)
    final_break = draw(st.booleans())
    return assemble(lines, owners, specs, eol, final_break)


def assemble(
    lines: list[str], owners: list[int | None], specs: list[tuple[str, int, str]], eol: str, final_break: bool
) -> Built:
    """Join ``lines`` with ``eol`` and give every block the offsets its lines landed at."""
    text = eol.join(lines) + (eol if final_break and lines else "")
    placed: list[list[Line]] = [[] for _ in specs]
    position = 0
    for index, (content, owner) in enumerate(zip(lines, owners, strict=True)):
        end = position + len(content)
        after = end + len(eol) if index < len(lines) - 1 or final_break else end
        if owner is not None:
            placed[owner].append(Line(position, end, after))
        position = after
    blocks = []
    for (kind, level, title), block_lines in zip(specs, placed, strict=True):
        # an unclosed fence, or a code block ending in blank lines, ends at its last non-blank line
        while not text[block_lines[-1].start : block_lines[-1].end].strip():
            block_lines.pop()
        blocks.append(Block(kind, tuple(block_lines), level, title))
    return Built(text, tuple(blocks))


def built_from(*parts: str | tuple[str, list[str]] | tuple[str, list[str], int, str], eol: str = "\n") -> Built:
    """A hand-written document: a string is a blank line, a tuple a block (kind, lines[, level, title])."""
    lines: list[str] = []
    owners: list[int | None] = []
    specs: list[tuple[str, int, str]] = []
    for part in parts:
        if isinstance(part, str):
            lines.append(part)
            owners.append(None)
            continue
        kind, block_lines, *rest = part
        level, title = (rest[0], rest[1]) if rest else (0, "")
        owners += [len(specs)] * len(block_lines)
        lines += block_lines
        specs.append((kind, int(level), str(title)))
    return assemble(lines, owners, specs, eol, final_break=True)


# --- reading real documents ---------------------------------------------------------------------
# Real documents have no recorded structure, so they are read line by line with the CommonMark
# rules the definition names; tests check this reader against built documents first.

_HEADING_LINE = re.compile(r" {0,3}(#{1,6})(?:[ \t](.*))?")
_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_DELIMITER_ROW = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


def text_lines(text: str) -> list[Line]:
    """Lines split at ``\\n``; a ``\\r`` before the break is not content."""
    lines, position = [], 0
    while position < len(text):
        brk = text.find("\n", position)
        after = len(text) if brk < 0 else brk + 1
        end = after if brk < 0 else brk
        if end > position and text[end - 1] == "\r":
            end -= 1
        lines.append(Line(position, end, after))
        position = after
    return lines


def heading_parts(content: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line: closing ``#`` run and surrounding space removed."""
    match = _HEADING_LINE.fullmatch(content)
    if match is None:
        return None
    title = (match.group(2) or "").strip()
    if set(title) == {"#"}:
        title = ""
    elif title.endswith("#") and re.search(r"[ \t]#+$", title):
        title = title.rstrip("#").strip()
    return len(match.group(1)), title


def read_blocks(text: str) -> tuple[Block, ...]:
    """The blocks of a real document, read line by line."""
    lines = text_lines(text)
    contents = [text[line.start : line.end] for line in lines]

    def blank(i: int) -> bool:
        return not contents[i].strip()

    def opens_fence(i: int) -> str | None:
        match = _FENCE_LINE.fullmatch(contents[i])
        if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
            return None
        return match.group(1)

    def starts_table(i: int) -> bool:
        return (
            i + 1 < len(lines)
            and "|" in contents[i]
            and "|" in contents[i + 1]
            and bool(_DELIMITER_ROW.fullmatch(contents[i + 1]))
        )

    def interrupts(i: int) -> bool:
        return blank(i) or opens_fence(i) is not None or heading_parts(contents[i]) is not None or starts_table(i)

    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = opens_fence(i)
        heading = heading_parts(contents[i])
        if blank(i):
            i += 1
            continue
        if fence is not None:
            closing = re.compile(rf" {{0,3}}{re.escape(fence)}{re.escape(fence[0])}*\s*")
            stop = next((j + 1 for j in range(i + 1, len(lines)) if closing.fullmatch(contents[j])), len(lines))
            while blank(stop - 1):
                stop -= 1
            blocks.append(Block("code", tuple(lines[i:stop])))
        elif heading is not None:
            stop = i + 1
            blocks.append(Block("heading", (lines[i],), *heading))
        elif starts_table(i):
            stop = i + 2
            while stop < len(lines) and "|" in contents[stop] and not interrupts(stop):
                stop += 1
            blocks.append(Block("table", tuple(lines[i:stop])))
        else:
            stop = i + 1
            while stop < len(lines) and not interrupts(stop):
                stop += 1
            blocks.append(Block("paragraph", tuple(lines[i:stop])))
        i = stop
    return tuple(blocks)
