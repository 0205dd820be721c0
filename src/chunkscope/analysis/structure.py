"""What a document's structure map says about a place in its text, as the inspector names it: the page labels
(``p. 12``, ``pp. 3–4``), the element kinds at block starts (``h2``, ``list``, ``table``), the page gold of a
question and where a header-severed row sits in its table. Pure reads of :class:`~chunkscope.model.DocumentMap`.
"""

from __future__ import annotations

from chunkscope.analysis.tables import SeveredRow, severed_rows
from chunkscope.model import Corpus, Document, Element, EvidenceItem
from chunkscope.results import QuestionResult

ELEMENT_LABELS = {"list-item": "list", "table": "table"}
"""Gutter label of each element kind besides headings (``h`` and the level); paragraphs, the plain case, have none."""


def element_label(element: Element) -> str:
    """``h2`` for a level-2 heading, ``list`` for a list item, ``table`` for a table, nothing for a paragraph."""
    if element.kind == "heading":
        return f"h{element.level}"
    return ELEMENT_LABELS.get(element.kind, "")


def structure_labels(document: Document) -> tuple[tuple[int, str], ...]:
    """``(offset, label)`` at each page start (``p. 3``) and each labelled element start, by offset; a page
    start comes before an element starting at the same offset. Empty for a document without a map."""
    structure = document.structure
    if structure is None:
        return ()
    pages = [(start, 0, f"p. {number}") for number, (start, _) in enumerate(structure.pages, start=1)]
    elements = [(element.start, 1, element_label(element)) for element in structure.elements]
    return tuple((offset, label) for offset, _, label in sorted(pages + elements) if label)


def page_span_label(document: Document, start: int, end: int) -> str:
    """``p. 3`` or ``pp. 3–4``: the pages ``[start, end)`` shares a character with; nothing when it touches none."""
    pages = document.structure.pages_of(start, end) if document.structure is not None else None
    if pages is None:
        return ""
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}–{last}"


def page_gold_labels(evidence: tuple[EvidenceItem, ...]) -> tuple[str, ...]:
    """``p. 12 of report.pdf`` for each page an evidence item names (``or`` between an item's pages)."""
    return tuple(" or ".join(f"p. {page.page} of {page.doc}" for page in item.pages) for item in evidence if item.pages)


def severed_row_place(document: Document, row: SeveredRow) -> tuple[int, int] | None:
    """``(table, row)``, both 1-based: which table of ``document`` holds the severed ``row`` and which body row of
    it the row is; None when the map holds no such row."""
    tables = document.structure.tables if document.structure is not None else ()
    for table_number, table in enumerate(tables, start=1):
        if table.header == row.header and (row.start, row.end) in table.rows:
            return table_number, table.rows.index((row.start, row.end)) + 1
    return None


def severed_in_document(result: QuestionResult | None, document: Document) -> tuple[SeveredRow, ...]:
    """The header-severed rows of ``result`` (:func:`~chunkscope.analysis.tables.severed_rows`) that lie in
    ``document``; none without a result or a table."""
    if result is None or document.structure is None or not document.structure.tables:
        return ()
    return severed_rows(result, Corpus((document,)))
