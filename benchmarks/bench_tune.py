"""``chunkscope tune`` on JSQuAD against an exhaustive evaluation of the same space.

The space: the eight published configurations plus fixed windows of 150 to 600 characters by 50 with
overlaps 0, 10% and 20% (34 distinct configurations), BM25, target ``recall_at_5``, cost ``sent_chars``,
10,000 permutations. For each of ``--seeds`` seeds (default 1-5) the whole command runs in a fresh process
(imports, loading, halving, tests and the recommendation's fragility included) and its JSON report gives
the recommendation. The reference is exhaustive: every configuration evaluated on every question, then
the same rule (``analysis.tune.recommend``) with the same seed. Targets: every tune run under 20 s (median
reported too) and the same recommendation as the exhaustive evaluation for every seed.

Run: ``.venv/bin/python benchmarks/bench_tune.py [--seeds 1,2,3,4,5] [--jobs 1]``.
"""

from __future__ import annotations

import argparse
import json
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
TARGET_S = 20.0
CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
SIZES = ",".join(str(size) for size in range(150, 601, 50))
SPACE = ["--preset", "published", "--size", SIZES, "--overlap", "0,0.1,0.2"]


def timed_tune(seed: int, jobs: int, report: Path) -> float:
    """Wall seconds of one ``chunkscope tune`` in a fresh process, writing its JSON report."""
    command = [*CHUNKSCOPE, "tune", "--squad", str(JSQUAD), *SPACE, "--seed", str(seed), "--jobs", str(jobs)]
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    subprocess.run([*command, "--json", str(report)], check=True, stdout=subprocess.DEVNULL, env=environment)
    return time.perf_counter() - start


def exhaustive(seeds: list[int]) -> tuple[dict[int, str], float]:
    """The recommendation of an exhaustive evaluation per seed, and the evaluation's wall seconds."""
    from chunkscope.analysis.paired import metric_values
    from chunkscope.analysis.tune import Scored, TuneSettings, recommend
    from chunkscope.cli import build_parser
    from chunkscope.cli.tune_space import merged_space, space_configs
    from chunkscope.io.squad import load_squad
    from chunkscope.pipeline.parallel import evaluate_configs

    args = build_parser().parse_args(["tune", *SPACE])
    configs, _ = space_configs(merged_space(args), args)
    start = time.perf_counter()
    dataset = load_squad(JSQUAD)
    results = evaluate_configs(dataset.corpus, dataset.questions.questions, configs, 1).results
    scored = [Scored(r.config, metric_values(r, ["recall_at_5"])[0], float(r.summary["sent_chars"])) for r in results]
    seconds = time.perf_counter() - start
    chosen = {seed: recommend(scored, TuneSettings(seed=seed)).recommended.config.label for seed in seeds}
    print(f"exhaustive: {len(configs)} configurations on {len(dataset.questions.questions)} questions, {seconds:.1f} s")
    return chosen, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1,2,3,4,5", help="comma-separated seeds (default 1,2,3,4,5)")
    parser.add_argument("--jobs", type=int, default=1, help="--jobs of the tune runs (default 1)")
    args = parser.parse_args()
    if not JSQUAD.exists():
        sys.exit(f"JSQuAD not found at {JSQUAD} (set CHUNKSCOPE_JSQUAD)")
    seeds = [int(seed) for seed in args.seeds.split(",")]
    reference, _ = exhaustive(seeds)
    walls = []
    agree = 0
    with tempfile.TemporaryDirectory() as folder:
        for seed in seeds:
            report = Path(folder) / f"tune-{seed}.json"
            wall = timed_tune(seed, args.jobs, report)
            walls.append(wall)
            data = json.loads(report.read_text(encoding="utf-8"))
            same = data["recommended"]["label"] == reference[seed]
            agree += same
            print(
                f"seed {seed}: {wall:5.1f} s, {data['evaluations']} evaluations, recommended "
                f"{data['recommended']['label']} (best {data['best']['label']}); exhaustive {reference[seed]}: "
                f"{'same' if same else 'DIFFERENT'}"
            )
    verdict = "met" if max(walls) < TARGET_S and agree == len(seeds) else "MISSED"
    print(
        f"tune: median {statistics.median(walls):.1f} s, max {max(walls):.1f} s (target < {TARGET_S:g} s); "
        f"same recommendation as exhaustive in {agree} of {len(seeds)} seeds: {verdict}"
    )


if __name__ == "__main__":
    main()
