"""Speed target: the eight-configuration sweep on JSQuAD valid with the corrected pairwise tests.

Each run: a fresh Evaluator evaluates the published eight chunkers (fixed 100/200/400
with 0% and 20% overlap, 800 with 20%, paragraph; BM25, top-5) and ``compare_all``
tests every pair (28 pairs x 9 metrics = 252 Holm-corrected tests, 10,000 sign-flip
permutations and 10,000 bootstrap resamples each, failure causes of every question).
Loading the JSON is timed separately. Target: median of 3 runs under 10 s on the
2-core machine.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.analysis.compare import compare_all  # noqa: E402
from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.metrics.registry import REGISTRY  # noqa: E402
from chunkscope.pipeline.config import PUBLISHED_CHUNKERS, make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
PERMUTATIONS = 10_000
TARGET_S = 10.0


def sweep(dataset: Dataset) -> tuple[float, float]:
    """One full sweep; returns (evaluation seconds, comparison seconds)."""
    start = time.perf_counter()
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    results = [evaluator.evaluate(make_config(spec)) for spec in PUBLISHED_CHUNKERS]
    evaluated = time.perf_counter()
    comparisons = compare_all(results, permutations=PERMUTATIONS, seed=0)
    done = time.perf_counter()
    assert comparisons.family_size == 28 * len(comparisons.metrics)
    return evaluated - start, done - evaluated


def main() -> int:
    """Time the sweep and print the median against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"skipped: JSQuAD not found at {JSQUAD}")
        return 0
    start = time.perf_counter()
    dataset = load_squad(JSQUAD)
    loading = time.perf_counter() - start
    questions = len(dataset.questions.questions)
    timings = [sweep(dataset) for _ in range(args.runs)]
    totals = [e + c for e, c in timings]
    median = statistics.median(totals)
    print(f"JSQuAD valid: {questions} questions, {len(dataset.corpus.documents)} documents (load {loading:.2f} s)")
    print(
        f"sweep of 8 configurations + 28 pairs x {len(REGISTRY.tested())} metrics x {PERMUTATIONS:,} permutations: "
        f"median {median:.2f} s over {args.runs} runs "
        f"(evaluation {statistics.median(e for e, _ in timings):.2f} s, "
        f"tests {statistics.median(c for _, c in timings):.2f} s; runs {', '.join(f'{t:.2f}' for t in totals)})"
    )
    print(f"target < {TARGET_S:.0f} s: {'met' if median < TARGET_S else 'MISSED'}")
    return 0 if median < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
