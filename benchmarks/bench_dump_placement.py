"""Time and memory target: placing a chunk dump whose texts repeat (boilerplate through a long document).

A document is generated in which a notice line follows every paragraph (``--pairs`` of them), and a
dump of its chunks (every paragraph and every notice, texts without offsets) is written beside it.
The dump is read and placed by the imported chunker in a fresh process per run, so the peak RSS of
each run is its own. Placement listed every occurrence of every text before issue 22 (item 7): the
notice's chunks alone held ``pairs**2`` starts, and a 155 KB dump over a 300 KB document reached
7.7 GB. Target: peak RSS under ``TARGET_RSS_FACTOR`` times the document plus dump size on top of the
interpreter's baseline, and every chunk where it was cut.

``--src DIR`` imports chunkscope from another checkout's ``src`` (the code before the change, say), to
report both figures in one run; the target applies to this checkout only.

Run: ``.venv/bin/python benchmarks/bench_dump_placement.py [--pairs N] [--runs N] [--src OTHER/src]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTICE = "Terms and conditions apply to this offer; see the notice at the end of the catalogue.\n"
TARGET_RSS_FACTOR = 40
"""Peak RSS above the baseline, as a multiple of the document plus the dump, that the target allows."""

CHILD = """
import json, resource, sys, time
from chunkscope.chunkers.imported import read_chunks
from chunkscope.model import Corpus, Document
document, dump = sys.argv[1], sys.argv[2]
text = open(document, encoding="utf-8").read()
corpus = Corpus((Document("catalogue.txt", text),))
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
try:
    chunking = read_chunks(dump, corpus)
    starts = [unit.start for unit in chunking.units]
    error = None
except MemoryError:
    starts, error = [], "MemoryError"
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "peak_kb": peak, "baseline_kb": baseline, "starts": starts, "error": error}))
"""


def generate(directory: Path, pairs: int) -> tuple[Path, Path, list[int]]:
    """The document, the dump (JSONL, chunkscope format, text only) and each chunk's true start."""
    parts, records, starts = [], [], []
    position = 0
    for number in range(pairs):
        for part in (f"Item {number}: a product of its own, described in a sentence or two.\n", NOTICE):
            records.append({"id": f"c{len(records)}", "doc": "catalogue.txt", "text": part})
            starts.append(position)
            parts.append(part)
            position += len(part)
    document = directory / "catalogue.txt"
    document.write_text("".join(parts), encoding="utf-8")
    dump = directory / "dump.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return document, dump, starts


def measure(src: Path, document: Path, dump: Path, memory_mb: int) -> dict[str, object]:
    """One run in a fresh interpreter importing chunkscope from ``src``, its address space capped."""
    environment = {**os.environ, "PYTHONPATH": str(src)}
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({memory_mb << 20}, {memory_mb << 20}))\n"
    result = subprocess.run(
        [sys.executable, "-c", limit + CHILD, str(document), str(dump)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        last = result.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return {"error": last[0], "seconds": float("nan"), "peak_kb": 0, "baseline_kb": 0, "starts": []}
    values: dict[str, object] = json.loads(result.stdout)
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2_000, help="paragraph and notice pairs (default 2000)")
    parser.add_argument("--runs", type=int, default=3, help="runs the median is taken over (default 3)")
    parser.add_argument("--src", type=Path, action="append", default=[], help="another checkout's src to compare")
    parser.add_argument("--memory-mb", type=int, default=4_096, help="address-space cap of each run (default 4096)")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as directory:
        document, dump, truth = generate(Path(directory), args.pairs)
        size = document.stat().st_size + dump.stat().st_size
        print(f"document {document.stat().st_size:,} bytes, dump {dump.stat().st_size:,} bytes, {len(truth):,} chunks")
        print(f"{'code':<40} {'median s':>9} {'peak RSS MB':>12} {'above base MB':>14} {'placed right':>13}")
        for src in [REPO / "src", *args.src]:
            runs = [measure(src, document, dump, args.memory_mb) for _ in range(args.runs)]
            errors = {str(run["error"]) for run in runs if run["error"]}
            seconds = statistics.median(float(str(run["seconds"])) for run in runs)
            peak = max(int(str(run["peak_kb"])) for run in runs) / 1024
            above = max(int(str(run["peak_kb"])) - int(str(run["baseline_kb"])) for run in runs) / 1024
            right = sum(1 for a, b in zip(runs[0]["starts"], truth, strict=False) if a == b)  # type: ignore[call-overload]
            shown = "; ".join(sorted(errors)) if errors else f"{right:,}/{len(truth):,}"
            print(f"{str(src)[-40:]:<40} {seconds:>9.3f} {peak:>12.1f} {above:>14.1f} {shown:>13}")
            if src == REPO / "src":
                if errors or right != len(truth):
                    print("  target missed: not every chunk placed where it was cut", file=sys.stderr)
                    failed = True
                if above * (1 << 20) > TARGET_RSS_FACTOR * size:
                    print(f"  target missed: {above:.1f} MB above the baseline", file=sys.stderr)
                    failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
