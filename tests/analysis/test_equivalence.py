"""Equivalence (TOST): p-values against a separate exact enumeration, verdicts, margins, Holm."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from chunkscope.analysis.comparison import MetricTest
from chunkscope.analysis.equivalence import equivalence_tests, parse_margins
from chunkscope.errors import ChunkscopeError


def _enumerated_tost(d: list[Fraction], margin: Fraction) -> tuple[Fraction, Fraction]:
    """Exact one-sided sign-flip p-values of H0 mean <= -M (on d + M) and H0 mean >= M (on M - d), in fractions."""

    def greater(values: list[Fraction]) -> Fraction:
        observed = sum(values)
        hits = sum(
            1
            for signs in itertools.product((1, -1), repeat=len(values))
            if sum(s * v for s, v in zip(signs, values, strict=True)) >= observed
        )
        return Fraction(hits, 2 ** len(values))

    return greater([x + margin for x in d]), greater([margin - x for x in d])


def _test(metric: str, significant: bool) -> MetricTest:
    return MetricTest(metric, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, significant, True)


CASES = [
    (
        [Fraction(0), Fraction(0), Fraction(1, 10), Fraction(-1, 10), Fraction(0), Fraction(0), Fraction(0)],
        Fraction(1, 5),
    ),
    ([Fraction(1), Fraction(0), Fraction(0), Fraction(-1), Fraction(0), Fraction(1)], Fraction(1, 2)),
    ([Fraction(1), Fraction(1), Fraction(1), Fraction(0), Fraction(1)], Fraction(1, 10)),
    ([Fraction(0)] * 8, Fraction(1, 100)),
]


@pytest.mark.parametrize(("d", "margin"), CASES)
def test_exact_p_values_match_a_separate_enumeration(d: list[Fraction], margin: Fraction) -> None:
    differences = np.array([[float(x) for x in d]])
    (row,) = equivalence_tests([differences], [[_test("m", False)]], {"m": float(margin)}, 1 << 20, 0, 0.05, False)
    (test,) = row
    assert test is not None
    lower, upper = _enumerated_tost(d, margin)
    assert test.p_lower == pytest.approx(float(lower), abs=1e-15)
    assert test.p_upper == pytest.approx(float(upper), abs=1e-15)
    assert test.p_value_raw == max(test.p_lower, test.p_upper)


def test_all_zero_differences_are_equivalent_when_n_allows_it() -> None:
    # 8 zero differences, M = 0.01: d + M is constant 0.01, only the all-plus sign vector reaches the
    # observed sum, so both one-sided p-values are 1/256 < 0.05.
    d = np.zeros((1, 8))
    ((test,),) = equivalence_tests([d], [[_test("m", False)]], {"m": 0.01}, 1 << 20, 0, 0.05, False)
    assert test is not None
    assert test.p_lower == test.p_upper == 1 / 256
    assert test.verdict_text == "equivalent within ±0.01"


def test_verdicts_and_missing_margins() -> None:
    shifted = np.array([[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])  # mean 1: far outside ±0.1
    tests = [_test("far", True), _test("none", False)]
    matrix = np.vstack([shifted, shifted])
    ((far, none),) = equivalence_tests([matrix], [tests], {"far": 0.1}, 1 << 20, 0, 0.05, False)
    assert far is not None and far.verdict == "different"
    assert none is None
    ((small,),) = equivalence_tests([shifted[:, :2] * 0], [[_test("x", False)]], {"x": 0.1}, 1 << 20, 0, 0.05, False)
    assert small is not None and small.verdict == "neither shown"  # n = 2: p = 1/4 at best


def test_holm_adjusts_the_tost_family() -> None:
    d = np.zeros((1, 6))  # each raw TOST p = 1/64
    tests = [[_test("m", False)], [_test("m", False)], [_test("m", False)]]
    rows = equivalence_tests([d, d, d], tests, {"m": 0.5}, 1 << 20, 0, 0.05, True)
    adjusted = [row[0].p_value for row in rows if row[0] is not None]
    assert adjusted == pytest.approx([3 / 64] * 3)


def test_margin_parsing() -> None:
    metrics = ("recall_at_5", "ndcg_at_10")
    assert parse_margins("0.02", metrics) == {"recall_at_5": 0.02, "ndcg_at_10": 0.02}
    assert parse_margins("recall@5=0.02", metrics) == {"recall_at_5": 0.02}
    for bad, message in (
        ("0", "positive"),
        ("x", "a number"),
        ("nope=0.1", "unknown metric"),
        ("recall_at_5=0.1,recall@5=0.2", "twice"),
    ):
        with pytest.raises(ChunkscopeError, match=message):
            parse_margins(bad, metrics)
