"""Snapshots of the main views on the sample data (pytest-textual-snapshot; 140 x 40 cells unless named).

Regenerate after an intended change with ``pytest tests/tui/test_tui_snapshots.py --snapshot-update``
and look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pilot_helpers import FIXED_200, OVERLAP_40, SIZE, make_app, settle
from textual.pilot import Pilot
from textual.widgets import Input

from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.quotes import parse_match_policy
from chunkscope.pipeline.config import make_config

Steps = Callable[[Pilot[None]], Awaitable[None]]


def after(*keys: str) -> Steps:
    """Wait for the results, press ``keys`` (waiting for any evaluation they start), stop input cursors blinking."""

    async def run(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()

    return run


def test_inspect_first_screen(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after())


def test_inspect_cut_question(snap_compare: Any, sample: Dataset) -> None:
    # Filter "lost" (f twice), then N wraps to the last lost question: q39, cut at 400 by fixed:size=200.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("f", "f", "N"))


def test_compare_recovered_question(snap_compare: Any, sample: Dataset) -> None:
    # Then o (overlap 20%) and v: A = fixed:size=200 left, B = fixed:size=200,overlap=40 right, q39 recovered.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("f", "f", "N", "o", "v"))


def test_summary_single(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("s"))


def test_summary_compare(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample, FIXED_200, OVERLAP_40), terminal_size=SIZE, run_before=after("s"))


def test_anatomy_panel(snap_compare: Any, sample: Dataset) -> None:
    # q01 under fixed:size=200/bm25: its cut evidence's best piece beside the chunk ranked above it.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("a"))


def test_help(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("question_mark"))


def test_config_form(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("e"))


def test_export_dialog(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("x"))


def test_search(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("slash", "e", "n", "d"))


def test_inspect_question_delivered_in_pieces(snap_compare: Any, sample: Dataset) -> None:
    # q39 under fixed:size=200: its gold is cut at 400, but both pieces are delivered (ranks 1 and 4):
    # ⧉ in the list, state pieces, and the cause line says every character reached the context.
    assert snap_compare(make_app(sample), terminal_size=SIZE, run_before=after("slash", "q", "3", "9", "enter"))


def _gold_fixture() -> Dataset:
    """The gold-check fixture, quotes located up to fuzzy: f1 normalised, f2 fuzzy, f3 edge whitespace."""
    gold = Path(__file__).resolve().parents[1] / "fixtures" / "gold"
    return load_dataset(gold / "corpus", gold / "fixable.jsonl", gold_match=parse_match_policy("fuzzy"))


def test_approximate_gold_is_marked_in_the_ranked_header(snap_compare: Any) -> None:
    # f1's quote has straight quotes and a line break where the corpus has “ ” and a space: ≈ normalized.
    app = make_app(_gold_fixture(), make_config("fixed:size=120"))
    assert snap_compare(app, terminal_size=SIZE, run_before=after())


def test_gold_integrity_list(snap_compare: Any) -> None:
    app = make_app(_gold_fixture(), make_config("fixed:size=120"))
    assert snap_compare(app, terminal_size=SIZE, run_before=after("g"))


# -- the layout at common terminal sizes


def test_inspect_80x24_list(snap_compare: Any, sample: Dataset) -> None:
    # Under 100 columns the list takes the whole width ...
    assert snap_compare(make_app(sample), terminal_size=(80, 24), run_before=after())


def test_inspect_80x24_detail(snap_compare: Any, sample: Dataset) -> None:
    # ... and d shows the selected question's detail instead (q39, cut at 400).
    assert snap_compare(make_app(sample), terminal_size=(80, 24), run_before=after("f", "f", "N", "d"))


def test_inspect_100x30(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=(100, 30), run_before=after("f", "f", "N"))


def test_inspect_200x50(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=(200, 50), run_before=after("f", "f", "N"))


def test_compare_120x40(snap_compare: Any, sample: Dataset) -> None:
    # The side lines wrap: the end of each reason ("cut at ...") stays on screen.
    assert snap_compare(make_app(sample), terminal_size=(120, 40), run_before=after("f", "f", "N", "o", "v"))


def test_compare_200x50(snap_compare: Any, sample: Dataset) -> None:
    assert snap_compare(make_app(sample), terminal_size=(200, 50), run_before=after("f", "f", "N", "o", "v"))
