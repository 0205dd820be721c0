"""The JSQuAD sweep on a local two-worker Dask cluster against ``--jobs 2``.

``chunkscope sweep --squad jsquad-valid-v1.3.json`` (the published eight, BM25, 10,000 permutations) runs in a
fresh process with ``--jobs 2`` and with ``--executor dask://...`` pointing at a ``LocalCluster`` of two worker
processes (one thread each) started once by this script, as a real cluster would be running already. Each
figure is the median wall time of ``--runs`` runs (default 3), imports and loading included; the two JSON
reports are checked to be byte-identical. Target: Dask within 30% of ``--jobs 2``.

Run: ``.venv/bin/python benchmarks/bench_dask.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
sys.path.insert(0, str(SRC))

JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))
TARGET_RATIO = 1.3
CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]


def timed_sweep(where: list[str], report: Path) -> float:
    """Wall seconds of one sweep in a fresh process."""
    command = [*CHUNKSCOPE, "sweep", "--squad", str(JSQUAD), *where, "--json", str(report)]
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not JSQUAD.exists():
        sys.exit(f"JSQuAD not found at {JSQUAD} (set CHUNKSCOPE_JSQUAD)")
    os.environ["PYTHONPATH"] = str(SRC)  # the cluster's worker processes import this checkout
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
    executor = cluster.scheduler_address.replace("tcp://", "dask://")
    local: list[float] = []
    remote: list[float] = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(args.runs):
                local.append(timed_sweep(["--jobs", "2"], Path(folder) / "local.json"))
                remote.append(timed_sweep(["--executor", executor], Path(folder) / "dask.json"))
            same = (Path(folder) / "local.json").read_bytes() == (Path(folder) / "dask.json").read_bytes()
    finally:
        cluster.close()
    ratio = statistics.median(remote) / statistics.median(local)
    print(f"--jobs 2: median {statistics.median(local):.2f} s  {' '.join(f'{t:.2f}' for t in local)}")
    print(f"dask, 2 workers: median {statistics.median(remote):.2f} s  {' '.join(f'{t:.2f}' for t in remote)}")
    verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
    print(f"ratio {ratio:.2f} (target <= {TARGET_RATIO:g}): {verdict}; reports byte-identical: {same}")


if __name__ == "__main__":
    main()
