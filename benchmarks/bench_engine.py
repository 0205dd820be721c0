"""Which retriever at which size: ``bm25`` (in memory) against ``tantivy`` (on disk) as the corpus grows.

Corpora: JSQuAD valid itself (59 articles, 3,973 questions), and JSQuAD replicated to about 50 MB
and 500 MB of UTF-8 text: the original articles (which hold every gold span) plus copies of them
whose paragraphs are shuffled (``random.Random(SEED + copy)``), ids ``<article>~<copy>``. The copies
are distractors: the same passages, cut differently. Questions and gold spans stay those of
JSQuAD (the first answer). The replicated corpora are written once as JSONL under ``--workdir``
(default: a ``bench-engine`` folder in the system's temporary directory) and reused.

Each measurement is ``chunkscope eval --chunker fixed:size=200 --retriever R --jobs 1 --json ...``
in a fresh process, started by a fresh measuring process that reports the wall time and
``resource.getrusage(RUSAGE_CHILDREN)``: the peak RSS of the run and its CPU time (user + system,
steadier than the wall time on a shared machine); each line also shows the 1-minute load average
when the run ended. ``tantivy`` is run twice on an empty index cache: ``cold`` builds the index,
``warm`` opens it. ``bm25`` runs under a memory limit (``--bm25-limit-gib``, address space) so a
size it cannot hold fails instead of swamping the machine. Target: 500 MB with tantivy in at most
90 s and 3 GiB peak RSS.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--sizes jsquad,50,500] [--retrievers bm25,tantivy]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
sys.path.insert(0, str(SRC))  # runs from a plain checkout, without installing the package

from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
SEED = 13
CHUNKER = "fixed:size=200"
TARGET_WALL_S = 90.0
TARGET_RSS_GIB = 3.0
CHUNKSCOPE = "import sys; from chunkscope.cli import main; sys.exit(main())"
MEASURE = """
import json, resource, subprocess, sys, time
limit = int(sys.argv[1])
def cap():
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], preexec_fn=cap, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
result = {"wall": wall, "cpu": cpu, "peak": usage.ru_maxrss * 1024, "code": done.returncode}
print(json.dumps({**result, "stderr": done.stderr[-2000:]}))
"""
"""The measuring process: runs the command given after the memory limit, prints what it measured."""


def replicated(dataset: Dataset, megabytes: int, folder: Path) -> tuple[Path, Path]:
    """Corpus and questions JSONL of JSQuAD grown to ``megabytes`` MB with shuffled copies (written once)."""
    corpus_path = folder / f"jsquad-{megabytes}mb.corpus.jsonl"
    questions_path = folder / "jsquad.questions.jsonl"
    if not questions_path.exists():
        write_questions(dataset, questions_path)
    if corpus_path.exists():
        return corpus_path, questions_path
    originals = dataset.corpus.documents
    size = sum(len(d.text.encode("utf-8")) for d in originals)
    copies = max(0, -(-megabytes * 1_000_000 // size) - 1)
    partial = corpus_path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as out:
        for document in originals:
            out.write(json.dumps({"id": document.id, "text": document.text}, ensure_ascii=False) + "\n")
        for copy in range(1, copies + 1):
            shuffle = random.Random(SEED + copy)
            for document in originals:
                paragraphs = [
                    document.text[start:end] for start, end in document.paragraphs or ((0, len(document.text)),)
                ]
                shuffle.shuffle(paragraphs)
                record = {"id": f"{document.id}~{copy}", "text": "\n\n".join(paragraphs)}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    partial.rename(corpus_path)
    return corpus_path, questions_path


def write_questions(dataset: Dataset, path: Path) -> None:
    """JSQuAD's questions with their gold spans as offsets (every alternative of every item)."""
    with path.open("w", encoding="utf-8") as out:
        for question in dataset.questions.questions:
            evidence = [
                {"any": [{"doc": s.doc, "start": s.start, "end": s.end} for s in item.alternatives]}
                for item in question.evidence
            ]
            record = {"id": question.id, "query": question.query, "evidence": evidence}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class Run:
    """One measured evaluation."""

    corpus: str
    retriever: str
    phase: str
    wall: float
    cpu: float
    """User + system CPU time of the run: steadier than the wall time on a shared machine."""
    peak: int
    code: int
    summary: dict[str, float]
    error: str


def measure(inputs: list[str], retriever: str, cache: Path, report: Path, limit: int) -> tuple[dict, dict]:
    """Run one evaluation in a fresh process under a fresh measuring process; (measurement, summary)."""
    command = [sys.executable, "-c", CHUNKSCOPE, "eval", *inputs, "--chunker", CHUNKER, "--retriever", retriever]
    command += ["--jobs", "1", "--json", str(report)]
    environment = {**os.environ, "PYTHONPATH": str(SRC), "CHUNKSCOPE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(limit), *command], env=environment, capture_output=True, text=True
    )
    measured = json.loads(done.stdout)
    summary = {}
    if measured["code"] == 0:
        summary = json.loads(report.read_text(encoding="utf-8"))["configs"][0]["summary"]
    return measured, summary


def main() -> int:
    """Measure every size and retriever, print a table; exit 1 when the 500 MB tantivy target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="jsquad,50,500", help="jsquad and/or sizes in MB (default jsquad,50,500)")
    parser.add_argument("--retrievers", default="bm25,tantivy", help="retrievers to measure (default bm25,tantivy)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "bench-engine")
    parser.add_argument("--bm25-limit-gib", type=float, default=12.0, help="address-space limit of bm25 runs")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"bench_engine: JSQuAD not found at {JSQUAD}; nothing to measure", file=sys.stderr)
        return 2
    args.workdir.mkdir(parents=True, exist_ok=True)
    dataset = load_squad(JSQUAD)
    runs: list[Run] = []
    for size in args.sizes.split(","):
        if size == "jsquad":
            inputs, name = ["--squad", str(JSQUAD)], "JSQuAD (0.56 MB)"
        else:
            corpus, questions = replicated(dataset, int(size), args.workdir)
            megabytes = corpus.stat().st_size / 1e6
            inputs, name = (
                ["--corpus", str(corpus), "--questions", str(questions)],
                f"{size} MB ({megabytes:.0f} MB JSONL)",
            )
        for retriever in args.retrievers.split(","):
            cache = args.workdir / f"cache-{size}-{retriever}"
            shutil.rmtree(cache, ignore_errors=True)
            phases = ("cold", "warm") if retriever.startswith("tantivy") else ("",)
            limit = int(args.bm25_limit_gib * 2**30) if retriever.startswith("bm25") else 0
            for phase in phases:
                measured, summary = measure(inputs, retriever, cache, args.workdir / "report.json", limit)
                error = "" if measured["code"] == 0 else measured["stderr"].strip().splitlines()[-1:]
                run = Run(
                    name,
                    retriever,
                    phase,
                    measured["wall"],
                    measured["cpu"],
                    measured["peak"],
                    measured["code"],
                    summary,
                    str(error),
                )
                runs.append(run)
                print_run(run)
            shutil.rmtree(cache, ignore_errors=True)
    return check_target(runs)


def print_run(run: Run) -> None:
    """One line per run, as it finishes."""
    quality = (
        f"MRR@10 {run.summary['mrr_at_10']:.4f}  recall@5 {run.summary['recall_at_5']:.4f}"
        if run.code == 0
        else f"failed (exit {run.code}): {run.error}"
    )
    label = f"{run.retriever} {run.phase}".strip()
    load = os.getloadavg()[0]
    print(
        f"{run.corpus:<24} {label:<14} {run.wall:8.1f} s  cpu {run.cpu:7.1f} s  {run.peak / 2**30:6.2f} GiB  "
        f"load {load:4.1f}  {quality}",
        flush=True,
    )


def check_target(runs: list[Run]) -> int:
    """Exit code: 1 when tantivy at 500 MB (cold or warm) misses the wall or memory target."""
    missed = [
        f"{r.retriever} {r.phase}: {r.wall:.1f} s, {r.peak / 2**30:.2f} GiB"
        for r in runs
        if r.corpus.startswith("500 MB")
        and r.retriever.startswith("tantivy")
        and (r.code != 0 or r.wall > TARGET_WALL_S or r.peak > TARGET_RSS_GIB * 2**30)
    ]
    if missed:
        print(
            f"target missed (<= {TARGET_WALL_S:.0f} s, <= {TARGET_RSS_GIB:.0f} GiB): " + "; ".join(missed),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
