"""Text and structure extracted from PDF, HTML and DOCX files (the ``documents`` extra).

:func:`extract_file` turns one file into its text and :class:`~chunkscope.model.DocumentMap`, or raises
:class:`DocumentSkipped` with one line saying why it cannot (encrypted, no text layer, damaged, too large, not
decodable). Every limit below bounds the memory one document may take.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chunkscope.model import DocumentMap

DOCUMENT_SUFFIXES: dict[str, str] = {".pdf": "pdf", ".html": "html", ".htm": "html", ".docx": "docx"}
"""File suffixes read by extraction, and the format each one names."""

MAX_FILE_BYTES = 256 * 1024 * 1024
"""A larger file is skipped as too large (before it is opened)."""
MAX_PAGES = 20_000
"""A PDF with more pages is skipped."""
MAX_TEXT_CHARS = 64 * 1024 * 1024
"""A document whose extracted text grows past this is skipped (its text is dropped at once)."""
MAX_ELEMENTS = 2_000_000
"""An HTML document with more elements (tags) is skipped: a bomb of nested or repeated elements."""
MAX_UNZIPPED_BYTES = 512 * 1024 * 1024
"""A DOCX whose parts unzip to more than this is skipped (a zip bomb)."""


class DocumentSkipped(Exception):
    """A document that cannot be extracted; the message is the cause, in one line."""


Extractor = Callable[[Path], tuple[str, DocumentMap]]


def document_format(path: Path) -> str | None:
    """``pdf``, ``html`` or ``docx`` for a file extraction reads, None for any other."""
    return DOCUMENT_SUFFIXES.get(path.suffix.lower())


def extractor_for(source_format: str) -> Extractor:
    """The extraction function for ``pdf``, ``html`` or ``docx`` (MissingExtraError without its package)."""
    if source_format == "pdf":
        from chunkscope.io.documents.pdf import extract_pdf

        return extract_pdf
    if source_format == "html":
        from chunkscope.io.documents.html import extract_html

        return extract_html
    from chunkscope.io.documents.docx import extract_docx

    return extract_docx


def extract_file(path: Path) -> tuple[str, DocumentMap]:
    """The text and map of the PDF, HTML or DOCX file ``path``; DocumentSkipped when it cannot be read."""
    source_format = document_format(path)
    if source_format is None:
        raise ValueError(f"{path} is not a PDF, HTML or DOCX file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentSkipped(f"cannot read: {exc.strerror or exc}") from None
    if size > MAX_FILE_BYTES:
        raise DocumentSkipped(f"too large: {size} bytes, the limit is {MAX_FILE_BYTES}")
    return extractor_for(source_format)(path)


def check_text_size(length: int) -> None:
    """DocumentSkipped once the extracted text passes :data:`MAX_TEXT_CHARS`."""
    if length > MAX_TEXT_CHARS:
        raise DocumentSkipped(f"too large: the extracted text passes {MAX_TEXT_CHARS} characters")
