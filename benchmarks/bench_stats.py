"""Time paired_permutation_pvalues at full scale: m=112 tests, n=3973 questions, P=10,000.

Run: ``.venv/bin/python benchmarks/bench_stats.py``. Prints the median of 3 runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

# Lets the script run from a plain checkout, without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chunkscope.analysis.stats import paired_permutation_pvalues

TESTS = 112
QUESTIONS = 3973
PERMUTATIONS = 10_000
RUNS = 3


def make_differences(seed: int = 0) -> np.ndarray:
    """Half hit/miss differences in {-1, 0, 1}, half continuous ones in [-1, 1]."""
    rng = np.random.default_rng(seed)
    half = TESTS // 2
    hits_a = rng.random((half, QUESTIONS)) < 0.6
    hits_b = rng.random((half, QUESTIONS)) < 0.62
    binary = hits_b.astype(np.float64) - hits_a.astype(np.float64)
    continuous = rng.random((TESTS - half, QUESTIONS)) - rng.random((TESTS - half, QUESTIONS))
    return np.vstack([binary, continuous])


def main() -> None:
    """Time RUNS calls and print the median wall-clock time."""
    differences = make_differences()
    timings = []
    for _ in range(RUNS):
        start = time.perf_counter()
        paired_permutation_pvalues(differences, permutations=PERMUTATIONS, seed=0)
        timings.append(time.perf_counter() - start)
    print(
        f"paired_permutation_pvalues m={TESTS} n={QUESTIONS} P={PERMUTATIONS}: "
        f"median {statistics.median(timings):.3f} s over {RUNS} runs "
        f"({', '.join(f'{t:.3f}' for t in timings)})"
    )


if __name__ == "__main__":
    main()
