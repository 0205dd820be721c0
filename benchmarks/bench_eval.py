"""Evaluation speed targets on JSQuAD valid (../shared/data/jsquad-valid-v1.3.json).

1. The eight-configuration sweep (fixed 100/200/400 with overlap 0 and 20%, fixed
   800 with 20%, paragraph), BM25, top-k 20 (ranking depth 20), every metric, with a
   fresh Evaluator and cleared query-token cache per run: median wall time of 5 runs.
   Target: under 3 s on the 2-core machine.
2. BM25 scoring of every question against the ``fixed:size=400,overlap=80`` chunks:
   rank_bm25.BM25Okapi.get_scores versus chunkscope's BM25Index.scores, scoring only
   (both sides get the same chunk tokens; queries are tokenised before the clock
   starts). Target: at least 50x faster, scores identical within 1e-9.

Run: ``.venv/bin/python benchmarks/bench_eval.py [--runs N] [--profile]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from rank_bm25 import BM25Okapi  # noqa: E402

from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.pipeline.config import PUBLISHED_CHUNKERS, make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402
from chunkscope.results import Config  # noqa: E402
from chunkscope.retrievers.bm25 import BM25, BM25Index  # noqa: E402
from chunkscope.retrievers.lexical import query_tokens  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
CHUNKERS = PUBLISHED_CHUNKERS
PARITY_CHUNKER = "fixed:size=400,overlap=80"
TOP_K = 20
SWEEP_TARGET_S = 3.0
SPEEDUP_TARGET = 50.0
TOLERANCE = 1e-9


def sweep_configs() -> list[Config]:
    """The eight published configurations with BM25 and top-k 20."""
    return [make_config(chunker, "bm25", top_k=TOP_K) for chunker in CHUNKERS]


def run_sweep(dataset: Dataset, configs: list[Config]) -> float:
    """Evaluate every configuration from cold caches; wall seconds."""
    query_tokens.cache_clear()
    gc.collect()
    start = time.perf_counter()
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    for config in configs:
        evaluator.evaluate(config)
    return time.perf_counter() - start


def bm25_parity(dataset: Dataset) -> dict[str, float]:
    """Time both BM25 implementations on the same tokens and compare every score."""
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    units = evaluator.chunking(make_config(PARITY_CHUNKER).chunker).chunking.units
    index = BM25Index(BM25(), units)
    tokenizer = index.postings.tokenizer
    queries = [q.query for q in dataset.questions.questions]
    query_token_lists = [list(query_tokens(tokenizer, q)) for q in queries]  # warms chunkscope's cache too
    reference = BM25Okapi([tokenizer(u.indexed_text) for u in units])

    start = time.perf_counter()
    reference_scores = [reference.get_scores(tokens) for tokens in query_token_lists]
    reference_s = time.perf_counter() - start

    chunkscope_runs = []
    for _ in range(5):
        start = time.perf_counter()
        ours = [index.scores(q) for q in queries]
        chunkscope_runs.append(time.perf_counter() - start)
    chunkscope_s = statistics.median(chunkscope_runs)

    max_diff = max(float(np.max(np.abs(a - b))) for a, b in zip(reference_scores, ours, strict=True))
    return {
        "units": len(units),
        "queries": len(queries),
        "rank_bm25_s": reference_s,
        "chunkscope_s": chunkscope_s,
        "speedup": reference_s / chunkscope_s,
        "max_abs_diff": max_diff,
    }


def main() -> int:
    """Run both benchmarks, print a table, exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="sweep runs (median reported; default 5)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one sweep")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"bench_eval: JSQuAD not found at {JSQUAD}; nothing to measure", file=sys.stderr)
        return 2

    start = time.perf_counter()
    dataset = load_squad(JSQUAD)
    load_s = time.perf_counter() - start
    configs = sweep_configs()

    timings = [run_sweep(dataset, configs) for _ in range(args.runs)]
    sweep_s = statistics.median(timings)
    parity = bm25_parity(dataset)

    questions = len(dataset.questions.questions)
    print(f"JSQuAD valid: {len(dataset.corpus.documents)} documents, {questions} questions (load {load_s:.3f} s)")
    rows = [
        ("8-config sweep, bm25, top-20 (median)", f"{sweep_s:.3f} s", f"< {SWEEP_TARGET_S:.0f} s"),
        ("  runs", ", ".join(f"{t:.3f}" for t in timings), ""),
        (
            f"rank_bm25 get_scores ({parity['queries']} queries x {parity['units']} chunks)",
            f"{parity['rank_bm25_s']:.3f} s",
            "",
        ),
        ("chunkscope BM25Index.scores (median of 5)", f"{parity['chunkscope_s']:.4f} s", ""),
        ("speed-up", f"{parity['speedup']:.0f}x", f">= {SPEEDUP_TARGET:.0f}x"),
        ("max |score difference|", f"{parity['max_abs_diff']:.2e}", f"<= {TOLERANCE:.0e}"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'measured':>24}  target")
    for name, measured, target in rows:
        print(f"{name:<{width}}  {measured:>24}  {target}")

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run_sweep(dataset, configs)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)

    assert parity["max_abs_diff"] <= TOLERANCE, f"BM25 scores differ from rank_bm25 by {parity['max_abs_diff']}"
    missed = []
    if sweep_s >= SWEEP_TARGET_S:
        missed.append(f"sweep {sweep_s:.3f} s >= {SWEEP_TARGET_S} s")
    if parity["speedup"] < SPEEDUP_TARGET:
        missed.append(f"BM25 speed-up {parity['speedup']:.1f}x < {SPEEDUP_TARGET}x")
    if missed:
        print("target missed: " + "; ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
