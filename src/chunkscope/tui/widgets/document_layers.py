"""What the document view draws, computed from the document, its chunks and a question's result, before any
widget: the chunk layer (shading, boundary glyphs, wrapping; shared by every question on the same chunks) and a
question's render state (gold, cuts, ranks and the lines laid out for them), each cached by the view.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import count

import numpy as np
from textual.cache import LRUCache

from chunkscope.analysis.marks import ChunkLayout, RankMark, TextMarks, chunk_layout, document_marks
from chunkscope.analysis.structure import severed_in_document, structure_labels
from chunkscope.model import Chunk, Document, Question
from chunkscope.results import QuestionResult
from chunkscope.tui.cells import WrappedText, rewrap_text, visible, word_start, wrap_text
from chunkscope.tui.widgets._marked_text import (
    Glyph,
    MarkedText,
    extra_cells,
    marker_glyphs,
    overlay_codes,
    shading_codes,
)

_serials = count(1)

SEVERED_TAG = "⊣"
"""Gutter mark of a table row delivered without its header row (a table's gutter column holds ``table``)."""


@dataclass(eq=False)
class ChunkLayer:
    """What depends on the document and its chunks only: shared by every question on it.

    Holds the chunks so their id stays unique while the layer is cached.
    """

    document: Document
    chunks: object
    layout: ChunkLayout
    display: str
    codes: np.ndarray
    glyphs: dict[int, list[Glyph]]
    extra_cells: np.ndarray
    breaks: tuple[int, ...]
    """Starts of the recorded paragraphs (hard line breaks besides the terminators)."""
    labels: tuple[tuple[int, str], ...] = ()
    """The structure map's gutter labels (``p. 3`` at page starts, ``h2``/``list``/``table`` at element starts),
    by offset; empty for a document without a map."""
    layouts: dict[int, WrappedText] = field(default_factory=dict)

    @property
    def label_cells(self) -> int:
        """Cells of the gutter's structure column: the widest label, 0 without labels."""
        return max((len(label) for _, label in self.labels), default=0)

    def wrapped(self, width: int) -> WrappedText:
        """The document wrapped with the boundary glyphs only (once per width)."""
        if width not in self.layouts:
            if len(self.layouts) > 4:
                self.layouts.clear()
            self.layouts[width] = wrap_text(self.document.text, width, self.extra_cells, breaks=self.breaks)
        return self.layouts[width]

    def starts_paragraph(self, layout: WrappedText, line: int) -> bool:
        """``line`` is the first of a paragraph: the first line, after a terminator, or at a recorded start."""
        if line == 0:
            return True
        start = int(layout.starts[line])
        previous_end = int(layout.ends[line - 1])
        if self.document.text[previous_end : previous_end + 1] in ("\r", "\n"):
            return True
        index = bisect.bisect_left(self.breaks, start)
        return index < len(self.breaks) and self.breaks[index] == start


@dataclass(eq=False)
class RenderState:
    """What one show() call displays: its marks and the marked text.

    Holds the shown objects so their ids stay unique while the state is cached.
    """

    layer: ChunkLayer
    question: Question | None
    result: QuestionResult | None
    marks: TextMarks
    text: MarkedText
    extra_cells: np.ndarray
    rank_cells: int
    """Cells of the gutter's rank column (0 without ranks): the widest tag of the result and ``+``."""
    severed: tuple[int, ...] = ()
    """Starts of the table rows the result delivered without their header row (the core's ``header-severed``)."""
    serial: int = field(default_factory=lambda: next(_serials))
    layouts: dict[int, WrappedText] = field(default_factory=dict)
    tags: dict[int, dict[int, Glyph]] = field(default_factory=dict)
    structure_tags_by_width: dict[int, dict[int, str]] = field(default_factory=dict)

    @property
    def document(self) -> Document:
        return self.layer.document

    def layout(self, width: int) -> WrappedText:
        """Line starts for ``width`` cells of text: the chunk layer's, re-wrapped where glyphs
        differ and so that each ranked chunk starts a line."""
        if width not in self.layouts:
            if len(self.layouts) > 4:
                self.layouts.clear()
                self.tags.clear()
            base = self.layer.wrapped(width)
            self.layouts[width] = rewrap_text(
                self.document.text,
                width,
                self.extra_cells,
                base,
                self.layer.extra_cells,
                breaks=self.layer.breaks,
                forced=self.rank_breaks(),
            )
        return self.layouts[width]

    def rank_breaks(self) -> tuple[int, ...]:
        """Where the lines of the ranked chunks start: at each chunk's start, or at the start of the word
        it falls inside (:func:`word_start`), so no word is split; its boundary mark stays inside the word."""
        text, breaks = self.document.text, self.layer.breaks
        starts = set()
        for rank in self.marks.ranks:
            index = bisect.bisect_right(breaks, rank.offset)
            starts.add(word_start(text, rank.offset, breaks[index - 1] if index else 0))
        return tuple(sorted(starts))

    def rank_tags(self, width: int) -> dict[int, Glyph]:
        """The gutter's rank tag per line at ``width``: the best rank starting on it, ``+`` when more do."""
        if width not in self.tags:
            layout = self.layout(width)
            by_line: dict[int, list[RankMark]] = {}
            for rank in self.marks.ranks:
                by_line.setdefault(layout.line_of(rank.offset), []).append(rank)
            self.tags[width] = {line: rank_tag(ranks) for line, ranks in by_line.items()}
        return self.tags[width]

    def structure_tags(self, width: int) -> dict[int, str]:
        """The gutter's structure label per line at ``width``: ``⊣`` on a header-severed row's first line, else the
        first label whose offset is on the line."""
        if width not in self.structure_tags_by_width:
            if len(self.structure_tags_by_width) > 4:
                self.structure_tags_by_width.clear()
            layout = self.layout(width)
            by_line: dict[int, str] = {layout.line_of(start): SEVERED_TAG for start in self.severed}
            for offset, label in self.layer.labels:
                by_line.setdefault(layout.line_of(offset), label)
            self.structure_tags_by_width[width] = by_line
        return self.structure_tags_by_width[width]


def rank_tag(ranks: Sequence[RankMark]) -> Glyph:
    """``●#n`` (delivered) or ``○#n`` for the best of ``ranks``, with ``+`` when there are more."""
    best = min(ranks, key=lambda r: r.rank)
    more = "+" if len(ranks) > 1 else ""
    if best.delivered:
        return f"●#{best.rank}{more}", "rank-delivered"
    return f"○#{best.rank}{more}", "rank"


def rank_column_cells(result: QuestionResult | None) -> int:
    """Cells for any rank tag of ``result`` (``●#`` + the digits of its deepest rank + ``+``), 0 without hits."""
    deepest = max((hit.rank for hit in result.ranked), default=0) if result is not None else 0
    return 3 + len(str(deepest)) if deepest else 0


def render_state(
    layers: LRUCache[Hashable, ChunkLayer],
    document: Document,
    chunks: Sequence[Chunk],
    result: QuestionResult | None,
    question: Question | None,
) -> RenderState:
    """What showing ``document`` with ``chunks`` and ``question``'s marks under ``result`` displays; the chunk
    layer (the same for every question on these chunks) comes from ``layers`` or is built into it."""
    length = len(document.text)
    layer_key = (document.id, id(chunks))
    layer = layers.get(layer_key)
    if layer is None or layer.document is not document:
        layout = chunk_layout(chunks, document.id)
        bare = TextMarks(document.id, 0, length, layout.extents, layout.overlaps, layout.boundaries)
        boundary_glyphs = marker_glyphs(bare, boundaries=True, ranks=False)
        layer = ChunkLayer(
            document=document,
            chunks=chunks,
            layout=layout,
            display=visible(document.text),
            codes=shading_codes(layout.extents, 0, length),
            glyphs=boundary_glyphs,
            extra_cells=extra_cells(boundary_glyphs, 0, length),
            breaks=tuple(sorted({start for start, _ in document.paragraphs or ()})),
            labels=structure_labels(document),
        )
        layers.set(layer_key, layer)
    marks = document_marks(document, chunks, question, result, layout=layer.layout)
    # rank tags go in the gutter, never between characters
    glyphs = marker_glyphs(marks, boundaries=True, ranks=False)
    return RenderState(
        layer=layer,
        question=question,
        result=result,
        marks=marks,
        text=MarkedText(0, layer.display, overlay_codes(layer.codes, marks, 0), glyphs, sorted(glyphs)),
        extra_cells=extra_cells(glyphs, 0, length, base=(layer.glyphs, layer.extra_cells)),
        rank_cells=rank_column_cells(result),
        severed=tuple(row.start for row in severed_in_document(result, document)),
    )
