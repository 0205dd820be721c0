"""Where an export must never write: the rule of :func:`chunkscope.io.outputs.input_conflict`, shared with the CLI."""

from __future__ import annotations

from pathlib import Path

from chunkscope.io.outputs import input_conflict
from chunkscope.io.sources import Dataset


def input_paths(dataset: Dataset) -> tuple[Path, ...]:
    """Every input file or directory of ``dataset``, resolved."""
    return tuple(Path(source.path).resolve() for source in dataset.sources)


def is_input_path(dataset: Dataset, target: str | Path) -> bool:
    """True when writing ``target`` would change an input (the CLI's rule, one definition)."""
    return input_conflict(Path(target).expanduser(), input_paths(dataset)) is not None
