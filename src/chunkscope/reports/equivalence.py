"""Equivalence (TOST) report pieces: written only when a margin is given, so other reports keep their bytes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chunkscope.analysis.comparison import Comparison, ComparisonSet
from chunkscope.analysis.equivalence import EquivalenceTest, format_margin
from chunkscope.reports.format import format_p, metric_label

PairEquivalence = tuple[EquivalenceTest | None, ...]
"""One comparison's TOST per metric (``None``: no margin for that metric)."""

METHOD = (
    "two one-sided sign-flip permutation tests of d + M and M - d (TOST); equivalent when max(p_lower, p_upper) < alpha"
)


def test_dict(test: EquivalenceTest) -> dict[str, Any]:
    """One metric's TOST in JSON."""
    return {
        "metric": test.metric,
        "margin": test.margin,
        "delta": test.delta,
        "p_lower": test.p_lower,
        "p_upper": test.p_upper,
        "p_value_raw": test.p_value_raw,
        "p_value": test.p_value,
        "verdict": test.verdict_text,
    }


def compare_dict(tests: PairEquivalence) -> dict[str, Any]:
    """The ``equivalence`` entry of the compare report."""
    return {"method": METHOD, "tests": [test_dict(t) for t in tests if t is not None]}


def sweep_dict(comparisons: ComparisonSet, tests: Sequence[PairEquivalence], correction: str) -> dict[str, Any]:
    """The ``equivalence`` entry of the sweep report: every pair's TOST."""
    return {
        "method": METHOD,
        "correction": correction,
        "pairs": [
            {"a": pair.a.label, "b": pair.b.label, "tests": [test_dict(t) for t in pair_tests if t is not None]}
            for pair, pair_tests in zip(comparisons.pairs, tests, strict=True)
        ],
    }


def csv_columns(tests: PairEquivalence) -> tuple[str, ...]:
    """Compare CSV columns added with a margin: one verdict per metric that has one."""
    return tuple(f"{t.metric}_equivalence" for t in tests if t is not None)


def csv_cells(tests: PairEquivalence) -> list[str]:
    """The verdict cells (the same on every row of a compare CSV)."""
    return [t.verdict_text for t in tests if t is not None]


def markdown_lines(comparison: Comparison, tests: PairEquivalence) -> list[str]:
    """A ``## Equivalence`` table for one comparison."""
    lines = [
        "",
        f"## Equivalence: {comparison.b.label} vs {comparison.a.label}",
        "",
        f"Method: {METHOD} (alpha {comparison.alpha}).",
        "",
        "| metric | margin | Δ (B − A) | p lower | p upper | p | verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for t in tests:
        if t is None:
            continue
        lines.append(
            f"| {metric_label(t.metric)} | ±{format_margin(t.margin)} | {t.delta:+.4f} | {format_p(t.p_lower)} | "
            f"{format_p(t.p_upper)} | {format_p(t.p_value)} | {t.verdict_text} |"
        )
    return lines


def sweep_markdown_lines(comparisons: ComparisonSet, tests: Sequence[PairEquivalence]) -> list[str]:
    """Every pair's verdicts, one row per (pair, metric) with a margin."""
    lines = [
        "",
        "## Equivalence",
        "",
        f"Method: {METHOD} (alpha {comparisons.alpha}; Holm over every pair and metric with a margin).",
        "",
        "| A | B | metric | margin | Δ (B − A) | p | verdict |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for pair, pair_tests in zip(comparisons.pairs, tests, strict=True):
        for t in pair_tests:
            if t is not None:
                lines.append(
                    f"| {pair.a.label} | {pair.b.label} | {metric_label(t.metric)} | ±{format_margin(t.margin)} | "
                    f"{t.delta:+.4f} | {format_p(t.p_value)} | {t.verdict_text} |"
                )
    return lines
