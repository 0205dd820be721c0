"""Table rows delivered without their header: the cut kind ``header-severed``.

Where a document's map (PDF, HTML or DOCX extraction) says a block is a table, each body row is a line
``| 1 | 2 |`` and the header row the line above the separator. A **delivered row** is a body row that some
delivered body shares at least one character with. Its header **was delivered** when some delivered body of the
same document holds the whole header line, or when a delivered chunk holding part of the row carries the header
line in its prefix (the markdown chunker's repeated table header). A delivered row whose header was not delivered
is *header-severed*: the model reads ``| Laptop | 20 |`` without knowing what 20 is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chunkscope.model import Corpus, Element
from chunkscope.results import DeliveredChunk, QuestionResult

CUT_KIND = "header-severed"
"""The name of this kind of cut in reports and the failure detail."""


@dataclass(frozen=True, slots=True)
class SeveredRow:
    """A delivered table row whose header row was not delivered."""

    doc: str
    """Id of the document."""
    start: int
    """First character of the row line."""
    end: int
    """One past the row line's last character."""
    header: tuple[int, int]
    """The table's header row line, which no delivered body held whole and no holding chunk's prefix repeated."""
    rank: int
    """Rank of the first delivered chunk holding part of the row."""


def has_tables(corpus: Corpus) -> bool:
    """True when some document's map holds a table (only then are rows checked and reported)."""
    return any(d.structure is not None and d.structure.tables for d in corpus.documents)


def severed_rows(result: QuestionResult, corpus: Corpus) -> tuple[SeveredRow, ...]:
    """The delivered table rows of ``result`` whose header row was not delivered, in delivery then text order."""
    by_doc: dict[str, list[DeliveredChunk]] = {}
    for delivered in result.delivered:
        by_doc.setdefault(delivered.chunk.doc, []).append(delivered)
    severed: list[SeveredRow] = []
    for doc, sent in by_doc.items():
        document = corpus.by_id.get(doc)
        if document is None or document.structure is None:
            continue
        for table in document.structure.tables:
            if not any(d.start < table.end and table.start < d.end for d in sent):
                continue
            severed.extend(_severed_in(table, doc, document.text, sent))
    return tuple(severed)


def _severed_in(table: Element, doc: str, text: str, sent: Sequence[DeliveredChunk]) -> list[SeveredRow]:
    header = table.header
    if header is None or any(d.start <= header[0] and header[1] <= d.end for d in sent):
        return []
    header_line = text[header[0] : header[1]]
    rows = []
    for start, end in table.rows:
        holders = [d for d in sent if d.start < end and start < d.end]
        if holders and not any(header_line in d.chunk.prefix for d in holders):
            rows.append(SeveredRow(doc, start, end, header, min(d.rank for d in holders)))
    return rows


def severed_detail(rows: Sequence[SeveredRow], offset: Callable[[str, int], int] | None = None) -> str:
    """``header-severed: doc 120-135 (#2), ...``: each severed row with the rank of the chunk that delivered it."""
    write = offset or (lambda doc, position: position)
    places = ", ".join(f"{row.doc} {write(row.doc, row.start)}-{write(row.doc, row.end)} (#{row.rank})" for row in rows)
    return f"{CUT_KIND}: table rows delivered without their header row: {places}"


def severed_dict(row: SeveredRow, offset: Callable[[str, int], int] | None = None) -> dict[str, object]:
    """A row as JSON: ``kind``, ``doc``, ``start``, ``end``, ``header_start``, ``header_end``, ``rank``."""
    write = offset or (lambda doc, position: position)
    return {
        "kind": CUT_KIND,
        "doc": row.doc,
        "start": write(row.doc, row.start),
        "end": write(row.doc, row.end),
        "header_start": write(row.doc, row.header[0]),
        "header_end": write(row.doc, row.header[1]),
        "rank": row.rank,
    }
