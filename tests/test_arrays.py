"""The shared array helpers, checked by hand and against slicing."""

from __future__ import annotations

import numpy as np

from chunkscope.arrays import run_positions, sorted_unique
from chunkscope.tokenize.char_table import ASCII_VIEW, CHAR_RANKS, CJK, CJK_RANK, CLASSES, CODE_POINTS, WORD, WORD_CHAR


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


def test_sorted_unique_is_np_unique() -> None:
    rng = np.random.default_rng(7)
    for values in (np.zeros(0, dtype=np.int64), np.array([3]), rng.integers(0, 50, 1000), rng.random(200)):
        got = sorted_unique(values)
        assert got.dtype == values.dtype
        assert got.tolist() == np.unique(values).tolist()
    assert sorted_unique(np.array([4, 1, 4, 4, 2, 1])).tolist() == [1, 2, 4]


def test_character_tables_by_their_definitions() -> None:
    # Checked code point by code point on the ranges that matter, and in total over the rest.
    words = [ord(c) for c in "0123456789abcdefghijklmnopqrstuvwxyz"]
    assert np.flatnonzero(CLASSES == WORD).tolist() == words
    assert np.flatnonzero(ord(" ") != ASCII_VIEW).tolist() == words
    assert all(ASCII_VIEW[code] == code for code in words)
    assert len(ASCII_VIEW) == len(CHAR_RANKS) == CODE_POINTS
    expected = np.full(CODE_POINTS, -1, dtype=np.int64)
    expected[words] = WORD_CHAR
    cjk = np.flatnonzero(CLASSES == CJK)
    expected[cjk] = np.arange(len(cjk))
    assert CHAR_RANKS.dtype == np.int32
    assert np.array_equal(CHAR_RANKS, expected)
    assert np.array_equal(CJK_RANK[cjk], np.arange(len(cjk)))
