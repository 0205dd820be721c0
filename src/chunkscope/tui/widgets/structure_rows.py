"""What the ranked chunks say about an extracted document's structure: the pages a hit lies on and the table rows
it delivered without their header (the core's ``header-severed`` rows, :mod:`chunkscope.analysis.tables`).
Documents without a structure map add nothing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.segment import Segment
from textual.strip import Strip

from chunkscope.analysis.structure import page_gold_labels, page_span_label, severed_row_place
from chunkscope.analysis.tables import SeveredRow, severed_rows
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import QuestionResult, RankedChunk
from chunkscope.tui.widgets.component_styles import ComponentStyles
from chunkscope.tui.widgets.text_window import INDENT

SEVERED_MARK = "⊣"
"""Marks a delivered table row whose header row was not delivered."""


def page_note(chunk: Chunk, corpus: Corpus) -> str:
    """`` · p. 3`` or `` · pp. 3–4`` for a chunk of a document with pages, else nothing."""
    document = corpus.by_id.get(chunk.doc)
    label = page_span_label(document, chunk.start, chunk.end) if document is not None else ""
    return f" · {label}" if label else ""


def severed_lines(hit: RankedChunk, result: QuestionResult, corpus: Corpus) -> list[str]:
    """``⊣ header severed: row 3 of table 1 (161–185) delivered without its header (101–117)`` for each severed row
    the core attributes to ``hit`` (the first delivered chunk holding part of the row)."""
    return [_severed_line(row, corpus) for row in severed_rows(result, corpus) if row.rank == hit.rank]


def _severed_line(row: SeveredRow, corpus: Corpus) -> str:
    document = corpus.by_id[row.doc]
    place = severed_row_place(document, row)
    which = f"row {place[1]} of table {place[0]}" if place is not None else "a table row"
    pages = page_span_label(document, row.start, row.end)
    where = f" on {pages}" if pages else ""
    return (
        f"{SEVERED_MARK} header severed: {which}{where} ({row.start}–{row.end}) delivered without its header "
        f"({row.header[0]}–{row.header[1]})"
    )


def severed_strips(
    hit: RankedChunk, result: QuestionResult, corpus: Corpus, width: int, styles: ComponentStyles
) -> list[Strip]:
    """:func:`severed_lines` as detail rows of the hit, each wrapped to the pane (continuation rows indented)."""
    room = max(8, width - INDENT - 1)
    strips = []
    for line in severed_lines(hit, result, corpus):
        # at spaces only: ``(101–117)`` stays whole (the line is ASCII and box glyphs, a cell a character)
        for index, part in enumerate(textwrap.wrap(line, room, break_on_hyphens=False)):
            indent = " " * (INDENT - 1 + (2 if index else 0))
            segment = Segment(indent + part, styles.component("severed"))
            strips.append(Strip([segment]).crop_extend(0, width, styles.base))
    return strips


def page_gold_lines(question: Question, sides: Sequence[tuple[str, QuestionResult]]) -> list[str]:
    """``gold: p. 12 of report.pdf ✓ page delivered`` for each item naming pages, the verdict being the result's
    page hit for the item; with named sides (the split view), each side's: ``· A ✓ page delivered · B ✗ …``."""
    lines = []
    for index, label in enumerate(page_gold_labels(question.evidence)):
        verdicts = []
        for name, result in sides:
            if index < len(result.page_hits):
                verdict = "✓ page delivered" if result.page_hits[index] else "✗ page not delivered"
                verdicts.append(f"{name} {verdict}" if name else verdict)
        joiner = " · " if any(name for name, _ in sides) else " "
        lines.append(joiner.join([f"gold: {label}", *verdicts]))
    return lines
