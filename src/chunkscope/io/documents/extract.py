"""One file to text and map: the extractor of its format, after the size bound."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chunkscope.io.documents import base
from chunkscope.io.documents.base import DocumentSkipped, document_format
from chunkscope.io.documents.docx import extract_docx
from chunkscope.io.documents.html import extract_html
from chunkscope.io.documents.pdf import extract_pdf
from chunkscope.model import DocumentMap

Extractor = Callable[[Path], tuple[str, DocumentMap]]

EXTRACTORS: dict[str, Extractor] = {"pdf": extract_pdf, "html": extract_html, "docx": extract_docx}
"""The extraction function of each format (each imports its library only when called)."""


def extract_file(path: Path) -> tuple[str, DocumentMap]:
    """The text and map of the PDF, HTML or DOCX file ``path``; DocumentSkipped when it cannot be read."""
    source_format = document_format(path)
    if source_format is None:
        raise ValueError(f"{path} is not a PDF, HTML or DOCX file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentSkipped(f"cannot read: {exc.strerror or exc}") from None
    if size > base.MAX_FILE_BYTES:
        raise DocumentSkipped(f"too large: {size} bytes, the limit is {base.MAX_FILE_BYTES}")
    return EXTRACTORS[source_format](path)
