"""Offsets written in reports, in the unit the user reads them in (``--report-offset-unit``).

Results hold code-point offsets; a report converts each one where it writes it, exactly, through
``io.offsets``. With ``codepoint`` (the default) nothing is converted and reports stay as they were.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chunkscope.io.offsets import DocumentOffsets, OffsetUnit
from chunkscope.model import Corpus
from chunkscope.results import ChunkImport, document_key_note


class OffsetWriter:
    """Converts a code-point offset of a corpus document to the report's unit."""

    def __init__(self, corpus: Corpus, unit: OffsetUnit = "codepoint") -> None:
        self.corpus = corpus
        self.unit = unit
        self._offsets = DocumentOffsets(unit)

    @property
    def identity(self) -> bool:
        """True when offsets are written as they are (code points)."""
        return self.unit == "codepoint"

    def __call__(self, doc: str, offset: int) -> int:
        """``offset`` (code points into document ``doc``) in the report's unit."""
        if self.identity:
            return offset
        return self._offsets.of(self.corpus.by_id[doc].text).from_codepoint(offset)


def convert_config_offsets(entry: dict[str, Any], write: OffsetWriter) -> None:
    """Convert, in place, the offsets of one ``config_dict`` entry (its questions and its chunk import)."""
    if write.identity:
        return
    for question in entry.get("questions", ()):
        for hit in question["ranked"]:
            _convert(hit, hit["doc"], write, ("start", "end"))
            if "parent" in hit:
                _convert(hit["parent"], hit["doc"], write, ("start", "end"))
        for delivered in question["delivered"]:
            _convert(delivered, delivered["doc"], write, ("start", "end"))
        for cut in question["cuts"]:
            _convert(cut, cut["doc"], write, ("start", "end"))
            cut["boundaries"] = [write(cut["doc"], b) for b in cut["boundaries"]]
    for chunk in entry.get("chunk_import", {}).get("unplaced", ()):
        if "candidates" in chunk:
            chunk["candidates"] = [write(chunk["doc"], c) for c in chunk["candidates"]]


def _convert(values: dict[str, Any], doc: str, write: OffsetWriter, keys: tuple[str, ...]) -> None:
    for key in keys:
        values[key] = write(doc, values[key])


def chunk_import_dict(summary: ChunkImport) -> dict[str, Any]:
    """How a dump's chunks were placed, as plain JSON values (the report field ``chunk_import``)."""
    return {
        "path": summary.path,
        "format": summary.format,
        "chunks": summary.total,
        "exact": summary.exact,
        "relocated": summary.relocated,
        "ambiguous": summary.ambiguous,
        "not_found": summary.not_found,
        "unplaced": [
            {
                "id": chunk.id,
                "doc": chunk.doc,
                "line": chunk.line,
                "status": chunk.status,
                **({"candidates": list(chunk.candidates)} if chunk.candidates else {}),
            }
            for chunk in summary.unplaced
        ],
        "unordered_docs": list(summary.unordered_docs),
        **({"newline_view_docs": list(summary.newline_view_docs)} if summary.newline_view_docs else {}),
        **({"rewritten": summary.rewritten} if summary.rewritten else {}),
        "doc_key": summary.doc_key,
    }


def chunk_import_line(summary: Mapping[str, Any] | ChunkImport) -> str:
    """One sentence for a Markdown report: the dump and how its chunks were placed."""
    values = chunk_import_dict(summary) if isinstance(summary, ChunkImport) else summary
    notes = []
    note = document_key_note(values["format"], values.get("doc_key", "doc"))
    if note:
        notes.append(f" {note[0].upper()}{note[1:]}.")
    if values.get("newline_view_docs"):
        shown = ", ".join(f"`{doc}`" for doc in values["newline_view_docs"])
        notes.append(f" Line endings differ: {shown} placed through the universal-newlines view.")
    if values.get("rewritten"):
        notes.append(
            f" {values['rewritten']} of the chunks not found are in the text only once whitespace is normalised: "
            "the splitter rewrote it."
        )
    return (
        f"Imported chunks `{values['path']}` ({values['format']}): {values['chunks']} chunks, "
        f"{values['exact']} exact, {values['relocated']} relocated, {values['ambiguous']} ambiguous, "
        f"{values['not_found']} not found (left out)."
    ) + "".join(notes)
