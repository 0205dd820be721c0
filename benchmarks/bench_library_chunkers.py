"""Speed target: a library chunker's overhead over calling the library directly (JSQuAD valid).

For each library chunker spec, the direct call is what the library itself does for every document
(``split_text``, semchunk's chunker with ``offsets=True``, ``chunk_indices``); the chunker is
``chunk_corpus(parse_chunker(spec), corpus)``: the same call plus exact offsets (located, or the
library's own checked) and the Chunk values. Target: under 10% more time. The two are timed in
interleaved rounds (direct, chunker, direct, ...) after one warm-up each, so a noisy neighbour
slows both alike; each figure is the median of ``--runs`` rounds.

Run: ``.venv/bin/python benchmarks/bench_library_chunkers.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.chunkers import chunk_corpus, parse_chunker  # noqa: E402
from chunkscope.errors import MissingExtraError  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
TARGET = 0.10
SPECS = (
    "langchain:chunk_size=200,chunk_overlap=40",
    "langchain:chunk_size=400,chunk_overlap=80",
    'langchain:CharacterTextSplitter,chunk_size=400,chunk_overlap=80,separator="。"',
    "semchunk:size=200",
    "semchunk:size=400,overlap=0.2",
    "textsplitter:size=200",
    "textsplitter:size=400,overlap=80",
)


def direct_call(chunker: Any) -> Callable[[str], object]:
    """The library call the chunker makes for one document, on the library object it built."""
    spec_name = chunker.spec_name
    if spec_name == "langchain":
        return chunker._splitter.split_text  # type: ignore[no-any-return]
    if spec_name == "semchunk":
        overlap = chunker.overlap or None
        return lambda text: chunker._chunker(text, offsets=True, overlap=overlap)
    if spec_name == "textsplitter":
        return chunker._splitter.chunk_indices  # type: ignore[no-any-return]
    raise ValueError(f"no direct call for {spec_name}")


def timed(work: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def measure(spec: str, corpus: Corpus, runs: int) -> tuple[float, float]:
    """Median seconds of the direct calls and of the chunker over the corpus, in interleaved rounds."""
    chunker = parse_chunker(spec)
    call = direct_call(chunker)
    texts = [document.text for document in corpus.documents]

    def direct() -> object:
        return [call(text) for text in texts]

    def wrapped() -> object:
        return chunk_corpus(chunker, corpus)

    direct()
    wrapped()
    direct_times: list[float] = []
    wrapped_times: list[float] = []
    for _ in range(runs):
        direct_times.append(timed(direct))
        wrapped_times.append(timed(wrapped))
    return statistics.median(direct_times), statistics.median(wrapped_times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds the medians are taken over (default 5)")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"JSQuAD not found at {JSQUAD}", file=sys.stderr)
        return 2
    corpus = load_squad(JSQUAD).corpus
    print(f"JSQuAD valid: {len(corpus.documents)} documents, {corpus.total_chars:,} characters; median of {args.runs}")
    print(f"{'spec':<78} {'direct s':>9} {'chunker s':>9} {'overhead':>9}")
    missed = False
    for spec in SPECS:
        try:
            direct, wrapped = measure(spec, corpus, args.runs)
        except MissingExtraError as exc:
            print(f"{spec:<78} skipped: {exc}")
            continue
        overhead = wrapped / direct - 1
        missed |= overhead >= TARGET
        flag = "" if overhead < TARGET else "  MISSED"
        print(f"{spec:<78} {direct:9.4f} {wrapped:9.4f} {overhead:+9.1%}{flag}")
    print(f"target: overhead under {TARGET:.0%}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
