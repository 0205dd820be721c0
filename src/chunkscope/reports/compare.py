"""Comparison reports (``chunkscope compare``) as JSON, CSV and Markdown.

Every JSON report carries the provenance of :func:`chunkscope.reports.eval.provenance`
(chunkscope version, input files with SHA-256, metric policy) and states that
"not significant" does not mean "equal". Every test carries ``p_value`` (Holm
adjusted where a correction applies) and ``p_value_raw``. Metric labels come
from :data:`chunkscope.metrics.registry.REGISTRY`; sweep reports are in
:mod:`chunkscope.reports.sweep`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.comparison import NOT_SIGNIFICANT_NOTE, STATES, Comparison, MetricTest
from chunkscope.analysis.diagnose import diagnose, diagnosis_dict
from chunkscope.io.sources import Dataset
from chunkscope.reports.equivalence import PairEquivalence
from chunkscope.reports.equivalence import compare_dict as equivalence_dict
from chunkscope.reports.equivalence import csv_cells as equivalence_csv_cells
from chunkscope.reports.equivalence import csv_columns as equivalence_csv_columns
from chunkscope.reports.equivalence import markdown_lines as equivalence_markdown
from chunkscope.reports.eval import config_dict, inline, provenance
from chunkscope.reports.format import format_p, metric_label, verdict
from chunkscope.reports.rerank import RerankEffects, rerank_dict
from chunkscope.reports.rerank import compare_csv_columns as rerank_compare_columns
from chunkscope.reports.rerank import csv_cells as rerank_csv_cells
from chunkscope.reports.rerank import markdown_section as rerank_markdown
from chunkscope.results import Config, ConfigResult


def config_ref(config: Config) -> dict[str, Any]:
    """A configuration's identity: label plus every field (the budget's unit only when it counts tokens)."""
    entry: dict[str, Any] = {
        "label": config.label,
        "chunker": config.chunker,
        "retriever": config.retriever,
        "top_k": config.top_k,
        "budget": config.budget,
        "overflow": config.overflow,
    }
    if config.budget_tokenizer is not None:
        entry |= {"budget_unit": config.budget_unit, "budget_tokenizer": config.budget_tokenizer}
    return entry


def test_dict(test: MetricTest) -> dict[str, Any]:
    """One metric test as plain JSON values."""
    return {
        "metric": test.metric,
        "mean_a": test.mean_a,
        "mean_b": test.mean_b,
        "delta": test.delta,
        "ci95": [test.ci_low, test.ci_high],
        "p_value": test.p_value,
        "p_value_raw": test.p_value_raw,
        "significant": test.significant,
        "exact": test.exact,
    }


def comparison_dict(comparison: Comparison, with_moves: bool = True, with_tags: bool = True) -> dict[str, Any]:
    """A comparison as plain JSON values; per-tag comparisons nested under ``by_tag``."""
    entry: dict[str, Any] = {
        "a": config_ref(comparison.a),
        "b": config_ref(comparison.b),
        "group": comparison.group,
        "questions": comparison.questions,
        "counts": {
            "better": comparison.better,
            "worse": comparison.worse,
            "same": comparison.same,
            "recovered": comparison.recovered,
            "newly_lost": comparison.newly_lost,
            "complete_gained": comparison.complete_gained,
            "complete_lost": comparison.complete_lost,
        },
        "transitions": {"states": list(STATES), "rows_a_columns_b": [list(row) for row in comparison.transitions]},
        "tests": [test_dict(test) for test in comparison.tests],
        "test_settings": {
            "test": "two-sided paired sign-flip permutation test of the mean difference",
            "permutations": comparison.permutations,
            "bootstrap_resamples": comparison.resamples,
            "seed": comparison.seed,
            "alpha": comparison.alpha,
            "correction": comparison.correction,
            "family_size": comparison.family_size,
        },
    }
    if with_moves:
        entry["moved"] = [
            {
                "id": move.question_id,
                "rank_a": move.rank_a,
                "rank_b": move.rank_b,
                "state_a": move.state_a,
                "state_b": move.state_b,
                "movement": move.movement,
                "recovered": move.recovered,
                "newly_lost": move.newly_lost,
                "complete_a": move.complete_a,
                "complete_b": move.complete_b,
                "cause_a": move.cause_a.value,
                "cause_b": move.cause_b.value,
            }
            for move in comparison.moved
        ]
    if with_tags and comparison.by_tag:
        entry["by_tag"] = [comparison_dict(group, with_moves=False) for group in comparison.by_tag]
    return entry


def summary_entry(result: ConfigResult) -> dict[str, Any]:
    """A configuration's summary and diagnosis, without per-question results, with its label."""
    entry = config_dict(result, with_questions=False)
    entry.setdefault("diagnosis", diagnosis_dict(diagnose(result)))
    entry["label"] = result.config.label
    return entry


def compare_report(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    comparison: Comparison,
    equivalence: PairEquivalence | None = None,
    rerank: RerankEffects | None = None,
) -> dict[str, Any]:
    """The ``chunkscope compare`` JSON report: provenance, both summaries, the comparison.

    ``equivalence`` (with ``--equivalence-margin``) and ``rerank`` (when a configuration reranks) add
    their entries; without them the report is as it always was.
    """
    report = {
        **provenance(dataset),
        "note": NOT_SIGNIFICANT_NOTE,
        "configs": [summary_entry(result) for result in results],
        "comparison": comparison_dict(comparison),
        "excluded_questions": dataset.questions.excluded,
    }
    if equivalence is not None:
        report["equivalence"] = equivalence_dict(equivalence)
    if rerank:
        report["rerank"] = [
            {"config": r.config.label, **rerank_dict(rerank[r.config])} for r in results if r.config in rerank
        ]
    return report


COMPARE_CSV_COLUMNS = (
    "question",
    "rank_a",
    "rank_b",
    "state_a",
    "state_b",
    "movement",
    "recovered",
    "newly_lost",
    "complete_a",
    "complete_b",
    "cause_a",
    "cause_b",
)


def compare_csv(
    comparison: Comparison, equivalence: PairEquivalence | None = None, rerank: RerankEffects | None = None
) -> str:
    """One row per question, in question-set order (with a margin: each metric's verdict on every row).

    With ``rerank`` (A or B reranks), each side's first-stage rank and rank change
    (:data:`chunkscope.reports.rerank.CSV_COLUMNS`, suffixed ``_a`` and ``_b``; empty for a side that does not).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    extra = equivalence_csv_cells(equivalence) if equivalence is not None else []
    header = COMPARE_CSV_COLUMNS + (equivalence_csv_columns(equivalence) if equivalence is not None else ())
    writer.writerow(header + (rerank_compare_columns() if rerank else ()))
    effects = (rerank.get(comparison.a), rerank.get(comparison.b)) if rerank else ()
    for position, move in enumerate(comparison.moves):
        writer.writerow(
            [
                move.question_id,
                "" if move.rank_a is None else move.rank_a,
                "" if move.rank_b is None else move.rank_b,
                move.state_a,
                move.state_b,
                move.movement,
                int(move.recovered),
                int(move.newly_lost),
                int(move.complete_a),
                int(move.complete_b),
                move.cause_a.value,
                move.cause_b.value,
                *extra,
                *(cell for effect in effects for cell in rerank_csv_cells(effect, position)),
            ]
        )
    return buffer.getvalue()


def header_lines(dataset: Dataset) -> list[str]:
    """The chunkscope version and the inputs with their SHA-256, then a blank line."""
    return [
        f"chunkscope {__version__}; inputs: "
        + ", ".join(f"`{s.path}` (sha256 {s.sha256[:12]})" for s in dataset.sources),
        "",
    ]


def compare_markdown(
    dataset: Dataset,
    comparison: Comparison,
    moved_limit: int = 30,
    equivalence: PairEquivalence | None = None,
    rerank: tuple[Sequence[ConfigResult], RerankEffects] | None = None,
) -> str:
    """Metric table, counts, transition matrix and the questions that moved, worst first.

    With ``equivalence`` an equivalence table follows the tests; with ``rerank`` (results, effects)
    a section per reranking configuration ends the report.
    """
    a, b = comparison.a, comparison.b
    lines = [f"# chunkscope compare: {dataset.name}", "", *header_lines(dataset)]
    lines += [f"A = `{a.label}`, B = `{b.label}`; {delivery_text(a)}; {comparison.questions} questions.", ""]
    lines += markdown_tests(comparison)
    if equivalence is not None:
        lines += equivalence_markdown(comparison, equivalence)
    lines += ["", _settings_line(comparison), "", markdown_counts(comparison), ""]
    lines += markdown_transitions(comparison)
    lines += ["", "Questions that moved, worst first:", ""]
    lines += markdown_moved(comparison, moved_limit)
    if comparison.by_tag:
        lines += ["", "## By tag", ""]
        lines += markdown_tag_deltas(comparison)
    if rerank is not None:
        lines += rerank_markdown(*rerank)
    return "\n".join(lines) + "\n"


def delivery_text(config: Config) -> str:
    """``top-5, no budget`` or ``top-5, budget 1200 (stop)``."""
    units = "" if config.budget_tokenizer is None else f" {config.budget_units}"
    budget = "no budget" if config.budget is None else f"budget {config.budget}{units} ({config.overflow})"
    return f"top-{config.top_k}, {budget}"


def _settings_line(comparison: Comparison) -> str:
    correction = (
        "no multiple-comparison correction (one pair)"
        if comparison.correction == "none"
        else f"Holm-corrected over {comparison.family_size} tests"
    )
    return (
        f"Paired sign-flip permutation test, {comparison.permutations:,} permutations, seed {comparison.seed}; "
        f"bootstrap 95% CI; {correction}; significant when p < {comparison.alpha}. "
        f"Not significant does not mean equal."
    )


def markdown_tests(comparison: Comparison) -> list[str]:
    """The metric table: A, B, delta, CI, p-values, verdict."""
    lines = ["| metric | A | B | Δ (B−A) | 95% CI | p | p raw | |", "|---|---:|---:|---:|---|---:|---:|---|"]
    for test in comparison.tests:
        lines.append(
            f"| {metric_label(test.metric)} | {test.mean_a:.4f} | {test.mean_b:.4f} | "
            f"{test.delta:+.4f} | [{test.ci_low:+.4f}, {test.ci_high:+.4f}] | {format_p(test.p_value)} | "
            f"{format_p(test.p_value_raw)} | {verdict(test)} |"
        )
    return lines


def markdown_counts(comparison: Comparison) -> str:
    """Better / worse / same / recovered / newly lost / complete gained and lost, as one line."""
    return (
        f"First correct rank: **{comparison.better} better**, **{comparison.worse} worse**, {comparison.same} same; "
        f"{comparison.recovered} recovered, {comparison.newly_lost} newly lost; "
        f"complete: {comparison.complete_gained} gained, {comparison.complete_lost} lost."
    )


def markdown_transitions(comparison: Comparison) -> list[str]:
    """The transition matrix: rows are A's state, columns B's."""
    lines = ["| A \\ B | " + " | ".join(STATES) + " |", "|---|" + "---:|" * len(STATES)]
    for state, row in zip(STATES, comparison.transitions, strict=True):
        lines.append(f"| {state} | " + " | ".join(str(count) for count in row) + " |")
    return lines


def markdown_moved(comparison: Comparison, limit: int) -> list[str]:
    """The questions that moved, worst first (at most ``limit``)."""
    moved = comparison.moved
    if not moved:
        return ["No question moved."]
    lines = ["| question | rank A | rank B | state | cause |", "|---|---:|---:|---|---|"]
    for move in moved[:limit]:
        lines.append(
            f"| {inline(move.question_id)} | {move.rank_a or '–'} | {move.rank_b or '–'} | "
            f"{move.state_a} → {move.state_b} | {move.cause_a.value} → {move.cause_b.value} |"
        )
    if len(moved) > limit:
        lines.append(f"| … {len(moved) - limit} more | | | | |")
    return lines


def markdown_tag_deltas(comparison: Comparison) -> list[str]:
    """Per tag: size, better/worse/newly lost, and each metric's delta with its p-value."""
    headers = [metric_label(t.metric) for t in comparison.tests]
    lines = [
        "| tag | n | better | worse | newly lost | " + " | ".join(f"Δ {h}" for h in headers) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(headers),
    ]
    for group in comparison.by_tag:
        cells = [f"{t.delta:+.3f} (p {format_p(t.p_value)}){' *' if t.significant else ''}" for t in group.tests]
        lines.append(
            f"| {group.group} | {group.questions} | {group.better} | {group.worse} | {group.newly_lost} | "
            + " | ".join(cells)
            + " |"
        )
    return lines
