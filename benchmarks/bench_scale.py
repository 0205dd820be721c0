"""Evaluation time and memory as the corpus grows: JSQuAD valid scaled to 5, 20 and 50 MB.

Each size is JSQuAD valid (../shared/data/jsquad-valid-v1.3.json) plus shuffled-paragraph
copies of its articles up to that many MB of UTF-8 (``scale_corpus.py``, fixed seed),
evaluated once as ``fixed:size=400,overlap=80`` + BM25, top-k 20, over the 3,973
questions, in a fresh subprocess per run: wall time of the evaluation (chunking,
indexing, ranking, measuring; loading and scaling the corpus excluded; numba's start-up
included, as in a CLI run), its CPU time, and the process's peak RSS
(``resource.getrusage(RUSAGE_CHILDREN)``). Reported: medians over ``--runs`` runs per
size, the stage split of the median run, and the exponent of a least-squares fit of
log(time) against log(size).

Targets: at 50 MB, at most 8 s wall and 1 GiB peak RSS; time exponent at most 1.05.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--runs N] [--sizes 5,20,50] [--profile]``
(``--profile`` prints the cProfile top entries of one evaluation at the largest size).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import os
import pstats
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_corpus import REPO, load_jsquad, replicated, utf8_megabytes

from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

CHUNKER = "fixed:size=400,overlap=80"
SIZES_MB = (5.0, 20.0, 50.0)
WALL_TARGET_S = 8.0
RSS_TARGET_MIB = 1024.0
EXPONENT_TARGET = 1.05


def child(megabytes: float, profile: bool) -> None:
    """Evaluate one scaled corpus and print a JSON line of timings (run in a subprocess)."""
    dataset = replicated(load_jsquad(), megabytes)
    config = make_config(CHUNKER, "bm25", top_k=20)
    stages: dict[str, float] = {}
    marks = {"stage": "start", "at": time.perf_counter()}

    def progress(stage: str, done: int, total: int) -> None:
        if stage != marks["stage"]:
            now = time.perf_counter()
            stages[str(marks["stage"])] = now - float(marks["at"])
            marks.update(stage=stage, at=now)

    profiler = cProfile.Profile() if profile else None
    cpu = time.process_time()
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    evaluator.evaluate(config, progress)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    stages[str(marks["stage"])] = time.perf_counter() - float(marks["at"])
    stages.pop("start", None)
    stages["ranking and measuring"] = stages.pop("ranking", 0.0)
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    print(
        json.dumps(
            {
                "megabytes": utf8_megabytes(dataset.corpus),
                "chunks": len(evaluator.chunking(config.chunker).chunking.units),
                "wall": wall,
                "cpu": time.process_time() - cpu,
                "stages": stages,
            }
        )
    )


def run_child(megabytes: float, profile: bool = False) -> dict[str, Any]:
    """One evaluation in a fresh interpreter; its timings plus the peak RSS of that process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    command = [sys.executable, __file__, "--child", str(megabytes)] + (["--profile"] if profile else [])
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run(command, env=environment, check=True, stdout=subprocess.PIPE, text=True)
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest of any child so far: a smaller run after a larger one is not seen.
    measured["rss_mib"] = peak / 1024 if peak > before else float("nan")
    return measured


def fitted_exponent(sizes: list[float], times: list[float]) -> float:
    """Slope of the least-squares line through (log size, log time)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in times]
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum((x - mean_x) ** 2 for x in xs)


def main() -> int:
    """Run every size, print the table, exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per size (median; default 3)")
    parser.add_argument("--sizes", default=",".join(f"{s:g}" for s in SIZES_MB), help="MB sizes (default 5,20,50)")
    parser.add_argument("--profile", action="store_true", help="cProfile one evaluation at the largest size")
    parser.add_argument("--child", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.profile)
        return 0
    sizes = sorted(float(s) for s in args.sizes.split(","))
    rows = []
    # Sizes in increasing order: a child's peak RSS is only visible when it exceeds the earlier children's.
    for megabytes in sizes:
        runs = [run_child(megabytes) for _ in range(args.runs)]
        runs.sort(key=lambda r: float(r["wall"]))
        median = runs[len(runs) // 2]
        rss = max((float(r["rss_mib"]) for r in runs if not math.isnan(float(r["rss_mib"]))), default=float("nan"))
        rows.append((median, [float(r["wall"]) for r in runs], rss))
    print("| corpus | chunks | wall s (median) | runs | cpu s | peak RSS MiB | stages (median run) |")
    print("|---|---:|---:|---|---:|---:|---|")
    for median, walls, rss in rows:
        stages = ", ".join(f"{k} {v:.2f}" for k, v in median["stages"].items())
        print(
            f"| {median['megabytes']:.1f} MB | {median['chunks']:,} | {median['wall']:.2f} | "
            f"{', '.join(f'{w:.2f}' for w in walls)} | {median['cpu']:.2f} | {rss:.0f} | {stages} |"
        )
    measured_sizes = [float(m["megabytes"]) for m, _, _ in rows]
    walls = [float(m["wall"]) for m, _, _ in rows]
    cpus = [float(m["cpu"]) for m, _, _ in rows]
    exponent = fitted_exponent(measured_sizes, walls) if len(rows) > 1 else float("nan")
    cpu_exponent = fitted_exponent(measured_sizes, cpus) if len(rows) > 1 else float("nan")
    print(f"\nfitted exponent of time vs size: wall {exponent:.3f}, cpu {cpu_exponent:.3f}")
    if args.profile:
        run_child(sizes[-1], profile=True)
    largest, _, largest_rss = rows[-1]
    missed = []
    if sizes[-1] >= 50:
        if float(largest["wall"]) > WALL_TARGET_S:
            missed.append(f"wall {largest['wall']:.2f} s > {WALL_TARGET_S} s at {largest['megabytes']:.0f} MB")
        if largest_rss > RSS_TARGET_MIB:
            missed.append(f"peak RSS {largest_rss:.0f} MiB > {RSS_TARGET_MIB:.0f} MiB")
    if exponent > EXPONENT_TARGET:
        missed.append(f"exponent {exponent:.3f} > {EXPONENT_TARGET}")
    for line in missed:
        print("target missed:", line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
