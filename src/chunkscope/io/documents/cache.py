"""Extraction results kept by file hash in the user's cache directory.

An entry is ``extracted/v<VERSION>/<first two hex digits>/<sha256>.json`` under ``$CHUNKSCOPE_CACHE``, else
``$XDG_CACHE_HOME/chunkscope``, else ``~/.cache/chunkscope``. Entries are written atomically and read only when
they are regular files; a damaged entry (not JSON, wrong shape, offsets outside its text) is extracted again and
replaced. A cache that cannot be written warns once and extraction goes on without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import IO, Any

from chunkscope.errors import ChunkscopeWarning
from chunkscope.io.atomic import replace_atomically
from chunkscope.io.documents.extract import extract_file
from chunkscope.io.text import open_regular
from chunkscope.model import DocumentMap, Element

VERSION = 1
"""Raised whenever extraction would give other text or another map for the same file."""

_WARNED: set[str] = set()


class ExtractionCacheWarning(ChunkscopeWarning):
    """The extraction cache cannot be written: documents are extracted without it."""


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file's bytes, read in blocks (memory stays small for a large file)."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def extraction_cache_dir() -> Path | None:
    """Where entries live, None when no cache directory can be determined."""
    explicit = os.environ.get("CHUNKSCOPE_CACHE")
    xdg = os.environ.get("XDG_CACHE_HOME")
    try:
        base = (
            Path(explicit) if explicit else Path(xdg) / "chunkscope" if xdg else Path.home() / ".cache" / "chunkscope"
        )
    except (RuntimeError, KeyError):
        return None
    return base / "extracted" / f"v{VERSION}"


def extract_cached(path: Path, digest: str) -> tuple[str, DocumentMap]:
    """The text and map of ``path`` (whose SHA-256 is ``digest``), from the cache when an entry is sound."""
    directory = extraction_cache_dir()
    entry = directory / digest[:2] / f"{digest}.json" if directory is not None else None
    if entry is not None:
        found = _read_entry(entry)
        if found is not None:
            return found
    text, structure = extract_file(path)
    if entry is not None:
        _write_entry(entry, text, structure)
    return text, structure


def _read_entry(entry: Path) -> tuple[str, DocumentMap] | None:
    try:
        with open_regular(entry) as handle:
            raw = json.loads(handle.read().decode("utf-8"))
        return _decode(raw)
    except (OSError, ValueError, TypeError, KeyError):
        return None  # absent or damaged: extracted again and replaced


def _decode(raw: dict[str, Any]) -> tuple[str, DocumentMap] | None:
    text = raw["text"]
    if not isinstance(text, str):
        return None
    pages = tuple((int(start), int(end)) for start, end in raw["pages"])
    elements = tuple(
        Element(
            kind,
            int(start),
            int(end),
            int(level),
            (int(header[0]), int(header[1])) if header is not None else None,
            tuple((int(a), int(b)) for a, b in rows),
        )
        for kind, start, end, level, header, rows in raw["elements"]
    )
    ranges = [*pages, *((e.start, e.end) for e in elements), *(r for e in elements for r in e.rows)]
    if any(not 0 <= start <= end <= len(text) for start, end in ranges):
        return None
    if any(element.kind not in ("heading", "paragraph", "list-item", "table") for element in elements):
        return None
    return text, DocumentMap(str(raw["format"]), pages, elements)


def _write_entry(entry: Path, text: str, structure: DocumentMap) -> None:
    payload = {
        "format": structure.source_format,
        "text": text,
        "pages": [list(page) for page in structure.pages],
        "elements": [
            [e.kind, e.start, e.end, e.level, list(e.header) if e.header else None, [list(r) for r in e.rows]]
            for e in structure.elements
        ],
    }
    encoded = json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def fill(handle: IO[bytes]) -> None:
        handle.write(encoded)

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        if entry.exists() and not entry.is_file():
            raise OSError(f"{entry} is not a regular file")
        replace_atomically(entry, fill, mode=0o644)
    except OSError as exc:
        where = str(entry.parent.parent)
        if where not in _WARNED:
            _WARNED.add(where)
            warnings.warn(
                f"extraction cache {where}: {exc}; documents are extracted without the cache",
                ExtractionCacheWarning,
                stacklevel=2,
            )
