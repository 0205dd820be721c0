"""Fragility reports: each question's state under a configuration's neighbours, as JSON, CSV and Markdown."""

from __future__ import annotations

import csv
import io
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.fragility import FragilityResult, FragilityRow, Neighbour
from chunkscope.io.dataset import Dataset
from chunkscope.reports.compare import config_ref
from chunkscope.reports.eval import inline, provenance

__all__ = [
    "CSV_COLUMNS",
    "MOST_FRAGILE_SHOWN",
    "fragility_csv",
    "fragility_markdown",
    "fragility_report",
    "neighbour_column",
]

MOST_FRAGILE_SHOWN = 20
"""Questions the Markdown report lists by default, most fragile first."""

CSV_COLUMNS = ("question", "base", "changed", "neighbours", "share", "verdict")
"""The leading CSV columns; one column per neighbour (its state) follows."""


def neighbour_column(neighbour: Neighbour) -> str:
    """A neighbour's column name: its changed parameter and value, e.g. ``size=16`` (unique in a result)."""
    return f"{neighbour.parameter}={neighbour.value}"


def _row_dict(row: FragilityRow) -> dict[str, Any]:
    return {
        "id": row.question_id,
        "base": row.base.value,
        "states": [state.value for state in row.states],
        "changed": row.changed,
        "share": row.share,
        "verdict": row.verdict.value,
        "mark": row.mark,
    }


def fragility_report(dataset: Dataset, result: FragilityResult) -> dict[str, Any]:
    """The JSON report: provenance, the configuration and its neighbours, the summary, every question.

    ``states`` of a question follow the order of ``neighbours``; ``most_fragile`` lists the ids of the
    questions whose state changes under some neighbour, most changes first.
    """
    summary = result.summary
    return {
        **provenance(dataset),
        "config": config_ref(result.config),
        "neighbours": [
            {**config_ref(n.config), "parameter": n.parameter, "value": n.value, "rule": n.rule}
            for n in result.neighbours
        ],
        "summary": {
            "questions": summary.questions,
            "ok": summary.ok,
            "robust_ok": summary.robust_ok,
            "fragile_ok": summary.fragile_ok,
            "ok_nearby": summary.ok_nearby,
            "not_ok": summary.not_ok,
            "changed": summary.changed,
            "mean_share": summary.mean_share,
        },
        "questions": [_row_dict(row) for row in result.rows],
        "most_fragile": [row.question_id for row in result.most_fragile()],
    }


def fragility_csv(result: FragilityResult) -> str:
    """One row per question: base state, changes, neighbours, share (4 decimals), verdict, each neighbour's state."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *(neighbour_column(n) for n in result.neighbours)])
    for row in result.rows:
        writer.writerow(
            [
                row.question_id,
                row.base.value,
                row.changed,
                len(row.states),
                f"{row.share:.4f}",
                row.verdict.value,
                *(state.value for state in row.states),
            ]
        )
    return buffer.getvalue()


def fragility_markdown(dataset: Dataset, result: FragilityResult, shown: int = MOST_FRAGILE_SHOWN) -> str:
    """The neighbours, the summary (robust OK apart from fragile OK) and the ``shown`` most fragile questions."""
    config = result.config
    summary = result.summary
    lines = [
        f"# chunkscope fragility: {dataset.name}",
        "",
        f"chunkscope {__version__}; configuration `{config.chunker}` / `{config.retriever}` "
        f"(top-k {config.top_k}, budget {config.budget if config.budget is not None else 'none'}); "
        f"{len(result.neighbours)} neighbours.",
        "",
        "| neighbour | rule | chunker |",
        "|---|---|---|",
        *(f"| {neighbour_column(n)} | {n.rule} | `{n.config.chunker}` |" for n in result.neighbours),
        "",
        "| questions | OK | robust OK | fragile OK | OK nearby | not OK | changed | mean fragility |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {summary.questions} | {summary.ok} | {summary.robust_ok} | {summary.fragile_ok} | {summary.ok_nearby} | "
        f"{summary.not_ok} | {summary.changed} | {summary.mean_share:.4f} |",
        "",
    ]
    fragile = result.most_fragile()
    if not fragile:
        return "\n".join([*lines, "Every question keeps its state under every neighbour.", ""])
    queries = {question.id: question.query for question in dataset.questions.questions}
    columns = [neighbour_column(n) for n in result.neighbours]
    listed = fragile[:shown]
    lines += [
        f"## Most fragile questions ({len(listed)} of {len(fragile)} that change)",
        "",
        "| question | query | verdict | share | base | " + " | ".join(columns) + " |",
        "|---|---|---|---:|---|" + "---|" * len(columns),
    ]
    for row in listed:
        states = " | ".join(_state_cell(state.value, row.base.value) for state in row.states)
        query = _cell(queries.get(row.question_id, ""))
        lines.append(
            f"| {inline(row.question_id)} | {query} | {row.verdict.value} | {row.changed}/{len(row.states)} | "
            f"{row.base.value} | {states} |"
        )
    return "\n".join([*lines, ""])


def _state_cell(state: str, base: str) -> str:
    """A neighbour's state, in bold when it differs from the base state."""
    return state if state == base else f"**{state}**"


def _cell(text: str, limit: int = 60) -> str:
    flat = inline(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
