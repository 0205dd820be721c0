"""DOCX headings, paragraphs, list items and tables, through python-docx.

A paragraph styled ``Heading N`` (or ``Title``, level 1) is a heading; one with list numbering or a ``List``
style is a list item (its numbering level is its depth); every other non-empty paragraph is a paragraph. Body
tables are read in document order, each cell's text as python-docx gives it.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from chunkscope.errors import MissingExtraError
from chunkscope.io.documents import base
from chunkscope.io.documents.base import DocumentSkipped
from chunkscope.io.documents.builder import TextBuilder
from chunkscope.model import DocumentMap

_HEADING_STYLE = re.compile(r"heading\s*(\d+)", re.IGNORECASE)


def extract_docx(path: Path) -> tuple[str, DocumentMap]:
    """Text and elements of the DOCX file ``path``; DocumentSkipped when not a zip, damaged, a bomb or empty."""
    try:
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph
    except ImportError:
        raise MissingExtraError("reading .docx files", "documents", "python-docx") from None
    _check_archive(path)
    try:
        document = docx.Document(str(path))
        builder = TextBuilder("docx")
        for child in document.element.body.iterchildren():
            tag = child.tag.rsplit("}", 1)[-1]
            if tag == "p":
                _paragraph(builder, Paragraph(child, document))
            elif tag == "tbl":
                table = Table(child, document)
                builder.table([[cell.text for cell in row.cells] for row in table.rows])
            base.check_text_size(builder.length)
    except DocumentSkipped:
        raise
    except Exception as exc:  # python-docx and lxml raise many kinds for a broken part: each is "damaged"
        raise DocumentSkipped(f"damaged DOCX ({type(exc).__name__}: {exc})") from None
    text, structure = builder.build()
    if not text.strip():
        raise DocumentSkipped("no text in the DOCX body")
    return text, structure


def _check_archive(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            unzipped = sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        raise DocumentSkipped("not a DOCX: the file is not a zip archive") from None
    except OSError as exc:
        raise DocumentSkipped(f"cannot read: {exc.strerror or exc}") from None
    if unzipped > base.MAX_UNZIPPED_BYTES:
        raise DocumentSkipped(f"too large: its parts unzip to {unzipped} bytes, the limit is {base.MAX_UNZIPPED_BYTES}")


def _paragraph(builder: TextBuilder, paragraph: Any) -> None:
    style = paragraph.style.name if paragraph.style is not None else ""
    heading = _HEADING_STYLE.fullmatch(style or "")
    if heading is not None:
        builder.heading(paragraph.text, int(heading.group(1)))
        return
    if style == "Title":
        builder.heading(paragraph.text, 1)
        return
    properties = paragraph._p.pPr
    numbering = properties.numPr if properties is not None else None
    if numbering is not None or (style or "").startswith("List"):
        level = numbering.ilvl.val if numbering is not None and numbering.ilvl is not None else 0
        builder.list_item(paragraph.text, int(level))
        return
    builder.paragraph(paragraph.text)
