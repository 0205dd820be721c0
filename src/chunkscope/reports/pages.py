"""Page numbers in reports: ``p. 12`` for a range of an extracted PDF (nothing for other documents)."""

from __future__ import annotations

from typing import Any

from chunkscope.model import Corpus


def has_pages(corpus: Corpus) -> bool:
    """True when some document's map records pages (only then do reports name pages)."""
    return any(d.structure is not None and d.structure.pages for d in corpus.documents)


def page_range(corpus: Corpus, doc: str, start: int, end: int) -> tuple[int, int] | None:
    """First and last page of ``doc`` that ``[start, end)`` shares a character with; None without pages."""
    document = corpus.by_id.get(doc)
    if document is None or document.structure is None:
        return None
    return document.structure.pages_of(start, end)


def page_label(corpus: Corpus, doc: str, start: int, end: int) -> str:
    """``p. 12``, ``pp. 12-13``, or nothing when the range lies on no page."""
    pages = page_range(corpus, doc, start, end)
    if pages is None:
        return ""
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}-{last}"


def add_pages(question: dict[str, Any], corpus: Corpus) -> None:
    """Give each delivered chunk and each cut of a question's JSON its ``pages`` ([first, last], code-point
    offsets read before any conversion), where its document has pages."""
    for entry in (*question["delivered"], *question["cuts"]):
        pages = page_range(corpus, entry["doc"], entry["start"], entry["end"])
        if pages is not None:
            entry["pages"] = list(pages)
