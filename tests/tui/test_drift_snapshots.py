"""Snapshots of the drift screen (chunkscope drift --inspect) on eight queries over the sample corpus.

Regenerate after an intended change with ``pytest tests/tui/test_drift_snapshots.py --snapshot-update`` and look
at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from typing import Any

import pytest
from drift_helpers import drift_app, sample_drift
from textual.pilot import Pilot

from chunkscope.analysis.drift import Drift


@pytest.fixture(scope="module")
def drift(tmp_path_factory: pytest.TempPathFactory) -> Drift:
    return sample_drift(tmp_path_factory.mktemp("drift"))


def after(*keys: str) -> Any:
    """Wait for the list's order, then press ``keys``."""

    async def run(pilot: Pilot[None]) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()

    return run


def test_drift_wide(snap_compare: Any, drift: Drift) -> None:
    # 120 x 36: the list beside the rankings; n: the first query whose first hit changed (line 2).
    assert snap_compare(drift_app(drift), terminal_size=(120, 36), run_before=after("n"))


def test_drift_80_columns(snap_compare: Any, drift: Drift) -> None:
    # 80 x 24: the list above, the rankings and the exposure (changes only) below.
    assert snap_compare(drift_app(drift), terminal_size=(80, 24), run_before=after())
