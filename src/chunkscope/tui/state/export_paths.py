"""Where an export must never write: over an input file or inside an input directory."""

from __future__ import annotations

from pathlib import Path

from chunkscope.io.sources import Dataset


def input_paths(dataset: Dataset) -> tuple[Path, ...]:
    """Every input file or directory of ``dataset``, resolved."""
    return tuple(Path(source.path).resolve() for source in dataset.sources)


def is_input_path(dataset: Dataset, target: str | Path) -> bool:
    """True when writing ``target`` would replace an input file or write inside an input directory."""
    resolved = Path(target).expanduser().resolve()
    return any(resolved == path or path in resolved.parents for path in input_paths(dataset))
