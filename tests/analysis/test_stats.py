"""Tests for chunkscope.analysis.stats: checked against hand computations and pure-Python references."""

from __future__ import annotations

import ast
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.analysis import pair_differences, stats
from chunkscope.analysis.pair_differences import PairDifferences
from chunkscope.analysis.stats import (
    DrawsAhead,
    PairedTest,
    bootstrap_ci,
    holm,
    paired_permutation_pvalues,
    paired_permutation_test,
)

# ------------------------------------------------------- pure-Python references


def brute_force_pvalue(d: list[float]) -> float:
    """Exact sign-flip p-value by enumerating every sign vector in plain Python."""
    n = len(d)
    observed = abs(sum(d) / n)
    tol = 1e-12 * max(1.0, max(abs(x) for x in d))
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=n):
        flipped = abs(sum(s * x for s, x in zip(signs, d, strict=True)) / n)
        if flipped >= observed - tol:
            hits += 1
    return hits / float(1 << n)


def reference_holm(p: list[float]) -> list[float]:
    """Holm adjustment written straight from the definition, O(m^2)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    adjusted = [0.0] * m
    for rank, index in enumerate(order, start=1):
        adjusted[index] = max(min(1.0, (m - j + 1) * p[order[j - 1]]) for j in range(1, rank + 1))
    return adjusted


# ------------------------------------------------------------ exact enumeration

TINY_CASES = [
    [0.7],
    [-2.0],
    [0.0],
    [1.0, 1.0],
    [1.0, -1.0],
    [1.0, 2.0, 3.0],
    [0.0, 0.0, 1.0],
    [1.0, 1.0, 1.0, -1.0],
    [0.1, -0.1, 0.3, 0.0],
    [1.0, 0.0, 2.0, 0.0, -3.0],
    [0.25, 0.5, -0.25, 0.5, 0.25, 0.0],
    [0.1, 0.2, 0.3, -0.6, 0.05, 0.0, 0.4],
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    [3.0, -1.0, 2.0, 0.0, 0.5, -0.5, 1.5, -2.0],
]


@pytest.mark.parametrize("d", TINY_CASES)
def test_exact_enumeration_matches_brute_force(d: list[float]) -> None:
    p = paired_permutation_pvalues(np.array([d]), permutations=256)
    assert p.shape == (1,)
    assert p[0] == pytest.approx(brute_force_pvalue(d), abs=1e-12)


def test_exact_enumeration_matches_brute_force_for_all_rows_at_once() -> None:
    padded = [case + [0.0] * (8 - len(case)) for case in TINY_CASES]
    p = paired_permutation_pvalues(np.array(padded), permutations=256)
    expected = [brute_force_pvalue(case) for case in padded]
    np.testing.assert_allclose(p, expected, rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=-4, max_value=4), min_size=1, max_size=8))
def test_exact_enumeration_matches_brute_force_on_integers(values: list[int]) -> None:
    # Small integers make every sum exact, so ties are genuine and frequent.
    d = [float(v) for v in values]
    p = paired_permutation_pvalues(np.array([d]), permutations=1_000)
    assert p[0] == pytest.approx(brute_force_pvalue(d), abs=1e-12)


def test_hand_computed_three_values() -> None:
    # d = [1, 2, 3], mean 2. The 8 sign vectors give sums
    #   +++ 6, ++- 0, +-+ 2, +-- -4, -++ 4, -+- -2, --+ 0, --- -6,
    # i.e. |mean| = 2, 0, 2/3, 4/3, 4/3, 2/3, 0, 2. Only +++ and --- reach
    # |mean| >= 2, so p = 2/8 = 0.25.
    p = paired_permutation_pvalues(np.array([[1.0, 2.0, 3.0]]), permutations=8)
    assert p[0] == 0.25


def test_hand_computed_single_value_is_one() -> None:
    # n = 1: sign vectors + and - both give |mean| = |d|, so p = 2/2 = 1.
    p = paired_permutation_pvalues(np.array([[5.0]]), permutations=10)
    assert p[0] == 1.0


def test_hand_computed_all_positive_eight() -> None:
    # d = eight 1s: only all-plus and all-minus reach |mean| = 1, p = 2/256.
    p = paired_permutation_pvalues(np.ones((1, 8)), permutations=256)
    assert p[0] == 2 / 256


def test_zeros_do_not_change_the_exact_pvalue() -> None:
    # Flipping a zero changes nothing, so padding with zeros only multiplies
    # both the hit count and 2**n by the same power of two.
    base = paired_permutation_pvalues(np.array([[1.0, 2.0, 3.0]]), permutations=64)
    padded = paired_permutation_pvalues(np.array([[1.0, 0.0, 2.0, 0.0, 3.0, 0.0]]), permutations=64)
    assert padded[0] == base[0] == 0.25


def test_all_zero_differences_give_one() -> None:
    zeros = np.zeros((2, 20))
    np.testing.assert_array_equal(paired_permutation_pvalues(zeros, permutations=50), [1, 1])
    np.testing.assert_array_equal(paired_permutation_pvalues(zeros[:, :4], permutations=50), [1, 1])


# ------------------------------------------------------------------ Monte Carlo


def test_monte_carlo_close_to_exact() -> None:
    rng = np.random.default_rng(123)
    d = rng.normal(0.3, 1.0, size=(6, 12))
    d[1] = rng.normal(0.0, 1.0, size=12)
    d[2] = np.arange(-5.0, 7.0)  # integer values: many exact ties
    exact = paired_permutation_pvalues(d, permutations=4096)  # 2**12: enumerated
    permutations = 1000  # < 2**12: forces Monte Carlo
    approx = paired_permutation_pvalues(d, permutations=permutations, seed=7)
    for p_exact, p_mc in zip(exact, approx, strict=True):
        # The hit count is Binomial(P, p), so the estimate has standard error
        # sqrt(p (1 - p) / P) <= 0.0159 at P = 1000; the add-one estimator adds
        # a bias of at most 1 / (P + 1). Allow 5 standard errors plus that bias.
        se = math.sqrt(max(p_exact * (1 - p_exact), 0.25 / permutations) / permutations)
        assert abs(p_mc - p_exact) <= 5 * se + 1 / (permutations + 1)
    assert 0.0 < exact.min() < 0.2 < exact.max()  # the rows span a useful range


def test_monte_carlo_uses_exactly_the_requested_permutations() -> None:
    # p * (P + 1) must be the integer 1 + hits; P = 2_345 spans partial blocks.
    rng = np.random.default_rng(5)
    d = rng.normal(0.05, 1.0, size=(4, 40))
    permutations = 2_345
    p = paired_permutation_pvalues(d, permutations=permutations, seed=3)
    scaled = p * (permutations + 1)
    np.testing.assert_allclose(scaled, np.round(scaled), atol=1e-6)
    assert np.all(scaled >= 1)


def test_monte_carlo_never_returns_zero() -> None:
    # A huge effect is never matched by a random sign vector, leaving 1 / (P + 1).
    p = paired_permutation_pvalues(np.ones((1, 64)), permutations=99)
    assert p[0] == 1 / 100


def test_monte_carlo_is_reproducible_and_seed_dependent() -> None:
    rng = np.random.default_rng(11)
    d = rng.normal(0.1, 1.0, size=(5, 300))
    first = paired_permutation_pvalues(d, permutations=2_000, seed=42)
    again = paired_permutation_pvalues(d, permutations=2_000, seed=42)
    other = paired_permutation_pvalues(d, permutations=2_000, seed=43)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_rows_share_signs_so_each_row_is_independent_of_the_others() -> None:
    rng = np.random.default_rng(2)
    d = rng.normal(0.1, 1.0, size=(7, 50))
    together = paired_permutation_pvalues(d, permutations=1_500, seed=9)
    for row in range(d.shape[0]):
        alone = paired_permutation_pvalues(d[row : row + 1], permutations=1_500, seed=9)
        assert alone[0] == together[row]


def test_sign_of_difference_does_not_matter() -> None:
    # Two-sided: negating d flips every statistic's sign but not its magnitude.
    rng = np.random.default_rng(4)
    d = rng.normal(0.2, 1.0, size=(3, 30))
    np.testing.assert_array_equal(
        paired_permutation_pvalues(d, permutations=500, seed=1),
        paired_permutation_pvalues(-d, permutations=500, seed=1),
    )


def test_accepts_nested_lists_and_returns_float_array() -> None:
    p = paired_permutation_pvalues([[1, 2, 3]], permutations=8)
    assert p.dtype == np.float64
    assert p.tolist() == [0.25]


# ---------------------------------------------------- paired_permutation_test


def test_paired_test_exact_fields() -> None:
    result = paired_permutation_test([0.0, 0.0, 0.0], [1.0, 2.0, 3.0], permutations=8)
    assert result == PairedTest(
        mean_a=0.0,
        mean_b=2.0,
        mean_difference=2.0,
        p_value=0.25,
        permutations=8,
        exact=True,
    )


def test_paired_test_switches_to_monte_carlo_above_the_budget() -> None:
    result = paired_permutation_test([0.0, 0.0, 0.0], [1.0, 2.0, 3.0], permutations=7)
    assert not result.exact
    assert result.permutations == 7
    assert result.p_value * 8 == pytest.approx(round(result.p_value * 8))


def test_paired_test_difference_is_b_minus_a() -> None:
    result = paired_permutation_test([0.5, 0.5], [0.25, 0.0], permutations=100)
    assert result.mean_a == 0.5
    assert result.mean_b == 0.125
    assert result.mean_difference == -0.375
    assert result.exact and result.permutations == 4


def test_paired_test_agrees_with_matrix_version() -> None:
    rng = np.random.default_rng(8)
    a = rng.random(200)
    b = a + rng.normal(0.05, 0.2, size=200)
    result = paired_permutation_test(a.tolist(), b.tolist(), permutations=800, seed=5)
    expected = paired_permutation_pvalues((b - a)[None, :], permutations=800, seed=5)[0]
    assert result.p_value == expected
    assert result.mean_difference == pytest.approx(float(np.mean(b - a)))


def test_paired_test_is_frozen() -> None:
    result = paired_permutation_test([0.0], [1.0])
    with pytest.raises(AttributeError):
        result.p_value = 0.0  # type: ignore[misc]


# -------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("c", [0.0, 0.5, -0.25, 0.1, 1 / 3])
def test_bootstrap_constant_differences_give_a_point(c: float) -> None:
    ci = bootstrap_ci(np.full((2, 37), c), resamples=500)
    np.testing.assert_array_equal(ci, [[c, c], [c, c]])


def test_bootstrap_single_question_gives_a_point() -> None:
    np.testing.assert_array_equal(bootstrap_ci(np.array([[0.7]]), resamples=50), [[0.7, 0.7]])


def test_bootstrap_two_questions_hand_computed() -> None:
    # d = [0, 1]: a resample of 2 draws has mean 0 (prob 1/4), 0.5 (1/2) or
    # 1 (1/4). With 10,000 resamples each share is within 0.02 of that (about
    # 5 standard errors of 0.0043), so the empirical CDF jumps near 0.25 and
    # 0.75:
    #   c = 0.6 -> quantiles 0.2 and 0.8, outside the 0.5 block -> [0, 1];
    #   c = 0.4 -> quantiles 0.3 and 0.7, inside the 0.5 block  -> [0.5, 0.5].
    d = np.array([[0.0, 1.0]])
    np.testing.assert_array_equal(bootstrap_ci(d, confidence=0.6), [[0.0, 1.0]])
    np.testing.assert_array_equal(bootstrap_ci(d, confidence=0.4), [[0.5, 0.5]])


def test_bootstrap_contains_the_mean_and_is_ordered() -> None:
    rng = np.random.default_rng(21)
    d = rng.normal(rng.normal(size=(10, 1)), 1.0, size=(10, 150))
    ci = bootstrap_ci(d, resamples=2_000)
    means = d.mean(axis=1)
    assert ci.shape == (10, 2)
    assert np.all(ci[:, 0] <= means)
    assert np.all(means <= ci[:, 1])


def test_bootstrap_width_matches_normal_theory() -> None:
    # For the mean of n = 400 draws with sd 1 the 95% interval is about
    # 2 * 1.96 / sqrt(400) = 0.196 wide; the bootstrap should agree within 15%.
    rng = np.random.default_rng(31)
    d = rng.normal(0.0, 1.0, size=(3, 400))
    ci = bootstrap_ci(d, resamples=4_000)
    widths = ci[:, 1] - ci[:, 0]
    expected = 2 * 1.96 * d.std(axis=1, ddof=1) / math.sqrt(400)
    np.testing.assert_allclose(widths, expected, rtol=0.15)


def test_bootstrap_higher_confidence_is_wider() -> None:
    rng = np.random.default_rng(6)
    d = rng.normal(0.0, 1.0, size=(4, 120))
    narrow = bootstrap_ci(d, confidence=0.8, resamples=1_000, seed=3)
    wide = bootstrap_ci(d, confidence=0.99, resamples=1_000, seed=3)
    assert np.all(wide[:, 0] < narrow[:, 0])
    assert np.all(narrow[:, 1] < wide[:, 1])


def test_bootstrap_is_reproducible_and_seed_dependent() -> None:
    rng = np.random.default_rng(13)
    d = rng.normal(0.0, 1.0, size=(3, 90))
    first = bootstrap_ci(d, resamples=1_500, seed=1)
    np.testing.assert_array_equal(first, bootstrap_ci(d, resamples=1_500, seed=1))
    assert not np.array_equal(first, bootstrap_ci(d, resamples=1_500, seed=2))


def test_bootstrap_rows_share_resamples() -> None:
    rng = np.random.default_rng(17)
    d = rng.normal(0.0, 1.0, size=(4, 60))
    together = bootstrap_ci(d, resamples=1_200, seed=4)
    for row in range(4):
        alone = bootstrap_ci(d[row : row + 1], resamples=1_200, seed=4)
        # Same resamples; only BLAS summation order may differ between shapes.
        np.testing.assert_allclose(alone[0], together[row], rtol=0, atol=1e-12)


def test_bootstrap_of_a_shifted_row_is_shifted() -> None:
    # Shared resamples: row d + 1 resamples the same questions as row d.
    rng = np.random.default_rng(19)
    base = rng.normal(0.0, 1.0, size=80)
    ci = bootstrap_ci(np.stack([base, base + 1.0]), resamples=1_000)
    np.testing.assert_allclose(ci[1], ci[0] + 1.0, atol=1e-12)


# ------------------------------------------------- sign vectors and resamples


def test_random_signs_are_the_bits_of_the_random_bytes() -> None:
    # Reference: the same bytes from the same seed, each bit read in plain Python, high bit first.
    n = 21
    signs = stats._random_signs(np.random.default_rng(8), 5, n)
    packed = np.random.default_rng(8).integers(0, 256, size=(5, 3), dtype=np.uint8)
    expected = [[-1.0 if (int(packed[row][j // 8]) >> (7 - j % 8)) & 1 else 1.0 for j in range(n)] for row in range(5)]
    assert signs.tolist() == expected


def test_resample_counts_tally_the_draws() -> None:
    n = 13
    counts = stats._resample_counts(np.random.default_rng(6), 4, n)
    draws = np.random.default_rng(6).integers(0, n, size=(4, n), dtype=np.int64)
    expected = [[float(list(row).count(question)) for question in range(n)] for row in draws.tolist()]
    assert counts.tolist() == expected


def test_resample_counts_are_the_same_whatever_the_rows_drawn_per_call() -> None:
    # More resamples than one call draws: the tally still follows the one stream of draws, row after row.
    n, count = 9, 3 * stats._TALLY_ROWS + 5
    counts = stats._resample_counts(np.random.default_rng(11), count, n)
    draws = np.random.default_rng(11).integers(0, n, size=(count, n), dtype=np.int64)
    expected = [[float(list(row).count(question)) for question in range(n)] for row in draws.tolist()]
    assert counts.tolist() == expected


# ------------------------------------------------------- paired differences

PAIRS = [(0, 1), (0, 2), (1, 2), (2, 0)]


def pair_values(seed: int, configs: int = 3, n: int = 40) -> np.ndarray:
    """Per configuration: a hit metric (0/1), a fractional one and a count metric, shape (c, 3, n)."""
    rng = np.random.default_rng(seed)
    hits = (rng.random((configs, n)) < 0.6).astype(np.float64)
    fractions = 1.0 / rng.integers(1, 11, size=(configs, n))
    counts = rng.integers(0, 500, size=(configs, n)).astype(np.float64)
    return np.stack([hits, fractions, counts], axis=1)


def test_pair_differences_rows_are_b_minus_a_pair_major() -> None:
    values = pair_values(1)
    paired = PairDifferences.of(values, PAIRS)
    expected = [values[j][m] - values[i][m] for i, j in PAIRS for m in range(3)]
    np.testing.assert_array_equal(paired.differences, np.array(expected))


@pytest.mark.parametrize("block_seed", [0, 1, 2])
def test_pair_products_equal_the_dense_products(block_seed: int) -> None:
    values = pair_values(3)
    paired = PairDifferences.of(values, PAIRS)
    rng = np.random.default_rng(block_seed)
    for block in (stats._random_signs(rng, 30, 40), stats._resample_counts(rng, 30, 40)):
        np.testing.assert_array_equal(paired.products(block), block @ paired.differences.T)


def test_pair_products_of_whole_numbers_only() -> None:
    values = pair_values(4)[:, [0, 2]]
    paired = PairDifferences.of(values, PAIRS)
    block = stats._resample_counts(np.random.default_rng(5), 12, 40)
    expected = [[sum(w * d for w, d in zip(row, diff, strict=True)) for diff in paired.differences] for row in block]
    assert paired.products(block).tolist() == expected


def test_tests_with_pair_products_equal_the_plain_tests() -> None:
    paired = PairDifferences.of(pair_values(6, n=50), PAIRS)
    d = paired.differences
    np.testing.assert_array_equal(
        paired_permutation_pvalues(d, 1_500, 2, products=paired.products), paired_permutation_pvalues(d, 1_500, 2)
    )
    np.testing.assert_array_equal(
        bootstrap_ci(d, 0.95, 2_500, 2, products=paired.products), bootstrap_ci(d, 0.95, 2_500, 2)
    )


def many_configs(seed: int, configs: int = 6, n: int = 60) -> np.ndarray:
    """Shape (c, 3, n): a hit metric, a fraction 1/r and an overlap-like ratio, close across configurations."""
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    hits = (rng.random((configs, n)) < 0.7).astype(np.float64)
    fractions = 1.0 / rng.integers(1, 11, size=(configs, n))
    ratios = np.clip(base + rng.normal(0.0, 0.05, size=(configs, n)) * (rng.random((configs, n)) < 0.3), 0.0, 1.0)
    return np.stack([hits, fractions, ratios], axis=1)


ALL_PAIRS = list(itertools.combinations(range(6), 2))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_extreme_counts_from_configurations_equal_the_counts_on_the_products(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reference: count |s . d| >= threshold on the pair products themselves, as the test did before.
    paired = PairDifferences.of(many_configs(seed), ALL_PAIRS)
    d = paired.differences
    threshold = np.abs(d.sum(axis=1)) - stats._tie_tolerance(d)
    signs = stats._random_signs(np.random.default_rng(seed), 200, d.shape[1])
    expected = np.count_nonzero(np.abs(signs @ d.T) >= threshold, axis=0)

    def no_products(*args: object) -> None:
        raise AssertionError("counted on the pair products")

    monkeypatch.setattr(pair_differences, "count_extreme", no_products)  # every count comes from the configurations
    np.testing.assert_array_equal(paired.count_extreme(signs, threshold), expected)


def test_extreme_counts_at_the_threshold_itself_are_counted_on_the_products() -> None:
    # Thresholds set to statistics themselves: too close to tell from the bound, so the products decide.
    paired = PairDifferences.of(many_configs(4), ALL_PAIRS)
    d = paired.differences
    signs = stats._random_signs(np.random.default_rng(4), 50, d.shape[1])
    exact = np.abs(signs @ d.T)
    threshold = exact[7].copy()
    expected = np.count_nonzero(exact >= threshold, axis=0)
    assert expected.min() >= 1  # sign vector 7 itself reaches every threshold
    np.testing.assert_array_equal(paired.count_extreme(signs, threshold), expected)


def test_permutation_p_values_with_the_configuration_counts_equal_the_plain_ones() -> None:
    paired = PairDifferences.of(many_configs(5, n=70), ALL_PAIRS)
    d = paired.differences
    plain = paired_permutation_pvalues(d, 2_500, 9)
    counted = paired_permutation_pvalues(d, 2_500, 9, products=paired.products, counter=paired.count_extreme)
    np.testing.assert_array_equal(counted, plain)
    small = PairDifferences.of(many_configs(6, n=9), ALL_PAIRS)  # 2**9 <= permutations: exact enumeration
    np.testing.assert_array_equal(
        paired_permutation_pvalues(small.differences, 1_000, 0, counter=small.count_extreme),
        paired_permutation_pvalues(small.differences, 1_000, 0),
    )


def test_few_configurations_count_on_the_products() -> None:
    # Three configurations have three pairs: per-configuration products would not be fewer.
    paired = PairDifferences.of(pair_values(7), PAIRS[:3])
    d = paired.differences
    threshold = np.abs(d.sum(axis=1))
    signs = stats._random_signs(np.random.default_rng(7), 40, d.shape[1])
    expected = np.count_nonzero(np.abs(signs @ d.T) >= threshold, axis=0)
    np.testing.assert_array_equal(paired.count_extreme(signs, threshold), expected)


# ------------------------------------------------------------------ draws ahead


@pytest.mark.parametrize("n", [40, 11])
def test_draws_ahead_give_the_same_tests(n: int) -> None:
    d = PairDifferences.of(pair_values(8, n=n), PAIRS).differences
    draws = DrawsAhead(n, 2_500, 2_200, 5)
    draws.start()
    np.testing.assert_array_equal(
        paired_permutation_pvalues(d, 2_500, 5, draws=draws), paired_permutation_pvalues(d, 2_500, 5)
    )
    np.testing.assert_array_equal(bootstrap_ci(d, 0.95, 2_200, 5, draws=draws), bootstrap_ci(d, 0.95, 2_200, 5))
    # The draws stay: a second use gives the same numbers again.
    np.testing.assert_array_equal(bootstrap_ci(d, 0.9, 2_200, 5, draws=draws), bootstrap_ci(d, 0.9, 2_200, 5))


def test_draws_ahead_are_the_blocks_drawn_in_place() -> None:
    draws = DrawsAhead(300, 1_500, 1_200, 3)  # started by the first use
    signs = list(draws.sign_blocks(3, 1_500, 300))
    counts = list(draws.count_blocks(3, 1_200, 300))
    rng = np.random.default_rng(3)
    expected_signs = [stats._random_signs(rng, 1_000, 300), stats._random_signs(rng, 500, 300)]
    rng = np.random.default_rng(3)
    expected_counts = [stats._resample_counts(rng, 1_000, 300), stats._resample_counts(rng, 200, 300)]
    for got, expected in zip([*signs, *counts], [*expected_signs, *expected_counts], strict=True):
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)


def test_reused_draws_ahead_are_the_same_blocks_one_at_a_time() -> None:
    draws = DrawsAhead(300, 1_500, 1_200, 3)
    fresh = [*draws.sign_blocks(3, 1_500, 300), *draws.count_blocks(3, 1_200, 300)]
    reused = [
        (block.copy(), block.strides)  # a refilled block is valid until the next one is drawn
        for blocks in (draws.sign_blocks(3, 1_500, 300, reuse=True), draws.count_blocks(3, 1_200, 300, reuse=True))
        for block in blocks
    ]
    assert len(reused) == len(fresh) == 4
    for (copy, strides), expected in zip(reused, fresh, strict=True):
        assert copy.dtype == np.float64 and strides == expected.strides
        np.testing.assert_array_equal(copy, expected)


def test_draws_ahead_for_other_settings_are_refused() -> None:
    draws = DrawsAhead(40, 1_000, 1_000, 0)
    assert draws.fits(40, 1_000, 1_000, 0)
    assert not draws.fits(41, 1_000, 1_000, 0)
    assert not draws.fits(40, 1_000, 1_000, 1)
    d = np.ones((1, 41))
    with pytest.raises(ValueError, match="draws ahead"):
        paired_permutation_pvalues(d, 1_000, 0, draws=draws)


def test_a_failure_while_drawing_ahead_is_raised_where_the_draws_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> None:
        raise MemoryError("no room for the draws")

    monkeypatch.setattr(stats, "_tally_draws", fail)
    draws = DrawsAhead(40, 2_000, 2_000, 0)
    draws.start()
    with pytest.raises(MemoryError, match="no room"):
        bootstrap_ci(np.ones((1, 40)), 0.95, 2_000, 0, draws=draws)
    with pytest.raises(MemoryError, match="no room"):
        paired_permutation_pvalues(np.ones((1, 40)), 2_000, 0, draws=draws)


def test_count_types_hold_every_possible_count() -> None:
    assert stats._count_type(255) is np.uint8
    assert stats._count_type(256) is np.uint16
    assert stats._count_type(70_000) is np.uint32


# ------------------------------------------------------------------------- Holm


def test_holm_textbook_example() -> None:
    # m = 4, p = [0.01, 0.04, 0.03, 0.005]. Sorted: 0.005, 0.01, 0.03, 0.04.
    #   4 * 0.005 = 0.02, 3 * 0.01 = 0.03, 2 * 0.03 = 0.06, 1 * 0.04 = 0.04.
    # Running maximum: 0.02, 0.03, 0.06, 0.06 (0.04 is raised to 0.06).
    # Back in input order: 0.01 -> 0.03, 0.04 -> 0.06, 0.03 -> 0.06, 0.005 -> 0.02.
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02], rtol=0, atol=1e-15)


def test_holm_clips_at_one() -> None:
    # Sorted 0.2, 0.4, 0.6: 3 * 0.2 = 0.6, 2 * 0.4 = 0.8, 1 * 0.6 = 0.6 -> 0.8.
    np.testing.assert_allclose(holm([0.6, 0.2, 0.4]), [0.8, 0.6, 0.8], atol=1e-15)
    # 0.5 * 3 = 1.5 -> 1, and the running maximum keeps the rest at 1.
    np.testing.assert_array_equal(holm([0.5, 0.7, 0.9]), [1.0, 1.0, 1.0])


def test_holm_edge_cases() -> None:
    assert holm([]).shape == (0,)
    assert holm([0.03]).tolist() == [0.03]
    np.testing.assert_allclose(holm([0.01, 0.01]), [0.02, 0.02])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=30))
def test_holm_matches_reference(p: list[float]) -> None:
    adjusted = holm(p)
    np.testing.assert_allclose(adjusted, reference_holm(p), rtol=0, atol=1e-15)
    assert np.all(adjusted >= np.asarray(p, dtype=np.float64))
    assert np.all(adjusted <= 1.0)


# ------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("differences", "message"),
    [
        (np.array([1.0, 2.0]), "2-D"),
        (np.zeros((1, 2, 3)), "2-D"),
        (np.zeros((2, 0)), "at least one question"),
        (np.array([[1.0, np.nan]]), "finite"),
        (np.array([[np.inf, 1.0]]), "finite"),
    ],
)
def test_invalid_differences(differences: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        paired_permutation_pvalues(differences)
    with pytest.raises(ValueError, match=message):
        bootstrap_ci(differences)


@pytest.mark.parametrize("permutations", [0, -5, 1.5, True])
def test_invalid_permutations(permutations: int) -> None:
    with pytest.raises(ValueError, match="permutations"):
        paired_permutation_pvalues(np.ones((1, 3)), permutations=permutations)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5, float("nan")])
def test_invalid_confidence(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci(np.ones((1, 3)), confidence=confidence)


@pytest.mark.parametrize("resamples", [0, -1, 2.0])
def test_invalid_resamples(resamples: int) -> None:
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_ci(np.ones((1, 3)), resamples=resamples)


def test_invalid_paired_samples() -> None:
    with pytest.raises(ValueError, match="same length"):
        paired_permutation_test([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="1-D"):
        paired_permutation_test([[1.0]], [[2.0]])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="at least one question"):
        paired_permutation_test([], [])


@pytest.mark.parametrize("p", [[0.5, 1.5], [-0.1], [float("nan")], [[0.1, 0.2]]])
def test_invalid_holm_input(p: list[float]) -> None:
    with pytest.raises(ValueError, match="p_values"):
        holm(p)


def test_module_does_not_import_ui_libraries() -> None:
    tree = ast.parse(Path(stats.__file__).read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "collections", "dataclasses", "numpy", "threading"}
