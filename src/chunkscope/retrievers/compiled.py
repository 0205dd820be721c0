"""The compiled scoring path (numba, extra ``chunkscope[fast]``): same rankings as the numpy path, bit for bit.

One call ranks every query: per query, each posting's weight is added to its
unit's score in query-term order (as ``np.bincount`` adds), the units touched are
remembered, and a sorted buffer of ``depth`` entries keeps the best of them by
(score descending, tie-break ascending, unit ascending). Scores are reset through
the touched list, so a query costs its postings, not the number of units.
Compiled code is cached on disk (``cache=True``): only the first run on a machine
compiles.

Given ``TermBounds`` (weights not negative), queries are ranked with MaxScore
pruning instead, to the same bits. A query's terms are taken by their greatest
weight, highest first. A probe adds up the first terms' postings (at least
``PROBE_POSTINGS``) and scores its best ``PROBE_UNITS`` units exactly: their
``depth``-th best score is a floor that the ``depth``-th hit reaches. Essential
terms follow until the greatest weights of the remaining terms sum to below the
floor, so a unit in none of the essential lists is no hit. A unit in one of
them gets the remaining terms' weights one by one (from bitmaps of the long
lists, by binary search in the short ones) and is dropped as soon as its
weights so far plus the remaining terms' greatest ones fall below the floor;
the floor rises to the ``depth``-th best exact score found. A surviving unit is
scored exactly: its weights summed from 0.0 in query-term order (adding 0.0 for
a term it lacks changes no sum), the very float64 the dense path computes. Each
bound is widened by a margin above the rounding of its sums, so a unit is
dropped only when its exact score is below the floor. A query whose probe finds
fewer than ``depth`` units scoring above 0 is ranked densely.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from chunkscope.results import Ranking
from chunkscope.retrievers.query_terms import QueryTerms

PROBE_POSTINGS = 2000
"""Postings a query's probe reads at least (all of its first term's, when that has more)."""

PROBE_UNITS = 40
"""Units a probe scores exactly: twice the usual depth, so that the floor nearly reaches the final one."""

GATHER_PER_LOOKUP = 4
"""A term is added to every unit (not looked up per candidate) while its postings number at most 4 per
candidate: adding a posting streams through memory, a lookup waits for it."""

BITMAP_MIN_SHARE = 64
"""Terms in at least 1/64 of the units get a bitmap (their weights found without a search)."""

BITMAP_BYTES_PER_POSTING = 4
"""The bitmaps take at most 4 bytes per posting (the postings and their weights take 16)."""

UNIT_ROUNDING = 2.0**-53
"""The unit roundoff of float64."""


@dataclass(frozen=True, slots=True)
class TermBounds:
    """What the pruning needs of the postings: each term's greatest weight, and bitmaps of the long lists."""

    maxima: np.ndarray
    """float64 per term: its greatest posting weight."""
    rows: np.ndarray
    """int64 per term: its row in ``bitmaps``, -1 for none."""
    bitmaps: np.ndarray
    """(rows, words, 2) uint64: bit ``u % 64`` of ``[row, u // 64, 0]`` is set when unit ``u`` has the term;
    ``[row, w, 1]`` counts the term's postings before word ``w`` (side by side: one cache line)."""


def term_bounds(
    pointers: np.ndarray, units: np.ndarray, weights: np.ndarray | None, unit_count: int
) -> TermBounds | None:
    """The bounds of postings, or None when a weight is negative or not a number (no pruning then)."""
    if weights is not None and not bool(np.all(weights >= 0)):
        return None
    counts = np.diff(pointers)
    words = (unit_count + 63) // 64
    most_rows = BITMAP_BYTES_PER_POSTING * len(units) // max(16 * words, 1)
    longest = np.argsort(-counts, kind="stable")[:most_rows]
    tabled = np.sort(longest[counts[longest] * BITMAP_MIN_SHARE >= max(unit_count, 1)]).astype(np.int64)
    rows = np.full(len(counts), -1, dtype=np.int64)
    rows[tabled] = np.arange(len(tabled))
    maxima = np.zeros(len(counts))
    bitmaps = np.zeros((len(tabled), words, 2), dtype=np.uint64)
    _fill_bounds(
        pointers.astype(np.int64, copy=False),
        units.astype(np.int32, copy=False).view(np.uint32),
        _as_weights(weights),
        weights is None,
        tabled,
        maxima,
        bitmaps,
    )
    return TermBounds(maxima, rows, bitmaps)


def _as_weights(weights: np.ndarray | None) -> np.ndarray:
    return np.zeros(0) if weights is None else weights.astype(np.float64, copy=False)


@numba.njit(cache=True, nogil=True)
def _fill_bounds(pointers, units, weights, unit_weight, tabled, maxima, bitmaps):  # type: ignore[no-untyped-def]
    for term in range(len(pointers) - 1):
        greatest = 0.0
        for p in range(pointers[term], pointers[term + 1]):
            greatest = max(greatest, 1.0 if unit_weight else weights[p])
        maxima[term] = greatest
    one = np.uint64(1)
    for row in range(len(tabled)):
        term = tabled[row]
        for p in range(pointers[term], pointers[term + 1]):
            unit = np.int64(units[p])
            bitmaps[row, unit >> 6, 0] |= one << np.uint64(unit & 63)
        before = np.uint64(0)
        for word in range(bitmaps.shape[1]):
            bitmaps[row, word, 1] = before
            before += np.uint64(_popcount(bitmaps[row, word, 0]))


@numba.njit(cache=True, nogil=True, inline="always")
def _popcount(word):  # type: ignore[no-untyped-def]
    """Set bits of a uint64 (the classic parallel count)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


def rank_queries(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: QueryTerms,
    depth: int,
    bounds: TermBounds | None = None,
) -> list[Ranking]:
    """See ``scoring.rank_queries``; pruned given ``bounds`` (see the module's docstring)."""
    count = len(queries)
    out_units = np.empty((count, depth), dtype=np.int64)
    out_scores = np.empty((count, depth), dtype=np.float64)
    out_counts = np.zeros(count, dtype=np.int64)
    # Unsigned indices spare numba the wrap-around test of negative ones (a third of the loop's time).
    postings = (
        pointers.astype(np.int64, copy=False),
        units.astype(np.int32, copy=False).view(np.uint32),
        _as_weights(weights),
        weights is None,
        unit_count,
        tie_break.astype(np.int64, copy=False),
        queries.terms.astype(np.int64, copy=False).view(np.uint64),
        queries.offsets.astype(np.int64, copy=False),
        depth,
        out_units,
        out_scores,
        out_counts,
    )
    if bounds is None or depth == 0:
        _rank_range(*postings, 0, count)
    else:
        _rank_pruned(*postings, bounds.maxima, bounds.rows, bounds.bitmaps)
    counts = out_counts.tolist()
    unit_rows = out_units.tolist()
    score_rows = out_scores.tolist()
    for query, count in enumerate(counts):
        if count < depth:
            unit_rows[query] = unit_rows[query][:count]
            score_rows[query] = score_rows[query][:count]
    return list(map(Ranking, map(tuple, unit_rows), map(tuple, score_rows)))


@numba.njit(cache=True, nogil=True)
def _rank_range(  # type: ignore[no-untyped-def]
    pointers,
    units,
    weights,
    unit_weight,
    unit_count,
    tie_break,
    terms,
    offsets,
    depth,
    out_units,
    out_scores,
    out_counts,
    first_query,
    end_query,
):
    """Rank queries ``first_query`` to ``end_query`` (exclusive) into the output rows."""
    scores = np.zeros(unit_count, dtype=np.float64)
    best_units = np.empty(max(depth, 1), dtype=np.int64)
    best_scores = np.empty(max(depth, 1), dtype=np.float64)
    best_ties = np.empty(max(depth, 1), dtype=np.int64)
    for query in range(first_query, end_query):
        kept = _rank_dense(
            pointers, units, weights, unit_weight, unit_count, tie_break, terms, offsets[query], offsets[query + 1],
            depth, scores, best_units, best_scores, best_ties,
        )  # fmt: skip
        _write(best_units, best_scores, kept, out_units, out_scores, out_counts, query)


@numba.njit(cache=True, nogil=True)
def _rank_dense(  # type: ignore[no-untyped-def]
    pointers, units, weights, unit_weight, unit_count, tie_break, terms, first, end, depth, scores,
    best_units, best_scores, best_ties,
):  # fmt: skip
    """One query's terms ``first`` to ``end``: every posting added, every unit scanned. Returns the hits kept.

    ``scores`` is all 0.0 before and after (the scan clears it).
    """
    for k in range(first, end):
        term = terms[k]
        if unit_weight:
            for p in range(pointers[term], pointers[term + 1]):
                scores[units[p]] += 1.0
        else:
            for p in range(pointers[term], pointers[term + 1]):
                scores[units[p]] += weights[p]
    kept = 0
    # A unit enters the buffer when its score is above 0 and not below the worst kept (when full).
    floor = 0.0
    for unit in range(unit_count):
        score = scores[unit]
        scores[unit] = 0.0
        if score < floor or not score > 0 or depth == 0:
            continue
        kept = _keep(best_units, best_scores, best_ties, kept, depth, unit, score, tie_break[unit])
        if kept == depth:
            floor = best_scores[kept - 1]
    return kept


@numba.njit(cache=True, nogil=True, inline="always")
def _before(score, tie, unit, other_score, other_tie, other_unit):  # type: ignore[no-untyped-def]
    """Whether a hit ranks before another: score descending, tie-break ascending, unit ascending."""
    if score != other_score:
        return score > other_score
    if tie != other_tie:
        return tie < other_tie
    return unit < other_unit


@numba.njit(cache=True, nogil=True, inline="always")
def _keep(best_units, best_scores, best_ties, kept, depth, unit, score, tie):  # type: ignore[no-untyped-def]
    """Insert a hit into the sorted buffer of ``kept`` (at most ``depth``) best ones; returns the new count."""
    if kept == depth:
        last = kept - 1
        if not _before(score, tie, unit, best_scores[last], best_ties[last], best_units[last]):
            return kept
        position = last
    else:
        position = kept
        kept += 1
    # Insertion: shift worse entries down one place.
    while position > 0 and _before(
        score, tie, unit, best_scores[position - 1], best_ties[position - 1], best_units[position - 1]
    ):
        best_scores[position] = best_scores[position - 1]
        best_ties[position] = best_ties[position - 1]
        best_units[position] = best_units[position - 1]
        position -= 1
    best_scores[position] = score
    best_ties[position] = tie
    best_units[position] = unit
    return kept


@numba.njit(cache=True, nogil=True, inline="always")
def _write(best_units, best_scores, kept, out_units, out_scores, out_counts, query):  # type: ignore[no-untyped-def]
    for i in range(kept):
        out_units[query, i] = best_units[i]
        out_scores[query, i] = best_scores[i]
    out_counts[query] = kept


@numba.njit(cache=True, nogil=True)
def _rank_pruned(  # type: ignore[no-untyped-def]
    pointers,
    units,
    weights,
    unit_weight,
    unit_count,
    tie_break,
    terms,
    offsets,
    depth,
    out_units,
    out_scores,
    out_counts,
    maxima,
    rows,
    bitmaps,
):
    """Rank every query with MaxScore pruning (see the module's docstring) into the output rows.

    Weights are looked up term after term for all of a query's units at once, so that one term's
    bitmap and weights stay in cache.
    """
    count = len(offsets) - 1
    longest = 0
    for query in range(count):
        longest = max(longest, offsets[query + 1] - offsets[query])
    scores = np.zeros(unit_count, dtype=np.float64)
    # Per unit: (sum so far, query that last touched it), side by side in one cache line.
    sums = np.zeros((unit_count, 2), dtype=np.float64)
    touched = np.empty(unit_count, dtype=np.int64)
    candidates = np.empty(unit_count, dtype=np.int64)
    partial = np.empty(unit_count, dtype=np.float64)
    by_weight = np.empty(max(longest, 1), dtype=np.int64)
    rest = np.empty(longest + 1, dtype=np.float64)
    best_units = np.empty(depth, dtype=np.int64)
    best_scores = np.empty(depth, dtype=np.float64)
    best_ties = np.empty(depth, dtype=np.int64)
    for query in range(count):
        first, end = offsets[query], offsets[query + 1]
        size = end - first
        # Terms by greatest weight, highest first (query order among equals), and the bounds of the rest.
        for i in range(size):
            term = np.int64(terms[first + i])
            j = i
            while j > 0 and maxima[by_weight[j - 1]] < maxima[term]:
                by_weight[j] = by_weight[j - 1]
                j -= 1
            by_weight[j] = term
        rest[size] = 0.0
        for i in range(size - 1, -1, -1):
            rest[i] = rest[i + 1] + maxima[by_weight[i]]
        # Each bound and exact score rounds at most size + 2 times, by at most 2**-53 each.
        widen = 1.0 + 8.0 * (size + 2) * UNIT_ROUNDING
        mark = np.float64(query + 1)
        found = 0
        reach = 0
        probed = 0
        while probed < size and (probed == 0 or reach < PROBE_POSTINGS):
            term = by_weight[probed]
            found = _gather(pointers, units, weights, unit_weight, term, sums, touched, found, mark)
            reach += pointers[term + 1] - pointers[term]
            probed += 1
        floor = 0.0
        if found >= depth:
            picked = _best_summed(sums, touched, found, candidates, partial)
            _exact(pointers, units, weights, unit_weight, rows, bitmaps, terms, first, end, candidates, picked, partial)
            if picked >= depth:
                floor = max(np.partition(partial[:picked], picked - depth)[picked - depth], 0.0)
        if not floor > 0:
            kept = _rank_dense(
                pointers, units, weights, unit_weight, unit_count, tie_break, terms, first, end, depth, scores,
                best_units, best_scores, best_ties,
            )  # fmt: skip
            _write(best_units, best_scores, kept, out_units, out_scores, out_counts, query)
            continue
        essential = probed
        while essential < size and rest[essential] * widen >= floor:
            found = _gather(pointers, units, weights, unit_weight, by_weight[essential], sums, touched, found, mark)
            essential += 1
        # More terms are added while a term's postings are fewer than the lookups it would take otherwise.
        while True:
            alive = 0
            for i in range(found):
                unit = touched[i]
                if (sums[unit, 0] + rest[essential]) * widen >= floor:
                    candidates[alive] = unit
                    partial[alive] = sums[unit, 0]
                    alive += 1
            if essential == size:
                break
            term = by_weight[essential]
            if pointers[term + 1] - pointers[term] > GATHER_PER_LOOKUP * alive:
                break
            found = _gather(pointers, units, weights, unit_weight, term, sums, touched, found, mark)
            essential += 1
        for slot in range(essential, size):
            term = by_weight[slot]
            kept = 0
            for i in range(alive):
                value = partial[i] + _weight(pointers, units, weights, unit_weight, rows, bitmaps, term, candidates[i])
                if (value + rest[slot + 1]) * widen >= floor:
                    candidates[kept] = candidates[i]
                    partial[kept] = value
                    kept += 1
            alive = kept
        _exact(pointers, units, weights, unit_weight, rows, bitmaps, terms, first, end, candidates, alive, partial)
        kept = 0
        for i in range(alive):
            if partial[i] > 0:
                unit = candidates[i]
                kept = _keep(best_units, best_scores, best_ties, kept, depth, unit, partial[i], tie_break[unit])
        _write(best_units, best_scores, kept, out_units, out_scores, out_counts, query)


@numba.njit(cache=True, nogil=True, inline="always")
def _gather(pointers, units, weights, unit_weight, term, sums, touched, found, mark):  # type: ignore[no-untyped-def]
    """Add a term's weights to the sums of its units, listing the units new to this query (``mark``)."""
    for p in range(pointers[term], pointers[term + 1]):
        unit = np.int64(units[p])
        if sums[unit, 1] != mark:
            sums[unit, 1] = mark
            sums[unit, 0] = 0.0
            touched[found] = unit
            found += 1
        sums[unit, 0] += 1.0 if unit_weight else weights[p]
    return found


@numba.njit(cache=True, nogil=True)
def _best_summed(sums, touched, found, chosen, values):  # type: ignore[no-untyped-def]
    """Into ``chosen``, the ``PROBE_UNITS`` touched units with the greatest sums (more on ties, at most twice
    as many); returns how many."""
    lowest = -1.0
    if found > PROBE_UNITS:
        for i in range(found):
            values[i] = sums[touched[i], 0]
        lowest = np.partition(values[:found], found - PROBE_UNITS)[found - PROBE_UNITS]
    picked = 0
    for i in range(found):
        unit = touched[i]
        if sums[unit, 0] >= lowest and picked < 2 * PROBE_UNITS:
            chosen[picked] = unit
            picked += 1
    return picked


@numba.njit(cache=True, nogil=True)
def _exact(pointers, units, weights, unit_weight, rows, bitmaps, terms, first, end, chosen, count, scores):  # type: ignore[no-untyped-def]
    """Into ``scores``, the chosen units' scores as the dense path sums them: from 0.0, term by term in query
    order."""
    for i in range(count):
        scores[i] = 0.0
    for k in range(first, end):
        term = np.int64(terms[k])
        for i in range(count):
            scores[i] += _weight(pointers, units, weights, unit_weight, rows, bitmaps, term, chosen[i])


@numba.njit(cache=True, nogil=True, inline="always")
def _weight(pointers, units, weights, unit_weight, rows, bitmaps, term, unit):  # type: ignore[no-untyped-def]
    """A term's weight in a unit, 0.0 when the unit lacks the term."""
    row = rows[term]
    if row >= 0:
        word_index = unit >> 6
        word = bitmaps[row, word_index, 0]
        shift = np.uint64(unit & 63)
        if (word >> shift) & np.uint64(1) == np.uint64(0):
            return 0.0
        below = _popcount(word & ((np.uint64(1) << shift) - np.uint64(1)))
        position = pointers[term] + np.int64(bitmaps[row, word_index, 1]) + below
    else:
        low = pointers[term]
        high = pointers[term + 1]
        while low < high:
            middle = (low + high) >> 1
            if np.int64(units[middle]) < unit:
                low = middle + 1
            else:
                high = middle
        if low == pointers[term + 1] or np.int64(units[low]) != unit:
            return 0.0
        position = low
    return 1.0 if unit_weight else weights[position]


def build_postings(
    ids: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``lexical.build_postings`` by two counting passes over the token stream instead of a sort.

    Returns the terms' stream ids, posting pointers, posting units, term frequencies and the
    terms in order of first occurrence, equal to the numpy path's.
    """
    term_count = int(ids.max(initial=-1)) + 1
    lengths64 = lengths.astype(np.int64, copy=False)
    ids32 = ids.astype(np.int32, copy=False)
    frequency, first = _count_terms(ids32.view(np.uint32), lengths64, term_count)
    stream_ids = np.flatnonzero(frequency).astype(np.int64)
    pointers = np.zeros(len(stream_ids) + 1, dtype=np.int64)
    np.cumsum(frequency[stream_ids], out=pointers[1:])
    compact = np.full(term_count, -1, dtype=np.int64)
    compact[stream_ids] = np.arange(len(stream_ids))
    units = np.empty(int(pointers[-1]), dtype=np.int32)
    frequencies = np.zeros(int(pointers[-1]), dtype=np.int32)
    _fill_postings(ids32.view(np.uint32), lengths64, compact, pointers, units.view(np.uint32), frequencies)
    first_seen = np.argsort(first[stream_ids], kind="stable")
    return stream_ids, pointers, units, frequencies, first_seen


@numba.njit(cache=True, nogil=True)
def _count_terms(ids, lengths, term_count):  # type: ignore[no-untyped-def]
    """Units holding each term, and each term's first position in the stream."""
    last_unit = np.full(term_count, -1, dtype=np.int64)
    frequency = np.zeros(term_count, dtype=np.int64)
    first = np.full(term_count, -1, dtype=np.int64)
    position = 0
    for unit in range(len(lengths)):
        for _ in range(lengths[unit]):
            term = ids[position]
            if last_unit[term] != unit:
                last_unit[term] = unit
                frequency[term] += 1
                if first[term] < 0:
                    first[term] = position
            position += 1
    return frequency, first


@numba.njit(cache=True, nogil=True)
def _fill_postings(ids, lengths, compact, pointers, units, frequencies):  # type: ignore[no-untyped-def]
    """Each (term, unit) posting in its term's block, units ascending, with its term frequency."""
    fill = pointers[:-1].copy()
    slot = np.full(len(compact), -1, dtype=np.int64)
    position = 0
    for unit in range(len(lengths)):
        for _ in range(lengths[unit]):
            term = ids[position]
            at = slot[term]
            if at < 0 or units[at] != unit:
                at = fill[compact[term]]
                fill[compact[term]] += 1
                slot[term] = at
                units[at] = unit
            frequencies[at] += 1
            position += 1


def bm25_weights(
    pointers: np.ndarray, units: np.ndarray, frequencies: np.ndarray, idf: np.ndarray, norm: np.ndarray, k1: float
) -> np.ndarray:
    """``bm25.bm25_weights`` posting by posting: the same operations in the same order, so the same bits."""
    weights = np.empty(len(units), dtype=np.float64)
    _bm25_weights(pointers, units.view(np.uint32), frequencies, idf, norm, k1 + 1, weights)
    return weights


@numba.njit(cache=True, nogil=True)
def _bm25_weights(pointers, units, frequencies, idf, norm, k1_plus_1, weights):  # type: ignore[no-untyped-def]
    for term in range(len(pointers) - 1):
        term_idf = idf[term]
        for p in range(pointers[term], pointers[term + 1]):
            tf = np.float64(frequencies[p])
            weights[p] = term_idf * (tf * k1_plus_1 / (tf + norm[units[p]]))
