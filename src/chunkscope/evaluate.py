"""Evaluation: chunk, index, rank, assemble, measure. Caches each stage by spec."""

from __future__ import annotations

import bisect
import gc
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from threading import Lock

from chunkscope.chunkers import Chunking, chunk_corpus, parse_chunker
from chunkscope.context import assemble_units
from chunkscope.model import Chunk, Corpus, Question, Span
from chunkscope.results import (
    BUCKETS,
    Attribution,
    Config,
    ConfigResult,
    Cut,
    Overflow,
    QuestionResult,
    Ranking,
    Summary,
)
from chunkscope.retrievers import RetrieverIndex, parse_retriever

Progress = Callable[[str, int, int], None]
"""Called with (stage, done, total)."""


class UnitLocator:
    """Finds which units of a chunking wholly contain a span, and where spans are cut."""

    def __init__(self, units: Sequence[Chunk]) -> None:
        by_doc: dict[str, list[tuple[int, int, int]]] = {}
        for index, unit in enumerate(units):
            by_doc.setdefault(unit.doc, []).append((unit.start, unit.end, index))
        self.units = units
        self.by_doc = {doc: sorted(entries) for doc, entries in by_doc.items()}
        self.starts = {doc: [s for s, _, _ in entries] for doc, entries in self.by_doc.items()}
        self.longest = {doc: max(e - s for s, e, _ in entries) for doc, entries in self.by_doc.items()}

    def containing(self, span: Span) -> list[int]:
        """Indices of units whose body wholly contains ``span``."""
        entries = self.by_doc.get(span.doc)
        if not entries:
            return []
        last = bisect.bisect_right(self.starts[span.doc], span.start)
        earliest = span.end - self.longest[span.doc]
        found = []
        for position in range(last - 1, -1, -1):
            start, end, index = entries[position]
            if start < earliest:
                break
            if end >= span.end:
                found.append(index)
        return found

    def cut(self, span: Span) -> Cut:
        """Boundaries strictly inside ``span`` and the units overlapping it."""
        entries = self.by_doc.get(span.doc, [])
        overlapping = [(s, e, i) for s, e, i in entries if s < span.end and e > span.start]
        boundaries = sorted({b for s, e, _ in overlapping for b in (s, e) if span.start < b < span.end})
        return Cut(span, tuple(boundaries), tuple(self.units[i].id for _, _, i in overlapping))


@dataclass(frozen=True, slots=True)
class IndexedChunking:
    """A chunking with its span locator over the delivered units."""

    chunking: Chunking
    locator: UnitLocator
    delivered_index: tuple[int, ...]
    """For each retrieval unit, the index of its delivered unit in ``delivered_units``."""


class Evaluator:
    """Evaluates configurations on one dataset, caching chunkings, indexes and results.

    Thread-safe for the inspector's workers: each stage is computed under a lock.
    """

    def __init__(self, corpus: Corpus, questions: Sequence[Question]) -> None:
        self.corpus = corpus
        self.questions = tuple(questions)
        self._chunkings: dict[str, IndexedChunking] = {}
        self._indexes: dict[tuple[str, str], RetrieverIndex] = {}
        self._rankings: dict[tuple[str, str, int], list[Ranking]] = {}
        self._results: dict[Config, ConfigResult] = {}
        self._lock = Lock()

    def cached(self, config: Config) -> ConfigResult | None:
        """The result for ``config`` if it was computed before."""
        return self._results.get(config)

    def chunking(self, chunker_spec: str) -> IndexedChunking:
        """Chunk the corpus (cached by canonical spec)."""
        if chunker_spec not in self._chunkings:
            chunking = chunk_corpus(parse_chunker(chunker_spec), self.corpus)
            delivered = chunking.delivered_units
            positions = {unit.id: i for i, unit in enumerate(delivered)}
            delivered_index = (
                tuple(range(len(chunking.units)))
                if chunking.parents is None
                else tuple(positions[p.id] for p in chunking.parents)
            )
            self._chunkings[chunker_spec] = IndexedChunking(chunking, UnitLocator(delivered), delivered_index)
        return self._chunkings[chunker_spec]

    def evaluate(self, config: Config, progress: Progress | None = None) -> ConfigResult:
        """Evaluate one configuration (cached)."""
        with self._lock:
            if config in self._results:
                return self._results[config]
            result = self._evaluate(config, progress)
            self._results[config] = result
            return result

    def _evaluate(self, config: Config, progress: Progress | None) -> ConfigResult:
        report = progress or (lambda stage, done, total: None)
        report("chunking", 0, 1)
        indexed = self.chunking(config.chunker)
        units = indexed.chunking.units
        key = (config.chunker, config.retriever)
        if key not in self._indexes:
            report("indexing", 0, 1)
            self._indexes[key] = parse_retriever(config.retriever).build(units)
        ranking_key = (config.chunker, config.retriever, config.depth)
        if ranking_key not in self._rankings:
            report("ranking", 0, len(self.questions))
            self._rankings[ranking_key] = self._indexes[key].rank(
                self.questions, config.depth, lambda done, total: report("ranking", done, total)
            )
        rankings = self._rankings[ranking_key]
        with collector_paused():
            results = tuple(
                measure_question(question, ranking, indexed, config)
                for question, ranking in zip(self.questions, rankings, strict=True)
            )
        summary = summarize(results, units)
        return ConfigResult(config, summary, results, units)

    def with_delivery(self, config: Config, top_k: int, budget: int | None, overflow: Overflow) -> Config:
        """``config`` with other delivery settings (rankings stay cached when depth allows)."""
        return replace(config, top_k=top_k, budget=budget, overflow=overflow)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of allocations (restored afterwards).

    Measuring creates some twenty frozen values per question, none in a reference
    cycle, yet their number triggers repeated full collections that cost a third of
    an evaluation. Nesting and other threads are safe: only the outermost pause
    re-enables a collector that was enabled.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def measure_question(question: Question, ranking: Ranking, indexed: IndexedChunking, config: Config) -> QuestionResult:
    """All per-question metrics for one ranking."""
    chunking = indexed.chunking
    locator = indexed.locator
    parents = chunking.parents
    containing_units: list[set[int]] = []
    cuts: list[Cut] = []
    for item in question.evidence:
        holders: set[int] = set()
        for span in item.alternatives:
            found = locator.containing(span)
            if found:
                holders.update(found)
            else:
                cuts.append(locator.cut(span))
        containing_units.append(holders)
    evidence_exists = all(containing_units)
    delivered_index = indexed.delivered_index
    hit_units = [delivered_index[i] for i in ranking.indices]
    item_ranks = tuple(
        tuple(r for r, unit in enumerate(hit_units, start=1) if unit in holders) for holders in containing_units
    )
    first_correct = max((ranks[0] for ranks in item_ranks), default=None) if all(item_ranks) else None
    delivered_units = chunking.delivered_units
    window = [(rank, delivered_units[i]) for rank, i in enumerate(ranking.indices[: config.top_k], start=1)]
    delivery = assemble_units(window, len(window) >= config.top_k, config.budget, config.overflow)
    covered = tuple(
        any(
            d.chunk.doc == span.doc and d.start <= span.start and span.end <= d.end
            for d in delivery.delivered
            for span in item.alternatives
        )
        for item in question.evidence
    )
    evidence_docs = {span.doc for span in question.gold_spans}
    attribution = (
        ()
        if parents is None
        else attribute_items(
            question, [chunking.units[i] for i in ranking.indices[: config.top_k]], [u for _, u in window]
        )
    )
    return QuestionResult(
        question_id=question.id,
        evidence_exists=evidence_exists,
        cuts=tuple(cuts),
        ranking=ranking,
        first_correct_rank=first_correct,
        delivered=delivery.delivered,
        skipped_ranks=delivery.skipped_ranks,
        delivery_stop=delivery.stop,
        covered=covered,
        doc_hit=any(d.chunk.doc in evidence_docs for d in delivery.delivered),
        item_ranks=item_ranks,
        attribution=attribution,
        units=chunking.units,
        parents=parents,
    )


def attribute_items(question: Question, matched: Sequence[Chunk], parents: Sequence[Chunk]) -> tuple[Attribution, ...]:
    """Per required item, where the top-k parent-child hits hold it: ``child``, ``parent`` or ``none``.

    ``matched`` are the top-k ranked (child) units and ``parents`` their parents.
    ``child``: a matched child contains one of the item's alternatives.
    ``parent``: no matched child does, but the parent of one does (the evidence
    sits in the text around the match). ``none``: neither. This is a retrieval
    fact; whether the parent then fit the budget is what ``covered`` says.
    """
    return tuple(
        "child"
        if any(c.contains(span) for c in matched for span in item.alternatives)
        else "parent"
        if any(p.contains(span) for p in parents for span in item.alternatives)
        else "none"
        for item in question.evidence
    )


def reciprocal_rank(rank: int | None, cutoff: int = 10) -> float:
    """1/r when r <= cutoff, else 0."""
    return 1.0 / rank if rank is not None and rank <= cutoff else 0.0


def ndcg_single(rank: int | None, cutoff: int = 10) -> float:
    """nDCG with one relevant item at rank r: 1/log2(r + 1) when r <= cutoff, else 0."""
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= cutoff else 0.0


def recall_at(rank: int | None, k: int) -> float:
    """1 when the first correct rank is within k, else 0."""
    return 1.0 if rank is not None and rank <= k else 0.0


def summarize(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> Summary:
    """Aggregate per-question results into the configuration's summary."""
    count = len(results)
    ranks = [r.first_correct_rank for r in results]

    def mean(values: Sequence[float]) -> float:
        return sum(values) / count if count else 0.0

    buckets: dict[str, int] = {b: 0 for b in BUCKETS}
    for result in results:
        buckets[result.bucket] += 1
    exists = sum(r.evidence_exists for r in results)
    return Summary(
        questions=count,
        index_chunks=len(units),
        indexed_chars=sum(len(u.prefix) + u.end - u.start for u in units),
        evidence_exists=exists,
        lost=count - exists,
        doc_hits=sum(r.doc_hit for r in results),
        complete=sum(r.complete for r in results),
        recall_at_5=mean([recall_at(r, 5) for r in ranks]),
        recall_at_20=mean([recall_at(r, 20) for r in ranks]),
        mrr_at_10=mean([reciprocal_rank(r) for r in ranks]),
        ndcg_at_10=mean([ndcg_single(r) for r in ranks]),
        rank_buckets=buckets,
        sent_chars=sum(r.sent_chars for r in results),
        duplicate_chars=sum(r.duplicate_chars for r in results),
    )
