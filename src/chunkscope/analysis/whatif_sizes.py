"""The smallest size above the current one at which ``recursive`` or ``markdown`` keeps a span whole.

Whether a span is whole is not monotone in the size (a larger size can merge pieces differently
and cut where a smaller one did not), so the answer is defined as the *first* size ``s' > s``, in
increasing order, at which the chunker's output over the span's document has a chunk containing
the span, with every other parameter unchanged.

The search never tries every size. Both chunkers decide everything by comparing lengths of spans
of the document with the size, and otherwise only cut fixed windows (``recursive`` at its
character level, ``markdown`` inside an over-long paragraph or line). Chunking at size ``m``
therefore also tells where its decisions can next change: at the smallest length compared with
``m`` that exceeded it (a comparison ``x <= m`` that failed holds from ``m' = x`` on; one that
held keeps holding). Below that size only the windows change, and a window holds the span
exactly when the fixed-window rule (:mod:`chunkscope.analysis.whatif_fixed`) says so, for the
windowed segment that contains the span. The next size tried is the smaller of the two; each
try chunks only the span's document with the real chunker, so a size is reported only when
that chunking holds the span.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from chunkscope.analysis.whatif_fixed import smallest_size as smallest_window_size
from chunkscope.chunkers.markdown import MarkdownChunker, block_lines, parse_blocks, sections
from chunkscope.chunkers.measure import window_spans
from chunkscope.chunkers.recursive import recursive_spans
from chunkscope.model import Document

__all__ = ["NotedSize", "smallest_markdown_size", "smallest_recursive_size", "smallest_size_by_events"]


class NotedSize(int):
    """A size that notes the smallest length compared with it that exceeds it.

    The chunkers compare plain ints with their size (``length <= size``, ``length > size``); a
    subclass on the right of such a comparison is asked first, so every comparison passes here.
    """

    exceeded: int | None

    def __new__(cls, value: int) -> NotedSize:
        noted = super().__new__(cls, value)
        noted.exceeded = None
        return noted

    def _note(self, other: object) -> None:
        if isinstance(other, int) and other > int(self) and (self.exceeded is None or other < self.exceeded):
            self.exceeded = int(other)

    def __lt__(self, other: object) -> bool:
        self._note(other)
        return int(self) < other  # type: ignore[operator]

    def __le__(self, other: object) -> bool:
        self._note(other)
        return int(self) <= other  # type: ignore[operator]

    def __gt__(self, other: object) -> bool:
        self._note(other)
        return int(self) > other  # type: ignore[operator]

    def __ge__(self, other: object) -> bool:
        self._note(other)
        return int(self) >= other  # type: ignore[operator]

    def __hash__(self) -> int:
        return int.__hash__(self)


@dataclass(slots=True)
class Outcome:
    """One chunking of the span's document at one size."""

    spans: Sequence[tuple[int, int]]
    exceeded: int | None
    """The smallest compared length above the size (None: no decision can change at a larger size)."""
    windowed: Iterable[tuple[int, int]] = field(default=())
    """Segments cut into fixed windows of the size (only those holding the span matter)."""


def smallest_size_by_events(
    start: int, end: int, size: int, overlap: int, chunk_at: Callable[[int], Outcome]
) -> int | None:
    """The first size above ``size`` whose chunking (``chunk_at``) holds ``[start, end)``; None when none does."""
    candidate = size + 1
    while True:
        outcome = chunk_at(candidate)
        if any(s <= start and end <= e for s, e in outcome.spans):
            return candidate
        following = [] if outcome.exceeded is None else [outcome.exceeded]
        for segment_start, segment_end in outcome.windowed:
            if segment_start <= start and end <= segment_end:
                window_size = smallest_window_size(start - segment_start, end - segment_start, candidate, overlap)
                if window_size is not None:
                    following.append(window_size)
        if not following:
            return None
        candidate = min(following)


class _WindowNotingMeasure:
    """Character lengths; notes every segment cut into fixed windows."""

    def __init__(self) -> None:
        self.windowed: list[tuple[int, int]] = []

    def length(self, start: int, end: int) -> int:
        return end - start

    def windows(self, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
        self.windowed.append((start, end))
        return window_spans(end - start, int(size), overlap, start)


def smallest_recursive_size(text: str, start: int, end: int, size: int, overlap: int) -> int | None:
    """The first size above ``size`` at which ``recursive`` (characters, ``overlap``) holds the span of ``text``."""

    def chunk_at(candidate: int) -> Outcome:
        noted = NotedSize(candidate)
        measure = _WindowNotingMeasure()
        spans = recursive_spans(text, noted, overlap, measure)
        return Outcome(spans, noted.exceeded, measure.windowed)

    return smallest_size_by_events(start, end, size, overlap, chunk_at)


def smallest_markdown_size(document: Document, start: int, end: int, chunker: MarkdownChunker) -> int | None:
    """The first ``max_chars`` above the chunker's at which ``markdown`` holds the span of ``document``."""
    segments = markdown_window_segments(document.text, start, end, chunker.levels)

    def chunk_at(candidate: int) -> Outcome:
        noted = NotedSize(candidate)
        trial = MarkdownChunker(max_chars=noted, levels=chunker.levels, prefix=chunker.prefix)
        spans = [(c.start, c.end) for c in trial.chunk_document(document)]
        return Outcome(spans, noted.exceeded, [s for s in segments if s[1] - s[0] > candidate])

    return smallest_size_by_events(start, end, chunker.max_chars, 0, chunk_at)


def markdown_window_segments(text: str, start: int, end: int, levels: int) -> list[tuple[int, int]]:
    """The paragraph blocks and lines holding ``[start, end)``: what ``markdown`` can cut into windows there."""
    segments = []
    for _, section_start, section_end, after in sections(text, levels):
        if section_end < start or section_start > end:
            continue
        for block in parse_blocks(text, section_start, after):
            if not block.start <= start < end <= block.end:
                continue
            if block.kind == "paragraph":
                segments.append((block.start, block.end))
            segments.extend((line.start, line.end) for line in block_lines(text, block) if line.start <= start)
    return [s for s in segments if s[0] <= start and end <= s[1]]
