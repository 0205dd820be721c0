"""The one rule for where a report or an export may go: never over an input.

The CLI (``--json``/``--csv``/``--markdown``) and the inspector's exports both ask ``input_conflict``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from chunkscope.io.corpus import CORPUS_SUFFIXES


def input_conflict(target: Path, inputs: Iterable[Path]) -> str | None:
    """Why writing ``target`` would change one of ``inputs``, or None when it would not.

    Refused: ``target`` is an input file (the same file, also through a link), or a corpus document
    (``.md``/``.txt``) inside an input directory, which the next load of that corpus would read. Other
    files inside a corpus directory are allowed: the corpus loader does not read them.
    """
    for source in inputs:
        if target.exists() and source.exists() and os.path.samefile(target, source):
            return f"it is an input file ({source})"
        if (
            source.is_dir()
            and target.suffix.lower() in CORPUS_SUFFIXES
            and target.resolve().is_relative_to(source.resolve())
        ):
            return f"it would add a document to the corpus directory {source}"
    return None
