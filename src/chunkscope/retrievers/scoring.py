"""Scoring many queries over postings and keeping each one's top hits: numpy, or compiled with numba.

Both paths give bit-identical rankings. A unit's score is the sum of its
posting weights over the query's terms, added in query-term order starting
from 0.0 (exactly what ``np.bincount`` does), and the hits are the ``depth``
units with a score above 0, by score descending, then tie-break position
ascending. The compiled path (extra ``chunkscope[fast]``) is used when numba is
installed and the work is large enough to repay loading it; ``CHUNKSCOPE_BACKEND``
= ``numpy`` or ``numba`` forces one (for postings building too).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys

import numpy as np

from chunkscope.arrays import run_positions
from chunkscope.results import Ranking
from chunkscope.retrievers.base import REPORT_EVERY, Progress
from chunkscope.retrievers.query_terms import QueryTerms

BATCH_CELLS = 1 << 17
BATCH_POSTINGS = 1 << 20
"""Score cells (queries x units) and postings per numpy batch: enough to amortise numpy's per-call
cost, few enough that the scores stay in cache (128k cells, 1 MB, measured fastest on JSQuAD)."""

COMPILED_MIN_POSTINGS = 100_000_000
"""Postings to touch from which the compiled path repays its start-up (importing numba and loading its
cached machine code: 0.7 s on the 2-core machine): numpy costs 5 to 15 ns more per posting."""

LONG_POSTINGS = 400
"""Mean postings per query term from which numpy scores query by query (a slice costs about as much as
gathering 400 postings into a batch)."""

LOADED_MIN_WORK = 100_000
"""Once the compiled path is loaded, it is used from this much work on."""

TOP_BLOCK = 64
"""Columns per block when finding a row's best scores: its blocks' maxima are read first."""

BACKEND_ENV = "CHUNKSCOPE_BACKEND"
COMPILED_MODULE = "chunkscope.retrievers.compiled"


def numba_available() -> bool:
    """True when numba can be imported (the ``fast`` extra)."""
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def choose_backend(work: int, threshold: int) -> str:
    """``numba`` or ``numpy`` for ``work`` elements, numba from ``threshold`` on (when installed)."""
    forced = os.environ.get(BACKEND_ENV, "")
    if forced in ("numpy", "numba"):
        return forced if forced == "numpy" or numba_available() else "numpy"
    if not numba_available():
        return "numpy"
    if COMPILED_MODULE in sys.modules:  # already paid for
        threshold = min(threshold, LOADED_MIN_WORK)
    return "numba" if work >= threshold else "numpy"


def rank_queries(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: QueryTerms,
    depth: int,
    backend: str | None = None,
    progress: Progress | None = None,
) -> list[Ranking]:
    """Each query's top ``depth`` units (scores above 0) by the summed weights of its terms' postings.

    A repeated query term adds again; ``weights`` None weighs every posting 1.0. Given ``progress``,
    the queries are ranked ``REPORT_EVERY`` at a time with a report before each part (the caller's
    chance to cancel); the backend is chosen once for all of them.
    """
    terms = queries.terms
    touched = int((pointers[terms + 1] - pointers[terms]).sum()) if len(terms) else 0
    chosen = backend or choose_backend(touched, COMPILED_MIN_POSTINGS)
    if chosen == "numba":
        from chunkscope.retrievers import compiled

        rank = compiled.rank_queries
    else:
        rank = rank_queries_numpy
    if progress is None:
        return rank(pointers, units, weights, unit_count, tie_break, queries, depth)
    rankings: list[Ranking] = []
    count = len(queries)
    for first in range(0, count, REPORT_EVERY):
        progress(first, count)
        part = queries.part(first, min(first + REPORT_EVERY, count))
        rankings.extend(rank(pointers, units, weights, unit_count, tie_break, part, depth))
    return rankings


def rank_queries_numpy(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: QueryTerms,
    depth: int,
) -> list[Ranking]:
    """``rank_queries`` in numpy: batches of queries scored with one ``bincount`` each."""
    rankings: list[Ranking] = []
    terms = queries.terms
    touched = int((pointers[terms + 1] - pointers[terms]).sum()) if len(terms) else 0
    # Long posting lists are cheapest copied slice by slice; short ones, gathered into one bincount per batch.
    score = query_by_query_scores if touched >= LONG_POSTINGS * len(terms) else batch_scores
    for first, last in _batches(pointers, unit_count, queries):
        scores = score(pointers, units, weights, unit_count, queries.part(first, last))
        rankings.extend(top_rows(scores, tie_break, depth))
    return rankings


def _batches(pointers: np.ndarray, unit_count: int, queries: QueryTerms) -> list[tuple[int, int]]:
    """Consecutive query ranges within ``BATCH_CELLS`` cells and ``BATCH_POSTINGS`` postings (a query at least)."""
    owner = np.repeat(np.arange(len(queries)), queries.sizes())
    terms = queries.terms
    per_query = np.bincount(owner, weights=pointers[terms + 1] - pointers[terms], minlength=len(queries))
    reach = np.cumsum(per_query)
    most_queries = max(1, BATCH_CELLS // max(unit_count, 1))
    ranges = []
    first = 0
    while first < len(queries):
        done = reach[first - 1] if first else 0.0
        within = int(np.searchsorted(reach[first : first + most_queries], done + BATCH_POSTINGS, side="right"))
        last = first + max(1, within)
        ranges.append((first, last))
        first = last
    return ranges


def batch_scores(
    pointers: np.ndarray, units: np.ndarray, weights: np.ndarray | None, unit_count: int, queries: QueryTerms
) -> np.ndarray:
    """Scores (queries x units) of a batch of queries."""
    terms = queries.terms
    counts = pointers[terms + 1] - pointers[terms]
    # Posting positions term by term: one index array instead of a slice per term.
    positions = run_positions(pointers[terms], counts)
    total = len(positions)
    owner = np.repeat(np.repeat(np.arange(len(queries), dtype=np.int64) * unit_count, queries.sizes()), counts)
    cells = owner + units[positions]
    values = np.ones(total) if weights is None else weights[positions]
    flat = np.bincount(cells, weights=values, minlength=len(queries) * unit_count)
    return flat.reshape(len(queries), unit_count)


def query_by_query_scores(
    pointers: np.ndarray, units: np.ndarray, weights: np.ndarray | None, unit_count: int, queries: QueryTerms
) -> np.ndarray:
    """``batch_scores`` with one ``bincount`` per query over its terms' posting slices, concatenated.

    For long posting lists: slices are copied, not gathered through an index array.
    """
    scores = np.empty((len(queries), unit_count))
    bounds = queries.offsets.tolist()
    starts = pointers[queries.terms].tolist()
    ends = pointers[queries.terms + 1].tolist()
    for query in range(len(queries)):
        first, last = bounds[query], bounds[query + 1]
        spans = list(zip(starts[first:last], ends[first:last], strict=True))
        if not spans:
            scores[query] = 0.0
            continue
        cells = np.concatenate([units[low:high] for low, high in spans])
        values = np.ones(len(cells)) if weights is None else np.concatenate([weights[low:high] for low, high in spans])
        scores[query] = np.bincount(cells, weights=values, minlength=unit_count)
    return scores


def top_rows(scores: np.ndarray, tie_break: np.ndarray, depth: int) -> list[Ranking]:
    """Each row's ``depth`` best columns with a score above 0, by score descending then tie-break."""
    rows_count, columns = scores.shape
    # With at least four blocks per hit, most blocks of a row cannot hold a hit and are never scanned.
    if depth > 0 and columns > TOP_BLOCK * depth * 4:
        rows, cols = _block_candidates(scores, depth)
    else:
        if columns > depth:
            kth = np.partition(scores, columns - depth, axis=1)[:, columns - depth]
            keep = (scores >= kth[:, None]) & (scores > 0)
        else:
            keep = scores > 0
        rows, cols = np.nonzero(keep)
    values = scores[rows, cols]
    order = np.lexsort((tie_break[cols], -values, rows))
    rows, cols, values = rows[order], cols[order], values[order]
    counts = np.bincount(rows, minlength=rows_count)
    first = np.cumsum(counts) - counts
    taken = np.minimum(counts, depth)
    keep_hit = np.arange(len(rows)) - first[rows] < depth
    cols_list = cols[keep_hit].tolist()
    values_list = values[keep_hit].tolist()
    bounds = np.concatenate(([0], np.cumsum(taken))).tolist()
    spans = list(itertools.pairwise(bounds))
    return list(map(Ranking, (tuple(cols_list[a:b]) for a, b in spans), (tuple(values_list[a:b]) for a, b in spans)))


def _block_candidates(scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every score above 0 that may be among its row's ``depth`` best, found by blocks.

    Each row's ``depth``-th greatest block maximum is at most its ``depth``-th greatest score (those
    blocks hold ``depth`` distinct columns scoring at least as much), so only the blocks reaching it are
    read, and in them the columns reaching it: far fewer than every column of every row.
    """
    rows_count, columns = scores.shape
    full = columns // TOP_BLOCK
    maxima = np.empty((rows_count, full + (columns > full * TOP_BLOCK)))
    np.max(scores[:, : full * TOP_BLOCK].reshape(rows_count, full, TOP_BLOCK), axis=2, out=maxima[:, :full])
    if maxima.shape[1] > full:
        np.max(scores[:, full * TOP_BLOCK :], axis=1, out=maxima[:, full])
    blocks = maxima.shape[1]
    floor = np.partition(maxima, blocks - depth, axis=1)[:, blocks - depth]
    rows, reached = np.nonzero((maxima >= floor[:, None]) & (maxima > 0))
    starts = reached * TOP_BLOCK
    lengths = np.minimum(starts + TOP_BLOCK, columns) - starts
    cols = run_positions(starts, lengths)
    rows = np.repeat(rows, lengths)
    values = scores[rows, cols]
    kept = (values >= floor[rows]) & (values > 0)
    return rows[kept], cols[kept]
