"""HTML headings, paragraphs, list items and tables, through lxml.

The bytes are decoded by a byte-order mark, else by the ``<meta charset>`` (or ``http-equiv`` content type)
in the first 4,096 bytes, else as UTF-8; a file that none of these decodes is skipped. ``script``, ``style``,
``head``, ``template`` and ``noscript`` hold no text. Inline elements join their block's text; block elements
(``p``, ``div``, ``section``, ``blockquote``, ``pre``...) each end a paragraph; a ``br`` is a space within its
block. libxml2 stops nesting at 256 levels (the document is then skipped) and
:data:`~chunkscope.io.documents.base.MAX_ELEMENTS` bounds the count, so a bomb of elements stays small.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import Any

from chunkscope.errors import MissingExtraError
from chunkscope.io.documents import base
from chunkscope.io.documents.base import DocumentSkipped
from chunkscope.io.documents.builder import TextBuilder
from chunkscope.model import DocumentMap

_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SILENT = {"script", "style", "head", "template", "noscript", "title"}
_BLOCKS = {
    "p", "div", "section", "article", "main", "aside", "header", "footer", "nav", "blockquote", "pre",
    "figure", "figcaption", "address", "dl", "dt", "dd", "form", "fieldset", "body", "html", "hr",
}  # fmt: skip
_LISTS = {"ul", "ol"}


def decode_html(data: bytes) -> tuple[str, str]:
    """The text of HTML ``data`` and the encoding taken (see the module docstring); DocumentSkipped if none fits."""
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return _decode(data, encoding if encoding != "utf-8" else "utf-8-sig", "its byte-order mark"), encoding
    declared = _META_CHARSET.search(data[:4096])
    if declared is not None:
        name = declared.group(1).decode("ascii", "replace")
        try:
            encoding = codecs.lookup(name).name
        except LookupError:
            raise DocumentSkipped(f"unknown charset '{name}' in its <meta charset>") from None
        return _decode(data, encoding, f"its <meta charset> '{name}'"), encoding
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        raise DocumentSkipped(
            f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}) and no <meta charset> names its encoding"
        ) from None


def _decode(data: bytes, encoding: str, why: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DocumentSkipped(f"not {encoding} as {why} says (byte offset {exc.start})") from None


def extract_html(path: Path) -> tuple[str, DocumentMap]:
    """Text and elements of the HTML file ``path``; DocumentSkipped when undecodable, empty or a bomb."""
    try:
        import lxml.etree
        import lxml.html
    except ImportError:
        raise MissingExtraError("reading .html files", "documents", "lxml") from None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentSkipped(f"cannot read: {exc.strerror or exc}") from None
    text, _ = decode_html(data)
    del data
    if not text.strip():
        raise DocumentSkipped("empty HTML file")
    parser = lxml.html.HTMLParser(encoding="utf-8", huge_tree=False)
    try:
        root = lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentSkipped(f"unreadable HTML ({exc})") from None
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        raise DocumentSkipped("elements nested deeper than libxml2's limit of 256 levels: a bomb of elements?")
    count = 0
    for count, _ in enumerate(root.iter(), start=1):
        if count > base.MAX_ELEMENTS:
            raise DocumentSkipped(f"too many elements (more than {base.MAX_ELEMENTS}): a bomb of elements?")
    walker = _Walker()
    walker.walk(root)
    walker.flush()
    extracted, structure = walker.builder.build()
    if not extracted.strip():
        raise DocumentSkipped("no text in the HTML body")
    return extracted, structure


class _Walker:
    """Walks the element tree, collecting inline text until a block ends it."""

    def __init__(self) -> None:
        self.builder = TextBuilder("html")
        self.buffer: list[str] = []
        self.list_depth = -1
        """Nesting depth of the list item being collected; -1 outside any list item."""

    def flush(self) -> None:
        """End the block being collected (a list item inside one, a paragraph otherwise)."""
        text = "".join(self.buffer)
        self.buffer.clear()
        if self.list_depth >= 0:
            self.builder.list_item(text, self.list_depth)
        else:
            self.builder.paragraph(text)
        base.check_text_size(self.builder.length)

    def walk(self, element: Any, lists: int = 0) -> None:
        """Visit ``element`` and its descendants; ``lists`` counts the enclosing ``ul``/``ol``."""
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if tag and tag not in _SILENT:
            self._visit(element, tag, lists)
        if element.tail:
            self.buffer.append(element.tail)

    def _visit(self, element: Any, tag: str, lists: int) -> None:
        if tag in _HEADINGS:
            self.flush()
            self.builder.heading(element.text_content(), _HEADINGS[tag])
        elif tag == "table":
            self.flush()
            self.builder.table(_table_rows(element))
        elif tag == "li":
            self.flush()
            outer = self.list_depth
            self.list_depth = max(lists - 1, 0)
            self._children(element, lists)
            self.flush()
            self.list_depth = outer
        elif tag in _LISTS:
            self.flush()
            self._children(element, lists + 1)
            self.flush()
        elif tag == "br":
            self.buffer.append(" ")  # a line break inside a block: the block goes on
        elif tag in _BLOCKS:
            self.flush()
            self._children(element, lists)
            self.flush()
        else:
            self._children(element, lists)

    def _children(self, element: Any, lists: int) -> None:
        if element.text:
            self.buffer.append(element.text)
        for child in element:
            self.walk(child, lists)


def _table_rows(table: Any) -> list[list[str]]:
    """The cell texts of each row of ``table`` (nested tables' rows excluded)."""
    rows: list[list[str]] = []
    for row in table.iter("tr"):
        if next(row.iterancestors("table")) is not table:
            continue
        rows.append([cell.text_content() for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")])
    return rows
