"""Snapshots of the sweep map on the published eight (pytest-textual-snapshot, 100 x 30 cells).

Regenerate after an intended change with ``pytest tests/tui/test_sweep_map_snapshots.py --snapshot-update``
and look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from typing import Any

from sweep_helpers import MAP_SIZE, sweep_app
from test_tui_snapshots import after

from chunkscope.io.dataset import Dataset


def test_sweep_map_grid(snap_compare: Any, sample: Dataset) -> None:
    # R@5 of the published eight; the cursor starts on the best, fixed 400/20%.
    assert snap_compare(sweep_app(sample), terminal_size=MAP_SIZE, run_before=after())


def test_sweep_map_scatter(snap_compare: Any, sample: Dataset) -> None:
    # p: chunks across, R@5 up, the frontier ● and every configuration in the table below.
    assert snap_compare(sweep_app(sample), terminal_size=MAP_SIZE, run_before=after("p"))
