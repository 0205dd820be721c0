"""Where an export must never write: the rule of :func:`chunkscope.io.outputs.input_conflict`, shared with the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from chunkscope.io.outputs import input_conflict
from chunkscope.io.sources import Dataset


def input_paths(dataset: Dataset, extra: Sequence[str] = ()) -> tuple[Path, ...]:
    """Every input file or directory of ``dataset`` and the ``extra`` inputs (an answers file), resolved."""
    return tuple(Path(path).resolve() for path in (*(source.path for source in dataset.sources), *extra))


def is_input_path(dataset: Dataset, target: str | Path, extra: Sequence[str] = ()) -> bool:
    """True when writing ``target`` would change an input (the CLI's rule, one definition)."""
    return input_conflict(Path(target).expanduser(), input_paths(dataset, extra)) is not None
