"""The inspector on a 50 MB corpus: first results, size/overlap switches and memory, driven headless.

The corpus is JSQuAD valid scaled to ``--scale-mb`` MB (``scale_corpus.replicated``: shuffled copies
of its articles as distractors, as ``bench_tui.py --scale-mb 50`` and ``bench_scale.py`` use), with
the default inspector configuration (``fixed:size=200`` + BM25, top-k 5: what ``chunkscope inspect``
opens). Each run is a fresh process (its peak RSS is its own), which loads and scales the corpus
(not timed: reading a 50 MB file is not the inspector's work), then:

1. First results: what ``chunkscope inspect`` does after loading (the Session, the chunking checked
   before the screen, the app) until the question list lists every question of the first
   configuration's results. Target: at most 8 s.
2. Five size/overlap switches, each a configuration not computed before (``o``, ``+``, ``+``, ``o``,
   ``-``: 200 -> 200/40 -> 300/60 -> 400/80 -> 400/200 -> 300/150): from the key press until the
   header shows the new configuration's results (and the panes rendered their visible lines).
   Target: each at most 6 s (the slowest of a run counts).
3. Memory after visiting them (six configurations: the first and five switches): the process's
   current RSS (``VmRSS``) once the worker is done, and its peak (``VmHWM``). Target: RSS at most
   1.5 GiB.

Each switch is also split into the worker's stages (chunking, indexing, ranking, measuring, and the
rest: from the evaluation's return until the header shows it), and its CPU time: the process's and the
worker thread's (the rest is the UI thread's, the benchmark's polling included). Polling waits sleep 1 ms
(``--poll-ms``; ``asyncio.sleep(0)`` would starve the worker thread of the GIL); each wake costs the UI
thread about 0.1 ms, a tenth of a CPU second per second of waiting, which an interactive inspector does
not spend. Figures are medians over ``--runs``.
``--profile`` prints the cProfile top entries of the same six evaluations run headless (an Evaluator
and the inspector's index eviction, no app).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_tui_scale.py [--runs N] [--scale-mb 50] [--poll-ms 1]
[--profile]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROCESS_START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_tui  # noqa: E402
from bench_tui import SIZE, Panes, key_until, settle, wait_for  # noqa: E402
from scale_corpus import REPO, load_jsquad, replicated, utf8_megabytes  # noqa: E402

from chunkscope.cli.common import report_chunking_problems  # noqa: E402
from chunkscope.cli.inspect_cmd import check_lazy_inputs  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.results import Config  # noqa: E402
from chunkscope.tui.app import INDEXES_KEPT, ChunkscopeApp  # noqa: E402
from chunkscope.tui.session import Session  # noqa: E402
from chunkscope.tui.widgets.config_bar import ConfigBar  # noqa: E402
from chunkscope.tui.widgets.question_list import QuestionList  # noqa: E402

CONFIG = "fixed:size=200"
"""What ``chunkscope inspect`` opens with (its default ``--chunker``; BM25, top-k 5)."""
SWITCHES = ("o", "plus", "plus", "o", "minus")
"""200 -> 200/40 -> 300/60 -> 400/80 -> 400/200 -> 300/150: every one a new chunking and index."""
FIRST_TARGET_S = 8.0
SWITCH_TARGET_S = 6.0
RSS_TARGET_MIB = 1.5 * 1024
STAGES = ("chunking", "indexing", "ranking", "measuring")
TIMEOUT_S = 300.0


def memory_mib() -> dict[str, float]:
    """This process's current (VmRSS) and peak (VmHWM) resident memory in MiB."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return {"rss_mib": fields["VmRSS"], "peak_mib": fields["VmHWM"]}


def track_stages(app: ChunkscopeApp) -> tuple[list[tuple[str, float]], list[float]]:
    """Record, for every evaluation the worker runs, when each stage starts and when it returns ("done"),
    and the CPU time the worker thread spent in it."""
    evaluator = app.session.evaluator
    original = evaluator.evaluate
    marks: list[tuple[str, float]] = []
    worker_cpu: list[float] = []

    def evaluate(config: Config, progress: Any = None, cancelled: Any = None) -> Any:
        def report(stage: str, done: int, total: int) -> None:
            if not marks or marks[-1][0] != stage:
                marks.append((stage, time.perf_counter()))
            if progress is not None:
                progress(stage, done, total)

        cpu = time.thread_time()
        try:
            return original(config, report, cancelled)
        finally:
            marks.append(("done", time.perf_counter()))
            worker_cpu.append(time.thread_time() - cpu)

    evaluator.evaluate = evaluate  # type: ignore[method-assign]
    return marks, worker_cpu


def stage_split(marks: list[tuple[str, float]], pressed: float, shown: float) -> dict[str, float]:
    """Seconds per stage of the evaluations between a key press and its result shown; "rest" is the remainder."""
    split = dict.fromkeys((*STAGES, "rest"), 0.0)
    window = [(stage, at) for stage, at in marks if pressed <= at <= shown]
    for (stage, at), (_, following) in itertools.pairwise(window):
        if stage in split:
            split[stage] += following - at
    split["rest"] = (shown - pressed) - sum(split[stage] for stage in STAGES)
    return split


def header_shows(app: ChunkscopeApp, config: Config) -> bool:
    """The header line was given ``config``'s results (not pending any more)."""
    lines = app.screen.query_one(ConfigBar)._lines
    return bool(lines) and lines[0].shown is not None and lines[0].shown.config == config and not lines[0].pending


async def inspector_run(dataset: Any) -> dict[str, Any]:
    """One fresh inspector on ``dataset``: first results, the switches, memory."""
    questions = len(dataset.questions.questions)
    started, cpu_started = time.perf_counter(), time.process_time()
    # As ``chunkscope inspect`` after loading: the session, the chunking checked before the screen, the app.
    config = make_config(CONFIG)
    session = Session(dataset, config)
    check_lazy_inputs(session.evaluator, [config])
    report_chunking_problems(session.evaluator, [config])
    app = ChunkscopeApp(session)
    marks, worker_cpu = track_stages(app)
    figures: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            lambda: getattr(app.screen, "ready", False) and len(app.screen.query_one(QuestionList).rows) == questions,
            TIMEOUT_S,
            "first results",
        )
        figures["first_s"] = time.perf_counter() - started
        figures["first_cpu_s"] = time.process_time() - cpu_started
        figures["first_worker_cpu_s"] = sum(worker_cpu)
        figures["first_stages"] = stage_split(marks, started, time.perf_counter())
        await settle(pilot)
        figures["memory"] = [memory_mib()]
        panes = Panes(app)
        switches, cpu, worker, splits = [], [], [], []
        for key in SWITCHES:
            before = session.a.requested
            pressed, cpu_pressed, evaluations = time.perf_counter(), time.process_time(), len(worker_cpu)
            await key_until(
                app,
                key,
                lambda before=before: session.a.requested != before and header_shows(app, session.a.requested),
                TIMEOUT_S,
            )
            panes.render()
            shown = time.perf_counter()
            switches.append(shown - pressed)
            cpu.append(time.process_time() - cpu_pressed)
            worker.append(sum(worker_cpu[evaluations:]))
            splits.append(stage_split(marks, pressed, shown))
            await settle(pilot)
            figures["memory"].append(memory_mib())
        figures["switches_s"] = switches
        figures["switches_cpu_s"] = cpu
        figures["switches_worker_cpu_s"] = worker
        figures["switch_stages"] = splits
        figures["indexes_held"] = len(session.evaluator.held_indexes)
        await asyncio.sleep(bench_tui.POLL_S)
    return figures


def profile_headless(dataset: Any) -> None:
    """cProfile of the six evaluations the run does, as the worker does them (index eviction included)."""
    from chunkscope.pipeline.evaluate import Evaluator
    from chunkscope.tui.state.config_steps import cycle_overlap, step_size

    steps: dict[str, Callable[[Config], Config]] = {
        "o": cycle_overlap,
        "plus": lambda c: step_size(c, 1),
        "minus": lambda c: step_size(c, -1),
    }
    config = make_config(CONFIG)
    configs = [config]
    for key in SWITCHES:
        configs.append(steps[key](configs[-1]))
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    profiler = cProfile.Profile()
    for number, each in enumerate(configs):
        started = time.perf_counter()
        profiler.enable()
        evaluator.evaluate(each)
        evaluator.evict_indexes(keep=INDEXES_KEPT)
        profiler.disable()
        print(f"{number}: {each.label}: {time.perf_counter() - started:.2f} s, {memory_mib()}", file=sys.stderr)
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(30)


def child(megabytes: float, profile: bool, poll_ms: float) -> None:
    """One run in this process: print its figures as a JSON line."""
    bench_tui.POLL_S = poll_ms / 1000
    loading = time.perf_counter()
    dataset = replicated(load_jsquad(), megabytes)
    gc.collect()
    loaded = time.perf_counter()
    if profile:
        profile_headless(dataset)
        return
    figures = asyncio.run(inspector_run(dataset))
    figures["imports_s"] = loading - PROCESS_START
    figures["load_s"] = loaded - loading
    figures["megabytes"] = utf8_megabytes(dataset.corpus)
    figures["documents"] = len(dataset.corpus.documents)
    figures["questions"] = len(dataset.questions.questions)
    print(json.dumps(figures))


def run_child(megabytes: float, poll_ms: float, profile: bool = False) -> dict[str, Any]:
    """One run in a fresh interpreter."""
    command = [sys.executable, __file__, "--child", str(megabytes), "--poll-ms", str(poll_ms)]
    command += ["--profile"] if profile else []
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(command, env=environment, check=True, stdout=subprocess.PIPE, text=True)
    if profile:
        return {}
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def load_average() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> int:
    """Run, print the table and the targets; exit 1 when one is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes (median reported; default 3)")
    parser.add_argument("--scale-mb", type=float, default=50.0, help="corpus size in MB (default 50)")
    parser.add_argument("--profile", action="store_true", help="also cProfile the six evaluations headless")
    parser.add_argument(
        "--poll-ms",
        type=float,
        default=1.0,
        help="how long a polling wait sleeps (default 1; each wake costs the UI thread CPU time the worker waits for)",
    )
    parser.add_argument("--child", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.profile, args.poll_ms)
        return 0
    load_before = load_average()
    runs = [run_child(args.scale_mb, args.poll_ms) for _ in range(args.runs)]
    load_after = load_average()

    def median(values: list[float]) -> float:
        return statistics.median(values)

    first = median([run["first_s"] for run in runs])
    slowest = median([max(run["switches_s"]) for run in runs])
    rss = median([run["memory"][-1]["rss_mib"] for run in runs])
    peak = median([run["memory"][-1]["peak_mib"] for run in runs])
    sample = runs[0]
    print(
        f"JSQuAD valid scaled to {sample['megabytes']:.1f} MB: {sample['documents']:,} documents, "
        f"{sample['questions']:,} questions; {CONFIG}/bm25, top-k 5; median of {args.runs} runs; "
        f"polling every {args.poll_ms:g} ms; "
        f"load {load_before} before, {load_after} after"
    )
    print(
        f"  (not timed) imports {median([r['imports_s'] for r in runs]):.2f} s, "
        f"loading and scaling the corpus {median([r['load_s'] for r in runs]):.2f} s"
    )
    stages = ", ".join(f"{name} {median([r['first_stages'][name] for r in runs]):.2f}" for name in (*STAGES, "rest"))
    first_cpu = median([run["first_cpu_s"] for run in runs])
    first_worker = median([run["first_worker_cpu_s"] for run in runs])
    print(f"  first results {first:.2f} s (CPU {first_cpu:.2f} s, of it the worker {first_worker:.2f} s): {stages}")
    print(
        "  switch      wall s   CPU s  worker  " + "  ".join(f"{name:>9}" for name in (*STAGES, "rest")) + "   RSS MiB"
    )
    for number, key in enumerate(SWITCHES):
        seconds = median([run["switches_s"][number] for run in runs])
        cpu = median([run["switches_cpu_s"][number] for run in runs])
        worker = median([run["switches_worker_cpu_s"][number] for run in runs])
        split = "  ".join(
            f"{median([run['switch_stages'][number][name] for run in runs]):9.2f}" for name in (*STAGES, "rest")
        )
        memory = median([run["memory"][number + 1]["rss_mib"] for run in runs])
        print(f"  {number + 1}. {key:<6} {seconds:8.2f} {cpu:7.2f} {worker:7.2f}  {split}   {memory:7.0f}")
    print(f"  indexes held at the end: {sample['indexes_held']} (keep {INDEXES_KEPT})")
    rows = [
        ("first results listed", f"{first:.2f} s", f"<= {FIRST_TARGET_S:.0f} s", first <= FIRST_TARGET_S),
        ("slowest size/overlap switch", f"{slowest:.2f} s", f"<= {SWITCH_TARGET_S:.0f} s", slowest <= SWITCH_TARGET_S),
        ("RSS after six configurations (peak)", f"{rss:.0f} MiB ({peak:.0f})", "<= 1536 MiB", rss <= RSS_TARGET_MIB),
    ]
    for name, value, target, ok in rows:
        print(f"  {name:<40} {value:>22}   target {target:<12} {'met' if ok else 'MISSED'}")
    if args.profile:
        run_child(args.scale_mb, args.poll_ms, profile=True)
    return 0 if all(ok for *_, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
