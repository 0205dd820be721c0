"""Evaluation: chunk, index, rank, assemble and measure every question."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, is_dataclass
from threading import Lock

import numpy as np

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.collector import collector_paused
from chunkscope.io.gold import trim_questions
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.assembly import assemble_units
from chunkscope.pipeline.batch import SingleSpanBatch, measure_single_spans
from chunkscope.pipeline.cost import delivery_cost
from chunkscope.pipeline.indexed import IndexedChunking, index_chunking
from chunkscope.pipeline.overlap import measure_overlap, piece_ranks, unions_by_doc
from chunkscope.results import (
    Attribution,
    Config,
    ConfigResult,
    Cut,
    DeliveredChunk,
    DeliveredChunks,
    DeliveryStop,
    QuestionResult,
    QuestionResults,
    Ranking,
    ResultColumns,
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
        self._index_bytes: dict[tuple[str, str], int] = {}
        """What the arrays of each index held take (measured once, when it is built)."""
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
            with collector_paused():  # chunking, indexing and measuring allocate much and free little
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
            report = None
            if progress is not None:
                progress("indexing", 0, 1)
                # A lexical build reports between its long steps: a cancel stops it there, not after it.
                report = functools.partial(progress, "indexing")
            index = build_index(
                parse_retriever(config.retriever), self.chunking(config.chunker).chunking.units, self.corpus, report
            )
            self._index_bytes[key] = array_bytes(index)
        self._indexes[key] = index
        return index

    @property
    def held_indexes(self) -> tuple[tuple[str, str], ...]:
        """The (chunker, retriever) of each index held, least recently used first."""
        return tuple(self._indexes)

    @property
    def held_index_bytes(self) -> int:
        """What the arrays of the indexes held take, in bytes (see :func:`array_bytes`)."""
        return sum(self._index_bytes[key] for key in self._indexes)

    def evict_indexes(self, keep: int, max_bytes: int | None = None) -> int:
        """Drop the retriever indexes but the ``keep`` most recently used, and then, with ``max_bytes``, the
        least recently used while their arrays take more than ``max_bytes`` (the most recent one always
        stays); return how many were dropped.

        Rankings, results and chunkings stay cached, so a configuration evaluated before is shown at
        once and another delivery (top-k, budget) of its ranking needs no index; a dropped index is
        built again only to rank deeper or to explain a score. Waits for a running evaluation (call it
        from the thread that evaluates).
        """
        with self._evaluation_lock:
            held = list(self._indexes)
            dropped = held[: max(0, len(held) - keep)]
            kept = held[len(dropped) :]
            if max_bytes is not None:
                # On a large corpus one lexical index takes hundreds of MB: a count alone would hold GBs.
                total = sum(self._index_bytes[key] for key in kept)
                while len(kept) > 1 and total > max_bytes:
                    total -= self._index_bytes[kept[0]]
                    dropped.append(kept.pop(0))
            for key in dropped:
                del self._indexes[key]
            return len(dropped)

    def release(self, config: Config, still_needed: Callable[[CacheKey], bool]) -> None:
        """Forget what was cached for ``config`` that ``still_needed`` says no later evaluation needs: its result,
        and its ranking, index and chunking (keys as :func:`cache_keys` gives them).

        A headless run evaluates each configuration once and hands its result on: kept, every configuration's
        chunks and index stayed in memory to the end (on one huge document, most of a worker's peak).
        Nothing cached changes a number: a released part asked for again is computed again, the same.
        """
        ranking_key, index_key, chunking_key = cache_keys(config)
        with self._evaluation_lock:
            self._results.pop(config, None)
            if not still_needed(ranking_key):
                self._rankings.pop(ranking_key, None)  # type: ignore[arg-type]
            if not still_needed(index_key):
                self._indexes.pop(index_key, None)  # type: ignore[arg-type]
            if not still_needed(chunking_key):
                self._chunkings.pop(config.chunker, None)

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
        totals = delivery_totals(rankings, indexed, config)
        each: Sequence[tuple[int, int] | None] = [None] * len(rankings) if totals is None else totals
        count = len(self.questions)
        report("measuring", 0, count)
        batch = measured_at_once(self.questions, rankings, indexed, config, windows, totals)
        batched = set() if batch is None else set(batch.positions)
        results: list[QuestionResult | None] = [None] * count
        for number, (question, ranking, sent) in enumerate(zip(self.questions, rankings, each, strict=True)):
            if number % MEASURE_REPORT_EVERY == 0 and number:
                report("measuring", number, count)
            if number not in batched:
                results[number] = measure_question(question, ranking, indexed, config, windows, sent)
        questions: Sequence[QuestionResult]
        if batch is None:
            questions = tuple(result for result in results if result is not None)
        else:
            questions = QuestionResults(batch_columns(batch, results), batch.results, results)
        summary = summarize(questions, units)
        return ConfigResult(config, summary, questions, units, indexed.chunking.imported)


CacheKey = tuple[str | int, ...]
"""What an evaluator caches a part under: (chunker, retriever, depth) a ranking, (chunker, retriever) an index,
(chunker,) a chunking."""


def cache_keys(config: Config) -> tuple[CacheKey, CacheKey, CacheKey]:
    """The keys of ``config``'s ranking, index and chunking (see :meth:`Evaluator.release`)."""
    return (config.chunker, config.retriever, config.depth), (config.chunker, config.retriever), (config.chunker,)


class LastUses:
    """For a list of configurations, the position of the last one needing each cached part."""

    def __init__(self, configs: Sequence[Config]) -> None:
        self._last: dict[CacheKey, int] = {}
        for position, config in enumerate(configs):
            for key in cache_keys(config):
                self._last[key] = position

    def after(self, position: int) -> Callable[[CacheKey], bool]:
        """Whether a configuration after ``position`` needs a part (for :meth:`Evaluator.release`)."""
        return lambda key: self._last.get(key, -1) > position


def measured_at_once(
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    indexed: IndexedChunking,
    config: Config,
    windows: Sequence[int] | None,
    totals: Sequence[tuple[int, int]] | None,
) -> SingleSpanBatch | None:
    """The questions :func:`measure_single_spans` measures at once (the others are left to
    :func:`measure_question`): when every top-k unit is sent whole once, without parents or a model window."""
    if totals is None or windows is not None or indexed.chunking.parents is not None:
        return None
    return measure_single_spans(questions, rankings, indexed, config, totals)


def batch_columns(batch: SingleSpanBatch, results: Sequence[QuestionResult | None]) -> ResultColumns:
    """The metric columns of every question: the batch's, and those of the results measured one by one."""
    alone = [position for position, result in enumerate(results) if result is not None]
    if not alone:
        return batch.columns
    measured = ResultColumns.of([result for result in results if result is not None])
    return ResultColumns.joined(len(results), [(batch.positions, batch.columns), (alone, measured)])


def array_bytes(index: object, depth: int = 4) -> int:
    """Bytes of the numpy arrays ``index`` holds: in its attributes, theirs and short tuples or lists of them,
    down to ``depth`` levels, each array once (what an index's memory is on a large corpus; its Python
    objects, and what it shares with other indexes through bound methods, are not counted)."""
    seen: set[int] = set()

    def walk(value: object, level: int) -> int:
        if level < 0 or id(value) in seen:
            return 0
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            return int(value.nbytes)
        if isinstance(value, type):
            return 0
        if isinstance(value, tuple | list):
            # Long sequences are units or rankings, not parts of the index: not walked.
            return sum(walk(item, level - 1) for item in value) if len(value) <= SHORT_SEQUENCE else 0
        attributes = list(getattr(value, "__dict__", {}).values())
        for kind in type(value).__mro__:
            slots = getattr(kind, "__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if hasattr(value, name):
                    attributes.append(getattr(value, name))
        return sum(walk(attribute, level - 1) for attribute in attributes)

    return walk(index, depth)


SHORT_SEQUENCE = 16
"""Tuples and lists up to this long are walked by :func:`array_bytes` (the parts of a fusion, say)."""


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


def measure_question(
    question: Question,
    ranking: Ranking,
    indexed: IndexedChunking,
    config: Config,
    windows: Sequence[int] | None = None,
    totals: tuple[int, int] | None = None,
) -> QuestionResult:
    """All per-question metrics for one ranking (``windows``: where the model stops reading each unit, if it does).

    Delivery is measured on unit positions and offsets; the delivered chunks are built as values only
    when read (:class:`chunkscope.results.DeliveredChunks`). ``totals``: the characters sent and re-sent,
    from :func:`delivery_totals` (which gives them only without a budget and without repeated units).
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
    hit_units = list(ranking.indices) if indexed.delivers_itself else [delivered_index[i] for i in ranking.indices]
    item_ranks = tuple(
        tuple([r for r, unit in enumerate(hit_units, start=1) if unit in holders]) for holders in containing_units
    )
    first_correct = max((ranks[0] for ranks in item_ranks), default=None) if all(item_ranks) else None
    table = indexed.table
    docs, starts = table.docs, table.starts
    evidence_docs = {span.doc for span in question.gold_spans}
    top_k = config.top_k
    if totals is not None:
        window = hit_units[:top_k]
        delivery = _Delivered(
            DeliveredChunks(chunking.delivered_units, range(1, len(window) + 1), window, None, *totals),
            (),
            "top_k" if len(window) >= top_k else "exhausted",
        )
        # Every unit of the top-k is sent whole: an item is covered when a top-k hit holds it.
        covered = tuple(bool(ranks) and ranks[0] <= top_k for ranks in item_ranks)
        ends = table.ends
        pieces = [(r, docs[u], starts[u], ends[u]) for r, u in enumerate(window, start=1) if docs[u] in evidence_docs]
    else:
        delivery = _deliver(hit_units, indexed, config)
        sent = delivery.chunks
        ends_at = dict(zip(sent.positions, sent.ends, strict=True))
        covered = tuple(
            any(
                unit in ends_at and span.end <= ends_at[unit]
                for span, found in zip(item.alternatives, per_span, strict=True)
                for unit in found
            )
            for item, per_span in zip(question.evidence, span_holders, strict=True)
        )
        pieces = [
            (rank, docs[u], starts[u], end)
            for rank, u, end in zip(sent.ranks, sent.positions, sent.ends, strict=True)
            if docs[u] in evidence_docs
        ]
    # Only the evidence documents' delivered bodies count for the overlap and the pieces.
    unions = unions_by_doc(pieces)
    attribution = (
        ()
        if parents is None
        else attribute_items(
            question,
            [chunking.units[i] for i in ranking.indices[:top_k]],
            [chunking.delivered_units[u] for u in hit_units[:top_k]],
        )
    )
    return QuestionResult(
        question_id=question.id,
        evidence_exists=evidence_exists,
        cuts=tuple(cuts),
        ranking=ranking,
        first_correct_rank=first_correct,
        delivered=delivery.chunks,
        skipped_ranks=delivery.skipped,
        delivery_stop=delivery.stop,
        covered=covered,
        doc_hit=bool(pieces),
        item_ranks=item_ranks,
        attribution=attribution,
        piece_ranks=piece_ranks(question.evidence, covered, pieces, unions),
        overlap=measure_overlap(question.evidence, unions, locator.touching),
        gold_match=tuple(item.match_labels for item in question.evidence) if question.approximate else (),
        past_window=() if windows is None else past_window(question, indexed, containing_units, windows),
        page_hits=page_hits(question, delivery.chunks),
        hops=question.hops,
        units=chunking.units,
        parents=parents,
    )


def page_hits(question: Question, delivered: Sequence[DeliveredChunk]) -> tuple[bool, ...]:
    """Per item naming pages: some delivered body shares a character with one of its pages (see docs/metrics.md)."""
    if not any(item.pages for item in question.evidence):
        return ()
    bodies = [(sent.chunk.doc, sent.start, sent.end) for sent in delivered]
    return tuple(
        any(
            doc == page.doc and start < page.end and page.start < end
            for page in item.pages
            for doc, start, end in bodies
        )
        for item in question.evidence
        if item.pages
    )


@dataclass(frozen=True, slots=True)
class _Delivered:
    """One question's delivery: the chunks sent (as unit positions), the ranks skipped and why it stopped."""

    chunks: DeliveredChunks
    skipped: tuple[int, ...]
    stop: DeliveryStop


def _deliver(hit_units: Sequence[int], indexed: IndexedChunking, config: Config) -> _Delivered:
    """The context assembly of one question: without a budget every distinct unit of the top-k is sent whole."""
    window = hit_units[: config.top_k]
    reached = len(window) >= config.top_k
    units = indexed.chunking.delivered_units
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
        pieces = [(table.docs[u], table.starts[u], table.ends[u]) for u in positions]
        body = sum(end - start for _, start, end in pieces)
        union = unions_by_doc((0, doc, start, end) for doc, start, end in pieces)
        duplicates = body - sum(end - start for ranges in union.values() for start, end in ranges)
        sent = sum(table.sent[u] for u in positions)
        chunks = DeliveredChunks(units, ranks, positions, None, sent, duplicates)
        return _Delivered(chunks, (), "top_k" if reached else "exhausted")
    delivery = assemble_units(
        [(rank, units[u]) for rank, u in enumerate(window, start=1)],
        reached,
        config.budget,
        config.overflow,
        delivery_cost(config),
    )
    built = delivery.delivered
    positions = [window[d.rank - 1] for d in built]
    return _Delivered(DeliveredChunks.of(built, positions), delivery.skipped_ranks, delivery.stop)


def delivery_totals(
    rankings: Sequence[Ranking], indexed: IndexedChunking, config: Config
) -> list[tuple[int, int]] | None:
    """Per question, the characters sent and re-sent when every unit of its top-k is sent whole.

    None with a budget, or when some top-k holds a unit twice (parent-child chunking, ids shared by
    several units): :func:`measure_question` then assembles each context itself. Re-sent characters
    are the bodies' length minus their union per document, found for every question at once: each
    body is placed at its document's offset on one line of documents, a line per question, and the
    bodies are sorted by start; a body adds what reaches past the furthest end before it.
    """
    table = indexed.table
    if config.budget is not None or not table.unique_ids or not rankings:
        return None
    top_k = config.top_k
    counts = np.fromiter((min(len(r.indices), top_k) for r in rankings), dtype=np.int64, count=len(rankings))
    hits = np.fromiter(
        itertools.chain.from_iterable(r.indices[:top_k] for r in rankings), dtype=np.int64, count=int(counts.sum())
    )
    positions = indexed.delivered_positions[hits]
    owner = np.repeat(np.arange(len(rankings), dtype=np.int64), counts)
    keys = np.sort(owner * max(len(table.ids), 1) + positions)
    if np.any(keys[1:] == keys[:-1]):
        return None
    lengths = table.lengths[positions]
    starts = owner * (table.line_length + 1) + table.line_starts[positions]
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], starts[order] + lengths[order]
    reach = np.maximum.accumulate(ends)
    before = np.concatenate(([np.iinfo(np.int64).min], reach[:-1]))
    added = np.maximum(ends - np.maximum(starts, before), 0)
    union = np.bincount(owner[order], weights=added, minlength=len(rankings))
    body = np.bincount(owner, weights=lengths, minlength=len(rankings))
    sent = np.bincount(owner, weights=table.sent_lengths[positions], minlength=len(rankings))
    # Sums of integers below 2**53: exact in float64.
    return list(zip(sent.astype(np.int64).tolist(), (body - union).astype(np.int64).tolist(), strict=True))


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
