"""What checking a cached tantivy index costs on every run, against what every run already pays for its key.

A cached index is opened only when every file its description lists still has its size and CRC-32
(``index_check.file_damage``): the whole index is read once per run. Every run also computes the index's
cache key (``engine.index_key``), a SHA-256 over every unit's text, which is larger than the index (no
positions, no stored text). The check is cheap when it costs no more than the key.

Corpus: JSQuAD valid's articles repeated ``--copies`` times (ids ``<article>~<copy>``), chunked with
``fixed:size=200``; the index is built once in a temporary cache. Each figure is the median of ``--runs``
runs in this process (the index files are in the page cache after the build, as on a warm run).

Run: ``.venv/bin/python benchmarks/bench_index_check.py [--copies 20] [--runs 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))  # runs from a plain checkout, without installing the package

from chunkscope.chunkers import parse_chunker  # noqa: E402
from chunkscope.chunkers.base import chunk_corpus  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus, Document  # noqa: E402
from chunkscope.retrievers import engine, index_check  # noqa: E402

JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))


def median_seconds(action: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    articles = load_squad(JSQUAD).corpus.documents
    documents = [Document(f"{d.id}~{copy}", d.text) for copy in range(args.copies) for d in articles]
    units = chunk_corpus(parse_chunker("fixed:size=200"), Corpus(tuple(documents))).units
    text_bytes = sum(len(u.text.encode("utf-8")) for u in units)
    with tempfile.TemporaryDirectory(prefix="bench-index-check-") as cache:
        os.environ["CHUNKSCOPE_CACHE"] = cache
        engine.Tantivy().build(units).open()
        (folder,) = (Path(cache) / "tantivy").iterdir()
        files = json.loads((folder / engine.DESCRIPTION).read_text(encoding="utf-8"))["files"]
        index_bytes = sum(size for size, _ in files.values())
        key = median_seconds(lambda: engine.index_key(units, "default"), args.runs)
        check = median_seconds(lambda: index_check.file_damage(folder, files, engine.DESCRIPTION), args.runs)
    print(f"units {len(units):,}; unit text {text_bytes / 1e6:.1f} MB; index {index_bytes / 1e6:.1f} MB")
    print(f"index key (every run): {key * 1000:.0f} ms; index check (every run): {check * 1000:.0f} ms")
    print(f"check / key: {check / key:.2f}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
