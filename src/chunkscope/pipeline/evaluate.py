"""Evaluation: chunk, index, rank, assemble and measure every question."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, is_dataclass
from threading import Lock

from chunkscope.chunkers import Chunking, chunk_corpus, parse_chunker
from chunkscope.io.gold import trim_questions
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.assembly import assemble_units
from chunkscope.pipeline.cost import delivery_cost
from chunkscope.pipeline.locate import UnitLocator
from chunkscope.pipeline.overlap import delivered_unions, measure_overlap, piece_ranks
from chunkscope.results import (
    Attribution,
    Config,
    ConfigResult,
    Cut,
    QuestionResult,
    Ranking,
)
from chunkscope.retrievers import RetrieverIndex, parse_retriever
from chunkscope.retrievers.base import build_index, window_ends
from chunkscope.retrievers.dense import Dense

Progress = Callable[[str, int, int], None]
"""Called with (stage, done, total); stages: chunking, indexing, embedding or ranking, measuring."""

Cancelled = Callable[[], bool]
"""Asked between steps of an evaluation: True stops it (:class:`EvaluationCancelled`)."""

MEASURE_REPORT_EVERY = 64
"""Questions measured between two progress reports (and cancellation checks): tens of milliseconds on JSQuAD."""


class EvaluationCancelled(Exception):
    """The ``cancelled`` callable of an evaluation returned True: it stopped, and nothing of it was cached."""


@dataclass(frozen=True, slots=True)
class IndexedChunking:
    """A chunking with its span locator over the delivered units."""

    chunking: Chunking
    locator: UnitLocator
    delivered_index: tuple[int, ...]
    """For each retrieval unit, the index of its delivered unit in ``delivered_units``."""
    unit_locator: UnitLocator | None = None
    """Over the retrieval units when they are not the delivered ones (parent-child chunking)."""


class Evaluator:
    """Evaluates configurations on one dataset, caching chunkings, indexes and results.

    Thread-safe for the inspector, whose worker evaluates while its UI thread asks for chunkings:
    evaluations run one at a time under one lock, and each chunking is computed under its own spec's
    lock, so two threads never chunk the same spec at once (the later one waits and gets the first
    one's result) while different specs do not wait for each other. Locks are only ever taken in the
    order evaluation, then chunking, so they cannot deadlock.
    """

    def __init__(self, corpus: Corpus, questions: Sequence[Question]) -> None:
        self.corpus = corpus
        # A chunk contains a gold span when it contains the span without its edge whitespace
        # (the loaders trim already; questions built by hand get the same rule).
        self.questions = trim_questions(questions, corpus)
        self._chunkings: dict[str, IndexedChunking] = {}
        self._indexes: dict[tuple[str, str], RetrieverIndex] = {}
        self._rankings: dict[tuple[str, str, int], list[Ranking]] = {}
        self._windows: dict[tuple[str, str], tuple[int, ...] | None] = {}
        """Where each index's model stops reading its units (kept when the index is dropped)."""
        self._results: dict[Config, ConfigResult] = {}
        self._evaluation_lock = Lock()
        self._chunking_locks: dict[str, Lock] = {}
        self._chunking_locks_guard = Lock()

    def cached(self, config: Config) -> ConfigResult | None:
        """The result for ``config`` if it was computed before."""
        return self._results.get(config)

    def chunking(self, chunker_spec: str) -> IndexedChunking:
        """Chunk the corpus (cached by canonical spec; safe to call from any thread)."""
        indexed = self._chunkings.get(chunker_spec)
        if indexed is not None:
            return indexed
        with self._chunking_lock(chunker_spec):
            indexed = self._chunkings.get(chunker_spec)
            if indexed is None:
                indexed = index_chunking(chunk_corpus(parse_chunker(chunker_spec), self.corpus))
                self._chunkings[chunker_spec] = indexed
            return indexed

    def _chunking_lock(self, chunker_spec: str) -> Lock:
        with self._chunking_locks_guard:
            return self._chunking_locks.setdefault(chunker_spec, Lock())

    def evaluate(
        self, config: Config, progress: Progress | None = None, cancelled: Cancelled | None = None
    ) -> ConfigResult:
        """Evaluate one configuration (cached).

        ``cancelled`` is asked at every progress report (between stages, between embedding batches,
        every few hundred questions ranked or measured); when it returns True the evaluation raises
        EvaluationCancelled. Nothing half-done is cached (embeddings already written to the disk cache stay).
        """
        with self._evaluation_lock:
            if config in self._results:
                return self._results[config]
            result = self._evaluate(config, checked_progress(progress, cancelled))
            self._results[config] = result
            return result

    def index(self, config: Config) -> RetrieverIndex:
        """The retriever index ``config`` ranks with (built and cached on first use)."""
        with self._evaluation_lock:
            return self._index(config, None)

    def _index(self, config: Config, progress: Progress | None) -> RetrieverIndex:
        key = (config.chunker, config.retriever)
        index = self._indexes.pop(key, None)  # put back last: the dict runs from least to most recently used
        if index is None:
            if progress is not None:
                progress("indexing", 0, 1)
            index = build_index(
                parse_retriever(config.retriever), self.chunking(config.chunker).chunking.units, self.corpus
            )
        self._indexes[key] = index
        return index

    @property
    def held_indexes(self) -> tuple[tuple[str, str], ...]:
        """The (chunker, retriever) of each index held, least recently used first."""
        return tuple(self._indexes)

    def evict_indexes(self, keep: int) -> int:
        """Drop the retriever indexes but the ``keep`` most recently used; return how many were dropped.

        Rankings, results and chunkings stay cached, so a configuration evaluated before is shown at
        once and another delivery (top-k, budget) of its ranking needs no index; a dropped index is
        built again only to rank deeper or to explain a score. Waits for a running evaluation (call it
        from the thread that evaluates).
        """
        with self._evaluation_lock:
            dropped = list(self._indexes)[: max(0, len(self._indexes) - keep)]
            for key in dropped:
                del self._indexes[key]
            return len(dropped)

    def _evaluate(self, config: Config, report: Progress) -> ConfigResult:
        report("chunking", 0, 1)
        indexed = self.chunking(config.chunker)
        units = indexed.chunking.units
        key = (config.chunker, config.retriever)
        ranking_key = (*key, config.depth)
        if ranking_key not in self._rankings or key not in self._windows:
            index = self._index(config, report)
            self._windows[key] = window_ends(index)
            if ranking_key not in self._rankings:
                # A dense retriever spends its ranking call embedding the units and queries (the long part).
                stage = "embedding" if embeds(parse_retriever(config.retriever)) else "ranking"
                report(stage, 0, len(self.questions))
                self._rankings[ranking_key] = index.rank(
                    self.questions, config.depth, lambda done, total: report(stage, done, total)
                )
        rankings = self._rankings[ranking_key]
        windows = self._windows[key]
        count = len(self.questions)
        results: list[QuestionResult] = []
        with collector_paused():
            for number, (question, ranking) in enumerate(zip(self.questions, rankings, strict=True)):
                if number % MEASURE_REPORT_EVERY == 0:
                    report("measuring", number, count)
                results.append(measure_question(question, ranking, indexed, config, windows))
        summary = summarize(tuple(results), units)
        return ConfigResult(config, summary, tuple(results), units, indexed.chunking.imported)


def index_chunking(chunking: Chunking) -> IndexedChunking:
    """A chunking with its span locator over the delivered units and each unit's delivered position."""
    delivered = chunking.delivered_units
    positions = {unit.id: i for i, unit in enumerate(delivered)}
    delivered_index = (
        tuple(range(len(chunking.units)))
        if chunking.parents is None
        else tuple(positions[p.id] for p in chunking.parents)
    )
    children = None if chunking.parents is None else UnitLocator(chunking.units)
    return IndexedChunking(chunking, UnitLocator(delivered), delivered_index, children)


def checked_progress(progress: Progress | None, cancelled: Cancelled | None) -> Progress:
    """``progress`` that first asks ``cancelled`` and raises EvaluationCancelled when it says stop."""

    def report(stage: str, done: int, total: int) -> None:
        if cancelled is not None and cancelled():
            raise EvaluationCancelled(stage)
        if progress is not None:
            progress(stage, done, total)

    return report


def embeds(strategy: object) -> bool:
    """True when a retriever (or one of its parts, for fusion) embeds texts with a model."""
    if isinstance(strategy, Dense):
        return True
    if isinstance(strategy, tuple):
        return any(embeds(part) for part in strategy)
    if is_dataclass(strategy) and not isinstance(strategy, type):
        return any(embeds(getattr(strategy, f.name)) for f in fields(strategy))
    return False


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


def measure_question(
    question: Question,
    ranking: Ranking,
    indexed: IndexedChunking,
    config: Config,
    windows: Sequence[int] | None = None,
) -> QuestionResult:
    """All per-question metrics for one ranking (``windows``: where the model stops reading each unit, if it does)."""
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
    delivery = assemble_units(
        window, len(window) >= config.top_k, config.budget, config.overflow, delivery_cost(config)
    )
    covered = tuple(
        any(
            d.chunk.doc == span.doc and d.start <= span.start and span.end <= d.end
            for d in delivery.delivered
            for span in item.alternatives
        )
        for item in question.evidence
    )
    evidence_docs = {span.doc for span in question.gold_spans}
    unions = delivered_unions(delivery.delivered)
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
        piece_ranks=piece_ranks(question.evidence, covered, delivery.delivered, unions),
        overlap=measure_overlap(question.evidence, unions, locator.touching),
        gold_match=tuple(item.match_labels for item in question.evidence) if question.approximate else (),
        past_window=() if windows is None else past_window(question, indexed, containing_units, windows),
        units=chunking.units,
        parents=parents,
    )


def past_window(
    question: Question, indexed: IndexedChunking, delivered_holders: Sequence[set[int]], windows: Sequence[int]
) -> tuple[bool, ...]:
    """Per required item: some retrieval unit contains an alternative, and in every one each ends past the window.

    ``windows[i]`` is where the model stops reading unit ``i``'s body; ``delivered_holders`` are the
    delivered units containing each item (the retrieval units themselves without parents).
    """
    units = indexed.chunking.units
    flags = []
    for item, holders in zip(question.evidence, delivered_holders, strict=True):
        pairs = [
            (unit, span)
            for span in item.alternatives
            for unit in (holders if indexed.unit_locator is None else indexed.unit_locator.containing(span))
            if units[unit].contains(span)
        ]
        flags.append(bool(pairs) and all(span.end > windows[unit] for unit, span in pairs))
    return tuple(flags)


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
