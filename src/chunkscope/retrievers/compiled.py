"""The compiled scoring path (numba, extra ``chunkscope[fast]``): same rankings as the numpy path, bit for bit.

One call ranks every query: per query, each posting's weight is added to its
unit's score in query-term order (as ``np.bincount`` adds), the units touched are
remembered, and a sorted buffer of ``depth`` entries keeps the best of them by
(score descending, tie-break ascending). Scores are reset through the touched
list, so a query costs its postings, not the number of units. Compiled code is
cached on disk (``cache=True``): only the first run on a machine compiles.
"""

from __future__ import annotations

import numba
import numpy as np

from chunkscope.collector import collector_paused
from chunkscope.results import Ranking
from chunkscope.retrievers.query_terms import QueryTerms


def rank_queries(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: QueryTerms,
    depth: int,
) -> list[Ranking]:
    """See ``scoring.rank_queries``."""
    count = len(queries)
    out_units = np.empty((count, depth), dtype=np.int64)
    out_scores = np.empty((count, depth), dtype=np.float64)
    out_counts = np.zeros(count, dtype=np.int64)
    # Unsigned indices spare numba the wrap-around test of negative ones (a third of the loop's time).
    _rank_range(
        pointers.astype(np.int64, copy=False),
        units.astype(np.int32, copy=False).view(np.uint32),
        np.zeros(0) if weights is None else weights.astype(np.float64, copy=False),
        weights is None,
        unit_count,
        tie_break.astype(np.int64, copy=False),
        queries.terms.astype(np.int64, copy=False).view(np.uint64),
        queries.offsets.astype(np.int64, copy=False),
        depth,
        out_units,
        out_scores,
        out_counts,
        0,
        count,
    )
    with collector_paused():  # a value and two tuples per query: no cycle, but enough for full collections
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
        for k in range(offsets[query], offsets[query + 1]):
            term = terms[k]
            if unit_weight:
                for p in range(pointers[term], pointers[term + 1]):
                    scores[units[p]] += 1.0
            else:
                for p in range(pointers[term], pointers[term + 1]):
                    scores[units[p]] += weights[p]
        kept = 0
        # A unit enters the buffer when its score is above 0 and not below the worst kept (when full);
        # the scan also clears the scores for the next query.
        floor = 0.0
        for unit in range(unit_count):
            score = scores[unit]
            scores[unit] = 0.0
            if score < floor or not score > 0 or depth == 0:
                continue
            tie = tie_break[unit]
            if kept == depth:
                if score == best_scores[kept - 1] and tie > best_ties[kept - 1]:
                    continue
                position = kept - 1
            else:
                position = kept
                kept += 1
            # Insertion: shift worse entries down one place.
            while position > 0 and (
                score > best_scores[position - 1]
                or (score == best_scores[position - 1] and tie < best_ties[position - 1])
            ):
                best_scores[position] = best_scores[position - 1]
                best_ties[position] = best_ties[position - 1]
                best_units[position] = best_units[position - 1]
                position -= 1
            best_scores[position] = score
            best_ties[position] = tie
            best_units[position] = unit
            if kept == depth:
                floor = best_scores[kept - 1]
        for i in range(kept):
            out_units[query, i] = best_units[i]
            out_scores[query, i] = best_scores[i]
        out_counts[query] = kept


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
