"""Turning :class:`chunkscope.analysis.marks.TextMarks` into styled segments, shared by the text widgets.

A marked text is the original characters, each with a style code (bits saying
which marks cover it), plus marker glyphs inserted before some offsets. Glyphs
take cells, so wrapping counts them (:func:`extra_cells`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from chunkscope.analysis.marks import ChunkExtent, TextMarks
from chunkscope.arrays import run_positions

ODD = 1
OVERLAP = 2
GAP = 4
GOLD = 8
GOLD_PARTIAL = 16
QUERY = 32
DUPLICATE = 64
DELIVERED = 128
UNSENT = 256

BOUNDARY_GLYPHS = {"join": "│", "start": "│", "end": "│", "overlap-start": "«", "overlap-end": "»"}

Glyph = tuple[str, str]
"""Text of an inserted marker and its kind (the widget maps kinds to component classes)."""


def style_codes(marks: TextMarks, start: int, end: int, shading: bool) -> np.ndarray:
    """One style code per character of ``[start, end)`` (index 0 is ``start``).

    With ``shading``, chunk parity, overlap and gap bits from the chunk extents.
    """
    codes = shading_codes(marks.chunks, start, end) if shading else np.zeros(end - start, dtype=np.uint16)
    return overlay_codes(codes, marks, start)


def shading_codes(chunks: Sequence[ChunkExtent], start: int, end: int) -> np.ndarray:
    """Codes with only the chunk bits: parity of the covering chunk, overlap (>= 2 chunks), gap (none)."""
    length = end - start
    codes = np.zeros(length, dtype=np.uint16)
    if not chunks:
        return codes
    depth = _coverage_depth([(c.start - start, c.end - start) for c in chunks], length)
    codes[depth == 0] |= GAP
    codes[depth >= 2] |= OVERLAP
    # parity only where odd chunks alone cover: overlaps have a style of their own
    odd = _coverage_depth([(c.start - start, c.end - start) for c in chunks if c.ordinal % 2], length)
    codes[(odd > 0) & (depth == odd)] |= ODD
    return codes


def overlay_codes(codes: np.ndarray, marks: TextMarks, start: int) -> np.ndarray:
    """A copy of ``codes`` with the question's bits: gold, query, duplicate, delivered, unsent."""
    codes = codes.copy()
    length = len(codes)
    for gold in marks.gold:
        codes[max(gold.start - start, 0) : max(gold.end - start, 0)] |= GOLD if gold.whole else GOLD_PARTIAL
    for bit, ranges in (
        (QUERY, marks.query_matches),
        (DUPLICATE, marks.duplicates),
        (DELIVERED, marks.delivered),
        (UNSENT, marks.unsent),
    ):
        if len(ranges) > 16:
            codes[_positions(ranges, start, length)] |= bit
        else:
            for range_start, range_end in ranges:
                codes[max(range_start - start, 0) : max(range_end - start, 0)] |= bit
    return codes


def _positions(ranges: Sequence[tuple[int, int]], start: int, length: int) -> np.ndarray:
    """Every position covered by ``ranges`` (shifted by ``-start``, clipped to ``[0, length)``).

    Costs the covered length, not the text length: documents have thousands of
    short query matches.
    """
    bounds = np.clip(np.array(ranges, dtype=np.int64) - start, 0, length)
    lengths = bounds[:, 1] - bounds[:, 0]
    keep = lengths > 0
    bounds, lengths = bounds[keep], lengths[keep]
    if not lengths.size:
        return np.zeros(0, dtype=np.int64)
    return run_positions(bounds[:, 0], lengths)


def _coverage_depth(ranges: Sequence[tuple[int, int]], length: int) -> np.ndarray:
    """How many of ``ranges`` (clipped to ``[0, length)``) cover each position."""
    depth = np.zeros(length + 1, dtype=np.int32)
    if ranges:
        bounds = np.clip(np.array(ranges, dtype=np.int64), 0, length)
        np.add.at(depth, bounds[:, 0], 1)
        np.add.at(depth, bounds[:, 1], -1)
    return np.cumsum(depth)[:length]


def marker_glyphs(marks: TextMarks, boundaries: bool, ranks: bool) -> dict[int, list[Glyph]]:
    """Glyphs to insert before offsets, in display order: gold ends ``⟧``, then the
    boundary (``✂`` when it cuts gold), then rank badges, then gold starts ``⟦``.

    A gold span that continues past the marked range gets no bracket there: the
    ``✂`` at the range edge says it was cut. Boundaries at the very start and end
    of the range are drawn only when they are cuts.
    """
    glyphs: dict[int, list[Glyph]] = {}

    def add(offset: int, glyph: Glyph) -> None:
        glyphs.setdefault(offset, []).append(glyph)

    cuts = set(marks.cuts)
    for gold in sorted(marks.gold, key=lambda g: g.end):
        if gold.end == gold.span.end:
            add(gold.end, ("⟧", "gold" if gold.whole else "gold-cut"))
    edges = {marks.start, marks.end}
    drawn: set[int] = set()
    for boundary in marks.boundaries:
        if boundary.offset in cuts:
            add(boundary.offset, ("✂", "cut"))
            drawn.add(boundary.offset)
        elif boundaries and boundary.offset not in edges:
            add(boundary.offset, (BOUNDARY_GLYPHS[boundary.kind], "boundary"))
    for offset in sorted(cuts - drawn):
        add(offset, ("✂", "cut"))
    if ranks:
        for rank in marks.ranks:
            add(rank.offset, (f"●#{rank.rank}", "rank-delivered") if rank.delivered else (f"○#{rank.rank}", "rank"))
    for gold in marks.gold:
        if gold.start == gold.span.start:
            add(gold.start, ("⟦", "gold" if gold.whole else "gold-cut"))
    return glyphs


def extra_cells(
    glyphs: dict[int, list[Glyph]],
    start: int,
    end: int,
    base: tuple[dict[int, list[Glyph]], np.ndarray] | None = None,
) -> np.ndarray:
    """Cells of glyphs before each offset of ``[start, end]`` (index 0 is ``start``), for wrapping.

    ``base`` (other glyphs and their extra cells over the same range) is copied and
    only the offsets whose glyphs differ are measured.
    """
    if base is None:
        # A few cells each: int32 halves the largest array a prepared question keeps.
        extra = np.zeros(end - start + 1, dtype=np.int32)
        changed: Iterable[int] = glyphs.keys()
    else:
        base_glyphs, base_extra = base
        extra = base_extra.copy()
        changed = [o for o in glyphs.keys() | base_glyphs.keys() if glyphs.get(o) != base_glyphs.get(o)]
    for offset in changed:
        if start <= offset <= end:
            extra[offset - start] = sum(cell_len(text) for text, _ in glyphs.get(offset, ()))
    return extra


@dataclass(frozen=True, slots=True)
class MarkedText:
    """A stretch of document text ready to render: display characters, codes and glyphs."""

    base: int
    """Document offset of ``display[0]``."""
    display: str
    """The characters to show (control characters made visible, terminators kept)."""
    codes: np.ndarray
    """Style code of each character."""
    glyphs: dict[int, list[Glyph]]
    """Glyphs inserted before document offsets."""
    glyph_offsets: list[int]
    """Sorted keys of ``glyphs``."""

    def segments(
        self,
        start: int,
        text_end: int,
        owned_end: int,
        code_style: Callable[[int], Style],
        glyph_style: Callable[[str], Style],
    ) -> list[Segment]:
        """Segments for characters ``[start, text_end)`` and the glyphs before offsets ``[start, owned_end)``."""
        segments: list[Segment] = []
        first = bisect.bisect_left(self.glyph_offsets, start)
        last = bisect.bisect_left(self.glyph_offsets, owned_end)
        cursor = start
        for offset in [*self.glyph_offsets[first:last], None]:
            stop = text_end if offset is None else min(offset, text_end)
            if stop > cursor:
                self._text(cursor, stop, code_style, segments)
                cursor = stop
            if offset is not None:
                segments.extend(Segment(text, glyph_style(kind)) for text, kind in self.glyphs[offset])
        return segments

    def _text(self, start: int, stop: int, code_style: Callable[[int], Style], segments: list[Segment]) -> None:
        codes = self.codes[start - self.base : stop - self.base]
        changes = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        run_start = 0
        for run_end in [*changes.tolist(), len(codes)]:
            text = self.display[start - self.base + run_start : start - self.base + run_end]
            segments.append(Segment(text, code_style(int(codes[run_start]))))
            run_start = run_end
