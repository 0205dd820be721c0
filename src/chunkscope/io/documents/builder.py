"""Build one extracted text and its map: blocks joined by a blank line, tables as Markdown rows.

Every block is rendered so that the structure-aware chunkers see it: a heading as ``## Title`` (one ``#`` per
level), a list item as ``- item`` indented two spaces per nesting level, a table as Markdown rows (header row,
separator row, body rows). Inline whitespace (spaces, tabs, newlines inside a block) collapses to one space.
"""

from __future__ import annotations

import re

from chunkscope.model import DocumentMap, Element, ElementKind

BLOCK_SEPARATOR = "\n\n"
"""Between two blocks (and between two PDF pages)."""

_WHITESPACE = re.compile(r"\s+")


def inline_text(text: str) -> str:
    """``text`` with every whitespace run as one space and no space at either end."""
    return _WHITESPACE.sub(" ", text).strip()


def table_cell(text: str) -> str:
    """A cell's text for a Markdown row: whitespace collapsed, ``|`` escaped as ``\\|``."""
    return inline_text(text).replace("|", "\\|")


class TextBuilder:
    """Appends blocks to one text and records where each lies."""

    def __init__(self, source_format: str) -> None:
        self.source_format = source_format
        self._parts: list[str] = []
        self._length = 0
        self._elements: list[Element] = []
        self._pages: list[tuple[int, int]] = []

    def _block(self, text: str) -> int:
        """Append ``text`` after a separator (none before the first block); its start."""
        return self._append(text, separated=bool(self._parts))

    def _append(self, text: str, separated: bool) -> int:
        if separated:
            self._parts.append(BLOCK_SEPARATOR)
            self._length += len(BLOCK_SEPARATOR)
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        return start

    def _element(self, kind: ElementKind, rendered: str, level: int = 0) -> None:
        start = self._block(rendered)
        self._elements.append(Element(kind, start, start + len(rendered), level=level))

    @property
    def length(self) -> int:
        """Characters so far."""
        return self._length

    def heading(self, text: str, level: int) -> None:
        """A heading of ``level`` (1 for the top), rendered ``#``-marked; nothing when its text is empty."""
        text = inline_text(text)
        if text:
            level = min(max(level, 1), 6)
            self._element("heading", "#" * level + " " + text, level)

    def paragraph(self, text: str) -> None:
        """A paragraph; nothing when its text is empty."""
        text = inline_text(text)
        if text:
            self._element("paragraph", text)

    def list_item(self, text: str, depth: int) -> None:
        """A list item nested ``depth`` lists deep (0 at the top); nothing when its text is empty."""
        text = inline_text(text)
        if text:
            self._element("list-item", "  " * depth + "- " + text, depth)

    def table(self, rows: list[list[str]]) -> None:
        """A table whose first row is its header; rows padded to the widest; nothing when it has no text."""
        cells = [[table_cell(cell) for cell in row] for row in rows]
        cells = [row for row in cells if any(row)]
        if not cells:
            return
        width = max(len(row) for row in cells)
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in cells]
        separator = "| " + " | ".join(["---"] * width) + " |"
        rendered = "\n".join([lines[0], separator, *lines[1:]])
        start = self._block(rendered)
        header = (start, start + len(lines[0]))
        rows_at: list[tuple[int, int]] = []
        position = header[1] + 1 + len(separator) + 1
        for line in lines[1:]:
            rows_at.append((position, position + len(line)))
            position += len(line) + 1
        self._elements.append(Element("table", start, start + len(rendered), header=header, rows=tuple(rows_at)))

    def page(self, text: str) -> None:
        """The text of the next PDF page (kept as given, possibly empty: its range is still recorded)."""
        start = self._append(text, separated=bool(self._pages))
        self._pages.append((start, self._length))

    def build(self) -> tuple[str, DocumentMap]:
        """The text and its map."""
        return "".join(self._parts), DocumentMap(self.source_format, tuple(self._pages), tuple(self._elements))
