"""Speed target: placing a chunk dump by text alone (JSQuAD valid).

JSQuAD valid is chunked by fixed windows, the chunks are written as a dump of texts without
offsets (``{"id", "doc", "text"}``), and the imported chunker reads the dump back: every chunk is
located in its document (all occurrences found, placed by order, ambiguity decided). Two dumps:
``fixed:size=200,overlap=50`` (the default windows, about 1,300 chunks) and
``fixed:size=40,overlap=20`` (about 10,000 chunks). Target: the 10,000-chunk dump read and placed
in under 1 s (median of ``--runs``). The script also checks that every chunk lands where the
fixed chunker put it.

Run: ``.venv/bin/python benchmarks/bench_locate.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Lets the script run from a plain checkout, without installing the package.
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.chunkers import chunk_corpus, parse_chunker  # noqa: E402
from chunkscope.chunkers.imported import read_chunks  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
SPECS = ("fixed:size=200,overlap=50", "fixed:size=40,overlap=20")
TARGET_SECONDS = 1.0
TARGET_MIN_CHUNKS = 10_000 * 0.9
"""The target applies to the dump of about 10,000 chunks."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs the median is taken over (default 5)")
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"JSQuAD valid not found at {JSQUAD}", file=sys.stderr)
        return 2
    corpus = load_squad(JSQUAD).corpus
    failed = False
    print(
        f"{'chunker':<28} {'chunks':>7} {'median s':>9} {'exact':>6} {'relocated':>9} {'ambiguous':>9} {'missing':>7}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for spec in SPECS:
            units = chunk_corpus(parse_chunker(spec), corpus).units
            dump = Path(directory) / "dump.jsonl"
            dump.write_text(
                "".join(
                    json.dumps({"id": u.id, "doc": u.doc, "text": u.text}, ensure_ascii=False) + "\n" for u in units
                ),
                encoding="utf-8",
            )
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                chunking = read_chunks(str(dump), corpus)
                times.append(time.perf_counter() - started)
            median = statistics.median(times)
            summary = chunking.imported
            assert summary is not None
            wrong = {(u.id, u.start) for u in chunking.units} - {(u.id, u.start) for u in units}
            if wrong:
                print(f"  {len(wrong)} chunks placed elsewhere than the chunker put them", file=sys.stderr)
                failed = True
            print(
                f"{spec:<28} {len(units):>7} {median:>9.3f} {summary.exact:>6} {summary.relocated:>9} "
                f"{summary.ambiguous:>9} {summary.not_found:>7}"
            )
            if len(units) >= TARGET_MIN_CHUNKS and median > TARGET_SECONDS:
                print(f"  target missed: {median:.3f} s > {TARGET_SECONDS} s", file=sys.stderr)
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
