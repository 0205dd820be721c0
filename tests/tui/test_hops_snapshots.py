"""Snapshot of the inspector on a multi-hop set (HotpotQA, ``inspect --dataset``) at 100 x 30: the list's hop
counts, the filter ``some hop missing`` and the detail naming the missing hops. Regenerate after an intended change
with ``--snapshot-update`` and look at the SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import settle
from textual.pilot import Pilot

from chunkscope.io.dataset import load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.session import Session

SIZE = (100, 30)
HOTPOT = Path(__file__).resolve().parents[1] / "fixtures" / "datasets" / "hotpotqa" / "distractor.json"


async def hop_filter_on_the_second_question(pilot: Pilot[None]) -> None:
    await settle(pilot)
    for key in ("f", "f", "f", "f", "f", "down"):  # all → ... → some hop missing, then its second question
        await pilot.press(key)
        await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_missing_hops_named(snap_compare: Any) -> None:
    # top-1: the bridge question misses its Harrowgate hop (1/2), the comparison question both hops (0/2).
    app = ChunkscopeApp(Session(load_dataset(dataset=HOTPOT), make_config("fixed:size=200", top_k=1)))
    assert snap_compare(app, terminal_size=SIZE, run_before=hop_filter_on_the_second_question)
