"""BM25 ranking speed against rank_bm25, bm25s (numpy and numba backends) and tantivy on the SAME tokens.

Corpus: JSQuAD valid (../shared/data/jsquad-valid-v1.3.json) and the same scaled to 50 MB
with shuffled-paragraph copies (``scale_corpus.py``), chunked ``fixed:size=400,overlap=80``;
queries: its 3,973 questions; top 20 for every query. Every library gets chunkscope's
default-tokenizer tokens, queries pre-tokenised: rank_bm25 and bm25s as token lists,
tantivy as the tokens joined by spaces under its ``whitespace`` tokenizer, queried as a
boolean OR of term queries (one clause per query token). Timed: ranking every query
(scores and top 20), after a warm-up run, indexing excluded; median wall and CPU time of
``--runs`` runs. Ratios are of CPU time, steadier than wall time on a shared machine.
rank_bm25 at 50 MB is timed on every 100th query and scaled to all of them (a full run
takes hours). bm25s runs single-threaded (``n_threads=1``), as chunkscope does.

chunkscope is timed on both of its paths: the compiled one (numba, extra ``fast``) and
the numpy one (``CHUNKSCOPE_BACKEND=numpy``). Its compiled path's one-off start-up cost
(importing numba and loading the cached machine code) is measured in a fresh process.

The process runs with glibc's mmap and trim thresholds as chunkscope's commands set them at start
(``chunkscope.allocator``), for every library alike: the numpy paths' scratch arrays of a few MB
are then reused from the heap instead of mapped and zeroed anew for each batch of queries.
``--default-allocator`` measures with glibc's own thresholds.

Run (bm25s and tantivy come with the ``bench`` extra; numpy timings should not run
under OpenBLAS tuning variables)::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python benchmarks/bench_bm25_same_tokens.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from scale_corpus import REPO, load_jsquad, replicated, utf8_megabytes

from chunkscope.allocator import tune_allocator
from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.retrievers.base import build_index
from chunkscope.retrievers.bm25 import BM25, BM25Index
from chunkscope.retrievers.lexical import query_tokens
from chunkscope.tokenize.chunks import chunk_tokens

CHUNKER = "fixed:size=400,overlap=80"
DEPTH = 20
SCALED_MB = 50
RANK_BM25_SAMPLE = 100
"""At the scaled size rank_bm25 ranks every 100th query; its time is multiplied back up."""


class Timing(NamedTuple):
    """Median wall and CPU seconds of several runs."""

    wall: float
    cpu: float


def median_time(run: Callable[[], object], runs: int) -> Timing:
    """Median wall and CPU (this process) seconds of ``runs`` calls, after one untimed warm-up call."""
    run()
    walls, cpus = [], []
    for _ in range(runs):
        cpu = time.process_time()
        start = time.perf_counter()
        run()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return Timing(statistics.median(walls), statistics.median(cpus))


class Workload:
    """One corpus chunked, its chunkscope index, and the chunk and query tokens every library gets."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.units = chunk_corpus(parse_chunker(CHUNKER), dataset.corpus).units
        self.questions = dataset.questions.questions
        self.index: BM25Index = build_index(BM25(), self.units, dataset.corpus)  # type: ignore[assignment]
        postings = self.index.postings
        tokens = chunk_tokens(postings.tokenizer, self.units, dataset.corpus)
        texts = [tokens.term_text(i) for i in range(int(tokens.ids.max()) + 1)]
        bounds = np.concatenate(([0], np.cumsum(tokens.lengths))).tolist()
        flat = [texts[i] for i in tokens.ids.tolist()]
        self.chunk_tokens = [flat[a:b] for a, b in itertools.pairwise(bounds)]
        self.query_tokens = [list(query_tokens(postings.tokenizer, q.query)) for q in self.questions]

    def chunkscope(self, backend: str) -> Callable[[], object]:
        def run() -> object:
            os.environ["CHUNKSCOPE_BACKEND"] = backend
            try:
                return self.index.rank(self.questions, DEPTH)
            finally:
                del os.environ["CHUNKSCOPE_BACKEND"]

        return run

    def rank_bm25(self, every: int) -> tuple[Callable[[], object], float]:
        from rank_bm25 import BM25Okapi

        model = BM25Okapi(self.chunk_tokens)
        sample = self.query_tokens[::every]

        def run() -> object:
            return [np.argpartition(-model.get_scores(q), DEPTH)[:DEPTH] for q in sample]

        return run, len(self.query_tokens) / len(sample)

    def bm25s(self, backend: str) -> Callable[[], object]:
        import bm25s

        model = bm25s.BM25(method="robertson", k1=1.5, b=0.75, backend=backend)
        model.index(self.chunk_tokens, show_progress=False)
        queries = [q or [""] for q in self.query_tokens]

        def run() -> object:
            return model.retrieve(
                queries, k=DEPTH, show_progress=False, n_threads=1, backend_selection=backend, return_as="tuple"
            )

        return run

    def tantivy(self) -> Callable[[], object]:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
        schema = builder.build()
        index = tantivy.Index(schema)
        writer = index.writer(heap_size=512_000_000, num_threads=1)
        for tokens in self.chunk_tokens:
            writer.add_document(tantivy.Document(body=" ".join(tokens)))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()
        queries = [
            tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t)) for t in q]
            )
            for q in self.query_tokens
        ]

        def run() -> object:
            return [searcher.search(query, DEPTH).hits for query in queries]

        return run


def compiled_startup() -> float:
    """Seconds a fresh process spends importing numba and loading the cached compiled ranking code."""
    code = (
        "import time, numpy as np; t = time.perf_counter();"
        "from chunkscope.retrievers import compiled;"
        "from chunkscope.retrievers.query_terms import QueryTerms;"
        "one = np.array([0, 1]), np.array([0], np.int32), None, 1, np.arange(1), QueryTerms.of([[0]]), 1;"
        "compiled.rank_queries(*one);"
        "compiled.build_postings(np.array([0], np.int32), np.array([1]));"
        "print(time.perf_counter() - t)"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    subprocess.run([sys.executable, "-c", code], env=environment, check=True, capture_output=True)  # warms the cache
    runs = [
        float(subprocess.run([sys.executable, "-c", code], env=environment, check=True, capture_output=True).stdout)
        for _ in range(3)
    ]
    return statistics.median(runs)


def measure(workload: Workload, runs: int, rank_bm25_every: int) -> dict[str, Timing]:
    """Median ranking seconds of every library on one workload."""
    times = {
        "chunkscope compiled (numba)": median_time(workload.chunkscope("numba"), runs),
        "chunkscope numpy": median_time(workload.chunkscope("numpy"), runs),
        "bm25s numba": median_time(workload.bm25s("numba"), runs),
        "bm25s numpy": median_time(workload.bm25s("numpy"), runs),
        "tantivy": median_time(workload.tantivy(), runs),
    }
    run, scale = workload.rank_bm25(rank_bm25_every)
    sampled = median_time(run, runs)
    times["rank_bm25" + (" (sampled, scaled)" if scale > 1 else "")] = Timing(sampled.wall * scale, sampled.cpu * scale)
    return times


def table(sizes: Sequence[tuple[str, dict[str, Timing]]]) -> str:
    """Markdown table: wall and CPU seconds, and CPU ratio to chunkscope's compiled path, per corpus size."""
    names = list(sizes[0][1])
    header = "| library | " + " | ".join(f"{label} wall s | cpu s | x chunkscope (cpu)" for label, _ in sizes) + " |"
    lines = [header, "|---|" + "---:|---:|---:|" * len(sizes)]
    for name in names:
        cells = []
        for _, times in sizes:
            key = next(k for k in times if k.split(" (")[0] == name.split(" (")[0])
            ours = times["chunkscope compiled (numba)"].cpu
            cells.append(f"{times[key].wall:.3f} | {times[key].cpu:.3f} | {times[key].cpu / ours:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    """Measure at JSQuAD size and at 50 MB; print the table and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per library (median; default 5)")
    parser.add_argument("--megabytes", type=float, default=SCALED_MB, help="scaled corpus size (default 50)")
    parser.add_argument("--default-allocator", action="store_true", help="keep glibc's own thresholds")
    args = parser.parse_args()
    allocator = "glibc's own thresholds" if args.default_allocator or not tune_allocator() else "thresholds as commands"
    print(f"allocator: {allocator}")
    jsquad = load_jsquad()
    scaled = replicated(jsquad, args.megabytes)
    results = []
    for label, dataset, every in (
        ("JSQuAD", jsquad, 1),
        (f"{utf8_megabytes(scaled.corpus):.0f} MB", scaled, RANK_BM25_SAMPLE),
    ):
        workload = Workload(dataset)
        postings = workload.index.postings
        chunks, queries = len(workload.units), len(workload.questions)
        print(f"{label}: {chunks:,} chunks, {len(postings.units):,} postings, {queries:,} queries")
        results.append((label, measure(workload, args.runs, every)))
        del workload
    print()
    print(table(results))
    startup = compiled_startup()
    print(f"\ncompiled path start-up in a fresh process (import numba, load cached code): {startup:.2f} s")
    missed = []
    for label, times in results:
        ours, numpy_path = times["chunkscope compiled (numba)"].cpu, times["chunkscope numpy"].cpu
        theirs, theirs_numpy = times["bm25s numba"].cpu, times["bm25s numpy"].cpu
        if ours >= theirs:
            missed.append(f"{label}: compiled {ours:.3f} s cpu not faster than bm25s numba {theirs:.3f} s")
        if theirs_numpy / numpy_path < 4:
            missed.append(f"{label}: numpy path only {theirs_numpy / numpy_path:.1f}x faster than bm25s numpy (cpu)")
    for line in missed:
        print("target missed:", line, file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
