"""DocumentView speed on a 300k-character document (JSQuAD valid articles concatenated, repeated as needed).

Builds one document from consecutive JSQuAD articles (joined with blank lines)
until it holds at least 300,000 characters, with every question of those articles
(gold spans shifted) and every recorded paragraph span (shifted: the view breaks
lines there), evaluated under ``fixed:size=400,overlap=80`` / BM25,
top-5, budget 1200. The view runs headless in a 120x40 terminal.

Measured (median and p95 over the runs):

1. ``show()`` of a question on the big document plus rendering the first screenful
   (marks, token index, wrapping to the width, first lines), each run on a fresh view
   with the per-document caches cleared.
2. A screenful rendered after scrolling to a random line never rendered before
   (uncached). Target: under 50 ms.
3. The same screenfuls rendered again (cached strips). Target: under 16 ms.
4. ``show()`` of the next question on the same document (marks change, strips
   cached per question) plus its first screenful.
5. ``RankedChunksView.show()`` plus its first screenful for JSQuAD questions spread
   over the set (its part of the inspector's next-question target, p95 under 50 ms).

Run: ``.venv/bin/python benchmarks/bench_document_view.py [--runs N] [--size CHARS]``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from textual.app import App, ComposeResult  # noqa: E402

from chunkscope.analysis import marks  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span  # noqa: E402
from chunkscope.pipeline.config import make_config  # noqa: E402
from chunkscope.pipeline.evaluate import Evaluator  # noqa: E402
from chunkscope.results import ConfigResult  # noqa: E402
from chunkscope.tui import cells  # noqa: E402
from chunkscope.tui.widgets.document_view import DocumentView  # noqa: E402
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
SIZE = (120, 40)
SEPARATOR = "\n\n"


def big_document(min_chars: int) -> tuple[Document, list[Question]]:
    """Concatenated JSQuAD articles (at least ``min_chars``) and their questions with shifted gold."""
    dataset = load_squad(JSQUAD)
    questions_by_doc: dict[str, list[Question]] = {}
    for question in dataset.questions.questions:
        questions_by_doc.setdefault(question.gold_spans[0].doc, []).append(question)
    parts: list[str] = []
    shifted: list[Question] = []
    paragraphs: list[tuple[int, int]] = []
    length = 0
    # the whole of JSQuAD valid is under 300k characters: go round again when needed
    for round_index in itertools.count():
        for document in dataset.corpus.documents:
            if length >= min_chars:
                text = SEPARATOR.join(parts)
                return Document("big", text, title="JSQuAD articles", paragraphs=tuple(paragraphs)), shifted
            for question in questions_by_doc.get(document.id, []):
                evidence = tuple(
                    EvidenceItem(tuple(Span("big", s.start + length, s.end + length) for s in item.alternatives))
                    for item in question.evidence
                    if all(s.doc == document.id for s in item.alternatives)
                )
                if evidence:
                    shifted.append(Question(f"{question.id}/{round_index}", question.query, evidence, question.tags))
            paragraphs += [(start + length, end + length) for start, end in document.paragraphs or ()]
            parts.append(document.text)
            length += len(document.text) + len(SEPARATOR)
    raise AssertionError("unreachable")


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DocumentView()


def screenful(view: DocumentView) -> float:
    """Seconds to render every visible line."""
    started = time.perf_counter()
    for y in range(view.scrollable_content_region.height):
        view.render_line(y)
    return time.perf_counter() - started


def summary(name: str, seconds: list[float], target_ms: float | None = None) -> str:
    values = sorted(s * 1000 for s in seconds)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    target = f"  (target < {target_ms:g} ms: {'ok' if p95 < target_ms else 'MISSED'})" if target_ms else ""
    return f"{name:<44} median {statistics.median(values):7.2f} ms   p95 {p95:7.2f} ms   n={len(values)}{target}"


async def run(runs: int, min_chars: int) -> None:
    document, questions = big_document(min_chars)
    corpus = Corpus((document,))
    evaluator = Evaluator(corpus, questions)
    config = make_config("fixed:size=400,overlap=80", "bm25", top_k=5, budget=1200)
    result: ConfigResult = evaluator.evaluate(config)
    chunks = result.chunks
    print(f"document: {len(document.text):,} chars, {len(chunks):,} chunks, {len(questions)} questions; {SIZE}")

    show_first: list[float] = []
    uncached: list[float] = []
    cached: list[float] = []
    next_question: list[float] = []
    rng = random.Random(0)
    for run_index in range(runs):
        app = BenchApp()
        async with app.run_test(size=SIZE) as pilot:
            view = app.query_one(DocumentView)
            await pilot.pause()
            index = run_index % len(questions)
            # cold: nothing of this document cached anywhere in the process
            marks._long_text_index.cache_clear()
            cells._paragraphs.cache_clear()
            started = time.perf_counter()
            view.show(document, chunks, result.questions[index], questions[index])
            screenful(view)
            show_first.append(time.perf_counter() - started)

            line_count = view.virtual_size.height
            lines = rng.sample(range(0, line_count - 40), 10)
            for line in lines:
                view.scroll_to(y=line, animate=False, immediate=True)
                uncached.append(screenful(view))
            for line in lines:
                view.scroll_to(y=line, animate=False, immediate=True)
                cached.append(screenful(view))

            following = (index + 1) % len(questions)
            started = time.perf_counter()
            view.show(document, chunks, result.questions[following], questions[following])
            screenful(view)
            next_question.append(time.perf_counter() - started)
    ranked = await ranked_view_times(runs * 8)
    print(f"lines at width {SIZE[0]}: {line_count:,}")
    print(summary("show() + first screenful (cold, fresh view)", show_first))
    print(summary("next question, same document + screenful", next_question))
    print(summary("screenful after scroll, uncached", uncached, 50))
    print(summary("screenful after scroll, cached", cached, 16))
    print(summary("RankedChunksView.show() + screenful (JSQuAD)", ranked, 50))


class RankedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield RankedChunksView()


async def ranked_view_times(count: int) -> list[float]:
    """RankedChunksView.show() plus its first screenful for ``count`` JSQuAD questions (top-5, budget 1200)."""
    dataset = load_squad(JSQUAD)
    questions = dataset.questions.questions
    config = make_config("fixed:size=400,overlap=80", "bm25", top_k=5, budget=1200)
    result = Evaluator(dataset.corpus, questions).evaluate(config)
    times: list[float] = []
    app = RankedApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        view = app.query_one(RankedChunksView)
        step = max(1, len(questions) // count)
        for index in range(0, step * count, step):
            started = time.perf_counter()
            view.show(questions[index], result.questions[index], config, dataset.corpus)
            for y in range(view.scrollable_content_region.height):
                view.render_line(y)
            times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", type=int, default=300_000, help="minimum document length in characters")
    args = parser.parse_args()
    asyncio.run(run(args.runs, args.size))


if __name__ == "__main__":
    main()
