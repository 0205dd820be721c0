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

import functools
import importlib.util
import itertools
import math
import os
import sys
from collections.abc import Callable

import numpy as np

from chunkscope.arrays import run_positions
from chunkscope.collector import collector_paused
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

LONG_BATCH_CELLS = 1 << 19
"""Score cells per batch when scoring query by query: rows enough to amortise finding their top hits."""

LONG_POSTINGS = 400
"""Mean postings per query term from which numpy scores query by query (a slice costs about as much as
gathering 400 postings into a batch)."""

LOADED_MIN_WORK = 100_000
"""Once the compiled path is loaded, it is used from this much work on."""

DENSE_SHARE = 4
"""A term in more than 1/4 of the units is scored as a dense column (at 50 MB: 54 terms, 23 MiB; as fast as or
faster than 1/2 to 1/16, since more columns than the cache holds cost as much as the postings they spare)."""

DENSE_BYTES = 32 << 20
"""At most this much memory for the dense columns."""

OWN_IDS_LEAST = 1000
"""Postings from which a list without a dense column gets its own intp unit ids (at 50 MB: 46 MiB for 92% of the
scattered postings; shorter lists are concatenated, converting them on the way)."""

SMALLEST_POSITIVE = float(np.nextafter(0.0, 1.0))
"""A score is above 0 and at least ``t`` when it is at least ``max(t, SMALLEST_POSITIVE)``."""

TOP_BLOCK = 64
"""Most columns per block when finding a row's best scores: its blocks' maxima are read first."""

LEAST_BLOCK = 4
"""Fewest columns per block; rows too short for blocks of that many are partitioned whole."""

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
    long_lists: LongLists | None = None,
) -> list[Ranking]:
    """Each query's top ``depth`` units (scores above 0) by the summed weights of its terms' postings.

    A repeated query term adds again; ``weights`` None weighs every posting 1.0. Given ``progress``,
    the queries are ranked ``REPORT_EVERY`` at a time with a report before each part (the caller's
    chance to cancel); the backend is chosen once for all of them. ``long_lists``: the postings' long lists
    in numpy's fastest forms, kept by the caller across calls (the numpy path builds them on first use).
    """
    terms = queries.terms
    touched = int((pointers[terms + 1] - pointers[terms]).sum()) if len(terms) else 0
    chosen = backend or choose_backend(touched, COMPILED_MIN_POSTINGS)
    rank: Callable[..., list[Ranking]]
    if chosen == "numba":
        from chunkscope.retrievers import compiled

        rank = compiled.rank_queries
    else:
        lists = long_lists or LongLists(pointers, units, weights, unit_count)
        rank = functools.partial(rank_queries_numpy, long_lists=lists)
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
    long_lists: LongLists | None = None,
) -> list[Ranking]:
    """``rank_queries`` in numpy: batches of queries scored with one ``bincount`` each, or query by query."""
    rankings: list[Ranking] = []
    terms = queries.terms
    touched = int((pointers[terms + 1] - pointers[terms]).sum()) if len(terms) else 0
    if touched < LONG_POSTINGS * len(terms):
        # Short posting lists: gathered into one bincount per batch.
        for first, last in _batches(pointers, unit_count, queries, BATCH_CELLS):
            scores = batch_scores(pointers, units, weights, unit_count, queries.part(first, last))
            rankings.extend(top_rows(scores, tie_break, depth))
        return rankings
    # Long ones: each query's terms added one after the other into rows reused from batch to batch.
    lists = long_lists or LongLists(pointers, units, weights, unit_count)
    ranges = _batches(pointers, unit_count, queries, LONG_BATCH_CELLS)
    out = np.empty((max((last - first for first, last in ranges), default=0), unit_count))
    for first, last in ranges:
        scores = query_by_query_scores(pointers, units, weights, unit_count, queries.part(first, last), lists, out)
        rankings.extend(top_rows(scores, tie_break, depth))
    return rankings


def _batches(pointers: np.ndarray, unit_count: int, queries: QueryTerms, cells: int) -> list[tuple[int, int]]:
    """Consecutive query ranges within ``cells`` cells and ``BATCH_POSTINGS`` postings (a query at least)."""
    owner = np.repeat(np.arange(len(queries)), queries.sizes())
    terms = queries.terms
    per_query = np.bincount(owner, weights=pointers[terms + 1] - pointers[terms], minlength=len(queries))
    reach = np.cumsum(per_query)
    most_queries = max(1, cells // max(unit_count, 1))
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
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    queries: QueryTerms,
    long_lists: LongLists | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """``batch_scores`` query by query, term by term in query order, for long posting lists.

    A term with a dense column (``long_lists``) is one vectorised add of its column; another long
    list is added posting by posting (``np.add.at``, in order) from its index-type unit ids; short
    lists in a row are concatenated and added alike. Every unit's sum is the same as ``bincount``'s,
    bit for bit: the same weights added in the same order from 0.0, the dense columns adding 0.0
    (never turning a sum, which starts at +0.0, into anything else) where a term is absent.
    ``out`` (at least queries x units) receives the scores.
    """
    scores = np.empty((len(queries), unit_count)) if out is None else out[: len(queries)]
    lists = long_lists or LongLists(pointers, units, weights, unit_count, share=0.0, least=math.inf)
    slots, columns = lists.columns()
    own_starts, own_units = lists.own_units()
    terms = queries.terms
    bounds = queries.offsets.tolist()
    starts_array, ends_array = pointers[terms], pointers[terms + 1]
    starts, ends = starts_array.tolist(), ends_array.tolist()
    dense_slots, own_at = slots[terms], own_starts[terms]
    in_dense, own = dense_slots.tolist(), own_at.tolist()
    # The short lists of the whole batch gathered at once, term after term in query order (as the index
    # type, which np.add.at would otherwise convert to in a pass of its own): a run of short lists in a
    # query is then one slice of them. ``short_at[k]``: where term k's postings begin among them.
    is_short = (dense_slots < 0) & (own_at < 0)
    short_lengths = np.where(is_short, ends_array - starts_array, 0)
    short_positions = run_positions(starts_array[is_short], short_lengths[is_short])
    short_units = units[short_positions].astype(np.intp)
    short_weights = None if weights is None else weights[short_positions]
    short_at = np.concatenate(([0], np.cumsum(short_lengths))).tolist()
    column_rows = list(columns)
    add, add_at = np.add, np.add.at  # looked up once: a query makes some twenty calls
    for query in range(len(queries)):
        row = scores[query]
        first, last = bounds[query], bounds[query + 1]
        if first < last and in_dense[first] >= 0:
            add(column_rows[in_dense[first]], 0.0, out=row)  # 0.0 + x: the sum's first step
            first += 1
        else:
            row.fill(0.0)
        short_from = -1  # the first term of a run of short lists not added yet
        for k in range(first, last):
            slot, at = in_dense[k], own[k]
            if slot < 0 and at < 0:
                if short_from < 0:
                    short_from = k
                continue
            if short_from >= 0:
                _add_short(row, short_units, short_weights, short_at[short_from], short_at[k])
                short_from = -1
            if slot >= 0:
                add(row, column_rows[slot], out=row)
            else:
                low, high = starts[k], ends[k]
                add_at(row, own_units[at : at + high - low], 1.0 if weights is None else weights[low:high])
        if short_from >= 0:
            _add_short(row, short_units, short_weights, short_at[short_from], short_at[last])
    return scores


def _add_short(row: np.ndarray, units: np.ndarray, weights: np.ndarray | None, low: int, high: int) -> None:
    """Add the gathered short-list postings ``low:high`` to ``row``, posting after posting."""
    np.add.at(row, units[low:high], 1.0 if weights is None else weights[low:high])


class LongLists:
    """The long posting lists in the forms numpy adds fastest, built on first use.

    A term in more than 1 / ``share`` of the units costs less as one vectorised add of its dense
    column (0.0 where it is absent) than as a scatter of its postings; the columns are float64 like
    the weights, so that sums are unchanged, and take at most ``budget`` bytes, the commonest terms
    first. The other lists of at least ``least`` postings get their unit ids as ``np.intp``, which
    ``np.add.at`` takes without a conversion of its own (and without a concatenation).
    """

    def __init__(
        self,
        pointers: np.ndarray,
        units: np.ndarray,
        weights: np.ndarray | None,
        unit_count: int,
        share: float = DENSE_SHARE,
        budget: int = DENSE_BYTES,
        least: float = OWN_IDS_LEAST,
    ) -> None:
        self.pointers, self.units, self.weights, self.unit_count = pointers, units, weights, unit_count
        self.share, self.budget, self.least = share, budget, least
        self._columns: tuple[np.ndarray, np.ndarray] | None = None
        self._own: tuple[np.ndarray, np.ndarray] | None = None

    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """(each term's row in the matrix or -1, the matrix: dense terms x units)."""
        if self._columns is None:
            self._columns = self._build_columns()
        return self._columns

    def own_units(self) -> tuple[np.ndarray, np.ndarray]:
        """(each term's start in the ids or -1, the intp unit ids of the long lists without a dense column)."""
        if self._own is None:
            slots, _ = self.columns()
            counts = np.diff(self.pointers)
            chosen = np.flatnonzero((counts >= self.least) & (slots < 0))
            starts = np.full(len(counts), -1, dtype=np.int64)
            lengths = counts[chosen]
            starts[chosen] = np.cumsum(lengths) - lengths
            own = self.units[run_positions(self.pointers[chosen], lengths)].astype(np.intp)
            self._own = starts, own
        return self._own

    def _build_columns(self) -> tuple[np.ndarray, np.ndarray]:
        counts = np.diff(self.pointers)
        most = self.budget // max(8 * self.unit_count, 1)
        common = np.flatnonzero(counts * self.share > self.unit_count)
        chosen = np.sort(common[np.argsort(-counts[common], kind="stable")[:most]])
        slots = np.full(len(counts), -1, dtype=np.int64)
        slots[chosen] = np.arange(len(chosen))
        matrix = np.zeros((len(chosen), self.unit_count))
        lengths = counts[chosen]
        positions = run_positions(self.pointers[chosen], lengths)
        rows = np.repeat(np.arange(len(chosen), dtype=np.int64), lengths)
        matrix[rows, self.units[positions]] = 1.0 if self.weights is None else self.weights[positions]
        return slots, matrix


def top_rows(scores: np.ndarray, tie_break: np.ndarray, depth: int) -> list[Ranking]:
    """Each row's ``depth`` best columns with a score above 0, by score descending then tie-break."""
    rows_count, columns = scores.shape
    if depth <= 0:
        return [Ranking((), ())] * rows_count
    block = block_size(columns, depth)
    if block:
        rows, cols = _block_candidates(scores, depth, block)
    else:
        low = np.full((rows_count, 1), SMALLEST_POSITIVE)
        if columns > depth:
            kth = np.partition(scores, columns - depth, axis=1)[:, columns - depth, None]
            np.maximum(kth, SMALLEST_POSITIVE, out=low)
        # Flat positions: np.nonzero of a 2-D mask costs several times np.flatnonzero's.
        rows, cols = np.divmod(np.flatnonzero(scores >= low), max(columns, 1))
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
    with collector_paused():  # a value and two tuples per row: no cycle, but enough for full collections
        return list(
            map(Ranking, (tuple(cols_list[a:b]) for a, b in spans), (tuple(values_list[a:b]) for a, b in spans))
        )


def block_size(columns: int, depth: int) -> int:
    """Columns per block for rows of ``columns`` scores and ``depth`` hits, 0 when they are partitioned whole.

    A row costs one pass for its block maxima, a partition of its ``columns / block`` maxima, and the
    columns of the ``depth`` or more blocks that reach the floor: about ``columns / block + depth * block``,
    least at ``block = sqrt(columns / depth)`` (on JSQuAD's 300 to 2,500 units a block of 4 to 11 columns
    took a quarter of the time of a whole partition). Blocks are used with at least four per hit, so that
    most of a row's blocks cannot hold one.
    """
    block = min(TOP_BLOCK, math.isqrt(columns // depth))
    return block if block >= LEAST_BLOCK and columns // block >= 4 * depth else 0


def _block_candidates(scores: np.ndarray, depth: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every score above 0 that may be among its row's ``depth`` best, found by blocks.

    Block ``j`` holds the columns ``j, j + stride, ...`` (``block`` of them), so that the blocks'
    maxima are elementwise maxima of ``block`` contiguous slices (numpy's fastest reduction).
    Each row's ``depth``-th greatest block maximum is at most its ``depth``-th greatest score (those
    blocks hold ``depth`` distinct columns scoring at least as much), so only the blocks reaching it
    are read, and in them the columns reaching it; so are the few columns past the last whole stride.
    """
    rows_count, columns = scores.shape
    stride = columns // block
    body = block * stride
    blocked = scores[:, :body].reshape(rows_count, block, stride)
    maxima = np.max(blocked, axis=1)
    floor = np.partition(maxima, stride - depth, axis=1)[:, stride - depth]
    # At least the floor and above 0, in one comparison.
    low = np.maximum(floor, SMALLEST_POSITIVE)[:, None]
    rows, blocks = np.divmod(np.flatnonzero(maxima >= low), stride)
    hit, within = np.divmod(np.flatnonzero(blocked[rows, :, blocks] >= low[rows]), block)
    rows, cols = rows[hit], blocks[hit] + within * stride
    if body == columns:
        return rows, cols
    rest_rows, rest_cols = np.divmod(np.flatnonzero(scores[:, body:] >= low), columns - body)
    return np.concatenate((rows, rest_rows)), np.concatenate((cols, rest_cols + body))
