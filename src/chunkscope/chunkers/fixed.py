"""Fixed-size character windows, optionally overlapping."""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkscope.chunkers.base import chunkers, make_chunk
from chunkscope.model import Chunk, Document


@chunkers.register("fixed")
@dataclass(frozen=True, slots=True)
class FixedChunker:
    """Windows of ``size`` characters starting at 0 and advancing by ``size - overlap``.

    Stops as soon as a window reaches the end of the document, so no trailing
    window lies inside the previous one; the last window may be short.
    """

    size: int = field(default=400, metadata={"always_show": True})
    overlap: int = 0

    def __post_init__(self) -> None:
        check_window(self.size, self.overlap)

    def chunk_document(self, document: Document) -> list[Chunk]:
        return [
            make_chunk(document, i, start, end)
            for i, (start, end) in enumerate(window_spans(len(document.text), self.size, self.overlap))
        ]


def check_window(size: int, overlap: int) -> None:
    """Reject sizes below 1, negative overlaps and overlaps not smaller than the size."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    if overlap < 0:
        raise ValueError(f"overlap must not be negative, got {overlap}")
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be smaller than size ({size})")


def window_spans(length: int, size: int, overlap: int, offset: int = 0) -> list[tuple[int, int]]:
    """Spans of the fixed windows over ``length`` characters, shifted by ``offset``."""
    step = size - overlap
    spans = []
    start = 0
    while start < length:
        end = min(start + size, length)
        spans.append((offset + start, offset + end))
        if end == length:
            break
        start += step
    return spans
