"""Speed target: a library chunker's overhead over calling the library directly (JSQuAD valid).

For each library chunker spec, the direct call is what the library itself does for every document
(``split_text``, semchunk's chunker with ``offsets=True``, ``chunk_indices``); the chunker is
``chunk_corpus(parse_chunker(spec), corpus)``: the same call plus exact offsets (located, or the
library's own checked) and the Chunk values. Three timings per spec, in interleaved rounds (so a
noisy neighbour slows each alike), each the median of ``--runs`` rounds after a warm-up:

- direct: the library calls alone;
- chunker: the whole chunker;
- added: the chunker with the library's answers replayed from memory, i.e. only what chunkscope
  adds (offsets and Chunk values), timed on its own rather than as a difference of two noisy times.

The overhead is added / direct. Target: under 10% for the specs judged; the one marked
"information" is a splitter whose own work on all of JSQuAD takes a few milliseconds, so the
fixed cost per chunk dominates any ratio.

Run: ``.venv/bin/python benchmarks/bench_library_chunkers.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
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
    "semchunk:size=200",
    "semchunk:size=400,overlap=0.2",
    "textsplitter:size=200",
    "textsplitter:size=400,overlap=80",
)
INFORMATION = ('langchain:CharacterTextSplitter,chunk_size=400,chunk_overlap=80,separator="。"',)
"""Shown, not judged."""


class Replay:
    """Stands in for a library object: returns the answer it gave for each text, recorded beforehand."""

    def __init__(self, call: Callable[[str], object], texts: list[str], wrapped: object) -> None:
        self.answers = {text: call(text) for text in texts}
        self.wrapped = wrapped
        """The real library object, for the settings a chunker reads from it."""

    def __call__(self, text: str, **_: object) -> object:
        return self.answers[text]

    def split_text(self, text: str) -> object:
        return self.answers[text]

    def chunk_indices(self, text: str) -> object:
        return self.answers[text]

    def __getattr__(self, name: str) -> object:
        return getattr(self.wrapped, name)


def replaying(chunker: Any, texts: list[str]) -> Any:
    """A copy of ``chunker`` whose library object replays its recorded answers."""
    copy = dataclasses.replace(chunker)
    field = "_chunker" if chunker.spec_name == "semchunk" else "_splitter"
    object.__setattr__(copy, field, Replay(direct_call(chunker), texts, getattr(chunker, field)))
    return copy


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


def measure(spec: str, corpus: Corpus, runs: int) -> tuple[float, float, float]:
    """Median seconds of the direct calls, the chunker, and what the chunker adds, in interleaved rounds."""
    chunker = parse_chunker(spec)
    call = direct_call(chunker)
    texts = [document.text for document in corpus.documents]
    replayed = replaying(chunker, texts)
    assert chunk_corpus(replayed, corpus) == chunk_corpus(chunker, corpus)

    def direct() -> object:
        return [call(text) for text in texts]

    def wrapped() -> object:
        return chunk_corpus(chunker, corpus)

    def added() -> object:
        return chunk_corpus(replayed, corpus)

    work = (direct, wrapped, added)
    for run in work:
        run()
    times: list[list[float]] = [[], [], []]
    for _ in range(runs):
        for seconds, run in zip(times, work, strict=True):
            seconds.append(timed(run))
    direct_s, wrapped_s, added_s = (statistics.median(seconds) for seconds in times)
    return direct_s, wrapped_s, added_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="rounds the medians are taken over (default 5)")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"JSQuAD not found at {JSQUAD}", file=sys.stderr)
        return 2
    corpus = load_squad(JSQUAD).corpus
    print(f"JSQuAD valid: {len(corpus.documents)} documents, {corpus.total_chars:,} characters; median of {args.runs}")
    print(f"{'spec':<78} {'direct s':>9} {'chunker s':>9} {'added s':>9} {'overhead':>9}")
    missed = False
    for spec in (*SPECS, *INFORMATION):
        try:
            direct, wrapped, added = measure(spec, corpus, args.runs)
        except MissingExtraError as exc:
            print(f"{spec:<78} skipped: {exc}")
            continue
        overhead = added / direct
        judged = spec in SPECS
        missed |= judged and overhead >= TARGET
        flag = "  (information)" if not judged else "" if overhead < TARGET else "  MISSED"
        print(f"{spec:<78} {direct:9.4f} {wrapped:9.4f} {added:9.4f} {overhead:9.1%}{flag}")
    print(f"target: overhead (added / direct) under {TARGET:.0%}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
