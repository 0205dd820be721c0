"""The question list's tools: fragility marks and filters (``u``), the group picker and its summary (``#``),
the split view's sort by rank change (``S``) and the clipboard (``y`` / ``Y``)."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, SIZE, async_test, make_app, settle
from textual.command import DiscoveryHit
from textual.widgets import OptionList, Static

from chunkscope.analysis.fragility import fragility, neighbours
from chunkscope.analysis.groups import with_computed_tags
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.metrics.registry import REGISTRY
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import EvaluationCancelled, Evaluator
from chunkscope.reports.casefile import case_file
from chunkscope.reports.eval import eval_report
from chunkscope.results import Config, ConfigResult
from chunkscope.tui import messages
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.commands import ChunkscopeCommands
from chunkscope.tui.screens.groups import GroupPicker
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.summary_widgets import MetricsTable

FRAGILITY = Path(__file__).resolve().parents[1] / "fixtures" / "fragility"
SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "src" / "chunkscope" / "sample_data" / "questions.jsonl"
SIZE_20 = make_config("fixed:size=20")

HAND_MARKS = {"q1": " ", "q2": "~", "q3": "+", "q4": " ", "q5": "~"}
"""Worked out by hand in tests/analysis/test_fragility.py: q2 and q5 are OK here and CUT under some
neighbour (fragile OK), q3 is CUT here and OK at sizes 22 and 24 (OK nearby), q1 OK everywhere, q4 CUT everywhere."""


@pytest.fixture(scope="module")
def fragile() -> Dataset:
    return load_dataset(str(FRAGILITY / "corpus"), str(FRAGILITY / "questions.jsonl"))


def notes_of(app: ChunkscopeApp) -> list[str]:
    """Every notification's text so far."""
    return [str(notification.message) for notification in app._notifications]


def listed(app: ChunkscopeApp) -> list[str]:
    return [row.question.id for row in app.screen.query_one(QuestionList).rows]


def line_text(app: ChunkscopeApp, y: int) -> str:
    return "".join(segment.text for segment in app.screen.query_one(QuestionList).render_line(y))


# ---------------------------------------------------------------- fragility


@async_test
async def test_u_marks_the_hand_worked_verdicts_and_f_filters_them(fragile: Dataset) -> None:
    app = make_app(fragile, SIZE_20)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert all(row.fragility is None for row in app.screen.query_one(QuestionList).rows)
        await pilot.press("u")
        await settle(pilot)
        rows = app.screen.query_one(QuestionList).rows
        assert {row.question.id: row.fragility.mark for row in rows if row.fragility} == HAND_MARKS
        # the mark column follows the status glyph: " ✓~ q2 ..."
        assert [line_text(app, y)[2] for y in range(5)] == [HAND_MARKS[f"q{i}"] for i in range(1, 6)]
        assert any("robust OK 1 · fragile OK 2 · OK nearby 1 · not OK 1" in note for note in notes_of(app))
        for _ in range(5):  # all, failing, lost, cut, incomplete, then fragile OK
            await pilot.press("f")
        assert app.session.views["inspect"].filter.state == "fragile OK"
        assert listed(app) == ["q2", "q5"]
        await pilot.press("f")
        assert listed(app) == ["q1"]
        await pilot.press("f")  # wraps to all
        assert listed(app) == ["q1", "q2", "q3", "q4", "q5"]


@async_test
async def test_summary_counts_robust_against_fragile_ok(fragile: Dataset) -> None:
    app = make_app(fragile, SIZE_20)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert not app.screen.query_one("#summary-fragility", Static).display  # not computed yet
        await pilot.press("escape", "u")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        line = str(app.screen.query_one("#summary-fragility", Static).render())
        assert "robust OK 1 · fragile OK 2 · OK nearby 1 · not OK 1" in line
        assert "mean fragility 0.250 (8 neighbours)" in line  # (0 + 1 + 2 + 0 + 7) / (8 x 5)


def slow_neighbours(app: ChunkscopeApp) -> threading.Event:
    """Make every neighbour of SIZE_20 evaluate like a long embedding that stops only when cancelled;
    the returned event is set once one started."""
    started = threading.Event()
    evaluate = app.session.evaluator.evaluate
    slow = {neighbour.config for neighbour in neighbours(SIZE_20)}

    def evaluate_slowly(config: Config, progress: Any = None, cancelled: Any = None) -> ConfigResult:
        if config not in slow:
            return evaluate(config, progress, cancelled)
        if progress is not None:
            progress("embedding", 0, 10)
        started.set()
        while not (cancelled is not None and cancelled()):  # checking at every report, as the core does
            threading.Event().wait(0.01)
        raise EvaluationCancelled("embedding")

    app.session.evaluator.evaluate = evaluate_slowly  # type: ignore[method-assign]
    return started


async def start_slow_fragility(pilot: Any, started: threading.Event) -> None:
    """Press u and wait until the first neighbour reports its progress."""
    await settle(pilot)
    await pilot.press("u")
    for _ in range(200):
        if started.is_set() and "embedding" in pilot.app.session.progress:
            return
        await pilot.pause(0.01)
    raise AssertionError("the first neighbour did not start")


@async_test
async def test_esc_cancels_fragility_within_a_neighbour(fragile: Dataset) -> None:
    app = make_app(fragile, SIZE_20)
    started = slow_neighbours(app)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await start_slow_fragility(pilot, started)
        assert app.session.evaluating
        assert app.session.progress == "fixed:size=16/bm25: fragility 1/8 · size -20% · embedding 0/10"
        await pilot.press("escape")
        await settle(pilot)
        assert not app.session.evaluating and app.session.fragility_wanted is None
        assert app.session.fragility(SIZE_20) is None
        assert all(row.fragility is None for row in app.screen.query_one(QuestionList).rows)
        assert "Cancelled the fragility of fixed:size=20/bm25. u asks for it again." in notes_of(app)


@async_test
async def test_a_configuration_change_supersedes_the_fragility(fragile: Dataset) -> None:
    app = make_app(fragile, SIZE_20)
    started = slow_neighbours(app)
    async with app.run_test(size=SIZE) as pilot:
        await start_slow_fragility(pilot, started)
        await pilot.press("plus")  # a larger size: its evaluation does not wait for eight neighbours
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config != SIZE_20
        assert app.session.fragility_wanted is None and not app.session.evaluating
        assert app.session.fragility(SIZE_20) is None


@async_test
async def test_u_without_a_size_parameter_says_why(fragile: Dataset) -> None:
    app = make_app(fragile, make_config("paragraph"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert app.session.fragility_wanted is None and not app.session.evaluating
        assert any("needs a chunker with a size parameter" in note for note in notes_of(app))


# ---------------------------------------------------------------- groups


def raw_tags() -> dict[str, list[str]]:
    """Each sample question's tags, read from the file itself."""
    lines = SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return {entry["id"]: entry.get("tags", []) for entry in map(json.loads, lines)}


async def open_picker(pilot: Any) -> GroupPicker:
    """Wait for the results, then press ``#``: the group picker."""
    await settle(pilot)
    await pilot.press("number_sign")
    picker = pilot.app.screen
    assert isinstance(picker, GroupPicker)
    return picker


async def pick_group(pilot: Any, tag: str) -> None:
    picker = await open_picker(pilot)
    options = picker.query_one(OptionList)
    options.highlighted = 1 + list(picker.tags).index(tag)
    await pilot.press("enter")
    await settle(pilot)


@async_test
async def test_group_picker_lists_the_tags_with_counts_and_restricts_the_list(sample: Dataset) -> None:
    tags = raw_tags()
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        picker = await open_picker(pilot)
        counts: dict[str, int] = {}
        for question_tags in tags.values():
            for tag in question_tags:
                counts[tag] = counts.get(tag, 0) + 1
        assert picker.tags == dict(sorted(counts.items()))
        await pilot.press("escape")
        await pick_group(pilot, "ja")
        assert listed(app) == [qid for qid, question_tags in tags.items() if "ja" in question_tags]
        assert "#ja" in str(app.screen.query_one("#inspect-questions").border_title)
        await pilot.press("f")  # failing, within the group
        failing = {r.question_id for r in app.session.a.shown.questions if not r.complete}  # type: ignore[union-attr]
        assert listed(app) == [qid for qid, question_tags in tags.items() if "ja" in question_tags and qid in failing]
        await pilot.press("escape")  # clears the group too
        assert len(listed(app)) == len(tags)


@async_test
async def test_group_summary_equals_the_by_tag_report(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pick_group(pilot, "paraphrase")
        await pilot.press("s")
        await settle(pilot)
        table = app.screen.query_one("#summary-group", MetricsTable)
        assert table.display and "#paraphrase" in str(table.border_title)
        shown = app.session.a.shown
        assert shown is not None
        report = eval_report(sample, [shown])  # what chunkscope eval --by-tag --json writes
        (group,) = [entry for entry in report["by_tag"] if entry["tag"] == "paraphrase"]
        summary = group["configs"][0]["summary"]
        cells = {row[0]: row[1] for row in table.rows()[1:]}
        questions = len(group["questions"])
        for metric in REGISTRY.tested():  # the table shows each tested metric as a mean per question
            mean = summary[metric.name] / questions if metric.kind == "count" else summary[metric.name]
            assert cells[metric.heading] == f"{mean:.3f}", metric.name
        assert cells[REGISTRY["lost"].heading] == str(summary["lost"])
        assert f"{len(group['questions'])} of {len(sample.questions.questions)} questions" in str(table.border_title)


@async_test
async def test_inspect_groups_auto_offers_the_computed_groups(sample: Dataset) -> None:
    questions = with_computed_tags(sample.questions.questions, sample.corpus)
    auto = replace(sample, questions=replace(sample.questions, questions=questions))
    app = make_app(auto)
    async with app.run_test(size=SIZE) as pilot:
        picker = await open_picker(pilot)
        assert {"lexical:high", "evidence:single", "span:short"} <= set(picker.tags)


# ---------------------------------------------------------------- sort by rank change


def by_rank_change(app: ChunkscopeApp, sign: int) -> list[str]:
    """The oracle: question ids by (rank under B - rank under A) with a missing rank as infinity, computed
    from the two results' first correct ranks; ties keep question order."""
    a, b = app.session.a.shown, app.session.b.shown  # type: ignore[union-attr]
    assert a is not None and b is not None

    def change(index: int) -> float:
        rank_a, rank_b = a.questions[index].first_correct_rank, b.questions[index].first_correct_rank
        if rank_a == rank_b:
            return 0.0
        return (math.inf if rank_b is None else rank_b) - (math.inf if rank_a is None else rank_a)

    order = sorted(range(len(a.questions)), key=lambda index: (sign * change(index), index))
    return [a.questions[index].question_id for index in order]


@async_test
async def test_S_sorts_the_split_view_by_rank_change(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        default = listed(app)
        await pilot.press("S")
        assert listed(app) == by_rank_change(app, 1)
        assert listed(app) != default
        assert "biggest improvement first" in str(app.screen.query_one("#compare-questions").border_title)
        await pilot.press("S")
        assert listed(app) == by_rank_change(app, -1)
        await pilot.press("f", "f")  # still sorted within a filter (lost under A or B)
        lost = {r.question_id for s in app.session.slots() for r in s.shown.questions if r.lost}  # type: ignore[union-attr]
        assert listed(app) == [qid for qid in by_rank_change(app, -1) if qid in lost]
        await pilot.press("S")
        assert listed(app) == [qid for qid in default if qid in lost]


# ---------------------------------------------------------------- clipboard


@async_test
async def test_y_copies_the_highlighted_chunk_and_Y_the_case_file(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None
        await pilot.press("y")
        first = shown.questions[0].ranked[0].chunk
        document = sample.corpus.by_id[first.doc]
        assert app.clipboard == document.text[first.start : first.end]
        assert f"Copied chunk {first.id} (rank 1, {first.end - first.start:,} chars)." in notes_of(app)
        await pilot.press("Y")
        question = sample.questions.questions[0]
        expected = case_file(question, sample.corpus, (shown,), sample.name, None)
        assert app.clipboard == expected
        assert f"Copied the case file of {question.id} ({len(expected):,} chars)." in notes_of(app)


@async_test
async def test_y_copies_the_chunk_under_the_ranked_cursor_of_the_focused_side(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.session.b.shown  # type: ignore[union-attr]
        assert b is not None
        app.screen.query_one("#compare-ranked-b").focus()
        await pilot.press("down")  # rank 2 under B
        await pilot.press("y")
        second = b.questions[0].ranked[1].chunk
        assert app.clipboard == sample.corpus.by_id[second.doc].text[second.start : second.end]


def test_copied_case_file_is_the_exported_one(sample: Dataset, tmp_path: Path) -> None:
    """``Y`` and the export dialog's case file render through one function: same bytes."""

    async def run() -> tuple[str, str]:
        app = make_app(sample, FIXED_200, OVERLAP_40)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("Y")
            target = tmp_path / "case.md"
            app.post_message(messages.ExportRequested("case", str(target), with_b=True))
            await settle(pilot)
            return app.clipboard, target.read_text(encoding="utf-8")

    copied, written = asyncio.run(run())
    assert copied == written


def test_evaluator_keeps_every_neighbour_after_the_inspector_computed_fragility(fragile: Dataset) -> None:
    """The inspector takes the core's fragility from the Evaluator's cache: a second fragility costs nothing."""

    async def run() -> Evaluator:
        app = make_app(fragile, SIZE_20)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("u")
            await settle(pilot)
        return app.session.evaluator

    evaluator = asyncio.run(run())
    assert all(evaluator.cached(n.config) is not None for n in neighbours(SIZE_20))
    assert fragility(evaluator, SIZE_20).summary.fragile_ok == 2


@async_test
async def test_palette_offers_each_group_and_the_fragility_filters(fragile: Dataset, sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hits = {
            hit.text: hit async for hit in ChunkscopeCommands(app.screen).discover() if isinstance(hit, DiscoveryHit)
        }
        assert "Filter: show fragile OK" not in hits  # fragility not computed
        hits["Filter: group #table"].command()
        await settle(pilot)
        assert listed(app) == [qid for qid, tags in raw_tags().items() if "table" in tags]
    app = make_app(fragile, SIZE_20)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        hits = {
            hit.text: hit async for hit in ChunkscopeCommands(app.screen).discover() if isinstance(hit, DiscoveryHit)
        }
        hits["Filter: show robust OK"].command()
        await settle(pilot)
        assert listed(app) == ["q1"]
