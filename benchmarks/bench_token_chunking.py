"""Speed target: token-sized chunks of JSQuAD within 3x of character chunks of the same corpus.

Times ``fixed:size=256,unit=tokens,tokenizer=cl100k`` against ``fixed:size=256`` over the JSQuAD
valid corpus (59 documents, 196k characters), median of ``--runs`` runs each after one warm-up run.
The first use of the tokenizer (loading quicktok's encoding and the byte length of each of its
tokens) is timed separately: it happens once per process. ``fixed:size=256,overlap=32`` in tokens
and the recursive splitter in tokens are timed too, for information.

Run: ``.venv/bin/python benchmarks/bench_token_chunking.py [--runs N]``.
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

from chunkscope.chunkers import chunk_corpus, parse_chunker  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus  # noqa: E402
from chunkscope.tokenize.counting import token_counter  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
CHARACTERS = "fixed:size=256"
TOKENS = "fixed:size=256,unit=tokens,tokenizer=cl100k"
INFORMATION = (
    "fixed:size=256,overlap=32,unit=tokens,tokenizer=cl100k",
    "recursive:size=256,unit=tokens,tokenizer=cl100k",
)
TARGET_RATIO = 3.0


def median_seconds(spec: str, corpus: Corpus, runs: int) -> tuple[float, int]:
    """Median wall time of chunking ``corpus`` with ``spec`` (after a warm-up run), and the chunk count."""
    chunker = parse_chunker(spec)
    chunks = len(chunk_corpus(chunker, corpus).units)
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        chunk_corpus(chunker, corpus)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), chunks


def main() -> int:
    """Time both chunkings and print the ratio against the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"skipped: JSQuAD not found at {JSQUAD}")
        return 0
    corpus = load_squad(JSQUAD).corpus
    start = time.perf_counter()
    token_counter("cl100k").spans("warm up")
    first_use = time.perf_counter() - start
    characters, char_chunks = median_seconds(CHARACTERS, corpus, args.runs)
    tokens, token_chunks = median_seconds(TOKENS, corpus, args.runs)
    encode_start = time.perf_counter()
    token_counter("cl100k").spans_many([d.text for d in corpus.documents])
    encoding = time.perf_counter() - encode_start
    ratio = tokens / characters
    print(f"JSQuAD valid: {len(corpus.documents)} documents, {corpus.total_chars:,} characters")
    print(f"first use of cl100k (encoding and token byte lengths, once per process): {first_use * 1000:.0f} ms")
    print(f"{CHARACTERS:<48} {characters * 1000:8.1f} ms  {char_chunks:5} chunks")
    print(f"{TOKENS:<48} {tokens * 1000:8.1f} ms  {token_chunks:5} chunks  ({encoding * 1000:.1f} ms of it: encoding)")
    for spec in INFORMATION:
        seconds, chunks = median_seconds(spec, corpus, args.runs)
        print(f"{spec:<48} {seconds * 1000:8.1f} ms  {chunks:5} chunks")
    print(f"median of {args.runs} runs; tokens / characters = {ratio:.1f}x")
    print(f"target within {TARGET_RATIO:.0f}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'}")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
