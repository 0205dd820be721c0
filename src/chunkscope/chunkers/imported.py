"""Imported chunks: a production system's chunking, read from JSONL."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkscope.chunkers.base import Chunking, chunkers
from chunkscope.errors import InputError
from chunkscope.io.text import parse_json, read_text, reject_bom
from chunkscope.model import Chunk, Corpus


@chunkers.register("imported")
@dataclass(frozen=True, slots=True)
class ImportedChunker:
    """Chunks listed in a JSONL file, one object per line.

    Each line has ``id`` (unique), ``doc`` (a corpus document id) and either
    ``start``/``end`` (half-open offsets, ``0 <= start < end <= len(text)``) or
    ``text``. Optional ``prefix`` and ``section`` strings are kept. A chunk given
    by ``text`` is located by searching its document forward from the start of
    the previous chunk of the same document (in file order); a chunk that cannot
    be found there is left out and reported in ``Chunking.problems``, never
    guessed. (A text that would land exactly on the previous chunk's span is
    looked for after it, so repeated passages map to successive occurrences.)
    With both offsets and text, the text must match the offsets. A file that
    yields no chunk at all is an error.

    A spec must name the file; the CLI reads a bare ``imported`` as the file given to ``--chunks``.
    """

    path: str = field(metadata={"missing": "imported needs path=FILE (or the --chunks FILE option)"})

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        chunking = read_chunks(self.path, corpus)
        if not chunking.units:
            problems = len(chunking.problems)
            reason = f"none of its {problems} chunks could be located" if problems else "it lists no chunks"
            raise InputError(self.path, f"the chunking is empty: {reason}")
        return chunking


def read_chunks(path: str, corpus: Corpus) -> Chunking:
    """Load and validate an imported chunks file against ``corpus``."""
    content, _ = read_text(Path(path), "chunks file")
    reject_bom(path, content)
    chunks: list[tuple[int, Chunk]] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    previous: dict[str, tuple[int, int]] = {}
    order = {document.id: position for position, document in enumerate(corpus.documents)}
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        record = _record(path, number, line)
        chunk_id = _string(record, "id", path, number)
        if chunk_id in seen:
            raise InputError(
                path, f"duplicate chunk id '{chunk_id}' (first on line {seen[chunk_id]})", line=number, field="id"
            )
        seen[chunk_id] = number
        doc_id = _string(record, "doc", path, number)
        document = corpus.by_id.get(doc_id)
        if document is None:
            raise InputError(path, f"unknown document '{doc_id}'", line=number, field="doc")
        span = _span(record, document.text, previous.get(doc_id), path, number)
        if span is None:
            search_from = previous.get(doc_id, (0, 0))[0]
            problems.append(
                f"{path}:{number}: chunk '{chunk_id}' text not found in '{doc_id}' at or after offset "
                f"{search_from}; left out"
            )
            continue
        start, end = span
        previous[doc_id] = span
        prefix = _optional_string(record, "prefix", path, number) or ""
        section = _optional_string(record, "section", path, number)
        chunk = Chunk(chunk_id, doc_id, start, end, document.text[start:end], prefix, section)
        chunks.append((order[doc_id], chunk))
    chunks.sort(key=lambda entry: (entry[0], entry[1].start, entry[1].end))
    return Chunking(tuple(chunk for _, chunk in chunks), None, tuple(problems))


def _record(path: str, number: int, line: str) -> dict[str, Any]:
    record = parse_json(path, line, number)
    if not isinstance(record, dict):
        raise InputError(path, "each line must be a JSON object", line=number)
    return record


def _string(record: dict[str, Any], name: str, path: str, number: int) -> str:
    if name not in record:
        raise InputError(path, "missing", line=number, field=name)
    value = record[name]
    if not isinstance(value, str) or not value:
        raise InputError(path, f"must be a non-empty string, got {json.dumps(value)}", line=number, field=name)
    return value


def _optional_string(record: dict[str, Any], name: str, path: str, number: int) -> str | None:
    value = record.get(name)
    if value is not None and not isinstance(value, str):
        raise InputError(path, f"must be a string, got {json.dumps(value)}", line=number, field=name)
    return value


def _offset(record: dict[str, Any], name: str, path: str, number: int) -> int:
    if name not in record:
        raise InputError(path, "missing (give start and end, or text)", line=number, field=name)
    value = record[name]
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(path, f"must be an integer, got {json.dumps(value)}", line=number, field=name)
    return value


def _span(
    record: dict[str, Any], text: str, previous: tuple[int, int] | None, path: str, number: int
) -> tuple[int, int] | None:
    """The chunk's (start, end): from its offsets, or located from its text (None when not found)."""
    has_offsets = "start" in record or "end" in record
    if not has_offsets:
        if "text" not in record:
            raise InputError(path, "missing: give start and end, or text", line=number, field="start")
        body = _string(record, "text", path, number)
        search_from = previous[0] if previous is not None else 0
        found = text.find(body, search_from)
        if previous is not None and (found, found + len(body)) == previous:
            found = text.find(body, found + 1)
        return None if found < 0 else (found, found + len(body))
    start = _offset(record, "start", path, number)
    end = _offset(record, "end", path, number)
    if start < 0 or start > len(text):
        raise InputError(path, f"{start} is outside the document (0..{len(text)})", line=number, field="start")
    if end <= start or end > len(text):
        raise InputError(
            path, f"{end} must be greater than start ({start}) and at most {len(text)}", line=number, field="end"
        )
    if "text" in record and record["text"] != text[start:end]:
        raise InputError(path, "does not match the document text at start..end", line=number, field="text")
    return start, end
