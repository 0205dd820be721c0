"""The JSQuAD sweep from the command line, one worker process against two (``--jobs``).

``chunkscope sweep --squad ../shared/data/jsquad-valid-v1.3.json`` (the published preset: eight
configurations, BM25, every metric, 28 pairwise tests with 10,000 permutations) is run in a fresh
process with ``--jobs 1`` and with ``--jobs 2``; each figure is the median wall time of ``--runs``
runs (default 3), imports and loading included. The JSON reports of the two are checked to be
byte-identical. Targets: at most 2.5 s with ``--jobs 1`` and 1.5 s with ``--jobs 2``. The CPU time
(user + system, workers included) is printed too: on a busy machine it is the steadier figure.

The command runs from the checkout's ``src``, byte-compiled first (``compileall``, into the ignored
``__pycache__`` folders), as ``pip install`` leaves an installed package and as Python leaves a checkout
after its first run. Where ``PYTHONDONTWRITEBYTECODE`` is set (this machine's environment sets it) a
checkout is otherwise never compiled and every run compiles some 150 modules again: about 0.27 s, no
part of what a user's run costs. ``--no-compile`` measures without it.

``--profile`` adds a cProfile of one in-process ``--jobs 1`` sweep, to show what dominates:
the evaluation (``evaluate_configs``) or the pairwise tests (``compare_all``).

Run: ``.venv/bin/python benchmarks/bench_sweep.py [--runs N] [--profile] [--no-compile]``.
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import os
import pstats
import resource
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


def timed_sweep(jobs: int, report: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``chunkscope sweep`` in a fresh process, writing its JSON report.

    CPU is user + system time of the command and its workers: what the run costs whatever else the
    machine is doing (wall time on a busy machine says little).
    """
    command = [*CHUNKSCOPE, "sweep", "--squad", str(JSQUAD), "--jobs", str(jobs), "--json", str(report)]
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    parser.add_argument(
        "--no-compile", action="store_true", help="do not byte-compile src first (each run compiles what it imports)"
    )
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"bench_sweep: JSQuAD not found at {JSQUAD}; nothing to measure", file=sys.stderr)
        return 2
    if not args.no_compile and not compileall.compile_dir(SRC / "chunkscope", quiet=1):
        print("bench_sweep: byte-compiling src failed", file=sys.stderr)
        return 2

    timings: dict[int, list[float]] = {jobs: [] for jobs in TARGETS_S}
    cpu: dict[int, list[float]] = {jobs: [] for jobs in TARGETS_S}
    with tempfile.TemporaryDirectory() as folder:
        reports = {jobs: Path(folder) / f"jobs-{jobs}.json" for jobs in TARGETS_S}
        for _ in range(args.runs):
            for jobs in TARGETS_S:  # alternate, so a change in the machine's load hits both alike
                wall, seconds = timed_sweep(jobs, reports[jobs])
                timings[jobs].append(wall)
                cpu[jobs].append(seconds)
        identical = reports[1].read_bytes() == reports[2].read_bytes()

    load = os.getloadavg()[0]
    compiled = "src not byte-compiled" if args.no_compile else "src byte-compiled"
    print(
        f"chunkscope sweep --squad {JSQUAD.name} (published preset), {os.cpu_count()} cores, load {load:.1f}, "
        f"{compiled}"
    )
    width = max(28, 6 * args.runs + 2)  # "1.23, " per run
    print(f"{'--jobs':<8}{'median':>10}  {'runs':<{width}}{'CPU (median)':<14}target")
    missed = []
    for jobs, runs in timings.items():
        median = statistics.median(runs)
        spent = f"{statistics.median(cpu[jobs]):.2f} s"
        listed = ", ".join(f"{t:.2f}" for t in runs)
        print(f"{jobs:<8}{median:>9.2f}s  {listed:<{width}}{spent:<14}<= {TARGETS_S[jobs]} s")
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
