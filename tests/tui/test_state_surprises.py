"""The inspector's state where it surprised a new user (issue 28, point 5): each test fails on the code before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, async_test, make_app, settle
from rich.cells import cell_len

from chunkscope.chunkers import parse_chunker
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.quotes import parse_match_policy
from chunkscope.pipeline.config import make_config
from chunkscope.tui import messages
from chunkscope.tui.actions import ACTIONS_BY_ID
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.state.config_steps import cycle_strategy
from chunkscope.tui.widgets.config_bar import ConfigBar
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView

SIZE = (140, 40)


def header(app: Any) -> str:
    return str(app.screen.query_one(ConfigBar).render())


# -- o, v, v: the single view shows the current configuration


@async_test
async def test_closing_the_split_view_shows_the_current_configuration(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")  # the change: overlap 20%
        await settle(pilot)
        await pilot.press("v")  # A = before the change, B = the change
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, InspectScreen)
        shown = app.session.a.shown
        assert shown is not None and shown.config == OVERLAP_40
        assert "fixed:size=200,overlap=40/bm25" in header(app)
        await pilot.press("v")  # the same pair again: before the change | the change
        await settle(pilot)
        assert app.session.a.requested == FIXED_200
        assert app.session.b is not None and app.session.b.requested == OVERLAP_40


@async_test
async def test_after_t_the_split_view_closes_on_a(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o", "v")
        await settle(pilot)
        await pilot.press("t", "k")  # the keys change A now: top-k 10
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        shown = app.session.a.shown
        assert shown is not None and shown.config.chunker == FIXED_200.chunker and shown.config.top_k == 10


# -- header and panes change together


@async_test
async def test_the_header_and_the_ranked_chunks_change_together(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, bool]] = []
    sync_session = InspectScreen.sync_session

    def checking(screen: InspectScreen) -> None:
        sync_session(screen)
        shown, row = screen.session.a.shown, screen.session.selected_row("inspect")
        if shown is None or row is None or not screen.is_mounted:
            return
        # What the ranked chunks show once the screen has taken the session's results: the shown result's hits.
        top = screen.query_one(RankedChunksView).highlighted
        expected = shown.questions[row.index].ranked[0]
        seen.append((shown.config.retriever, top == expected))

    monkeypatch.setattr(InspectScreen, "sync_session", checking)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(messages.ConfigRequested("a", make_config("fixed:size=200", "overlap")))
        await settle(pilot)
        assert "fixed:size=200/overlap" in header(app)
    overlap = [same for retriever, same in seen if retriever.startswith("overlap")]
    assert overlap and all(overlap), seen


# -- c cycles onto sizes comparable to the current one


@pytest.mark.parametrize(
    ("current", "name", "fields", "sized"),
    [
        ("fixed:size=200,overlap=40", "langchain", ("chunk_size", "chunk_overlap"), (200, 40)),
        ("fixed:size=200", "recursive", ("size", "overlap"), (200, 0)),  # past paragraph, which has no size
        ("recursive:size=300,overlap=60", "semchunk", ("size", "overlap"), (300, 60)),
        ("fixed:size=256,unit=tokens", "textsplitter", ("size", "unit"), (256, "tokens")),
    ],
)
def test_a_chunker_new_to_the_session_comes_sized_like_the_current_one(
    current: str, name: str, fields: tuple[str, str], sized: tuple[object, object]
) -> None:
    config = make_config(current)
    remembered: dict[str, str] = {}
    cycle_state: dict[str, str] = {}
    while True:  # c until the cycle reaches ``name``
        config = cycle_strategy(config, "chunker", 1, remembered, cycle_state)
        if config.chunker.startswith(f"{name}:"):
            break
    after = parse_chunker(config.chunker)
    assert (getattr(after, fields[0]), getattr(after, fields[1])) == sized


def test_langchain_from_the_cycle_is_not_the_library_default() -> None:
    config = cycle_strategy(make_config("fixed:size=200"), "chunker", 1, {})
    assert config.chunker.startswith("langchain:")
    assert "chunk_size=200" in config.chunker and "chunk_size=4000" not in config.chunker


def test_a_chunker_used_before_keeps_its_own_parameters() -> None:
    remembered = {"chunker langchain": make_config("langchain:chunk_size=1000,chunk_overlap=100").chunker}
    config = cycle_strategy(make_config("fixed:size=200"), "chunker", 1, remembered)
    assert "chunk_size=1000" in config.chunker


# -- the split view's header at 80 columns shows what differs


@async_test
async def test_the_split_header_at_80_columns_shows_the_parts_that_differ(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        lines = header(app).splitlines()
        line_a = next(line for line in lines if line.startswith(" A "))
        line_b = next(line for line in lines if line.startswith(" B "))
        assert all(cell_len(line) <= 80 for line in lines)
        # The start both share ("fixed:size=200") goes first; B's overlap and each side's end stay.
        assert "overlap=40" in line_b
        assert "=200/bm25" in line_a
        assert "fixed:si…" not in line_a and "fixed:si…" not in line_b


# -- ≈ in the question list


def gold_fixture() -> Dataset:
    gold = Path(__file__).resolve().parents[1] / "fixtures" / "gold"
    return load_dataset(gold / "corpus", gold / "fixable.jsonl", gold_match=parse_match_policy("fuzzy"))


@async_test
async def test_the_question_list_marks_gold_located_approximately() -> None:
    dataset = gold_fixture()
    app = make_app(dataset, make_config("fixed:size=120"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        question_list = app.screen.query_one(QuestionList)
        lines = {
            row.question.id: "".join(segment.text for segment in question_list.render_line(index))
            for index, row in enumerate(question_list.rows)
        }
        result = app.session.a.shown
        assert result is not None
        approximate = {
            q.question_id for q in result.questions if any(label != "exact" for m in q.gold_match for label in m)
        }
        assert approximate  # f1 normalised, f2 fuzzy
        for question_id, line in lines.items():
            assert ("≈" in line) == (question_id in approximate), line


# -- o v typed at once (read from the terminal together)


@async_test
async def test_o_and_v_typed_at_once_open_the_split_view_on_before_and_after(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectScreen)
        screen.action_config("overlap", 1)  # o
        await screen.run_action(ACTIONS_BY_ID["view.compare"].action)  # v, in the same turn
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert app.session.a.requested == FIXED_200
        assert app.session.b is not None and app.session.b.requested == OVERLAP_40
