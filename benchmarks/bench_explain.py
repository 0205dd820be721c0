"""Speed target: the score anatomy of one question on JSQuAD valid, p95 under 50 ms.

The configuration (fixed 400-character windows, default BM25, and rrf:bm25+overlap)
is evaluated first; the explainer's one-off lexical statistics (token counts of
every chunk) are built and timed separately; then every ``--step``-th question is
explained and each explanation timed. Target: the p95 per question under 50 ms.

Run: ``.venv/bin/python benchmarks/bench_explain.py [--runs N] [--step S]``.
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

import numpy as np  # noqa: E402

from chunkscope.analysis.explain import Explainer  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
TARGET_MS = 50.0
RETRIEVERS = ("bm25", "rrf:bm25+overlap")


def main() -> int:
    """Time explanations and print the p95 against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--step", type=int, default=10, help="explain every S-th question (default 10)")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"skipped: JSQuAD not found at {JSQUAD}")
        return 0
    dataset = load_squad(JSQUAD)
    questions = dataset.questions.questions[:: args.step]
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    failed = False
    for retriever in RETRIEVERS:
        config = make_config("fixed:size=400", retriever)
        evaluator.evaluate(config)
        p95s = []
        for _ in range(args.runs):
            explainer = Explainer(evaluator)
            start = time.perf_counter()
            explainer.explain(config, questions[0].id)  # builds the lexical statistics once
            warm = time.perf_counter() - start
            times = []
            for question in questions[1:]:
                began = time.perf_counter()
                explainer.explain(config, question.id)
                times.append((time.perf_counter() - began) * 1000)
            p95s.append(float(np.percentile(times, 95)))
        p95 = statistics.median(p95s)
        ok = p95 < TARGET_MS
        failed |= not ok
        print(
            f"{config.label}: {len(questions) - 1} questions explained; first (with statistics) {warm * 1000:.0f} ms; "
            f"per question median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms "
            f"(target < {TARGET_MS:.0f} ms): {'ok' if ok else 'SLOW'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
