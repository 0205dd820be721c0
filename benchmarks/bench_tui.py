"""Inspector speed targets: the app driven headless (``App.run_test``) on JSQuAD valid.

1. Launch to first interactive screen: a fresh Python process imports the app, loads JSQuAD
   (as ``chunkscope inspect --squad`` does) and runs it; measured from process start (before any
   import) to the single view being mounted and focused, and to the first configuration's results
   listed (the evaluation runs in a worker after the screen shows). Target: under 2 s.
2. Next question: ``down`` in the question list, then every visible line of the question list,
   ranked chunks and document view rendered (Line API, what the next refresh draws); p95 over 200
   steps per run. Target: p95 under 50 ms.
3. A new configuration's results appearing: a live-configuration key (``o``, ``+``, ``+``) with an
   uncached chunking and BM25, from the key press until the header shows the new result.
   Target: under 1 s.
4. Input during a recomputation: keys pressed while the worker evaluates a new configuration;
   reports how many were handled before the results arrived and their latency.

Every figure is the median over ``--runs`` runs (fresh app, hence fresh caches, per run).
Run: ``.venv/bin/python benchmarks/bench_tui.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from textual import events  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.pilot import Pilot  # noqa: E402
from textual.widget import Widget  # noqa: E402

from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.results import Config  # noqa: E402
from chunkscope.tui.app import ChunkscopeApp  # noqa: E402
from chunkscope.tui.session import Session  # noqa: E402
from chunkscope.tui.widgets.document_view import DocumentView  # noqa: E402
from chunkscope.tui.widgets.question_list import QuestionList  # noqa: E402
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView  # noqa: E402

JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))
SIZE = (160, 45)
CONFIG = "fixed:size=200"
LAUNCH_TARGET_S = 2.0
NEXT_P95_TARGET_MS = 50.0
NEW_CONFIG_TARGET_S = 1.0

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
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def key_until(app: ChunkscopeApp, key: str, done: Callable[[], bool], timeout: float = 10.0) -> float:
    """Seconds from posting ``key`` (as the terminal driver does) until ``done()`` holds.

    Polls between event-loop turns, so no refresh timer or test-harness wait is counted.
    """
    started = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while not done():
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"{key}: no result within {timeout} s")
        await asyncio.sleep(0)
    return time.perf_counter() - started


async def interactive_run(dataset: Dataset, steps: int) -> dict[str, float]:
    """Next-question latency, new-configuration latency and input during a recomputation (one fresh app)."""
    app = ChunkscopeApp(Session(dataset, make_config(CONFIG)))
    session = app.session
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        question_list = screen.query_one(QuestionList)
        ranked = screen.query_one(RankedChunksView)
        document = screen.query_one(DocumentView)

        def moved_from(question_id: str | None) -> Callable[[], bool]:
            return lambda: session.selected_id != question_id

        def shown(question_id: str) -> Callable[[], bool]:
            # The ranked chunks and document panes were given the question (show_detail ran).
            return lambda: question_id in str(ranked.border_title) and document.document is not None

        latencies, round_trips = [], []
        for index in range(1, steps + 1):
            target = question_list.rows[index].question.id
            seconds = await key_until(app, "down", shown(target))
            started = time.perf_counter()
            render_visible(question_list, ranked, document)
            latencies.append((seconds + time.perf_counter() - started) * 1000)
        for _ in range(20):  # the same step through Textual's Pilot, idle waits included (an upper bound)
            started = time.perf_counter()
            await pilot.press("down")
            round_trips.append((time.perf_counter() - started) * 1000)
        figures["next_p50_ms"] = statistics.median(latencies)
        figures["next_p95_ms"] = percentile(latencies, 0.95)
        figures["pilot_press_p50_ms"] = statistics.median(round_trips)

        def changed_from(config: Config) -> Callable[[], bool]:
            # The key changed the configuration and its results are on screen.
            return lambda: session.a.requested != config and not session.a.pending

        new_config = []
        for key in ("o", "plus", "plus"):  # 200 -> 200/40 -> 300/60 -> 400/80: each chunking is new
            seconds = await key_until(app, key, changed_from(session.a.requested))
            started = time.perf_counter()
            render_visible(question_list, ranked, document)
            new_config.append(seconds + time.perf_counter() - started)
            await settle(pilot)
        figures["new_config_s"] = statistics.median(new_config)
        figures["new_config_max_s"] = max(new_config)
        seconds = await key_until(app, "p", changed_from(session.a.requested))
        figures["cached_switch_ms"] = seconds * 1000

        # Keys while the worker evaluates an uncached configuration (300 with 50% overlap: the most chunks yet).
        await key_until(app, "o", lambda: session.a.pending)
        handled, during = 0, []
        while session.a.pending:
            seconds = await key_until(app, "down", moved_from(session.selected_id))
            if session.a.pending:
                handled += 1
                during.append(seconds * 1000)
        await settle(pilot)
        figures["keys_during_recompute"] = handled
        figures["key_during_recompute_p95_ms"] = percentile(during, 0.95) if during else float("nan")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument("--steps", type=int, default=200, help="next-question steps per run")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"JSQuAD not found at {JSQUAD} (set CHUNKSCOPE_JSQUAD)", file=sys.stderr)
        return 2
    launches = [launch_times() for _ in range(args.runs)]
    dataset = load_squad(JSQUAD)
    runs = [asyncio.run(interactive_run(dataset, args.steps)) for _ in range(args.runs)]

    def median(key: str, rows: list[dict[str, float]]) -> float:
        return statistics.median(row[key] for row in rows)

    screen, results = median("screen", launches), median("results", launches)
    rows = [
        ("launch to first interactive screen", f"{screen:.2f} s", f"< {LAUNCH_TARGET_S} s", screen < LAUNCH_TARGET_S),
        ("launch to first results listed", f"{results:.2f} s", f"< {LAUNCH_TARGET_S} s", results < LAUNCH_TARGET_S),
        (
            "next question p95 (p50)",
            f"{median('next_p95_ms', runs):.1f} ms ({median('next_p50_ms', runs):.1f})",
            f"< {NEXT_P95_TARGET_MS:.0f} ms",
            median("next_p95_ms", runs) < NEXT_P95_TARGET_MS,
        ),
        (
            "new configuration results (max)",
            f"{median('new_config_s', runs):.2f} s ({median('new_config_max_s', runs):.2f})",
            f"< {NEW_CONFIG_TARGET_S} s",
            median("new_config_max_s", runs) < NEW_CONFIG_TARGET_S,
        ),
        ("switch back to a cached configuration", f"{median('cached_switch_ms', runs):.1f} ms", "instant", True),
        (
            "next question through Pilot.press, idle waits included",
            f"{median('pilot_press_p50_ms', runs):.1f} ms",
            "(p50)",
            True,
        ),
        (
            "keys handled during a recomputation (p95 latency)",
            f"{median('keys_during_recompute', runs):.0f} ({median('key_during_recompute_p95_ms', runs):.1f} ms)",
            "> 0",
            median("keys_during_recompute", runs) > 0,
        ),
    ]
    questions = len(dataset.questions.questions)
    print(
        f"JSQuAD valid: {questions} questions, {len(dataset.corpus.documents)} documents; {CONFIG}/bm25; "
        f"median of {args.runs} runs; terminal {SIZE[0]}x{SIZE[1]}"
    )
    for name, value, target, ok in rows:
        print(f"  {name:<52} {value:>18}   target {target:<8} {'ok' if ok else 'MISSED'}")
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
