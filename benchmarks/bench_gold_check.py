"""``chunkscope gold check`` scaling: the whole command timed on generated question sets of 5k to 100k questions.

The generated set grows with its corpus, as a real one does: one document per 20 questions, each
document 25 sentences of random words (so sentence texts do not repeat), each question quoting one
sentence of its document by quote alone (the ladder locates it), every tenth by offsets with its
quote, every fiftieth by offsets alone, every hundredth the footer every document ends with (repeated
evidence). Deterministic for a given seed.

The target: time linear in the number of questions (fitted log-log exponent at most 1.2 over the sizes),
and the 100k set under 60 s on the 2-core machine. Each size is run ``--runs`` times as a subprocess
(``chunkscope gold check`` in a fresh interpreter, output to ``--json``); the median wall time is reported.

Run: ``.venv/bin/python benchmarks/bench_gold_check.py [--sizes 5000,10000,20000,100000] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SIZES = (5_000, 10_000, 20_000, 100_000)
QUESTIONS_PER_DOCUMENT = 20
SENTENCES_PER_DOCUMENT = 25
SEED = 22
FOOTER = "Questions about this page go to the editors."
EXPONENT_TARGET = 1.2
LARGEST_TARGET_S = 60.0


def _word(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))


def _sentence(rng: random.Random) -> str:
    return " ".join(_word(rng) for _ in range(rng.randint(8, 14))).capitalize() + "."


def generate(directory: Path, questions: int, seed: int = SEED) -> tuple[Path, Path]:
    """Write ``corpus/`` and ``questions.jsonl`` for ``questions`` questions under ``directory``."""
    rng = random.Random(seed)
    corpus = directory / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    documents = math.ceil(questions / QUESTIONS_PER_DOCUMENT)
    lines = []
    number = 0
    for d in range(documents):
        sentences = [_sentence(rng) for _ in range(SENTENCES_PER_DOCUMENT)]
        paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, SENTENCES_PER_DOCUMENT, 5)]
        text = f"# Document {d}\n\n" + "\n\n".join(paragraphs) + f"\n\n{FOOTER}"
        name = f"doc{d:06d}.md"
        (corpus / name).write_text(text + "\n", encoding="utf-8")
        for _ in range(min(QUESTIONS_PER_DOCUMENT, questions - number)):
            sentence = rng.choice(sentences)
            start = text.index(sentence)
            query = "What about " + " ".join(rng.sample(sentence.rstrip(".").split(), 3)) + "?"
            if number % 100 == 0:  # the footer every document holds: repeated evidence
                start = text.index(FOOTER)
                evidence = {"doc": name, "start": start, "end": start + len(FOOTER)}
            elif number % 50 == 0:
                evidence = {"doc": name, "start": start, "end": start + len(sentence)}
            elif number % 10 == 0:
                evidence = {"doc": name, "quote": sentence, "start": start, "end": start + len(sentence)}
            else:
                evidence = {"doc": name, "quote": sentence}
            lines.append(json.dumps({"id": f"q{number}", "query": query, "evidence": [evidence]}))
            number += 1
    path = directory / "questions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus, path


def time_command(corpus: Path, questions: Path, report: Path) -> float:
    """Wall seconds of one ``chunkscope gold check`` (exit 0 or 1 both fine: findings are expected)."""
    command = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
    command += ["gold", "check", "--corpus", str(corpus)]
    command += ["--questions", str(questions), "--json", str(report)]
    environment = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    start = time.perf_counter()
    done = subprocess.run(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"gold check failed ({done.returncode}): {done.stderr.strip()}")
    return wall


def fitted_exponent(sizes: list[int], times: list[float]) -> float:
    """Slope of the least-squares line through (log size, log time)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in times]
    mean_x, mean_y = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum((x - mean_x) ** 2 for x in xs)


def main() -> int:
    """Run every size, print the table, exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="question counts (comma separated)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (median; default 3)")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    medians = []
    print("| questions | documents | wall s (median) | runs |")
    print("|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="bench-gold-check-") as temporary:
        for size in sizes:
            directory = Path(temporary) / str(size)
            corpus, questions = generate(directory, size)
            walls = sorted(time_command(corpus, questions, directory / "report.json") for _ in range(args.runs))
            medians.append(statistics.median(walls))
            documents = math.ceil(size / QUESTIONS_PER_DOCUMENT)
            print(f"| {size:,} | {documents:,} | {medians[-1]:.2f} | {', '.join(f'{w:.2f}' for w in walls)} |")
    failed = False
    if len(sizes) > 1:
        exponent = fitted_exponent(sizes, medians)
        print(f"fitted exponent {exponent:.2f} (target at most {EXPONENT_TARGET})")
        failed |= exponent > EXPONENT_TARGET
    if sizes[-1] >= 100_000 and medians[-1] > LARGEST_TARGET_S:
        print(f"{sizes[-1]:,} questions took {medians[-1]:.1f} s (target under {LARGEST_TARGET_S:.0f} s)")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
