"""Answer speed targets on JSQuAD valid (../shared/data/jsquad-valid-v1.3.json).

1. ``chunkscope eval`` of the golden JSQuAD configuration (``fixed:size=400,overlap=80``, BM25, budget
   2000, skip) with a JSON report, with and without ``--answers FILE`` (a plain JSONL answer per
   question, judged; the attribution and answer_in_context then run too). Whole commands, alternating,
   median of ``--runs`` runs each. Target: with answers at most 1.10x the time without.
2. The same command with ``--reader`` (a trivial reader: the first delivered chunk's first 20
   characters) and ``--judge em`` on the 3,973 questions. Target: at most 5 s above the command
   without answers (median against median).

Run: ``.venv/bin/python benchmarks/bench_answers.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.io.squad import load_squad  # noqa: E402

JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))
RATIO_TARGET = 1.10
READER_TARGET_S = 5.0
LAUNCH = "import sys; from chunkscope.cli import main; sys.exit(main(sys.argv[1:]))"
READER = """
def first_chunk(question, chunks, budget):
    return chunks[0][:20] if chunks else ""
"""


def write_answers(path: Path) -> None:
    """One answer per question: its first reference (correct) or a wrong text, seeded."""
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as out:
        for question in load_squad(JSQUAD).questions.questions:
            right = rng.random() < 0.7
            answer = question.references[0] if right else "わからない"
            out.write(json.dumps({"id": question.id, "answer": answer, "correct": right}, ensure_ascii=False) + "\n")


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one whole command (exit 0 required)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not JSQUAD.exists():
        print(f"JSQuAD not found at {JSQUAD}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        answers = folder / "answers.jsonl"
        write_answers(answers)
        (folder / "bench_reader.py").write_text(READER)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(folder)])}
        base = [sys.executable, "-c", LAUNCH, "eval", "--squad", str(JSQUAD)]
        base += ["--chunker", "fixed:size=400,overlap=80", "--budget", "2000", "--overflow", "skip", "--jobs", "1"]
        commands = {
            "plain": [*base, "--json", str(folder / "plain.json")],
            "answers": [*base, "--answers", str(answers), "--json", str(folder / "answers.json")],
            "reader": [
                *base,
                "--reader",
                "python:bench_reader:first_chunk",
                "--judge",
                "em",
                "--json",
                str(folder / "reader.json"),
            ],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                wall, used = timed(argv, env)
                times[name].append(wall)
                cpu[name].append(used)
        medians = {name: statistics.median(values) for name, values in times.items()}
        cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
        report = json.loads((folder / "answers.json").read_text())
        counts = report["configs"][0]["answers"]["answers"]["attribution"]
    ratio = medians["answers"] / medians["plain"]
    extra = medians["reader"] - medians["plain"]
    print(f"eval without answers: median {medians['plain']:.2f} s over {args.runs} runs")
    print(f"eval with --answers:  median {medians['answers']:.2f} s, ratio {ratio:.3f} (target <= {RATIO_TARGET})")
    print(f"eval with --reader:   median {medians['reader']:.2f} s, +{extra:.2f} s (target <= {READER_TARGET_S} s)")
    print(
        "CPU seconds (median; the machine is shared): "
        + ", ".join(f"{name} {value:.2f}" for name, value in cpu_medians.items())
    )
    print(f"attribution of the answers run: {counts}")
    return 0 if ratio <= RATIO_TARGET and extra <= READER_TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
