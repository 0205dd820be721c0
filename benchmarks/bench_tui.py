"""Inspector speed targets: the app driven headless (``App.run_test``) on JSQuAD valid.

1. Launch to first interactive screen: a fresh Python process imports the app, loads JSQuAD
   (as ``chunkscope inspect --squad`` does) and runs it; measured from process start (before any
   import) to the single view being mounted and focused, and to the first configuration's results
   listed (the evaluation runs in a worker after the screen shows). Target: under 2 s.
2. Next question, one key at a time: ``down`` in the question list, from the key until the screen
   painted the frame that shows the next question (list, status line, ranked chunks and document view);
   keys STEP_PAUSE_S apart after the screen settled (a reader's pace: the app may use the pause, as it
   may while someone reads). p95 over ``--steps`` steps per run. Target: p95 under 20 ms.
3. Next question at rapid key rates: ``n`` pressed ``--burst`` times every 5, 10 and 30 ms (keys
   posted as the terminal driver posts them). Every press must be handled: the selection ends on the
   question the same number of single steps reaches (counted from the rows, not from the app). Per
   step: from a key's arrival until the selection moved for it (handled), and until the detail panes
   show that question or a later one of the burst, their visible lines rendered (shown). Each burst is
   a held key: one press, the key-repeat delay (REPEAT_DELAY_S), then the repeats that are measured.
   Target: every press handled, shown p95 under 20 ms.
4. A new configuration's results appearing: a live-configuration key (``o``, ``+``, ``+``) with an
   uncached chunking and BM25, from the key press until the header shows the new result.
   Target: under 1 s.
5. Input during a recomputation: keys pressed while the worker evaluates a new configuration;
   reports how many were handled before the results arrived, their latency, and lost keys (none).
6. Cancel: ``esc`` while a new configuration is computed (at several points of its run), and a
   computation superseded by ``p`` (back to a cached configuration): until the screen shows the
   old result without progress (UI) and until the worker thread stopped computing (thread).
   Target: both under 200 ms.
7. With ``--scale-mb 50``: figure 2 on JSQuAD scaled to 50 MB (``scale_corpus.replicated``: shuffled
   copies of its articles as distractors). The step shows one question's hits and one document, so
   its cost should not grow with the corpus: target, UI-thread CPU p50 under 1.5 x JSQuAD's.

Polling waits sleep 1 ms (``asyncio.sleep(0)`` would spin the event loop, starving the worker
thread of the GIL and inflating what it measures). Every figure is the median over ``--runs``
runs (fresh app, hence fresh caches, per run).
Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_tui.py [--runs N] [--no-launch] [--only steps,rapid]
[--scale-mb 50]`` (``--only``: some of the in-app figures: steps 2, rapid 3, config 4 and 5, cancel 6).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from scale_corpus import replicated, utf8_megabytes  # noqa: E402
from textual import events  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.pilot import Pilot  # noqa: E402
from textual.widget import Widget  # noqa: E402
from textual.worker import WorkerCancelled  # noqa: E402

from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.results import Config  # noqa: E402
from chunkscope.tui.app import ChunkscopeApp  # noqa: E402
from chunkscope.tui.session import Session  # noqa: E402
from chunkscope.tui.state.rows import QuestionRow  # noqa: E402
from chunkscope.tui.widgets.document_view import DocumentView  # noqa: E402
from chunkscope.tui.widgets.question_list import QuestionList  # noqa: E402
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView  # noqa: E402

JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))
SIZE = (160, 45)
CONFIG = "fixed:size=200"
LAUNCH_TARGET_S = 2.0
NEXT_P95_TARGET_MS = 20.0
RAPID_P95_TARGET_MS = 20.0
NEW_CONFIG_TARGET_S = 1.0
CANCEL_TARGET_MS = 200.0
SCALE_RATIO_TARGET = 1.5
"""The step on a scaled corpus may cost at most this much more than on JSQuAD (it should not grow)."""
RATES_MS = (5, 10, 30)
CANCELS = (
    ("minus", "indexing", "escape", "cancel_indexing"),
    ("plus", "ranking", "escape", "cancel_ranking"),
    ("o", "measuring", "escape", "cancel_measuring"),
    ("k", "measuring", "p", "supersede_measuring"),
)
"""(key asking for an uncached configuration, stage to cancel in, cancelling key, figure name)."""
REPEAT_DELAY_S = 0.5
"""Between the first press of a held key and its first repeat (desktop defaults: 0.5 to 0.66 s)."""
STEP_PAUSE_S = 0.15
"""Between single steps: faster than anyone reads a question (held keys are figure 3)."""
POLL_S = 0.001
"""How long a polling wait sleeps: short, but a real sleep (the worker thread needs the GIL)."""

LAUNCH_SCRIPT = """
import time
start = time.perf_counter()
import asyncio, json, sys
from chunkscope.cli import main  # what the console script imports
from chunkscope.pipeline.config import make_config
from chunkscope.io.squad import load_squad
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.session import Session
from chunkscope.tui.widgets.question_list import QuestionList

async def run():
    dataset = load_squad(sys.argv[1])
    app = ChunkscopeApp(Session(dataset, make_config(sys.argv[2])))
    async with app.run_test(size=(160, 45)) as pilot:
        screen_at = None
        while True:
            screen = app.screen
            if screen_at is None and getattr(screen, "ready", False) and app.focused is not None:
                screen_at = time.perf_counter() - start
            if screen_at is not None and len(screen.query_one(QuestionList).rows) == len(dataset.questions.questions):
                listed_at = time.perf_counter() - start
                break
            await asyncio.sleep(0.002)
    print(json.dumps({"screen": screen_at, "results": listed_at}))

asyncio.run(run())
"""


def launch_times() -> dict[str, float]:
    """One cold launch in a fresh process: seconds to the first screen and to the listed results."""
    out = subprocess.run(
        [sys.executable, "-c", LAUNCH_SCRIPT, str(JSQUAD), CONFIG],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def render_visible(*widgets: Widget) -> None:
    """Render every visible line of ``widgets``, as the next screen refresh would."""
    for widget in widgets:
        widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))


async def settle(pilot: Pilot[None]) -> None:
    """Wait for the workers (a cancelled one counts as done) and the messages they posted."""
    with contextlib.suppress(WorkerCancelled):
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def post_key(app: ChunkscopeApp, key: str) -> None:
    """A key as the terminal driver delivers it."""
    app.post_message(events.Key(key, key if len(key) == 1 else None))


async def wait_for(done: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until ``done()`` holds, polling every POLL_S; TimeoutError after ``timeout``."""
    started = time.perf_counter()
    while not done():
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"{what}: not within {timeout} s")
        await asyncio.sleep(POLL_S)
    return time.perf_counter() - started


async def key_until(app: ChunkscopeApp, key: str, done: Callable[[], bool], timeout: float = 10.0) -> float:
    """Seconds from posting ``key`` until ``done()`` holds."""
    post_key(app, key)
    return await wait_for(done, timeout, key)


def failing_after(rows: tuple[QuestionRow, ...], start: str, count: int) -> list[str]:
    """The ``count`` failing questions after ``start`` in list order, wrapping: what ``n`` x count visits."""
    ids = [row.question.id for row in rows]
    index = ids.index(start)
    visited = []
    while len(visited) < count:
        index = (index + 1) % len(rows)
        if rows[index].failing:
            visited.append(ids[index])
    return visited


class Panes:
    """The single view's list and detail panes, and what they show."""

    def __init__(self, app: ChunkscopeApp) -> None:
        screen = app.screen
        self.question_list = screen.query_one(QuestionList)
        self.ranked = screen.query_one(RankedChunksView)
        self.document = screen.query_one(DocumentView)

    def showing(self, question_id: str) -> bool:
        """The ranked chunks and the document were given the question (show_detail ran)."""
        return question_id in str(self.ranked.border_title) and self.document.document is not None

    def render(self) -> None:
        render_visible(self.question_list, self.ranked, self.document)


class Frames:
    """The frames the screen paints, and when the first one showing a wanted question ended.

    Textual has no public hook for a finished frame: this wraps the screen's compositor refresh (the
    call that renders the changed lines and writes them to the terminal).
    """

    def __init__(self, panes: Panes, screen: Any) -> None:
        self.panes = panes
        self.wanted: str | None = None
        self.shown_at: float | None = None
        """End of the first frame painted while the panes showed ``wanted``."""
        self.shown = asyncio.Event()
        """Set with ``shown_at``: waiting on it costs the app nothing (polling wakes its loop every millisecond)."""
        paint = screen._compositor_refresh

        def painted() -> None:
            showing = self.wanted is not None and self.shown_at is None and panes.showing(self.wanted)
            paint()
            if showing:
                self.shown_at = time.perf_counter()
                self.shown.set()

        screen._compositor_refresh = painted

    def expect(self, question_id: str) -> None:
        self.wanted, self.shown_at = question_id, None
        self.shown.clear()


async def single_steps(app: ChunkscopeApp, panes: Panes, steps: int) -> tuple[list[float], list[float]]:
    """Milliseconds per ``down``, one key at a time: from the key until the frame showing the next question
    is painted (wall clock), and the CPU time of the UI thread meanwhile (what the step costs the app,
    whatever else the machine runs). Each key comes STEP_PAUSE_S after the screen settled: a reader's pace."""
    frames = Frames(panes, app.screen)
    latencies, cpu = [], []
    for _ in range(steps):
        await wait_for(lambda: not app.screen.settling, 10.0, "settle")
        await asyncio.sleep(STEP_PAUSE_S)
        target = panes.question_list.rows[panes.question_list.cursor + 1].question.id
        frames.expect(target)
        cpu_started = time.thread_time()
        started = time.perf_counter()
        post_key(app, "down")
        await asyncio.wait_for(frames.shown.wait(), 10.0)
        assert frames.shown_at is not None
        latencies.append((frames.shown_at - started) * 1000)
        cpu.append((time.thread_time() - cpu_started) * 1000)
    return latencies, cpu


async def rapid_steps(app: ChunkscopeApp, panes: Panes, presses: int, interval_ms: float) -> dict[str, float]:
    """``n`` every ``interval_ms``: handled / shown latency per key and whether every press counted."""
    session = app.session
    start = session.selected_id
    assert start is not None
    expected = failing_after(session.visible_rows("inspect"), start, presses)
    posted: list[float] = []
    handled: list[float | None] = [None] * presses
    shown: list[float | None] = [None] * presses

    loop = asyncio.get_running_loop()

    def typist() -> None:
        # A thread, as the terminal driver's input thread: keys arrive on time even while the UI is busy.
        for _ in range(presses):
            posted.append(time.perf_counter())
            key = events.Key("n", "n")
            loop.call_soon_threadsafe(app.post_message, key)
            time.sleep(interval_ms / 1000)

    cpu_started = time.thread_time()
    typing = asyncio.ensure_future(asyncio.to_thread(typist))
    deadline = time.perf_counter() + 30
    last_shown = -1
    while (None in shown or not typing.done()) and time.perf_counter() < deadline:
        now = time.perf_counter()
        position = session.selected_id
        if position in expected:
            reached = expected.index(position)
            for key in range(reached + 1):
                if handled[key] is None and key < len(posted):
                    handled[key] = now - posted[key]
        for key in range(len(expected) - 1, last_shown, -1):
            if panes.showing(expected[key]):
                panes.render()
                rendered = time.perf_counter()
                for earlier in range(last_shown + 1, key + 1):
                    if earlier < len(posted):
                        shown[earlier] = rendered - posted[earlier]
                last_shown = key
                break
        await asyncio.sleep(POLL_S)
    await typing
    cpu_per_key = (time.thread_time() - cpu_started) * 1000 / presses
    final_ok = session.selected_id == expected[-1]
    handled_ms = [value * 1000 for value in handled if value is not None]
    shown_ms = [value * 1000 for value in shown if value is not None]
    return {
        "all_handled": float(final_ok and len(handled_ms) == presses),
        "handled_p50_ms": statistics.median(handled_ms) if handled_ms else float("nan"),
        "handled_p95_ms": percentile(handled_ms, 0.95) if handled_ms else float("nan"),
        "shown_p50_ms": statistics.median(shown_ms) if shown_ms else float("nan"),
        "shown_p95_ms": percentile(shown_ms, 0.95) if shown_ms else float("nan"),
        "cpu_per_key_ms": cpu_per_key,
    }


async def held_key_press(app: ChunkscopeApp) -> None:
    """How a held key starts: one ``n``, then nothing for the key-repeat delay (the app may use it, as it may
    use any pause), after which the repeats come (``rapid_steps``)."""
    before = app.session.selected_id
    post_key(app, "n")
    await wait_for(lambda: app.session.selected_id != before, 5.0, "first press")
    await asyncio.sleep(REPEAT_DELAY_S)


def track_evaluations(app: ChunkscopeApp) -> list[tuple[Config, float]]:
    """Record when each evaluation in the worker thread returns or stops (cancelled): (config, time)."""
    evaluator = app.session.evaluator
    original = evaluator.evaluate
    ended: list[tuple[Config, float]] = []

    def evaluate(config: Config, progress: Any = None, cancelled: Any = None) -> Any:
        try:
            return original(config, progress, cancelled)
        finally:
            ended.append((config, time.perf_counter()))

    evaluator.evaluate = evaluate  # type: ignore[method-assign]
    return ended


async def back_to(app: ChunkscopeApp, pilot: Pilot[None], config: Config) -> None:
    """``p`` back to ``config`` once the computation ended, for the next figure (this one is not a figure)."""
    await settle(pilot)
    await key_until(app, "p", lambda: app.session.a.requested == config)
    await settle(pilot)


async def cancel_once(
    app: ChunkscopeApp, pilot: Pilot[None], key: str, stage: str, cancel: str
) -> tuple[float, float] | None:
    """Press ``key`` (an uncached configuration), then ``cancel`` (``escape``, or ``p`` to supersede it) once the
    worker reports ``stage``; milliseconds until the screen is back (UI) and until the worker stopped (thread).
    None when the computation ended before the stage was seen (nothing left to cancel: not a figure)."""
    session = app.session
    before = session.a.requested
    ended = track_evaluations(app)
    await key_until(app, key, lambda: session.evaluating)
    wanted = session.a.requested
    await wait_for(lambda: f": {stage}" in session.progress or not session.evaluating, 60, stage)
    if not session.evaluating:
        await back_to(app, pilot, before)
        return None
    started = time.perf_counter()
    post_key(app, cancel)
    ui = await wait_for(lambda: not session.evaluating, 5, "cancel")
    if session.a.requested != before:  # it ended before the key came (esc cleared a filter instead)
        await back_to(app, pilot, before)
        return None
    await wait_for(lambda: any(config == wanted for config, _ in ended), 60, "worker stop")
    stopped = next(at for config, at in ended if config == wanted) - started
    await settle(pilot)
    if session.evaluator.cached(wanted) is not None:
        return None  # it ended between the last check and the cancel: nothing was cancelled
    return ui * 1000, max(0.0, stopped) * 1000


PARTS = ("steps", "rapid", "config", "cancel")
"""The in-app parts that ``--only`` can pick: figure 2, figure 3, figures 4 and 5, figure 6."""


async def interactive_run(dataset: Dataset, steps: int, presses: int, parts: frozenset[str]) -> dict[str, float]:
    """The in-app figures of ``parts`` on one fresh app."""
    app = ChunkscopeApp(Session(dataset, make_config(CONFIG)))
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panes = Panes(app)
        if "steps" in parts:
            figures.update(await step_figures(app, pilot, panes, steps))
        if "rapid" in parts:
            for rate in RATES_MS:
                await settle(pilot)
                await held_key_press(app)
                rapid = await rapid_steps(app, panes, presses, rate)
                for name, value in rapid.items():
                    figures[f"rapid_{rate}_{name}"] = value
        if "config" in parts:
            figures.update(await config_figures(app, pilot, panes))
        if "cancel" in parts:
            # Cancel: esc in each stage of a new configuration's run (each a configuration not computed before),
            # and a computation superseded by p (back to the cached configuration).
            for key, stage, cancel, name in CANCELS:
                cancelled = await cancel_once(app, pilot, key, stage, cancel)
                if cancelled is not None:
                    figures[f"{name}_ui_ms"], figures[f"{name}_thread_ms"] = cancelled
    return figures


async def step_figures(app: ChunkscopeApp, pilot: Pilot[None], panes: Panes, steps: int) -> dict[str, float]:
    """Figure 2: single steps (wall clock and UI-thread CPU), and the same step through Pilot."""
    latencies, cpu = await single_steps(app, panes, steps)
    round_trips = []
    for _ in range(20):  # the same step through Textual's Pilot, idle waits included (an upper bound)
        started = time.perf_counter()
        await pilot.press("down")
        round_trips.append((time.perf_counter() - started) * 1000)
    return {
        "next_p50_ms": statistics.median(latencies),
        "next_p95_ms": percentile(latencies, 0.95),
        "next_cpu_p50_ms": statistics.median(cpu),
        "next_cpu_p95_ms": percentile(cpu, 0.95),
        "pilot_press_p50_ms": statistics.median(round_trips),
    }


async def config_figures(app: ChunkscopeApp, pilot: Pilot[None], panes: Panes) -> dict[str, float]:
    """Figures 4 and 5: new configurations, a cached switch, keys during a recomputation."""
    session = app.session
    figures: dict[str, float] = {}

    def changed_from(config: Config) -> Callable[[], bool]:
        # The key changed the configuration and its results are on screen.
        return lambda: session.a.requested != config and not session.a.pending

    await settle(pilot)
    new_config = []
    for key in ("o", "plus", "plus"):  # 200 -> 200/40 -> 300/60 -> 400/80: each chunking is new
        seconds = await key_until(app, key, changed_from(session.a.requested))
        started = time.perf_counter()
        panes.render()
        new_config.append(seconds + time.perf_counter() - started)
        await settle(pilot)
    figures["new_config_s"] = statistics.median(new_config)
    figures["new_config_max_s"] = max(new_config)
    figures["cached_switch_ms"] = await key_until(app, "p", changed_from(session.a.requested)) * 1000

    # Keys while the worker evaluates an uncached configuration (300 with 50% overlap: the most chunks yet).
    await key_until(app, "o", lambda: session.a.pending)
    handled, lost, during = 0, 0, []
    while session.a.pending:
        before = session.selected_id
        try:
            seconds = await key_until(app, "down", lambda before=before: session.selected_id != before, 2.0)
        except TimeoutError:
            lost += 1
            continue
        if session.a.pending:
            handled += 1
            during.append(seconds * 1000)
    await settle(pilot)
    figures["keys_during_recompute"] = handled
    figures["keys_lost_during_recompute"] = lost
    figures["key_during_recompute_p95_ms"] = percentile(during, 0.95) if during else float("nan")
    return figures


async def scaled_steps(dataset: Dataset, steps: int) -> dict[str, float]:
    """Next question, one key at a time, on a scaled corpus: the step should not grow with the corpus."""
    app = ChunkscopeApp(Session(dataset, make_config(CONFIG)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        latencies, cpu = await single_steps(app, Panes(app), steps)
    return {
        "next_p50_ms": statistics.median(latencies),
        "next_p95_ms": percentile(latencies, 0.95),
        "next_cpu_p50_ms": statistics.median(cpu),
        "next_cpu_p95_ms": percentile(cpu, 0.95),
    }


def cancel_row(runs: list[dict[str, float]], stage: str, cancel: str, name: str) -> tuple[str, str, str, bool]:
    """One cancel figure: median over the runs where the computation was still in ``stage`` when cancelled."""
    label = f"{'esc' if cancel == 'escape' else 'superseded by ' + cancel} while {stage}: UI, worker stopped"
    measured = [run for run in runs if f"{name}_ui_ms" in run]
    if not measured:
        return label, "n/a: always done first", f"< {CANCEL_TARGET_MS:.0f} ms", True
    ui = statistics.median(run[f"{name}_ui_ms"] for run in measured)
    thread = statistics.median(run[f"{name}_thread_ms"] for run in measured)
    value = f"{ui:.1f} ms, {thread:.1f} ms ({len(measured)}/{len(runs)} runs)"
    return label, value, f"< {CANCEL_TARGET_MS:.0f} ms", max(ui, thread) < CANCEL_TARGET_MS


Rows = list[tuple[str, str, str, bool]]
"""Report rows: (figure, value, target, met)."""


def median_of(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def launch_rows(launches: list[dict[str, float]]) -> Rows:
    screen, results = median_of(launches, "screen"), median_of(launches, "results")
    return [
        ("launch to first interactive screen", f"{screen:.2f} s", f"< {LAUNCH_TARGET_S} s", screen < LAUNCH_TARGET_S),
        ("launch to first results listed", f"{results:.2f} s", f"< {LAUNCH_TARGET_S} s", results < LAUNCH_TARGET_S),
    ]


def step_rows(runs: list[dict[str, float]]) -> Rows:
    def median(key: str) -> float:
        return median_of(runs, key)

    return [
        (
            "next question, one key at a time, p95 (p50)",
            f"{median('next_p95_ms'):.1f} ms ({median('next_p50_ms'):.1f})",
            f"< {NEXT_P95_TARGET_MS:.0f} ms",
            median("next_p95_ms") < NEXT_P95_TARGET_MS,
        ),
        (
            "  the same, CPU time of the UI thread, p95 (p50)",
            f"{median('next_cpu_p95_ms'):.1f} ms ({median('next_cpu_p50_ms'):.1f})",
            f"< {NEXT_P95_TARGET_MS:.0f} ms",
            median("next_cpu_p95_ms") < NEXT_P95_TARGET_MS,
        ),
        (
            "next question through Pilot.press, idle waits included",
            f"{median('pilot_press_p50_ms'):.1f} ms",
            "(p50)",
            True,
        ),
    ]


def rapid_rows(runs: list[dict[str, float]]) -> Rows:
    def median(key: str) -> float:
        return median_of(runs, key)

    rows: Rows = []
    for rate in RATES_MS:
        rows.append(
            (
                f"  n every {rate} ms: UI thread CPU time per key",
                f"{median(f'rapid_{rate}_cpu_per_key_ms'):.1f} ms",
                f"< {RAPID_P95_TARGET_MS:.0f} ms",
                median(f"rapid_{rate}_cpu_per_key_ms") < RAPID_P95_TARGET_MS,
            )
        )
    for rate in RATES_MS:
        every = all(run[f"rapid_{rate}_all_handled"] == 1.0 for run in runs)
        shown = median(f"rapid_{rate}_shown_p95_ms")
        rows.append(
            (
                f"n every {rate} ms: all handled · handled p95 (p50) · shown p95 (p50)",
                f"{'yes' if every else 'NO'} · {median(f'rapid_{rate}_handled_p95_ms'):.1f} "
                f"({median(f'rapid_{rate}_handled_p50_ms'):.1f}) · "
                f"{shown:.1f} ({median(f'rapid_{rate}_shown_p50_ms'):.1f}) ms",
                f"all, < {RAPID_P95_TARGET_MS:.0f} ms",
                every and shown < RAPID_P95_TARGET_MS,
            )
        )
    return rows


def config_rows(runs: list[dict[str, float]]) -> Rows:
    def median(key: str) -> float:
        return median_of(runs, key)

    return [
        (
            "new configuration results (max)",
            f"{median('new_config_s'):.2f} s ({median('new_config_max_s'):.2f})",
            f"< {NEW_CONFIG_TARGET_S} s",
            median("new_config_max_s") < NEW_CONFIG_TARGET_S,
        ),
        ("switch back to a cached configuration", f"{median('cached_switch_ms'):.1f} ms", "instant", True),
        (
            "keys handled during a recomputation (p95 latency), lost",
            f"{median('keys_during_recompute'):.0f} ({median('key_during_recompute_p95_ms'):.1f} ms), "
            f"{max(run['keys_lost_during_recompute'] for run in runs):.0f}",
            "> 0, none lost",
            median("keys_during_recompute") > 0 and all(run["keys_lost_during_recompute"] == 0 for run in runs),
        ),
    ]


def scale_rows(dataset: Dataset, megabytes: float, runs: list[dict[str, float]], steps: int, count: int) -> Rows:
    """Figure 7: the single step on the scaled corpus, and its UI-thread CPU against JSQuAD's (``runs``)."""
    scaled = replicated(dataset, megabytes)
    big = [asyncio.run(scaled_steps(scaled, steps)) for _ in range(count)]
    ratio = median_of(big, "next_cpu_p50_ms") / median_of(runs, "next_cpu_p50_ms")
    return [
        (
            f"next question at {utf8_megabytes(scaled.corpus):.0f} MB, p95 (p50)",
            f"{median_of(big, 'next_p95_ms'):.1f} ms ({median_of(big, 'next_p50_ms'):.1f})",
            f"< {NEXT_P95_TARGET_MS:.0f} ms",
            median_of(big, "next_p95_ms") < NEXT_P95_TARGET_MS,
        ),
        (
            "  UI thread CPU p50 against JSQuAD's (same run)",
            f"{ratio:.2f}x",
            f"< {SCALE_RATIO_TARGET}x",
            ratio < SCALE_RATIO_TARGET,
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument("--steps", type=int, default=200, help="next-question steps per run")
    parser.add_argument("--burst", type=int, default=50, help="n presses per rapid-rate burst")
    parser.add_argument("--no-launch", action="store_true", help="skip the launch figures (fresh processes)")
    parser.add_argument(
        "--only",
        default=",".join(PARTS),
        help=f"comma-separated in-app parts to measure, of {', '.join(PARTS)} (default: all; "
        "steps: figure 2, rapid: 3, config: 4 and 5, cancel: 6)",
    )
    parser.add_argument(
        "--scale-mb", type=float, default=0.0, help="also step through JSQuAD scaled to this many MB (e.g. 50)"
    )
    args = parser.parse_args()
    parts = frozenset(part.strip() for part in args.only.split(",") if part.strip())
    if not parts <= set(PARTS) or (args.scale_mb and "steps" not in parts):
        print(f"--only: parts are {', '.join(PARTS)} (--scale-mb needs steps)", file=sys.stderr)
        return 2
    if not JSQUAD.exists():
        print(f"JSQuAD not found at {JSQUAD} (set CHUNKSCOPE_JSQUAD)", file=sys.stderr)
        return 2
    launches = [] if args.no_launch else [launch_times() for _ in range(args.runs)]
    dataset = load_squad(JSQUAD)
    runs = [asyncio.run(interactive_run(dataset, args.steps, args.burst, parts)) for _ in range(args.runs)]

    rows: Rows = launch_rows(launches) if launches else []
    if "steps" in parts:
        rows += step_rows(runs)
    if "rapid" in parts:
        rows += rapid_rows(runs)
    if "config" in parts:
        rows += config_rows(runs)
    if "cancel" in parts:
        rows += [cancel_row(runs, stage, cancel, name) for _, stage, cancel, name in CANCELS]
    if args.scale_mb:
        rows += scale_rows(dataset, args.scale_mb, runs, args.steps, args.runs)
    questions = len(dataset.questions.questions)
    print(
        f"JSQuAD valid: {questions} questions, {len(dataset.corpus.documents)} documents; {CONFIG}/bm25; "
        f"median of {args.runs} runs; terminal {SIZE[0]}x{SIZE[1]}"
    )
    for name, value, target, ok in rows:
        print(f"  {name:<62} {value:>34}   target {target:<14} {'ok' if ok else 'MISSED'}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
