"""Sweep reports (``chunkscope sweep``) as JSON, CSV and Markdown.

A sweep tests every pair of configurations, Holm-corrected within each question
group (:func:`chunkscope.analysis.compare.compare_all`); each configuration's
tested metrics are marked ``best`` (highest mean) or ``worse`` (significantly
below the best after correction). Columns and labels of the tested metrics
come from the comparison set, which takes them from
:data:`chunkscope.metrics.registry.REGISTRY`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from chunkscope.analysis.comparison import NOT_SIGNIFICANT_NOTE, ComparisonSet
from chunkscope.io.sources import Dataset
from chunkscope.metrics.registry import REGISTRY
from chunkscope.reports.compare import comparison_dict, delivery_text, header_lines, summary_entry
from chunkscope.reports.equivalence import PairEquivalence
from chunkscope.reports.equivalence import sweep_dict as equivalence_sweep_dict
from chunkscope.reports.equivalence import sweep_markdown_lines as equivalence_sweep_markdown
from chunkscope.reports.eval import provenance
from chunkscope.reports.format import metric_label, summary_cell
from chunkscope.reports.rerank import RerankEffects, rerank_dict
from chunkscope.reports.rerank import markdown_section as rerank_markdown
from chunkscope.results import ConfigResult

SWEEP_TABLE_LEAD = ("index_chunks", "lost", "pieces")
"""Metrics shown before the tested ones in every sweep table and CSV row."""


def sweep_marks(comparisons: ComparisonSet, metric: str) -> list[str]:
    """Per configuration: ``best``, ``worse`` (significantly below the best after correction) or ``""``."""
    best = comparisons.best(metric)
    return [
        "best" if index == best else ("worse" if comparisons.differs_from_best(metric, index) else "")
        for index in range(len(comparisons.configs))
    ]


def sweep_dict(comparisons: ComparisonSet, results: Sequence[ConfigResult]) -> dict[str, Any]:
    """One question group of a sweep: per configuration metrics and marks, plus every pairwise test."""
    rows = []
    for index, result in enumerate(results):
        row = summary_entry(result)
        row["marks"] = {metric: sweep_marks(comparisons, metric)[index] for metric in comparisons.metrics}
        rows.append(row)
    return {
        "group": comparisons.group,
        "questions": results[0].summary.questions if results else 0,
        "configs": rows,
        "best": {metric: comparisons.configs[comparisons.best(metric)].label for metric in comparisons.metrics},
        "family_size": comparisons.family_size,
        "correction": "holm",
        "pairs": [comparison_dict(pair, with_moves=False, with_tags=False) for pair in comparisons.pairs],
    }


def sweep_report(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    comparisons: ComparisonSet,
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
    rerank: RerankEffects | None = None,
) -> dict[str, Any]:
    """The ``chunkscope sweep`` JSON report.

    ``tag_results[i]`` are the results restricted to ``comparisons.by_tag[i]``'s questions.
    ``equivalence`` (every pair's TOST, with a margin) and ``rerank`` add their entries only when given.
    """
    report = {
        **provenance(dataset),
        "note": NOT_SIGNIFICANT_NOTE,
        "family": "every (pair, metric) test of one question group; each tag is its own family",
        "metrics": list(comparisons.metrics),
        **sweep_dict(comparisons, results),
        "excluded_questions": dataset.questions.excluded,
    }
    if comparisons.by_tag:
        report["by_tag"] = [
            sweep_dict(group, group_results)
            for group, group_results in zip(comparisons.by_tag, tag_results, strict=True)
        ]
    if equivalence is not None:
        report["equivalence"] = equivalence_sweep_dict(comparisons, equivalence, "holm")
    if rerank:
        report["rerank"] = [
            {"config": r.config.label, **rerank_dict(rerank[r.config])} for r in results if r.config in rerank
        ]
    return report


def sweep_csv_columns(metrics: Sequence[str]) -> tuple[str, ...]:
    """The CSV header: group, configuration, the lead metrics, then each tested metric's mean, mark and p."""
    return (
        "group",
        "questions",
        "configuration",
        "chunker",
        "retriever",
        *SWEEP_TABLE_LEAD,
        *metrics,
        *(f"{metric}_mark" for metric in metrics),
        *(f"{metric}_p_vs_best" for metric in metrics),
    )


def sweep_csv(
    comparisons: ComparisonSet,
    results: Sequence[ConfigResult],
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
) -> str:
    """One row per (question group, configuration): metrics, marks and the corrected p-value against the best.

    With ``equivalence``, ``METRIC_equivalence_vs_best`` columns hold each configuration's TOST verdict
    against the best configuration of that metric (group ``all`` only; empty for the best itself).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = sweep_csv_columns(comparisons.metrics)
    if equivalence is not None:
        header += tuple(f"{metric}_equivalence_vs_best" for metric in comparisons.metrics)
    writer.writerow(header)
    groups = [(comparisons, results), *zip(comparisons.by_tag, tag_results, strict=True)]
    for group, group_results in groups:
        marks = {metric: sweep_marks(group, metric) for metric in group.metrics}
        for index, result in enumerate(group_results):
            s = result.summary
            writer.writerow(
                [
                    group.group,
                    s.questions,
                    result.config.label,
                    result.config.chunker,
                    result.config.retriever,
                    *(s[name] for name in SWEEP_TABLE_LEAD),
                    *(f"{mean:.6f}" for mean in group.means[index]),
                    *(marks[m][index] for m in group.metrics),
                    *(_p_against_best(group, m, index) for m in group.metrics),
                    *(
                        _verdict_against_best(group, equivalence, m, index) if group is comparisons else ""
                        for m in (group.metrics if equivalence is not None else ())
                    ),
                ]
            )
    return buffer.getvalue()


def _verdict_against_best(
    comparisons: ComparisonSet, equivalence: Sequence[PairEquivalence] | None, metric: str, index: int
) -> str:
    best = comparisons.best(metric)
    if equivalence is None or index == best:
        return ""
    low, high = min(index, best), max(index, best)
    position = next(
        p
        for p, pair in enumerate(comparisons.pairs)
        if pair.a == comparisons.configs[low] and pair.b == comparisons.configs[high]
    )
    test = equivalence[position][list(comparisons.metrics).index(metric)]
    return "" if test is None else test.verdict_text


def _p_against_best(comparisons: ComparisonSet, metric: str, index: int) -> str:
    best = comparisons.best(metric)
    if index == best:
        return ""
    return f"{comparisons.pair(min(index, best), max(index, best)).test(metric).p_value:.6g}"


def sweep_markdown(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    comparisons: ComparisonSet,
    tag_results: Sequence[Sequence[ConfigResult]] = (),
    equivalence: Sequence[PairEquivalence] | None = None,
    rerank: RerankEffects | None = None,
) -> str:
    """The sweep table (best per metric in bold, ``↓`` = significantly below the best) per question group.

    ``equivalence`` adds every pair's TOST verdicts, ``rerank`` a section per reranking configuration.
    """
    lines = [f"# chunkscope sweep: {dataset.name}", "", *header_lines(dataset)]
    lines += [
        f"{len(results)} configurations; {delivery_text(results[0].config)}; {results[0].summary.questions} questions.",
        "",
    ]
    lines += markdown_sweep_table(comparisons, results)
    lines += ["", sweep_legend(comparisons)]
    for group, group_results in zip(comparisons.by_tag, tag_results, strict=True):
        lines += ["", f"## tag `{group.group}` ({group_results[0].summary.questions} questions)", ""]
        lines += markdown_sweep_table(group, group_results)
    if equivalence is not None:
        lines += equivalence_sweep_markdown(comparisons, equivalence)
    if rerank:
        lines += rerank_markdown(results, rerank)
    return "\n".join(lines) + "\n"


def sweep_legend(comparisons: ComparisonSet) -> str:
    """What the marks mean, and the family the correction ran over."""
    pairs = len(comparisons.pairs)
    return (
        f"**Bold**: best mean per metric. ↓: below the best with Holm-corrected p < {comparisons.alpha} "
        f"({pairs} pairs × {len(comparisons.metrics)} metrics = {comparisons.family_size} tests, paired sign-flip "
        f"permutation test). No mark: no detectable difference from the best — not significant does not mean equal."
    )


def markdown_sweep_table(comparisons: ComparisonSet, results: Sequence[ConfigResult]) -> list[str]:
    """Every configuration with chunk count, lost and each tested metric, marked."""
    lead = [REGISTRY[name] for name in SWEEP_TABLE_LEAD]
    headers = [m.label for m in lead] + [metric_label(m) for m in comparisons.metrics]
    lines = [
        "| configuration | " + " | ".join(headers) + " |",
        "|---|" + "---:|" * len(headers),
    ]
    marks = {metric: sweep_marks(comparisons, metric) for metric in comparisons.metrics}
    for index, result in enumerate(results):
        cells = []
        for column, metric in enumerate(comparisons.metrics):
            value = f"{comparisons.means[index][column]:.4f}"
            mark = marks[metric][index]
            cells.append(f"**{value}**" if mark == "best" else (f"{value} ↓" if mark == "worse" else value))
        sizes = [summary_cell(m, result.summary) for m in lead]
        lines.append(f"| `{result.config.label}` | " + " | ".join(sizes + cells) + " |")
    return lines
