"""Paragraph chunks: recorded paragraph spans, or blank-line separated blocks."""

from __future__ import annotations

from dataclasses import dataclass

from chunkscope.chunkers.base import chunkers, make_chunk
from chunkscope.model import Chunk, Document


@chunkers.register("paragraph")
@dataclass(frozen=True, slots=True)
class ParagraphChunker:
    """One chunk per paragraph.

    Uses the paragraph spans the loader recorded (SQuAD paragraphs) when the
    document has them; otherwise maximal runs of non-blank lines, where the
    blank lines and the line break before them belong to no chunk.
    """

    def chunk_document(self, document: Document) -> list[Chunk]:
        spans = document.paragraphs if document.paragraphs is not None else block_spans(document.text)
        return [make_chunk(document, i, s, e) for i, (s, e) in enumerate(spans) if e > s]


def block_spans(text: str) -> list[tuple[int, int]]:
    """Spans of maximal runs of non-blank lines (a blank line holds only whitespace)."""
    spans: list[tuple[int, int]] = []
    block_start: int | None = None
    block_end = 0
    position = 0
    for line in text_lines(text):
        content = line.rstrip("\r\n")
        if content.strip():
            if block_start is None:
                block_start = position
            block_end = position + len(content)
        elif block_start is not None:
            spans.append((block_start, block_end))
            block_start = None
        position += len(line)
    if block_start is not None:
        spans.append((block_start, block_end))
    return spans


def text_lines(text: str) -> list[str]:
    """Lines split at ``\n`` only, each keeping its terminator (CRLF stays intact)."""
    lines = text.split("\n")
    with_ends = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        with_ends.append(lines[-1])
    return with_ends
