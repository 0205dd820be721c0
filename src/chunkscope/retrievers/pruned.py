"""Each query's top hits without scoring every unit (MaxScore pruning), bit-identical to the dense path.

The dense path adds every posting of every query term into a score per unit.
With long posting lists (common terms in most units) most of that work is for
units that cannot reach the top. Here a query's terms are taken by their
greatest posting weight, highest first:

1. a probe: the postings of the first few terms, whose best units (by those
   terms alone) are scored exactly; their ``depth``-th best exact score is a
   threshold ``L`` that the ``depth``-th best hit reaches;
2. the essential terms: the fewest first terms such that the greatest weights
   of the rest sum to below ``L``. A unit in no essential term's postings
   scores below ``L``: it is not a hit. The others (candidates) get the
   essential terms' weights, and one by one the rest's, and leave as soon as
   their weights so far plus the rest's greatest ones stay below ``L``;
3. the remaining units are scored exactly and ranked.

Exact means the very float64 the dense path computes: a score is re-summed
from 0.0 in query-term order, adding each term's weight where the unit has the
term (adding 0.0 elsewhere leaves a sum unchanged), as ``np.bincount`` adds. The
bounds only decide which units are re-summed; they are widened by a relative
margin above any rounding of the sums, so a unit is dropped only when its exact
score is below ``L``. The pruning needs weights that are not negative; queries
whose probe finds fewer than ``depth`` units scoring above 0 are ranked densely.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from chunkscope.results import Ranking
from chunkscope.retrievers.query_terms import QueryTerms

UNIT_ROUNDING = 2.0**-53
"""The unit roundoff of float64."""

TABLE_MIN_SHARE = 64
"""Terms in at least 1/64 of the units get a bitmap row (a unit's weight found without a search)."""

TABLE_BYTES_PER_POSTING = 4
"""The bitmaps take at most 4 bytes per posting (the postings themselves take 16)."""

SCRATCH_CELLS = 1 << 21
"""Queries x units per batch: the scratch arrays a batch's candidates are gathered in."""

PROBE_POSTINGS = 5000
"""Postings the probe reads per query (more when its first term alone has more)."""

ESSENTIAL_POSTINGS = 10000

PROBE_UNITS = 40
"""Units per query the probe scores exactly (twice the usual depth: the threshold then nearly reaches the
final one)."""


@dataclass(frozen=True, slots=True)
class TermBounds:
    """What the pruning needs of the postings: each term's greatest weight, and bitmaps of the long lists."""

    maxima: np.ndarray
    """float64 per term: its greatest posting weight."""
    rows: np.ndarray
    """int64 per term: its row in ``bits`` and ``ranks``, -1 for none."""
    bits: np.ndarray
    """(rows, words) uint64: bit ``u % 64`` of word ``u // 64`` is set when unit ``u`` has the term."""
    ranks: np.ndarray
    """(rows, words) uint32: the term's postings before the word's first unit."""


def term_bounds(
    pointers: np.ndarray, units: np.ndarray, weights: np.ndarray | None, unit_count: int
) -> TermBounds | None:
    """The bounds of postings, or None when a weight is negative or not a number (no pruning then)."""
    counts = np.diff(pointers)
    maxima = np.zeros(len(counts))
    present = counts > 0
    if weights is None:
        maxima[present] = 1.0
    elif len(weights):
        if not bool(np.all(weights >= 0)):
            return None
        maxima[present] = np.maximum.reduceat(weights, pointers[:-1][present])
    words = (unit_count + 63) // 64
    most_rows = TABLE_BYTES_PER_POSTING * len(units) // max(12 * words, 1)
    longest = np.argsort(-counts, kind="stable")[:most_rows]
    tabled = np.sort(longest[counts[longest] * TABLE_MIN_SHARE >= max(unit_count, 1)])
    rows = np.full(len(counts), -1, dtype=np.int64)
    rows[tabled] = np.arange(len(tabled))
    positions, owners = _posting_positions(pointers, tabled, np.arange(len(tabled)))
    tabled_units = units[positions].astype(np.int64)
    # Postings run by term then ascending unit, so each word's bits are consecutive.
    word = owners * words + (tabled_units >> 6)
    bit = np.left_shift(np.uint64(1), (tabled_units & 63).astype(np.uint64))
    starts = np.flatnonzero(np.diff(word, prepend=-1))
    bits = np.zeros((len(tabled), words), dtype=np.uint64)
    if len(starts):
        bits.reshape(-1)[word[starts]] = np.bitwise_or.reduceat(bit, starts)
    ranks = np.zeros((len(tabled), words), dtype=np.uint32)
    np.cumsum(_popcount(bits[:, :-1]), axis=1, out=ranks[:, 1:])
    return TermBounds(maxima, rows, bits, ranks)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (as uint32)."""
    if hasattr(np, "bitwise_count"):
        counted: np.ndarray = np.bitwise_count(words).astype(np.uint32)
        return counted
    # numpy before 2.0: the classic parallel bit count.
    x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.uint32)


def rank_queries_pruned(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: QueryTerms,
    depth: int,
    bounds: TermBounds,
) -> tuple[list[Ranking | None], np.ndarray]:
    """Each query's top ``depth`` hits as the dense path ranks them, and the queries left to it (None there)."""
    postings = _Postings(pointers, units, weights, unit_count, bounds)
    rankings: list[Ranking | None] = []
    dense: list[np.ndarray] = []
    per_batch = max(1, SCRATCH_CELLS // max(unit_count, 1))
    scratch = _Scratch(unit_count)
    for first in range(0, len(queries), per_batch):
        last = min(first + per_batch, len(queries))
        batch = _Batch(postings, queries.part(first, last), scratch)
        ranked, left = batch.rank(tie_break, depth)
        rankings.extend(ranked)
        dense.append(left + first)
    return rankings, np.concatenate(dense) if dense else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class _Postings:
    pointers: np.ndarray
    units: np.ndarray
    weights: np.ndarray | None
    unit_count: int
    bounds: TermBounds

    def values(self, positions: np.ndarray) -> np.ndarray:
        """The weights of postings."""
        return np.ones(len(positions)) if self.weights is None else self.weights[positions]

    def weights_of(self, terms: np.ndarray, units: np.ndarray) -> np.ndarray:
        """Weight of each (term, unit), 0.0 where the unit lacks the term or the term is -1 (none)."""
        found = np.zeros(len(terms))
        valid = terms >= 0
        rows = np.where(valid, self.bounds.rows[np.maximum(terms, 0)], -1)
        tabled = np.flatnonzero(rows >= 0)
        if len(tabled):
            found[tabled] = self.lookup(rows[tabled], terms[tabled], units[tabled])
        searched = np.flatnonzero(valid & (rows < 0))
        if len(searched):
            where, hit = self._search(terms[searched], units[searched])
            found[searched[hit]] = self.values(where[hit])
        return found

    def _search(self, terms: np.ndarray, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Binary search of each unit in its term's (ascending) posting units: position, and whether found."""
        low = self.pointers[terms]
        end = self.pointers[terms + 1]
        high = end.copy()
        last = len(self.units) - 1
        for _ in range(int(np.max(end - low)).bit_length()):
            middle = (low + high) >> 1
            below = self.units[np.minimum(middle, last)] < units
            low = np.minimum(np.where(below, middle + 1, low), high)
            high = np.where(below, high, middle)
        found = low < end
        found[found] = self.units[low[found]] == units[found]
        return low, found

    def lookup(self, rows: np.ndarray, terms: np.ndarray, units: np.ndarray) -> np.ndarray:
        """Weight of each (term, unit) of terms with a bitmap (``rows``), 0.0 where the unit lacks the term."""
        bounds = self.bounds
        units = units.astype(np.int64, copy=False)
        cell = rows * bounds.bits.shape[1] + (units >> 6)
        word = bounds.bits.reshape(-1)[cell]
        shift = (units & 63).astype(np.uint64)
        hit = np.flatnonzero((word >> shift) & np.uint64(1))
        below = word[hit] & ((np.uint64(1) << shift[hit]) - np.uint64(1))
        offset = bounds.ranks.reshape(-1)[cell[hit]] + _popcount(below)
        found = np.zeros(len(terms))
        found[hit] = self.values(self.pointers[terms[hit]] + offset)
        return found


class _Scratch:
    """Per unit sums, kept at 0.0 between uses: one query at a time (one row stays in cache, many would not)."""

    def __init__(self, cells: int) -> None:
        self.sums = np.zeros(cells)
        self.spare = np.zeros(cells)


class _Batch:
    """Some queries' terms laid out as rows: in query order, and by greatest weight (highest first)."""

    def __init__(self, postings: _Postings, queries: QueryTerms, scratch: _Scratch) -> None:
        self.postings = postings
        self.scratch = scratch
        self.sizes = sizes = queries.sizes()
        width = int(sizes.max(initial=0))
        self.count = count = len(queries)
        owners = np.repeat(np.arange(count), sizes)
        columns = np.arange(len(queries.terms)) - np.repeat(queries.offsets[:-1], sizes)
        self.in_order = np.full((count, width), -1, dtype=np.int64)
        self.in_order[owners, columns] = queries.terms
        greatest = np.zeros((count, width))
        greatest[owners, columns] = postings.bounds.maxima[queries.terms]
        order = np.argsort(-greatest, axis=1, kind="stable")
        self.by_weight = np.take_along_axis(self.in_order, order, axis=1)
        by_greatest = np.take_along_axis(greatest, order, axis=1)
        self.rest = np.zeros((count, width + 1))
        """Bound of terms ``r`` onwards (by weight): the sum of their greatest weights."""
        self.rest[:, :width] = np.cumsum(by_greatest[:, ::-1], axis=1)[:, ::-1]
        # Every sum here and in the exact scores has at most ``width`` + 2 roundings of at most 2**-53 each.
        self.widen = 1.0 + 8 * (width + 2) * UNIT_ROUNDING

    def rank(self, tie_break: np.ndarray, depth: int) -> tuple[list[Ranking | None], np.ndarray]:
        """Rankings of the batch's queries (None for those left to the dense path) and those queries."""
        if depth < 1 or self.in_order.shape[1] == 0:
            return [Ranking((), ())] * self.count, np.zeros(0, dtype=np.int64)
        probed = self._first_terms(PROBE_POSTINGS)
        probe = self._postings(np.zeros_like(probed), probed)
        floor = self._floor(probe, probed, depth)
        pruned = floor > 0
        essential = ((self.rest * self.widen) >= floor[:, None]).sum(axis=1)
        essential = np.where(pruned, np.maximum(essential, self._first_terms(ESSENTIAL_POSTINGS)), probed)
        # The probe's postings are the essential ones' first: only the terms after them are added.
        queries, units, partial = self._candidates(probe, self._postings(probed, essential), essential, floor)
        queries, units = self._refine(queries, units, partial, essential, floor)
        scores = self._exact(queries, units)
        rankings: list[Ranking | None] = [None] * self.count
        for query, ranking in _top(queries, units, scores, tie_break, depth):
            rankings[query] = ranking
        return rankings, np.flatnonzero(~pruned)

    def _first_terms(self, postings: int) -> np.ndarray:
        """Per query, its fewest first terms (by weight) with ``postings`` postings (all terms if fewer)."""
        counts = np.diff(self.postings.pointers)[np.maximum(self.by_weight, 0)] * (self.by_weight >= 0)
        reach = np.cumsum(counts, axis=1)
        return np.minimum((reach < postings).sum(axis=1) + 1, self.sizes)

    def _postings(self, first: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """Units and weights of the postings of each query's terms ``first`` to ``end`` (by weight), and
        where each query's run starts (one more bound at the end)."""
        width = np.arange(self.by_weight.shape[1])
        rows, columns = np.nonzero((width >= first[:, None]) & (width < end[:, None]))
        postings = self.postings
        terms = self.by_weight[rows, columns]
        positions, _ = _posting_positions(postings.pointers, terms, rows)
        per_query = np.bincount(rows, weights=postings.pointers[terms + 1] - postings.pointers[terms], minlength=self.count)
        starts = np.zeros(self.count + 1, dtype=np.int64)
        np.cumsum(per_query.astype(np.int64), out=starts[1:])
        return postings.units[positions], postings.values(positions), starts.tolist()

    def _floor(self, probe: tuple[np.ndarray, np.ndarray, list[int]], probed: np.ndarray, depth: int) -> np.ndarray:
        """Per query, a score that its ``depth``-th hit reaches (0.0 when none is known): the ``depth``-th best
        exact score of the units best by the probed terms alone."""
        units, values, starts = probe
        sums = self.scratch.sums
        chosen: list[np.ndarray] = []
        owners: list[int] = []
        for query in range(self.count):
            low, high = starts[query], starts[query + 1]
            if low == high:
                continue
            own = units[low:high]
            np.add.at(sums, own, values[low:high])
            # A unit is in at most ``probed`` of the lists: that many times PROBE_UNITS postings hold PROBE_UNITS units.
            most = PROBE_UNITS * int(probed[query])
            picked = own[np.argpartition(sums[own], len(own) - most)[-most:]] if len(own) > most else own
            best = self._distinct(picked)
            if len(best) > PROBE_UNITS:
                best = best[np.argpartition(sums[best], len(best) - PROBE_UNITS)[-PROBE_UNITS:]]
            sums[own] = 0.0
            chosen.append(best)
            owners.append(len(best))
        present = [q for q in range(self.count) if starts[q] < starts[q + 1]]
        queries = np.repeat(np.array(present, dtype=np.int64), owners)
        units = np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)
        scores = self._exact(queries, units)
        order = np.lexsort((-scores, queries))
        queries, scores = queries[order], scores[order]
        at_depth = _ranks_within(queries) == depth - 1
        floor = np.zeros(self.count)
        floor[queries[at_depth]] = scores[at_depth]
        return floor

    def _candidates(
        self,
        probe: tuple[np.ndarray, np.ndarray, list[int]],
        more: tuple[np.ndarray, np.ndarray, list[int]],
        essential: np.ndarray,
        floor: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The units in the essential terms' postings whose bound reaches their query's floor: query, unit and
        the (rounded) sum of the essential terms' weights. Clears the scratch."""
        probe_units, probe_values, probe_starts = probe
        more_units, more_values, more_starts = more
        sums = self.scratch.sums
        rest = self.rest[np.arange(self.count), essential].tolist()
        floors = floor.tolist()
        found: list[np.ndarray] = []
        sums_found: list[np.ndarray] = []
        counts: list[int] = []
        for query in range(self.count):
            if not floors[query] > 0:
                counts.append(0)
                continue
            low, high = probe_starts[query], probe_starts[query + 1]
            more_low, more_high = more_starts[query], more_starts[query + 1]
            own = np.concatenate((probe_units[low:high], more_units[more_low:more_high]))
            np.add.at(sums, own, np.concatenate((probe_values[low:high], more_values[more_low:more_high])))
            kept = self._distinct(own[(sums[own] + rest[query]) * self.widen >= floors[query]])
            found.append(kept)
            sums_found.append(sums[kept])
            counts.append(len(kept))
            sums[own] = 0.0
        queries = np.repeat(np.arange(self.count), counts)
        if not found:
            return queries, np.zeros(0, dtype=np.int64), np.zeros(0)
        return queries, np.concatenate(found).astype(np.int64), np.concatenate(sums_found)

    def _distinct(self, units: np.ndarray) -> np.ndarray:
        """``units`` without repeats (in no particular order), through the spare scratch row."""
        row = self.scratch.spare
        order = np.arange(1, len(units) + 1, dtype=np.float64)
        row[units] = order
        distinct = units[row[units] == order]
        row[units] = 0.0
        return distinct

    def _refine(
        self, queries: np.ndarray, units: np.ndarray, partial: np.ndarray, essential: np.ndarray, floor: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The candidates whose bound stays at or above their query's floor, adding the other terms one by one."""
        step = 0
        while True:
            slot = essential[queries] + step
            active = np.flatnonzero(slot < self.sizes[queries])
            if not len(active):
                return queries, units
            at = queries[active]
            partial[active] += self.postings.weights_of(self.by_weight[at, slot[active]], units[active])
            keep = np.ones(len(queries), dtype=np.bool_)
            keep[active] = (partial[active] + self.rest[at, slot[active] + 1]) * self.widen >= floor[at]
            queries, units, partial = queries[keep], units[keep], partial[keep]
            step += 1

    def _exact(self, queries: np.ndarray, units: np.ndarray) -> np.ndarray:
        """Scores as the dense path sums them: from 0.0, term by term in query order."""
        width = self.in_order.shape[1]
        terms = self.in_order[queries].reshape(-1)
        weights = self.postings.weights_of(terms, np.repeat(units, width)).reshape(len(queries), width)
        scores = np.zeros(len(queries))
        for column in range(width):
            scores += weights[:, column]
        return scores


def _top(
    queries: np.ndarray, units: np.ndarray, scores: np.ndarray, tie_break: np.ndarray, depth: int
) -> list[tuple[int, Ranking]]:
    """Per query present, its best ``depth`` units by score descending then tie-break."""
    order = np.lexsort((tie_break[units], -scores, queries))
    queries, units, scores = queries[order], units[order], scores[order]
    kept = _ranks_within(queries) < depth
    queries, units, scores = queries[kept], units[kept], scores[kept]
    starts = np.flatnonzero(np.diff(queries, prepend=-1))
    bounds = [*starts.tolist(), len(queries)]
    unit_list, score_list = units.tolist(), scores.tolist()
    return [
        (int(queries[a]), Ranking(tuple(unit_list[a:b]), tuple(score_list[a:b])))
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]


def _ranks_within(groups: np.ndarray) -> np.ndarray:
    """Each element's position within its run of equal (sorted) group values."""
    if not len(groups):
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.diff(groups, prepend=groups[0] - 1))
    firsts = np.repeat(starts, np.diff(np.append(starts, len(groups))))
    return np.arange(len(groups)) - firsts


def _posting_positions(pointers: np.ndarray, terms: np.ndarray, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the terms' postings, term after term, and the owner of each."""
    starts = pointers[terms]
    counts = pointers[terms + 1] - starts
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    positions = np.arange(total) + np.repeat(starts - (ends - counts), counts)
    return positions, np.repeat(owners, counts)
