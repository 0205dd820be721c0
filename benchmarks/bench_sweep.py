"""The JSQuAD sweep from the command line, one worker process against two (``--jobs``).

``chunkscope sweep --squad ../shared/data/jsquad-valid-v1.3.json`` (the published preset: eight
configurations, BM25, every metric, 28 pairwise tests with 10,000 permutations) is run in a fresh
process with ``--jobs 1`` and with ``--jobs 2``; each figure is the median wall time of ``--runs``
runs (default 3), imports and loading included. The JSON reports of the two are checked to be
byte-identical. Targets: at most 2.5 s with ``--jobs 1`` and 1.5 s with ``--jobs 2``.

``--profile`` adds a cProfile of one in-process ``--jobs 1`` sweep, to show what dominates:
the evaluation (``evaluate_configs``) or the pairwise tests (``compare_all``).

Run: ``.venv/bin/python benchmarks/bench_sweep.py [--runs N] [--profile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
sys.path.insert(0, str(SRC))  # runs from a plain checkout, without installing the package

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
TARGETS_S = {1: 2.5, 2: 1.5}
CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]


def timed_sweep(jobs: int, report: Path) -> float:
    """Wall seconds of one ``chunkscope sweep`` in a fresh process, writing its JSON report."""
    command = [*CHUNKSCOPE, "sweep", "--squad", str(JSQUAD), "--jobs", str(jobs), "--json", str(report)]
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    return time.perf_counter() - start


def profile_sweep() -> None:
    """cProfile of one in-process ``--jobs 1`` sweep, by cumulative time (evaluate_configs is the evaluation)."""
    from chunkscope.cli import main as cli_main

    profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory() as folder:
        profiler.enable()
        cli_main(["sweep", "--squad", str(JSQUAD), "--jobs", "1", "--json", str(Path(folder) / "report.json")])
        profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def main() -> int:
    """Time both job counts, check the reports agree, print a table; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per job count (median reported; default 3)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one --jobs 1 sweep")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"bench_sweep: JSQuAD not found at {JSQUAD}; nothing to measure", file=sys.stderr)
        return 2

    timings: dict[int, list[float]] = {jobs: [] for jobs in TARGETS_S}
    with tempfile.TemporaryDirectory() as folder:
        reports = {jobs: Path(folder) / f"jobs-{jobs}.json" for jobs in TARGETS_S}
        for _ in range(args.runs):
            for jobs in TARGETS_S:  # alternate, so a change in the machine's load hits both alike
                timings[jobs].append(timed_sweep(jobs, reports[jobs]))
        identical = reports[1].read_bytes() == reports[2].read_bytes()

    load = os.getloadavg()[0]
    print(f"chunkscope sweep --squad {JSQUAD.name} (published preset), {os.cpu_count()} cores, load {load:.1f}")
    print(f"{'--jobs':<8}{'median':>10}  {'runs':<28}target")
    missed = []
    for jobs, runs in timings.items():
        median = statistics.median(runs)
        print(f"{jobs:<8}{median:>9.2f}s  {', '.join(f'{t:.2f}' for t in runs):<28}<= {TARGETS_S[jobs]} s")
        if median > TARGETS_S[jobs]:
            missed.append(f"--jobs {jobs}: {median:.2f} s > {TARGETS_S[jobs]} s")
    print(f"JSON reports byte-identical: {'yes' if identical else 'NO'}")

    if args.profile:
        profile_sweep()
    if not identical:
        print("bench_sweep: the --jobs 1 and --jobs 2 reports differ", file=sys.stderr)
        return 1
    if missed:
        print("target missed: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
