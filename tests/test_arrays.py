"""The shared array helpers, checked by hand and against slicing."""

from __future__ import annotations

import numpy as np

from chunkscope.arrays import run_positions


def test_runs_are_listed_one_after_the_other() -> None:
    # [5, 6, 7], nothing for the empty run, [2, 3], [9]
    positions = run_positions(np.array([5, 40, 2, 9]), np.array([3, 0, 2, 1]))
    assert positions.tolist() == [5, 6, 7, 2, 3, 9]
    assert positions.dtype == np.int64


def test_no_runs_give_no_positions() -> None:
    assert run_positions(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)).tolist() == []


def test_positions_equal_the_concatenated_slices() -> None:
    rng = np.random.default_rng(7)
    starts = rng.integers(0, 1_000, size=200)
    lengths = rng.integers(0, 30, size=200)
    expected = [
        p for start, length in zip(starts.tolist(), lengths.tolist(), strict=True) for p in range(start, start + length)
    ]
    assert run_positions(starts, lengths).tolist() == expected
