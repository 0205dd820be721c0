"""Snapshots of the question list's tools at 100 x 30 on the sample data: fragility marks (``u``) and a
group's summary (``#``). Regenerate after an intended change with ``--snapshot-update`` and look at the SVGs."""

from __future__ import annotations

from typing import Any

from pilot_helpers import make_app, settle
from textual.pilot import Pilot

from chunkscope.io.dataset import Dataset

SIZE = (100, 30)


def after(*keys: str) -> Any:
    """Wait for the results, press ``keys`` (waiting for what they compute), then clear the notifications."""

    async def run(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    return run


def test_list_with_fragility_marks(snap_compare: Any, sample: Dataset) -> None:
    # u: fixed:size=200 and its 8 neighbours; ~ fragile OK, + OK nearby beside the status glyphs.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("u"))


def test_group_summary(snap_compare: Any, sample: Dataset) -> None:
    # # then the fifth tag (ja), then s: the group's metrics above the whole set's.
    keys = ("number_sign", "down", "down", "down", "down", "down", "enter", "s")
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after(*keys))
