"""Snapshots of the inspector with answers (``inspect --answers``) at 100 x 30 on the sample data: the answer beside
the evidence under the answers' own configuration, and under another one. Regenerate after an intended change with
``--snapshot-update`` and look at the SVGs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pilot_helpers import FIXED_200, settle
from textual.pilot import Pilot

from chunkscope.analysis.answers import match_answers
from chunkscope.io.answers import load_answers
from chunkscope.io.dataset import Dataset
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.session import Session
from chunkscope.tui.state.answers import InspectorAnswers

SIZE = (100, 30)
ANSWERS = Path(__file__).resolve().parents[1] / "fixtures" / "answers" / "sample-inspector.jsonl"


def answers_app(sample: Dataset) -> ChunkscopeApp:
    answers = InspectorAnswers(
        match_answers(load_answers(ANSWERS)[0], sample.questions, None), FIXED_200, "the only configuration"
    )
    return ChunkscopeApp(Session(sample, FIXED_200, None, answers))


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


def test_answer_beside_the_evidence(snap_compare: Any, sample: Dataset) -> None:
    # f six times (answers generation): wrong answers though the evidence was complete; the first, q02.
    assert snap_compare(answers_app(sample), terminal_size=SIZE, run_before=after("f", "f", "f", "f", "f", "f"))


def test_answers_of_another_configuration(snap_compare: Any, sample: Dataset) -> None:
    # o: overlap 20%; the answers belong to fixed:size=200/bm25 and are not attributed here.
    assert snap_compare(answers_app(sample), terminal_size=SIZE, run_before=after("o"))
