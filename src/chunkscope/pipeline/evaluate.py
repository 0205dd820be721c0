"""Evaluation: chunk, index, rank, assemble and measure every question."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from threading import Lock

from chunkscope.chunkers import Chunking, chunk_corpus, parse_chunker
from chunkscope.io.gold import trim_questions
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.assembly import assemble_units
from chunkscope.pipeline.cost import delivery_cost
from chunkscope.pipeline.locate import UnitLocator
from chunkscope.pipeline.overlap import measure_overlap, piece_ranks, unions_by_doc
from chunkscope.results import (
    Attribution,
    Config,
    ConfigResult,
    Cut,
    DeliveredChunks,
    DeliveryStop,
    QuestionResult,
    Ranking,
)
from chunkscope.retrievers import RetrieverIndex, parse_retriever
from chunkscope.retrievers.base import build_index, window_ends

Progress = Callable[[str, int, int], None]


"""Called with (stage, done, total)."""


@dataclass(frozen=True, slots=True)
class IndexedChunking:
    """A chunking with its span locator over the delivered units."""

    chunking: Chunking
    locator: UnitLocator
    delivered_index: tuple[int, ...]
    """For each retrieval unit, the index of its delivered unit in ``delivered_units``."""
    unit_locator: UnitLocator | None = None
    """Over the retrieval units when they are not the delivered ones (parent-child chunking)."""
    table: UnitTable = field(init=False, repr=False, compare=False)
    """The delivered units' ids, documents, offsets and sent lengths as plain tuples (the measuring hot path)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", UnitTable.of(self.chunking.delivered_units))


@dataclass(frozen=True, slots=True)
class UnitTable:
    """Columns of a unit sequence: reading a tuple item is cheaper than a Chunk attribute in the hot path."""

    ids: tuple[str, ...]
    docs: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    sent: tuple[int, ...]
    """Prefix plus body length: what sending the unit whole costs in characters."""

    @classmethod
    def of(cls, units: Sequence[Chunk]) -> UnitTable:
        """The columns of ``units``."""
        return cls(
            tuple(u.id for u in units),
            tuple(u.doc for u in units),
            tuple(u.start for u in units),
            tuple(u.end for u in units),
            tuple(u.sent_length for u in units),
        )


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

    def evaluate(self, config: Config, progress: Progress | None = None) -> ConfigResult:
        """Evaluate one configuration (cached)."""
        with self._evaluation_lock:
            if config in self._results:
                return self._results[config]
            result = self._evaluate(config, progress)
            self._results[config] = result
            return result

    def index(self, config: Config) -> RetrieverIndex:
        """The retriever index ``config`` ranks with (built and cached on first use)."""
        with self._evaluation_lock:
            return self._index(config, None)

    def _index(self, config: Config, progress: Progress | None) -> RetrieverIndex:
        key = (config.chunker, config.retriever)
        if key not in self._indexes:
            if progress is not None:
                progress("indexing", 0, 1)
            self._indexes[key] = build_index(
                parse_retriever(config.retriever), self.chunking(config.chunker).chunking.units, self.corpus
            )
        return self._indexes[key]

    def _evaluate(self, config: Config, progress: Progress | None) -> ConfigResult:
        report = progress or (lambda stage, done, total: None)
        report("chunking", 0, 1)
        indexed = self.chunking(config.chunker)
        units = indexed.chunking.units
        index = self._index(config, report)
        ranking_key = (config.chunker, config.retriever, config.depth)
        if ranking_key not in self._rankings:
            report("ranking", 0, len(self.questions))
            self._rankings[ranking_key] = index.rank(
                self.questions, config.depth, lambda done, total: report("ranking", done, total)
            )
        rankings = self._rankings[ranking_key]
        windows = window_ends(index)
        with collector_paused():
            results = tuple(
                measure_question(question, ranking, indexed, config, windows)
                for question, ranking in zip(self.questions, rankings, strict=True)
            )
        summary = summarize(results, units)
        return ConfigResult(config, summary, results, units, indexed.chunking.imported)


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
    """All per-question metrics for one ranking (``windows``: where the model stops reading each unit, if it does).

    Delivery is measured on unit positions and offsets; the delivered chunks are built as values only
    when read (:class:`chunkscope.results.DeliveredChunks`).
    """
    chunking = indexed.chunking
    locator = indexed.locator
    parents = chunking.parents
    span_holders: list[list[list[int]]] = []
    containing_units: list[set[int]] = []
    cuts: list[Cut] = []
    for item in question.evidence:
        holders: set[int] = set()
        per_span = []
        for span in item.alternatives:
            found = locator.containing(span)
            if found:
                holders.update(found)
            else:
                cuts.append(locator.cut(span))
            per_span.append(found)
        span_holders.append(per_span)
        containing_units.append(holders)
    evidence_exists = all(containing_units)
    delivered_index = indexed.delivered_index
    hit_units = [delivered_index[i] for i in ranking.indices]
    item_ranks = tuple(
        tuple(r for r, unit in enumerate(hit_units, start=1) if unit in holders) for holders in containing_units
    )
    first_correct = max((ranks[0] for ranks in item_ranks), default=None) if all(item_ranks) else None
    delivery = _deliver(ranking, hit_units, indexed, config)
    table = indexed.table
    ends_at = dict(zip(delivery.positions, delivery.ends, strict=True))
    covered = tuple(
        any(
            unit in ends_at and span.end <= ends_at[unit]
            for span, found in zip(item.alternatives, per_span, strict=True)
            for unit in found
        )
        for item, per_span in zip(question.evidence, span_holders, strict=True)
    )
    evidence_docs = {span.doc for span in question.gold_spans}
    docs, starts = table.docs, table.starts
    pieces = [
        (rank, docs[u], starts[u], end)
        for rank, u, end in zip(delivery.ranks, delivery.positions, delivery.ends, strict=True)
    ]
    unions = unions_by_doc(pieces)
    delivered = delivery.chunks
    if delivered is None:
        body = sum(end - start for _, _, start, end in pieces)
        duplicates = body - sum(end - start for ranges in unions.values() for start, end in ranges)
        delivered = DeliveredChunks(
            chunking.delivered_units, delivery.ranks, delivery.positions, delivery.ends, delivery.sent, duplicates
        )
    attribution = (
        ()
        if parents is None
        else attribute_items(
            question,
            [chunking.units[i] for i in ranking.indices[: config.top_k]],
            [chunking.delivered_units[u] for u in hit_units[: config.top_k]],
        )
    )
    return QuestionResult(
        question_id=question.id,
        evidence_exists=evidence_exists,
        cuts=tuple(cuts),
        ranking=ranking,
        first_correct_rank=first_correct,
        delivered=delivered,
        skipped_ranks=delivery.skipped,
        delivery_stop=delivery.stop,
        covered=covered,
        doc_hit=any(docs[u] in evidence_docs for u in delivery.positions),
        item_ranks=item_ranks,
        attribution=attribution,
        piece_ranks=piece_ranks(question.evidence, covered, pieces, unions),
        overlap=measure_overlap(question.evidence, unions, locator.touching),
        gold_match=tuple(item.match_labels for item in question.evidence) if question.approximate else (),
        past_window=() if windows is None else past_window(question, indexed, containing_units, windows),
        units=chunking.units,
        parents=parents,
    )


@dataclass(frozen=True, slots=True)
class _Delivered:
    """One question's delivery as positions into the delivered units (``chunks``: built values, when made)."""

    ranks: tuple[int, ...]
    positions: tuple[int, ...]
    ends: tuple[int, ...]
    sent: tuple[int, ...]
    skipped: tuple[int, ...]
    stop: DeliveryStop
    chunks: DeliveredChunks | None = None


def _deliver(ranking: Ranking, hit_units: Sequence[int], indexed: IndexedChunking, config: Config) -> _Delivered:
    """The context assembly of one question: without a budget every distinct unit of the top-k is sent whole."""
    window = hit_units[: config.top_k]
    reached = len(window) >= config.top_k
    if config.budget is None:
        table = indexed.table
        ids = table.ids
        sent_ids: set[str] = set()
        ranks: list[int] = []
        positions: list[int] = []
        for rank, unit in enumerate(window, start=1):
            unit_id = ids[unit]
            if unit_id not in sent_ids:
                sent_ids.add(unit_id)
                ranks.append(rank)
                positions.append(unit)
        ends = tuple(table.ends[u] for u in positions)
        sent = tuple(table.sent[u] for u in positions)
        return _Delivered(tuple(ranks), tuple(positions), ends, sent, (), "top_k" if reached else "exhausted")
    units = indexed.chunking.delivered_units
    delivery = assemble_units(
        [(rank, units[u]) for rank, u in enumerate(window, start=1)],
        reached,
        config.budget,
        config.overflow,
        delivery_cost(config),
    )
    built = delivery.delivered
    return _Delivered(
        tuple(d.rank for d in built),
        tuple(window[d.rank - 1] for d in built),
        tuple(d.end for d in built),
        tuple(d.sent_chars for d in built),
        delivery.skipped_ranks,
        delivery.stop,
        DeliveredChunks.of(built),
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
