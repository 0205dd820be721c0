"""Array helpers shared by every layer: pure numpy, no chunkscope values."""

from __future__ import annotations

import numpy as np

__all__ = ["run_positions"]


def run_positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] .. starts[i] + lengths[i] - 1`` of every run, run after run (int64).

    One index array for many slices (postings of several terms, columns of several blocks, text
    matches), instead of a Python loop that slices each run and concatenates.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    positions: np.ndarray = np.arange(total, dtype=np.int64) + np.repeat(
        np.asarray(starts, dtype=np.int64) - before, lengths
    )
    return positions
