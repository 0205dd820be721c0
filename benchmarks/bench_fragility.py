"""Speed target: the fragility of every JSQuAD valid question under eight neighbours, in under 10 s.

Each run starts from a fresh Evaluator and a cleared query-token cache, evaluates the base
configuration (``fixed:size=400`` with BM25 by default: the reference, one evaluation from
cold), then times :func:`chunkscope.analysis.fragility.fragility`: the eight neighbours (each
its own chunking, index, ranking and measurement; the base is cached) and the diagnosis of
every question under all nine. Reported: the median of ``--runs`` runs of both, their ratio
(the fragility costs about eight evaluations plus the diagnoses), and the 1-minute load
average, since the machine is shared. Target: fragility under 10 s.

Run: ``.venv/bin/python benchmarks/bench_fragility.py [--runs N] [--chunker SPEC]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.analysis.fragility import fragility  # noqa: E402
from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402
from chunkscope.retrievers.lexical import query_tokens  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
TARGET_S = 10.0


def one_run(dataset: Dataset, chunker: str, retriever: str) -> tuple[float, float, str]:
    """(seconds of the cold base evaluation, seconds of the fragility, its summary line)."""
    query_tokens.cache_clear()
    gc.collect()
    config = make_config(chunker, retriever)
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    start = time.perf_counter()
    evaluator.evaluate(config)
    base = time.perf_counter() - start
    start = time.perf_counter()
    result = fragility(evaluator, config)
    seconds = time.perf_counter() - start
    s = result.summary
    line = (
        f"{s.questions} questions, {len(result.neighbours)} neighbours: robust OK {s.robust_ok}, "
        f"fragile OK {s.fragile_ok}, OK nearby {s.ok_nearby}, not OK {s.not_ok}, mean fragility {s.mean_share:.4f}"
    )
    return base, seconds, line


def main() -> int:
    """Time the fragility and print it against the target and the one-evaluation reference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chunker", default="fixed:size=400")
    parser.add_argument("--retriever", default="bm25")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"skipped: JSQuAD not found at {JSQUAD}")
        return 0
    dataset = load_squad(JSQUAD)
    bases, times = [], []
    for _ in range(args.runs):
        base, seconds, line = one_run(dataset, args.chunker, args.retriever)
        bases.append(base)
        times.append(seconds)
    base, seconds = statistics.median(bases), statistics.median(times)
    ok = seconds < TARGET_S
    print(line)
    print(
        f"{args.chunker}/{args.retriever}: one evaluation (cold) {base:.2f} s; fragility {seconds:.2f} s "
        f"= {seconds / base:.1f} evaluations (median of {args.runs}; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores); target < {TARGET_S:.0f} s: {'ok' if ok else 'SLOW'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
