"""Every question of a configuration measured at once, in arrays: the common case of one gold span.

:func:`measure_single_spans` gives exactly the :class:`chunkscope.results.QuestionResult` that
:func:`chunkscope.pipeline.evaluate.measure_question` gives (its oracle), for the questions whose
evidence is one item with one alternative, when every unit of each top-k is sent whole once (no
budget, no parents, no repeated unit: :func:`chunkscope.pipeline.evaluate.delivery_totals` gave the
totals). The per-question path measures the others.

Everything is interval arithmetic on one line: the documents laid end to end, one character apart,
so that a unit or a span of one document never holds, overlaps or touches one of another. A span
``r`` and a unit ``u`` are then compared by their line positions alone:

* ``u`` holds ``r`` when ``u.start <= r.start`` and ``r.end <= u.end``: the units sorted by start,
  some unit holds ``r`` when the furthest end among those starting at or before ``r.start`` reaches
  ``r.end`` (``evidence_exists``); a ranked hit holds it by the same test (``item_ranks``);
* the delivered evidence characters are the union of the top-k bodies of ``r``'s document clipped
  to ``r``: each question's (at most top-k) clipped bodies sorted by start, a body adds what reaches
  past the furthest end before it;
* precision Ω's counts are the union of the bodies touching ``r`` (``u.start <= r.end`` and
  ``r.start <= u.end``) and of the same bodies clipped to ``r``, found for every question at once:
  each question's touching units are a run of the units sorted by start, placed on a line of their
  own per question, so that one running maximum serves them all.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from chunkscope.arrays import run_positions
from chunkscope.model import Chunk, Question, Span
from chunkscope.pipeline.indexed import IndexedChunking
from chunkscope.results import (
    CharacterOverlap,
    Config,
    Cut,
    DeliveredChunks,
    DeliveryStop,
    QuestionResult,
    Ranking,
    ResultColumns,
)

__all__ = ["SingleSpanBatch", "SingleSpanResults", "measure_single_spans", "single_span"]


def single_span(question: Question) -> Span | None:
    """The question's only gold span, when its evidence is one item with one alternative.

    A question with hops (a multi-hop set's) is measured one by one: its result reports its hops.
    """
    evidence = question.evidence
    if len(evidence) != 1 or len(evidence[0].alternatives) != 1 or evidence[0].pages or question.hops:
        return None  # page gold and hops are measured per question (page hits, hops delivered)
    return evidence[0].alternatives[0]


@dataclass(frozen=True, slots=True, eq=False)
class SingleSpanResults:
    """What :func:`measure_single_spans` measured of each question, from which its result is built on use.

    Lists in the order of the measured questions; ``slots`` gives a question set position's place in them.
    """

    slots: dict[int, int]
    question_ids: list[str]
    rankings: list[Ranking]
    totals: list[tuple[int, int]]
    """Characters sent and re-sent (:func:`chunkscope.pipeline.evaluate.delivery_totals`)."""
    cuts: dict[int, tuple[Cut, ...]]
    """The cuts of the questions whose span no unit holds (the others have none)."""
    item_ranks: list[tuple[int, ...]]
    doc_hit: list[bool]
    piece_ranks: dict[int, tuple[int, ...]]
    """The piece ranks of the questions delivered in pieces (the others have none)."""
    span_lengths: list[int]
    inside: list[int]
    """Span characters inside the top-k bodies."""
    omega_inside: list[int]
    omega_chars: list[int]
    gold_match: dict[int, tuple[tuple[str, ...], ...]]
    """How the spans located approximately were matched (the others were given exactly)."""
    delivered_units: tuple[Chunk, ...]
    units: tuple[Chunk, ...]
    top_k: int

    def result(self, position: int) -> QuestionResult:
        """The result of the question at ``position`` of the question set (one that was measured here)."""
        q = self.slots[position]
        ranking = self.rankings[q]
        ranks = self.item_ranks[q]
        window = list(ranking.indices[: self.top_k])
        stop: DeliveryStop = "top_k" if len(window) >= self.top_k else "exhausted"
        length, inside = self.span_lengths[q], self.inside[q]
        sent, resent = self.totals[q]
        return QuestionResult(
            question_id=self.question_ids[q],
            evidence_exists=q not in self.cuts,
            cuts=self.cuts.get(q, ()),
            ranking=ranking,
            first_correct_rank=ranks[0] if ranks else None,
            delivered=DeliveredChunks(self.delivered_units, range(1, len(window) + 1), window, None, sent, resent),
            skipped_ranks=(),
            delivery_stop=stop,
            covered=(bool(ranks) and ranks[0] <= self.top_k,),
            doc_hit=self.doc_hit[q],
            item_ranks=(ranks,),
            attribution=(),
            piece_ranks=(self.piece_ranks.get(q, ()),),
            overlap=CharacterOverlap(
                evidence_chars=length,
                delivered_evidence_chars=inside,
                undelivered_evidence_chars=length - inside,
                omega_evidence_chars=self.omega_inside[q],
                omega_chars=self.omega_chars[q],
            ),
            gold_match=self.gold_match.get(q, ()),
            past_window=(),
            units=self.units,
            parents=None,
        )


@dataclass(frozen=True, slots=True, eq=False)
class SingleSpanBatch:
    """The questions :func:`measure_single_spans` measured: where they stand, their columns and their results."""

    positions: tuple[int, ...]
    """Their positions in the question set, ascending."""
    columns: ResultColumns
    """Their metric columns, in the order of ``positions``."""
    results: SingleSpanResults


def measure_single_spans(
    questions: Sequence[Question],
    rankings: Sequence[Ranking],
    indexed: IndexedChunking,
    config: Config,
    totals: Sequence[tuple[int, int]],
) -> SingleSpanBatch | None:
    """The questions with a single gold span, measured at once (None when there are none).

    ``totals``: :func:`chunkscope.pipeline.evaluate.delivery_totals` of ``rankings`` (its being
    given means every top-k unit is sent whole, once). The chunking must have no parents.
    """
    if indexed.chunking.parents is not None:
        raise ValueError("measure_single_spans measures chunkings without parents only")
    table = indexed.table
    codes = {doc: code for code, doc in enumerate(dict.fromkeys(table.docs))}
    chosen: list[int] = []
    spans: list[Span] = []
    approximate: list[int] = []
    for position, question in enumerate(questions):
        span = single_span(question)
        if span is not None and span.doc in codes and span.start >= 0:
            if question.evidence[0].matches and question.approximate:  # no matches: located exactly
                approximate.append(len(chosen))
            chosen.append(position)
            spans.append(span)
    if not chosen:
        return None
    line = _Line(table.docs, table.starts, table.ends, table.sent_lengths - table.lengths, codes, spans)
    top_k = config.top_k
    measured = _measure(line, [rankings[p] for p in chosen], top_k)
    locator = indexed.locator
    lengths = line.span_end - line.span_start
    chosen_totals = [totals[p] for p in chosen]
    sent_and_resent = np.asarray(chosen_totals, dtype=np.int64).reshape(len(chosen), 2)
    chunking = indexed.chunking
    results = SingleSpanResults(
        slots={position: q for q, position in enumerate(chosen)},
        question_ids=[questions[p].id for p in chosen],
        rankings=[rankings[p] for p in chosen],
        totals=chosen_totals,
        cuts={q: (locator.cut(spans[q]),) for q in np.flatnonzero(~measured.exists).tolist()},
        item_ranks=measured.item_ranks,
        doc_hit=measured.doc_hit.tolist(),
        piece_ranks=measured.piece_ranks,
        span_lengths=lengths.tolist(),
        inside=measured.inside.tolist(),
        omega_inside=measured.omega_inside.tolist(),
        omega_chars=measured.omega_chars.tolist(),
        gold_match={q: tuple(item.match_labels for item in questions[chosen[q]].evidence) for q in approximate},
        delivered_units=chunking.delivered_units,
        units=chunking.units,
        top_k=top_k,
    )
    nothing = np.zeros(len(chosen), dtype=np.bool_)
    columns = ResultColumns(
        tuple(results.question_ids),
        measured.first_rank,
        measured.exists,
        measured.covered,
        measured.in_pieces,
        measured.doc_hit,
        sent_and_resent[:, 0].copy(),
        sent_and_resent[:, 1].copy(),
        lengths,
        measured.inside,
        lengths - measured.inside,
        measured.omega_inside,
        measured.omega_chars,
        nothing,
        nothing.copy(),
        nothing.copy(),  # page gold and questions with hops are never batched: page_gold, page_hit,
        nothing.copy(),
        nothing.copy(),  # multi_hop, all_hops
        nothing.copy(),
    )
    return SingleSpanBatch(tuple(chosen), columns, results)


class _Line:
    """The units and the spans as positions on one line of documents, one character apart."""

    def __init__(
        self,
        docs: Sequence[str],
        starts: Sequence[int],
        ends: Sequence[int],
        prefixes: np.ndarray,
        codes: dict[str, int],
        spans: Sequence[Span],
    ) -> None:
        unit_doc = np.fromiter(map(codes.__getitem__, docs), dtype=np.int64, count=len(docs))
        span_doc = np.fromiter((codes[s.doc] for s in spans), dtype=np.int64, count=len(spans))
        unit_start = np.asarray(starts, dtype=np.int64).reshape(-1)
        unit_end = np.asarray(ends, dtype=np.int64).reshape(-1)
        span_start = np.fromiter((s.start for s in spans), dtype=np.int64, count=len(spans))
        span_end = np.fromiter((s.end for s in spans), dtype=np.int64, count=len(spans))
        extent = np.zeros(len(codes), dtype=np.int64)
        np.maximum.at(extent, unit_doc, unit_end)
        np.maximum.at(extent, span_doc, span_end)
        offset = np.cumsum(extent + 1) - (extent + 1)
        longest = np.zeros(len(codes), dtype=np.int64)
        np.maximum.at(longest, unit_doc, unit_end - unit_start)
        self.length = int(extent.sum()) + len(codes)
        """The line's length: every position on it is below."""
        self.unit_doc, self.span_doc = unit_doc, span_doc
        self.prefixes = prefixes
        """Each unit's prefix length (what sending it costs besides its body)."""
        self.unit_start = offset[unit_doc] + unit_start
        self.unit_end = offset[unit_doc] + unit_end
        self.span_start = offset[span_doc] + span_start
        self.span_end = offset[span_doc] + span_end
        self.reach = longest[span_doc]
        """The longest unit body of each span's document (a unit starting further before cannot touch it)."""
        self.order = np.argsort(self.unit_start, kind="stable")
        self.sorted_starts = self.unit_start[self.order]


@dataclass(frozen=True, slots=True, eq=False)
class _Measured:
    """Per measured question, the quantities of its result."""

    exists: np.ndarray
    first_rank: np.ndarray
    """The first rank holding the span, 0 when none does (int64)."""
    item_ranks: list[tuple[int, ...]]
    """Ranks (1-based) of the hits holding the span."""
    covered: np.ndarray
    doc_hit: np.ndarray
    inside: np.ndarray
    """Span characters inside the top-k bodies (int64)."""
    in_pieces: np.ndarray
    piece_ranks: dict[int, tuple[int, ...]]
    """For the questions delivered in pieces only: the ranks of the top-k bodies overlapping the span."""
    omega_inside: np.ndarray
    omega_chars: np.ndarray


def _measure(line: _Line, rankings: Sequence[Ranking], top_k: int) -> _Measured:
    count = len(rankings)
    start, end = line.span_start, line.span_end
    # Some unit holds the span: the furthest end among the units starting at or before it reaches its end.
    furthest = np.maximum.accumulate(line.unit_end[line.order])
    last = np.searchsorted(line.sorted_starts, start, side="right") - 1
    exists = (last >= 0) & (furthest[np.maximum(last, 0)] >= end)

    hits = _hit_matrix(rankings)
    valid = hits >= 0
    unit = np.where(valid, hits, 0)
    holds = valid & (line.unit_start[unit] <= start[:, None]) & (line.unit_end[unit] >= end[:, None])
    rows, columns = np.nonzero(holds)
    ranks = (columns + 1).tolist()
    bounds = np.searchsorted(rows, np.arange(count + 1)).tolist()
    item_ranks = [tuple(ranks[bounds[q] : bounds[q + 1]]) for q in range(count)]
    first_rank = np.zeros(count, dtype=np.int64)
    held = np.flatnonzero(np.diff(bounds))
    first_rank[held] = np.asarray(ranks, dtype=np.int64)[np.asarray(bounds, dtype=np.int64)[held]]
    covered = (first_rank > 0) & (first_rank <= top_k)

    window = unit[:, :top_k]
    same_doc = valid[:, :top_k] & (line.unit_doc[window] == line.span_doc[:, None])
    inside = _clipped_union(line.unit_start[window], line.unit_end[window], same_doc, start, end)
    in_pieces = ~covered & (inside == end - start)
    overlapping = same_doc & (line.unit_start[window] < end[:, None]) & (line.unit_end[window] > start[:, None])
    piece_ranks = {q: tuple((np.flatnonzero(overlapping[q]) + 1).tolist()) for q in np.flatnonzero(in_pieces).tolist()}
    omega_inside, omega_chars = _omega_counts(line)
    return _Measured(
        exists,
        first_rank,
        item_ranks,
        covered,
        same_doc.any(axis=1),
        inside,
        in_pieces,
        piece_ranks,
        omega_inside,
        omega_chars,
    )


def _hit_matrix(rankings: Sequence[Ranking]) -> np.ndarray:
    """The ranked unit positions, one row per ranking, ``-1`` past a ranking's end (int64)."""
    counts = np.fromiter(map(len, (r.indices for r in rankings)), dtype=np.int64, count=len(rankings))
    depth = int(counts.max(initial=0))
    total = int(counts.sum())
    flat = np.fromiter(itertools.chain.from_iterable(r.indices for r in rankings), dtype=np.int64, count=total)
    hits = np.full((len(rankings), depth), -1, dtype=np.int64)
    rows = np.repeat(np.arange(len(rankings), dtype=np.int64), counts)
    columns = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    hits[rows, columns] = flat
    return hits


def _clipped_union(
    starts: np.ndarray, ends: np.ndarray, kept: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """Per row, the characters of ``[low, high)`` inside the union of the row's kept ranges (int64)."""
    if not starts.shape[1]:
        return np.zeros(len(low), dtype=np.int64)
    clipped_start = np.where(kept, np.maximum(starts, low[:, None]), low[:, None])
    clipped_end = np.where(kept, np.minimum(ends, high[:, None]), low[:, None])
    order = np.argsort(clipped_start, axis=1, kind="stable")
    clipped_start = np.take_along_axis(clipped_start, order, axis=1)
    clipped_end = np.take_along_axis(clipped_end, order, axis=1)
    reach = np.maximum.accumulate(clipped_end, axis=1)
    before = np.concatenate([low[:, None], reach[:, :-1]], axis=1)
    added: np.ndarray = np.maximum(clipped_end - np.maximum(clipped_start, before), 0).sum(axis=1)
    return added


def _omega_counts(line: _Line) -> tuple[np.ndarray, np.ndarray]:
    """Per span ``r``, precision Ω's numerator ``|r ∩ H|`` and denominator ``|H ∪ r| + Σ len(prefix)``
    over the units touching ``r``, ``H`` the union of their bodies (int64)."""
    start, end = line.span_start, line.span_end
    first = np.searchsorted(line.sorted_starts, start - line.reach, side="left")
    last = np.searchsorted(line.sorted_starts, end, side="right")
    positions = run_positions(first, last - first)
    owner = np.repeat(np.arange(len(start), dtype=np.int64), last - first)
    units = line.order[positions]
    touching = line.unit_end[units] >= start[owner]
    units, owner = units[touching], owner[touching]
    unit_start, unit_end = line.unit_start[units], line.unit_end[units]
    held = _union_lengths(unit_start, unit_end, owner, line.length, len(start))
    clipped_start = np.maximum(unit_start, start[owner])
    clipped_end = np.minimum(unit_end, end[owner])
    inside = _union_lengths(clipped_start, clipped_end, owner, line.length, len(start))
    prefixes = _owner_sums(line.prefixes[units], owner, len(start))
    # |H ∪ r| = |H| + |r| - |H ∩ r|
    return inside, held + (end - start) - inside + prefixes


def _union_lengths(starts: np.ndarray, ends: np.ndarray, owner: np.ndarray, length: int, count: int) -> np.ndarray:
    """Per owner, the length of the union of its ranges; ranges ascending by start within an owner, owners ascending.

    Each owner's ranges are moved to a line of their own (``owner * (length + 1)`` on), so one
    running maximum of the ends serves every owner: a range adds what reaches past the furthest
    end before it.
    """
    shift = owner * (length + 1)
    shifted_start, shifted_end = starts + shift, ends + shift
    reach = np.maximum.accumulate(shifted_end) if len(shifted_end) else shifted_end
    before = np.concatenate(([np.iinfo(np.int64).min], reach[:-1]))
    added = np.maximum(shifted_end - np.maximum(shifted_start, before), 0)
    return _owner_sums(added, owner, count)


def _owner_sums(values: np.ndarray, owner: np.ndarray, count: int) -> np.ndarray:
    """Per owner ``0 .. count - 1``, the sum of its ``values`` (int64; ``owner`` ascending)."""
    bounds = np.searchsorted(owner, np.arange(count + 1, dtype=np.int64))
    running = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    sums: np.ndarray = running[bounds[1:]] - running[bounds[:-1]]
    return sums
