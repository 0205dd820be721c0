"""Significance tests and confidence intervals for paired per-question scores.

Every function is pure and deterministic: the same inputs and ``seed`` give
bit-identical outputs. Only numpy is used.

Conventions: a *differences* matrix has shape ``(m, n)``: ``m`` independent
tests (e.g. one per metric x configuration pair), each with ``n`` paired
per-question differences ``d_i = b_i - a_i``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "DrawsAhead",
    "PairedTest",
    "Products",
    "bootstrap_ci",
    "count_extreme",
    "holm",
    "one_sided_permutation_pvalues",
    "paired_permutation_pvalues",
    "paired_permutation_test",
]

FloatArray = npt.NDArray[np.float64]

_BLOCK = 1000
"""Sign vectors / resamples drawn per block: bounds memory at ``_BLOCK x n`` floats."""

_TALLY_ROWS = 64
"""Resamples drawn per call of the generator while tallying a block (a few MB of int64 draws)."""

_RELATIVE_TOL = 1e-12
"""Relative tolerance that lets floating-point ties count as ties."""

Products = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]
"""``block @ differences.T`` for a block of sign vectors or draw counts (shape ``(P, n)``): the
``(P, m)`` statistics of every test. Another way of computing it (``pair_differences.PairDifferences``) must give
the same numbers."""

ExtremeCounter = Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], npt.NDArray[np.float64]]
"""Given a block of sign vectors and each test's threshold, how many of the vectors give a statistic
``|s . d| >= threshold``, per test: the count on ``block @ differences.T``, however it is found."""


@dataclass(frozen=True, slots=True)
class PairedTest:
    """Outcome of one two-sided paired sign-flip permutation test."""

    mean_a: float
    """Mean of the first sample, ``sum(a) / n``."""
    mean_b: float
    """Mean of the second sample, ``sum(b) / n``."""
    mean_difference: float
    """Mean paired difference, ``sum(b_i - a_i) / n``."""
    p_value: float
    """Two-sided p-value of H0 "mean difference is 0"."""
    permutations: int
    """Sign vectors actually evaluated: ``2**n`` when exact, else the Monte Carlo count."""
    exact: bool
    """True when all ``2**n`` sign vectors were enumerated."""


# ---------------------------------------------------------------- validation


def _as_differences(differences: npt.ArrayLike) -> FloatArray:
    """Return ``differences`` as a finite float64 ``(m, n)`` array with ``n >= 1``."""
    array = np.asarray(differences, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"differences must be a 2-D array of shape (tests, questions); got {array.ndim}-D")
    if array.shape[1] < 1:
        raise ValueError("differences must have at least one question (n >= 1)")
    if not np.all(np.isfinite(array)):
        raise ValueError("differences must be finite (no NaN or infinity)")
    return array


def _check_count(value: int, name: str) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer ``>= 1``."""
    integral = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not integral or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
    return int(value)


# ------------------------------------------------------- permutation test


def _is_exact(n: int, permutations: int) -> bool:
    """True when the full sign-flip distribution is affordable: ``2**n <= permutations``."""
    # Python ints do not overflow, so this is safe for any n.
    return (1 << n) <= permutations


def _tie_tolerance(differences: FloatArray) -> FloatArray:
    """Per-test tolerance on the *sum* statistic: ``n * 1e-12 * max(1, max_i |d_i|)``.

    It equals the mean-scale tolerance ``1e-12 * max(1, max|d|)`` multiplied by
    ``n``, because the comparison is done on sums rather than means.
    """
    n = differences.shape[1]
    scale = np.maximum(1.0, np.max(np.abs(differences), axis=1))
    tolerance: FloatArray = n * _RELATIVE_TOL * scale
    return tolerance


def _enumerated_signs(start: int, stop: int, n: int) -> FloatArray:
    """Sign vectors ``start .. stop-1`` of the full enumeration, shape ``(stop - start, n)``.

    Vector ``k`` has ``s_j = -1`` when bit ``j`` of ``k`` is set, else ``+1``.
    """
    k = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (k >> np.arange(n, dtype=np.int64)) & 1
    return 1.0 - 2.0 * bits.astype(np.float64)


_BYTE_SIGNS = 1.0 - 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)
"""Row ``b``: the eight signs byte ``b`` stands for, high bit first (``-1`` for a set bit)."""


_BYTE_SIGNS_INT8 = _BYTE_SIGNS.astype(np.int8)
"""The same table in one byte per sign: what :class:`DrawsAhead` keeps until the signs are used."""


def _random_signs(rng: np.random.Generator, count: int, n: int) -> FloatArray:
    """``count`` independent uniform sign vectors, shape ``(count, n)``."""
    # One random byte yields eight fair signs: far cheaper than a draw per sign. Its eight signs
    # are one row of a table, so the bytes become signs in one pass (a view: the last byte's
    # unused signs stay in memory, past each row's n).
    signs: FloatArray = _BYTE_SIGNS[_sign_bytes(rng, count, n)].reshape(count, -1)[:, :n]
    return signs


def _sign_bytes(rng: np.random.Generator, count: int, n: int) -> npt.NDArray[np.uint8]:
    """The random bytes of ``count`` sign vectors of length ``n``, eight signs a byte."""
    return rng.integers(0, 256, size=(count, (n + 7) // 8), dtype=np.uint8)


def _sign_blocks(seed: int, permutations: int, n: int) -> Iterator[FloatArray]:
    """The Monte Carlo sign vectors of the permutation test, in blocks of at most ``_BLOCK``."""
    rng = np.random.default_rng(seed)
    for start in range(0, permutations, _BLOCK):
        yield _random_signs(rng, min(_BLOCK, permutations - start), n)


def count_extreme(signs: FloatArray, products: Products, threshold: FloatArray) -> FloatArray:
    """Per test, how many sign vectors ``s`` give ``|s . d| >= threshold``."""
    flipped = np.abs(products(signs))  # (P, m) through BLAS
    hits: FloatArray = np.count_nonzero(flipped >= threshold, axis=0).astype(np.float64)
    return hits


def _dense_products(differences: FloatArray) -> Products:
    """``block @ differences.T`` through one BLAS call."""
    transposed = differences.T
    return lambda block: block @ transposed


def paired_permutation_pvalues(
    differences: npt.ArrayLike,
    permutations: int = 10_000,
    seed: int = 0,
    *,
    products: Products | None = None,
    draws: DrawsAhead | None = None,
    counter: ExtremeCounter | None = None,
) -> FloatArray:
    """Two-sided paired sign-flip (randomization) test for each row of ``differences``.

    ``differences`` has shape ``(m, n)``; row ``r`` holds ``d_i = b_i - a_i``.
    H0: the mean difference is 0, so each ``d_i``'s sign is flipped
    independently with probability 1/2. Statistic ``T(s) = |mean(s * d)|``,
    observed ``T = |mean(d)|``, tie tolerance
    ``tol = 1e-12 * max(1, max_i |d_i|)`` (per row).

    * Exact, when ``2**n <= permutations``: all ``2**n`` sign vectors,
      ``p = #{s : T(s) >= T - tol} / 2**n``.
    * Monte Carlo otherwise: ``P = permutations`` sign vectors drawn from
      ``np.random.default_rng(seed)``,
      ``p = (1 + #{s : T(s) >= T - tol}) / (P + 1)``, which is never 0.

    A row of all zeros gets ``p = 1.0``. The same sign vectors are used for
    every row, so each row's p-value does not depend on the other rows.
    ``products`` computes the statistics of a block of sign vectors another way
    (``pair_differences.PairDifferences``; default ``signs @ differences.T``). ``draws``: the same
    sign vectors drawn ahead (:class:`DrawsAhead`, for this ``seed``, ``permutations`` and ``n``).
    ``counter`` counts the extreme statistics of a block another way
    (``pair_differences.PairDifferences.count_extreme``; default: on ``products``).

    Returns the ``m`` p-values as a float64 array.

    Raises ``ValueError`` unless ``differences`` is 2-D and finite with
    ``n >= 1`` and ``permutations`` is an integer ``>= 1``.
    """
    d = _as_differences(differences)
    permutations = _check_count(permutations, "permutations")
    multiply = _dense_products(d) if products is None else products
    count = counter or (lambda signs, limit: count_extreme(signs, multiply, limit))
    n = d.shape[1]
    # Compare sums, not means: |s . d| >= |sum(d)| - n * tol is the same test.
    threshold = np.abs(d.sum(axis=1)) - _tie_tolerance(d)
    counts = np.zeros(d.shape[0], dtype=np.float64)
    p_values: FloatArray
    if _is_exact(n, permutations):
        total = 1 << n
        for start in range(0, total, _BLOCK):
            signs = _enumerated_signs(start, min(start + _BLOCK, total), n)
            counts += count(signs, threshold)
        p_values = counts / total
    else:
        blocks = (
            _sign_blocks(seed, permutations, n)
            if draws is None
            else draws.sign_blocks(seed, permutations, n, reuse=True)
        )
        for signs in blocks:
            counts += count(signs, threshold)
        p_values = (1.0 + counts) / (permutations + 1.0)
    p_values[np.all(d == 0.0, axis=1)] = 1.0
    return p_values


def one_sided_permutation_pvalues(differences: npt.ArrayLike, permutations: int = 10_000, seed: int = 0) -> FloatArray:
    """One-sided paired sign-flip test of H0 "mean(d) <= 0" against "mean(d) > 0", per row.

    The same sign vectors as :func:`paired_permutation_pvalues` (exact when
    ``2**n <= permutations``, else ``permutations`` vectors from
    ``np.random.default_rng(seed)``), with the statistic ``S(s) = s . d``
    and observed ``S = sum(d)``:

    * exact: ``p = #{s : S(s) >= S - n * tol} / 2**n``;
    * Monte Carlo: ``p = (1 + #{s : S(s) >= S - n * tol}) / (P + 1)``;

    ``tol = 1e-12 * max(1, max_i |d_i|)``. For the other direction test ``-d``.
    """
    d = _as_differences(differences)
    permutations = _check_count(permutations, "permutations")
    n = d.shape[1]
    threshold = d.sum(axis=1) - _tie_tolerance(d)
    counts = np.zeros(d.shape[0], dtype=np.float64)
    p_values: FloatArray
    if _is_exact(n, permutations):
        total = 1 << n
        for start in range(0, total, _BLOCK):
            signs = _enumerated_signs(start, min(start + _BLOCK, total), n)
            counts += np.count_nonzero(signs @ d.T >= threshold, axis=0)
        p_values = counts / total
    else:
        rng = np.random.default_rng(seed)
        for start in range(0, permutations, _BLOCK):
            signs = _random_signs(rng, min(_BLOCK, permutations - start), n)
            counts += np.count_nonzero(signs @ d.T >= threshold, axis=0)
        p_values = (1.0 + counts) / (permutations + 1.0)
    return p_values


def paired_permutation_test(
    a: Sequence[float], b: Sequence[float], permutations: int = 10_000, seed: int = 0
) -> PairedTest:
    """Paired sign-flip test of ``d_i = b_i - a_i`` for a single pair of samples.

    ``p_value`` is ``paired_permutation_pvalues([b - a], permutations, seed)[0]``;
    ``mean_difference = sum(b_i - a_i) / n``.

    Raises ``ValueError`` when ``a`` and ``b`` are not 1-D of the same length
    ``n >= 1`` or the arguments are otherwise invalid.
    """
    first = np.asarray(a, dtype=np.float64)
    second = np.asarray(b, dtype=np.float64)
    if first.ndim != 1 or second.ndim != 1:
        raise ValueError("a and b must be 1-D sequences of scores")
    if first.shape != second.shape:
        raise ValueError(f"a and b must be paired (same length); got {first.size} and {second.size}")
    difference = second - first
    p_value = paired_permutation_pvalues(difference[None, :], permutations, seed)[0]
    exact = _is_exact(difference.size, permutations)
    return PairedTest(
        mean_a=float(first.mean()),
        mean_b=float(second.mean()),
        mean_difference=float(difference.mean()),
        p_value=float(p_value),
        permutations=(1 << difference.size) if exact else permutations,
        exact=exact,
    )


# ------------------------------------------------------------- bootstrap


def _resample_counts(rng: np.random.Generator, count: int, n: int) -> FloatArray:
    """``count`` bootstrap resamples as a ``(count, n)`` matrix of draw counts.

    Row ``r``, column ``i`` is how many times question ``i`` was drawn among
    ``n`` draws with replacement; each row sums to ``n``.
    """
    counts: FloatArray = _tally_draws(rng, count, n, np.float64).astype(np.float64, copy=False)
    return counts


def _tally_draws(rng: np.random.Generator, count: int, n: int, dtype: type[np.generic]) -> npt.NDArray[np.generic]:
    """:func:`_resample_counts` as ``dtype`` (the caller makes sure every count fits)."""
    counts = np.empty((count, n), dtype=dtype)
    # Drawn _TALLY_ROWS rows at a time (the same numbers: int64 draws do not depend on how the calls split
    # them), so that the draws fit in memory the allocator reuses instead of 32 MB of fresh pages a block.
    for first in range(0, count, _TALLY_ROWS):
        draws = rng.integers(0, n, size=(min(_TALLY_ROWS, count - first), n), dtype=np.int64)
        # One bincount per row keeps its tally in cache: a third faster than one over every row at once.
        for row, drawn in enumerate(draws, start=first):
            counts[row] = np.bincount(drawn, minlength=n)
    return counts


def _count_blocks(seed: int, resamples: int, n: int) -> Iterator[FloatArray]:
    """The bootstrap's draw counts, in blocks of at most ``_BLOCK`` resamples."""
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, _BLOCK):
        yield _resample_counts(rng, min(_BLOCK, resamples - start), n)


def bootstrap_ci(
    differences: npt.ArrayLike,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
    *,
    products: Products | None = None,
    draws: DrawsAhead | None = None,
) -> FloatArray:
    """Percentile bootstrap confidence interval of the mean difference, per row.

    ``differences`` has shape ``(m, n)``. Each of ``B = resamples`` resamples
    draws ``n`` questions with replacement (from ``np.random.default_rng(seed)``;
    the same questions for every row, keeping rows paired), giving draw counts
    ``w`` with ``sum(w) = n`` and resampled mean ``mean* = (w . d) / n``.
    The interval is ``[Q((1 - c) / 2), Q((1 + c) / 2)]`` where ``c = confidence``
    and ``Q`` is the quantile of the ``B`` resampled means (numpy's default
    ``linear`` method). ``products`` computes ``w . d`` for a block of resamples
    another way (``pair_differences.PairDifferences``; default ``counts @ differences.T``). ``draws``: the
    same draw counts drawn ahead (:class:`DrawsAhead`, for this ``seed``, ``resamples`` and ``n``).

    Returns a float64 array of shape ``(m, 2)``: columns ``(low, high)``.

    Raises ``ValueError`` unless ``differences`` is 2-D and finite with
    ``n >= 1``, ``0 < confidence < 1`` and ``resamples`` is an integer ``>= 1``.
    """
    d = _as_differences(differences)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence!r}")
    resamples = _check_count(resamples, "resamples")
    multiply = _dense_products(d) if products is None else products
    n = d.shape[1]
    # One row of resampled means per row of differences: the quantiles then partition contiguous rows (a
    # third of the time of partitioning the columns of the products' layout; the same values, so the same result).
    means = np.empty((d.shape[0], resamples), dtype=np.float64)
    blocks = _count_blocks(seed, resamples, n) if draws is None else draws.count_blocks(seed, resamples, n, reuse=True)
    start = 0
    for block in blocks:
        means[:, start : start + len(block)] = (multiply(block) / n).T
        start += len(block)
    tails = [(1.0 - confidence) / 2.0, (1.0 + confidence) / 2.0]
    interval = np.asarray(np.quantile(means, tails, axis=1, overwrite_input=True).T, dtype=np.float64)
    # Rounding in w . d can leave a mean a few ulps outside [min d, max d],
    # where no true mean can lie; clipping keeps e.g. constant rows at [c, c].
    return np.clip(interval, d.min(axis=1)[:, None], d.max(axis=1)[:, None])


# ------------------------------------------------------------ draws ahead


class DrawsAhead:
    """The random numbers of both tests for one ``seed`` and ``n`` questions, drawn in a background thread.

    The sign vectors of :func:`paired_permutation_pvalues` (``permutations`` of them) and the draw
    counts of :func:`bootstrap_ci` (``resamples``) do not depend on the differences tested, only on
    the seed and the number of questions. Drawn ahead (by the same generator calls in the same
    order, so they are the same numbers) while something else runs (a sweep's evaluation: Python
    code, or waiting for worker processes), the tests only have to multiply. numpy releases the
    GIL while it draws and tallies. The signs are kept in one byte each and the counts in the
    smallest unsigned type that holds them, as float64 only one block at a time.
    """

    def __init__(self, n: int, permutations: int, resamples: int, seed: int) -> None:
        self.n = _check_count(n, "n")
        self.permutations = _check_count(permutations, "permutations")
        self.resamples = _check_count(resamples, "resamples")
        self.seed = seed
        self._signs: list[npt.NDArray[np.int8]] = []
        self._counts: list[npt.NDArray[np.generic]] = []
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._signs_drawn = threading.Event()

    def start(self) -> None:
        """Start drawing in a daemon thread (once; an exit does not wait for it)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._draw, name="chunkscope-draws", daemon=True)
            self._thread.start()

    def _draw(self) -> None:
        try:
            if not _is_exact(self.n, self.permutations):
                rng = np.random.default_rng(self.seed)
                for start in range(0, self.permutations, _BLOCK):
                    count = min(_BLOCK, self.permutations - start)
                    self._signs.append(_BYTE_SIGNS_INT8[_sign_bytes(rng, count, self.n)].reshape(count, -1))
            self._signs_drawn.set()  # the permutation test, which runs first, needs only these
            rng = np.random.default_rng(self.seed)
            for start in range(0, self.resamples, _BLOCK):
                counts = _tally_draws(rng, min(_BLOCK, self.resamples - start), self.n, _count_type(self.n))
                # A count is at most n, but with thousands of questions almost never above a dozen.
                self._counts.append(counts.astype(np.uint8) if counts.max() <= 255 else counts)
        except BaseException as error:  # raised again where the draws are used
            self._error = error
        finally:
            self._signs_drawn.set()

    def fits(self, n: int, permutations: int, resamples: int, seed: int) -> bool:
        """True when these are the draws of tests on ``n`` questions with these settings."""
        return (n, permutations, resamples, seed) == (self.n, self.permutations, self.resamples, self.seed)

    def join(self) -> None:
        """Wait for the draws (starting them if need be); what failed in the thread is raised here."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _joined(self, seed: int, count: int, expected: int, n: int, *, signs_only: bool = False) -> None:
        if (seed, count, n) != (self.seed, expected, self.n):
            raise ValueError(f"draws ahead are for seed {self.seed}, {expected} draws and n={self.n}")
        if not signs_only:
            self.join()
            return
        self.start()
        self._signs_drawn.wait()
        if self._error is not None:
            raise self._error

    def sign_blocks(self, seed: int, permutations: int, n: int, *, reuse: bool = False) -> Iterator[FloatArray]:
        """The Monte Carlo sign vectors, block by block, as :func:`paired_permutation_pvalues` draws them.

        ``reuse``: every block is written into the same float64 array, valid until the next one is
        drawn (for a caller done with each block before asking for the next).
        """
        self._joined(seed, permutations, self.permutations, n, signs_only=True)
        # The same layout as _random_signs: a view of the first n signs of each row.
        return _as_float64(self._signs, n, reuse)

    def count_blocks(self, seed: int, resamples: int, n: int, *, reuse: bool = False) -> Iterator[FloatArray]:
        """The bootstrap draw counts, block by block, as :func:`bootstrap_ci` draws them (``reuse``: see
        :meth:`sign_blocks`)."""
        self._joined(seed, resamples, self.resamples, n)
        return _as_float64(self._counts, n, reuse)


def _as_float64(blocks: Sequence[npt.NDArray[np.generic]], columns: int, reuse: bool) -> Iterator[FloatArray]:
    """The first ``columns`` columns of each block as float64: new arrays, or one array refilled for each block.

    Refilling spares a fresh allocation of tens of MB per block, whose pages the system must map and zero
    first; the values and their layout (each row's values at the same strides) are the same.
    """
    buffer: FloatArray | None = None
    for block in blocks:
        if not reuse:
            yield block.astype(np.float64)[:, :columns]
            continue
        if buffer is None or buffer.shape[1] != block.shape[1] or len(buffer) < len(block):
            buffer = np.empty(block.shape, dtype=np.float64)
        filled = buffer[: len(block)]
        np.copyto(filled, block)
        yield filled[:, :columns]


def _count_type(n: int) -> type[np.generic]:
    """The smallest unsigned type holding any count of ``n`` draws (a count is at most ``n``)."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if n <= np.iinfo(kind).max:
            return kind
    return np.uint64


# --------------------------------------------------- multiple comparisons


def holm(p_values: Sequence[float]) -> FloatArray:
    """Holm-Bonferroni step-down adjusted p-values, in the input order.

    With ``p_(1) <= ... <= p_(m)`` sorted ascending,
    ``adj_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j))``.
    Empty input gives an empty array.

    Raises ``ValueError`` unless the input is 1-D with every value in ``[0, 1]``.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be 1-D; got {p.ndim}-D")
    if not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError("p_values must lie in [0, 1] (and not be NaN)")
    m = p.size
    order = np.argsort(p, kind="stable")
    multipliers = m - np.arange(m, dtype=np.float64)  # m - j + 1 for 1-based j
    stepped = np.maximum.accumulate(np.minimum(1.0, multipliers * p[order]))
    adjusted = np.empty(m, dtype=np.float64)
    adjusted[order] = stepped
    return adjusted
