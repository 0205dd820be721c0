"""Write a corpus's texts out, so a team's own pipeline reads exactly the text chunkscope measured.

Each document ``ID`` becomes ``DIR/ID.txt`` (its text, UTF-8, byte for byte what offsets index), and an
extracted one also ``DIR/ID.map.json`` (its pages and elements, offsets into that text, code points).
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from chunkscope.errors import InputError
from chunkscope.io.atomic import write_atomic
from chunkscope.model import Corpus, DocumentMap


def map_json(structure: DocumentMap) -> dict[str, object]:
    """The map as JSON: ``format``, ``pages`` (1-based ``page``, ``start``, ``end``) and ``elements``."""
    elements: list[dict[str, object]] = []
    for element in structure.elements:
        entry: dict[str, object] = {"kind": element.kind, "start": element.start, "end": element.end}
        if element.kind in ("heading", "list-item"):
            entry["level"] = element.level
        if element.kind == "table":
            entry["header"] = list(element.header) if element.header else None
            entry["rows"] = [list(row) for row in element.rows]
        elements.append(entry)
    pages = [{"page": number, "start": start, "end": end} for number, (start, end) in enumerate(structure.pages, 1)]
    return {"format": structure.source_format, "pages": pages, "elements": elements}


def export_corpus(corpus: Corpus, directory: Path) -> list[Path]:
    """Write every document's text (and map) under ``directory``; the files written, in corpus order."""
    written: list[Path] = []
    for document in corpus.documents:
        relative = PurePosixPath(document.id)
        if relative.is_absolute() or ".." in relative.parts:
            raise InputError(document.id, "a document id that is not a relative path cannot be exported")
        target = directory.joinpath(*relative.parts)
        target = target.with_name(target.name + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, document.text)
        written.append(target)
        if document.structure is not None:
            map_path = target.with_name(target.name.removesuffix(".txt") + ".map.json")
            write_atomic(map_path, json.dumps(map_json(document.structure), ensure_ascii=False, indent=1) + "\n")
            written.append(map_path)
    return written
