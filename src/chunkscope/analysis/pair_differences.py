"""Paired differences of several configurations' per-question values, with cheaper exact products.

What the permutation test and the bootstrap of :mod:`chunkscope.analysis.stats` multiply their
sign vectors and draw counts by, when several configurations are compared pair by pair: whole-number
metrics are multiplied once per configuration, and the other metrics screened against a proven
rounding bound, so the statistics and counts are the same as the plain products'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from chunkscope.analysis.stats import FloatArray, count_extreme

_EXACT_LIMIT = 2.0**52
"""Integer sums below this are exact in float64, whatever the order of the additions."""


@dataclass(frozen=True, slots=True)
class PairDifferences:
    """Every pair's differences of several configurations' values, with a cheaper exact :meth:`products`.

    ``values`` has shape ``(c, k, n)``: configuration, metric, question. Row ``p * k + m`` of
    ``differences`` is ``values[j, m] - values[i, m]`` for ``pairs[p] = (i, j)``.

    A metric whose every value is a whole number (a hit, a completeness) has whole-number
    statistics: ``w . (v_j - v_i)`` is an integer below 2**52, exact in float64 in any order of
    the additions, so it equals ``w . v_j - w . v_i``. For those metrics :meth:`products` multiplies
    each configuration once (``c`` rows instead of one per pair) and subtracts; the other rows are
    the BLAS product of their differences, as :func:`paired_permutation_pvalues` computes them.

    :meth:`count_extreme` counts the permutation test's extreme statistics of the other metrics
    from per-configuration products too, each within a proven bound of the pair's product
    (see :class:`_Screen`); a block where some statistic lies within its bound of the threshold
    is counted on :meth:`products`, so the counts are the same.
    """

    differences: FloatArray
    """Shape ``(len(pairs) * k, n)``, rows pair-major."""
    _dense_rows: npt.NDArray[np.int64] = field(repr=False)
    _dense: FloatArray = field(repr=False)
    _whole_rows: npt.NDArray[np.int64] = field(repr=False)
    _whole: FloatArray = field(repr=False)
    _firsts: npt.NDArray[np.int64] = field(repr=False)
    _seconds: npt.NDArray[np.int64] = field(repr=False)
    _screen: _Screen | None = field(default=None, repr=False)

    @classmethod
    def of(cls, values: npt.ArrayLike, pairs: Sequence[tuple[int, int]]) -> PairDifferences:
        """The differences of ``values`` (shape ``(c, k, n)``) for each pair ``(i, j)``: B = j minus A = i."""
        array = np.asarray(values, dtype=np.float64)
        configs, metrics, n = array.shape
        first = np.asarray([i for i, _ in pairs], dtype=np.int64)
        second = np.asarray([j for _, j in pairs], dtype=np.int64)
        differences = (array[second] - array[first]).reshape(len(pairs) * metrics, n)
        scale = np.max(np.abs(array), axis=(0, 2), initial=0.0)
        whole = np.all(array == np.round(array), axis=(0, 2)) & (2.0 * n * scale < _EXACT_LIMIT)
        rows = np.arange(len(pairs) * metrics, dtype=np.int64).reshape(len(pairs), metrics)
        kept = np.flatnonzero(whole)
        # Column of configuration c's metric kept[q] in the whole-number products: c * len(kept) + q.
        columns = np.arange(len(kept), dtype=np.int64)
        dense_rows = rows[:, ~whole].reshape(-1)
        whole_values = np.ascontiguousarray(array[:, whole].reshape(configs * len(kept), n))
        firsts = (first[:, None] * len(kept) + columns).reshape(-1)
        seconds = (second[:, None] * len(kept) + columns).reshape(-1)
        # Per-configuration products pay when there are more pairs than configurations.
        screen = None
        if len(dense_rows) and configs < len(pairs):
            screen = _Screen.of(array[:, ~whole], first, second, differences[dense_rows], whole_values)
        return cls(
            differences,
            dense_rows,
            np.ascontiguousarray(differences[dense_rows]),
            rows[:, whole].reshape(-1),
            whole_values,
            firsts,
            seconds,
            screen,
        )

    def products(self, block: FloatArray) -> FloatArray:
        """``block @ differences.T``, the whole-number metrics' rows computed per configuration."""
        if not len(self._whole_rows):
            dense: FloatArray = block @ self._dense.T
            return dense
        out = np.empty((block.shape[0], self.differences.shape[0]), dtype=np.float64)
        if len(self._dense_rows):
            out[:, self._dense_rows] = block @ self._dense.T
        per_config = block @ self._whole.T
        out[:, self._whole_rows] = per_config[:, self._seconds] - per_config[:, self._firsts]
        return out

    def count_extreme(self, signs: FloatArray, threshold: FloatArray) -> FloatArray:
        """Per row, how many sign vectors ``s`` of the block give ``|s . d| >= threshold``, as counted on
        :meth:`products` (the permutation test's count)."""
        screen = self._screen
        if screen is None:
            return count_extreme(signs, self.products, threshold)
        per_config = signs @ screen.values.T
        dense_threshold = threshold[self._dense_rows]
        near = np.abs(per_config[:, screen.seconds] - per_config[:, screen.firsts])
        if np.any(np.abs(near - dense_threshold) <= screen.bounds):
            # Some statistic is too close to its threshold to tell from the bound: count on the products.
            return count_extreme(signs, self.products, threshold)
        hits = np.empty(self.differences.shape[0], dtype=np.float64)
        hits[self._dense_rows] = np.count_nonzero(near >= dense_threshold, axis=0)
        if len(self._whole_rows):
            # Whole numbers: per_config's first columns are the exact products of _whole, in any order.
            whole = np.abs(per_config[:, self._seconds] - per_config[:, self._firsts])
            hits[self._whole_rows] = np.count_nonzero(whole >= threshold[self._whole_rows], axis=0)
        return hits


_UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True, slots=True)
class _Screen:
    """Per-configuration products of the fractional metrics, each pair's statistic within a proven bound.

    For a pair (i, j) and metric m, with ``d = fl(v_j - v_i)`` its differences and ``s`` a sign
    vector, the permutation test counts ``o = fl(s . d)`` (a BLAS product: any order of the
    additions) against a threshold. Here the values are first centred on a per-question reference
    ``r`` shared by every configuration (their median, so that the centred values are small),
    ``u_c = fl(v_c - r)``, and ``a = fl(fl(s . u_j) - fl(s . u_i))``. Against the exact ``T = s . d``:
    ``|o - T| <= g * sum|d|`` (``g = (n - 1) u / (1 - (n - 1) u)``, ``u = 2**-53``, any summation
    order); ``s . (v_j - v_i)`` is within ``1.0001 u * sum|d|`` of T and within
    ``1.0001 u * (sum|u_i| + sum|u_j|)`` of ``s . (u_j - u_i)``; each of the two products is within
    ``g * sum|u_c|`` of its exact value and the subtraction adds ``u * (sum|u_i| + sum|u_j|)``.
    So ``|o - a| <= (g + 3u) * (sum|d| + sum|u_i| + sum|u_j|)``, kept with a 1% margin for the rounding of
    the bound itself. Where ``|a|`` is further than that from the threshold, ``|o|`` lies on the same side.
    """

    values: FloatArray
    """The whole-number metrics' values (``PairDifferences._whole``), then the centred values of
    the fractional ones, configuration-major: shape ``(c * (whole + fractional), n)``."""
    firsts: npt.NDArray[np.int64]
    """Per dense row (pair-major), the column of A's centred metric in ``values @ block.T``."""
    seconds: npt.NDArray[np.int64]
    """The same for B."""
    bounds: FloatArray
    """Per dense row, the bound on ``|o - a|``."""

    @classmethod
    def of(
        cls,
        fractional: FloatArray,
        first: npt.NDArray[np.int64],
        second: npt.NDArray[np.int64],
        dense: FloatArray,
        whole: FloatArray,
    ) -> _Screen:
        """``fractional``: shape ``(c, f, n)``; ``dense``: their pairs' differences, pair-major."""
        configs, metrics, n = fractional.shape
        centred = fractional - np.median(fractional, axis=0)
        offset = whole.shape[0]
        columns = np.arange(metrics, dtype=np.int64)
        firsts = (offset + first[:, None] * metrics + columns).reshape(-1)
        seconds = (offset + second[:, None] * metrics + columns).reshape(-1)
        magnitudes = np.abs(centred).sum(axis=2).reshape(-1)
        spread = np.abs(dense).sum(axis=1) + magnitudes[firsts - offset] + magnitudes[seconds - offset]
        steps = (n - 1) * _UNIT_ROUNDOFF
        bounds = 1.01 * (steps / (1.0 - steps) + 3.0 * _UNIT_ROUNDOFF) * spread
        values = np.concatenate([whole, centred.reshape(configs * metrics, n)])
        return cls(np.ascontiguousarray(values), firsts, seconds, bounds)
