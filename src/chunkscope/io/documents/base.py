"""What every extractor shares: the formats, the bounds on one document, and the skip that names its cause."""

from __future__ import annotations

from pathlib import Path

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


def check_text_size(length: int) -> None:
    """DocumentSkipped once the extracted text passes :data:`MAX_TEXT_CHARS`."""
    if length > MAX_TEXT_CHARS:
        raise DocumentSkipped(f"too large: the extracted text passes {MAX_TEXT_CHARS} characters")


def document_format(path: Path) -> str | None:
    """``pdf``, ``html`` or ``docx`` for a file extraction reads, None for any other."""
    return DOCUMENT_SUFFIXES.get(path.suffix.lower())
