"""The one rule for where a report or an export may go: never over an input.

The CLI (``--json``/``--csv``/``--markdown``) and the inspector's exports both ask ``input_conflict``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from chunkscope.io.corpus import CORPUS_SUFFIXES


def input_conflict(target: Path, inputs: Iterable[Path]) -> str | None:
    """Why writing ``target`` would change one of ``inputs``, or None when it would not.

    Refused: ``target`` is an input file, or one of the documents an input directory holds, by any
    name (a symlink or a hard link: the same device and inode, links followed), or it would be a new
    corpus document (``.md``/``.txt``) inside an input directory, which the next load of that corpus
    would read. Other files inside a corpus directory are allowed: the corpus loader does not read them.
    """
    identity = _identity(target)
    for source in inputs:
        if identity is not None and _identity(source) == identity:
            return f"it is an input file ({source})"
        if not source.is_dir():
            continue
        if target.suffix.lower() in CORPUS_SUFFIXES and target.resolve().is_relative_to(source.resolve()):
            return f"it would add a document to the corpus directory {source}"
        if identity is not None:
            document = next((file for file in _documents(source) if _identity(file) == identity), None)
            if document is not None:
                return f"it is the document {document} of the corpus directory {source} (through a link)"
    return None


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode ``path`` leads to (links followed), None when nothing is there."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def _documents(root: Path) -> Iterator[Path]:
    """The ``.md``/``.txt`` entries the corpus loader reads under ``root`` (files followed, directories not)."""
    for directory, _, names in os.walk(root):
        for name in names:
            if Path(name).suffix.lower() in CORPUS_SUFFIXES:
                yield Path(directory) / name
