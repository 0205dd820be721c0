"""Speed target: the boundary what-if over all JSQuAD valid questions, under 2 s per configuration.

For each configuration the whole what-if is timed: chunking the corpus, finding the lost
questions, solving every cut span (each option checked by chunking its document) and
evaluating every option's spec as the setting over the lost questions and the corpus index.
The reference, timed in the same run, is one plain chunking of the corpus with the same spec
(what any evaluation pays first); the ratio says how many chunkings' worth the what-if costs.
``fixed:size=400,overlap=80`` and ``recursive:size=400`` lose no JSQuAD question (its answers
are short), so configurations that do lose questions are timed too.

Run: ``.venv/bin/python benchmarks/bench_whatif.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.analysis.whatif import whatif  # noqa: E402
from chunkscope.chunkers import chunk_corpus, parse_chunker  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
TARGET_S = 2.0
SPECS = (
    "fixed:size=400,overlap=80",
    "recursive:size=400",
    "fixed:size=400",
    "fixed:size=200",
    "recursive:size=100",
    "parent:child=fixed:size=50,parent=fixed:size=150",
)


def main() -> int:
    """Time the what-if of each configuration and print the median against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"skipped: JSQuAD not found at {JSQUAD}")
        return 0
    dataset = load_squad(JSQUAD)
    corpus, questions = dataset.corpus, dataset.questions.questions
    print(f"{len(questions)} questions, {len(corpus.documents)} documents; load average {os.getloadavg()[0]:.1f}")
    failed = False
    for spec in SPECS:
        times, references = [], []
        for _ in range(args.runs):
            began = time.perf_counter()
            chunk_corpus(parse_chunker(spec), corpus)
            references.append(time.perf_counter() - began)
            began = time.perf_counter()
            result = whatif(spec, corpus, questions)
            times.append(time.perf_counter() - began)
        median, reference = statistics.median(times), statistics.median(references)
        ok = median < TARGET_S
        failed |= not ok
        best = result.recommendation
        print(
            f"{spec}: {len(result.lost)} lost, {len(result.spans)} cut spans, {len(result.candidates)} settings tried; "
            f"median {median * 1000:.0f} ms ({median / reference:.1f}x one chunking, {reference * 1000:.0f} ms) "
            f"(target < {TARGET_S:.0f} s): {'ok' if ok else 'SLOW'}"
            + ("" if best is None else f"; recommended {best.spec} recovers {len(best.recovered)}")
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
