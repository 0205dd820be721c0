"""PDF text by page, through pypdfium2 (PDFium).

Each page's text is PDFium's text with ``\\r\\n`` and ``\\r`` as ``\\n``, control characters (but ``\\n`` and
``\\t``) and the noncharacters U+FFFE/U+FFFF removed, and edge whitespace stripped. Pages are joined by a blank
line, and the map records each page's range.
"""

from __future__ import annotations

import re
from pathlib import Path

from chunkscope.errors import MissingExtraError
from chunkscope.io.documents import base
from chunkscope.io.documents.base import DocumentSkipped, check_text_size
from chunkscope.io.documents.builder import TextBuilder
from chunkscope.model import DocumentMap

_NEWLINES = re.compile(r"\r\n?")
_DROPPED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")


def page_text(raw: str) -> str:
    """One page's text as chunkscope keeps it (see the module docstring)."""
    return _DROPPED.sub("", _NEWLINES.sub("\n", raw)).strip()


def extract_pdf(path: Path) -> tuple[str, DocumentMap]:
    """Text and page ranges of the PDF ``path``; DocumentSkipped when encrypted, damaged, scanned or too large."""
    try:
        import pypdfium2
    except ImportError:
        raise MissingExtraError("reading .pdf files", "documents", "pypdfium2") from None
    try:
        pdf = pypdfium2.PdfDocument(str(path))
    except pypdfium2.PdfiumError as exc:
        raise DocumentSkipped(_open_failure(str(exc))) from None
    try:
        count = len(pdf)
        if count > base.MAX_PAGES:
            raise DocumentSkipped(f"too large: {count} pages, the limit is {base.MAX_PAGES}")
        builder = TextBuilder("pdf")
        for index in range(count):
            builder.page(_read_page(pdf, index))
            check_text_size(builder.length)
    finally:
        pdf.close()
    text, structure = builder.build()
    if not text.strip():
        raise DocumentSkipped(f"no text layer on any of its {count} pages (a scan? run OCR first)")
    return text, structure


def _read_page(pdf: object, index: int) -> str:
    import pypdfium2

    assert isinstance(pdf, pypdfium2.PdfDocument)
    try:
        page = pdf[index]
        try:
            textpage = page.get_textpage()
            try:
                return page_text(textpage.get_text_range())
            finally:
                textpage.close()
        finally:
            page.close()
    except pypdfium2.PdfiumError as exc:
        raise DocumentSkipped(f"damaged PDF: page {index + 1}: {exc}") from None


def _open_failure(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered:
        return "encrypted PDF (it needs a password): decrypt it first"
    return f"damaged PDF ({message.rstrip('.')})"
