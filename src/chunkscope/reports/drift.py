"""Drift reports: rank stability and exposure between two configurations over a query log, as JSON and Markdown."""

from __future__ import annotations

import csv
import io
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.drift import Drift, QueryDrift
from chunkscope.reports.compare import config_ref
from chunkscope.reports.eval import inline
from chunkscope.results import Config

MOVED_SHOWN = 10
"""Queries the Markdown report lists (lowest RBO first), and documents each way in the exposure table."""


def _query_dict(query: QueryDrift) -> dict[str, Any]:
    return {
        "line": query.line,
        "query": query.query,
        "rbo": query.rbo,
        "top1_changed": query.top1_changed,
        "a": list(query.first),
        "b": list(query.second),
    }


def drift_report(
    drift: Drift, configs: tuple[Config, Config], inputs: list[dict[str, str]], log_format: str
) -> dict[str, Any]:
    """The JSON report: settings, the two summaries, every query and every document's exposure."""
    return {
        "chunkscope_version": __version__,
        "inputs": inputs,
        "query_log_format": log_format,
        "a": config_ref(configs[0]),
        "b": config_ref(configs[1]),
        "level": drift.level,
        "depth": drift.depth,
        "rbo": {"variant": "RBO_ext (Webber et al. 2010, eq. 32)", "p": drift.p},
        "exposure": "sum over queries and hits at rank r <= depth of 1 / log2(r + 1)",
        "queries": len(drift.queries),
        "mean_rbo": drift.mean_rbo if drift.queries else None,
        "top1_change_rate": drift.top1_change_rate if drift.queries else None,
        "per_query": [_query_dict(query) for query in drift.queries],
        "documents": [
            {"doc": shift.doc, "a": shift.first, "b": shift.second, "delta": shift.delta} for shift in drift.exposure
        ],
    }


def drift_markdown(drift: Drift, configs: tuple[Config, Config], shown: int = MOVED_SHOWN) -> str:
    """The Markdown report: summary, the queries that moved most, the documents that gained and lost most."""
    a, b = configs
    lines = [
        f"# Drift: {inline(a.label)} → {inline(b.label)}",
        "",
        f"{len(drift.queries)} queries, no gold. Rankings compared at {drift.level} level, top {drift.depth}; "
        f"RBO is RBO_ext (Webber et al. 2010) with p = {drift.p:g}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| mean RBO | {_number(drift.mean_rbo)} |",
        f"| top-1 change rate | {_number(drift.top1_change_rate)} |",
        "",
        f"## Queries that moved most ({min(shown, len(drift.queries))} of {len(drift.queries)}, lowest RBO first)",
        "",
        "| line | query | RBO | top-1 changed | A top 3 | B top 3 |",
        "|---|---|---|---|---|---|",
    ]
    for query in drift.moved_most(shown):
        lines.append(
            f"| {query.line} | {inline(query.query)} | {query.rbo:.4f} | {'yes' if query.top1_changed else 'no'} "
            f"| {inline(', '.join(query.first[:3]))} | {inline(', '.join(query.second[:3]))} |"
        )
    gains = [shift for shift in drift.exposure if shift.delta > 0][:shown]
    losses = [shift for shift in reversed(drift.exposure) if shift.delta < 0][:shown]
    lines += [
        "",
        "## Exposure (sum over queries of 1 / log2(rank + 1) per hit)",
        "",
        "| document | A | B | change |",
        "|---|---|---|---|",
    ]
    for shift in [*gains, *losses]:
        lines.append(f"| {inline(shift.doc)} | {shift.first:.4f} | {shift.second:.4f} | {shift.delta:+.4f} |")
    if not gains and not losses:
        lines.append("| (no document changed exposure) | | | |")
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    return "n/a" if value != value else f"{value:.4f}"


def drift_csv(drift: Drift) -> str:
    """One row per query: line, query, RBO, whether the top item changed, and each side's top item."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["line", "query", "rbo", "top1_changed", "a_top1", "b_top1"])
    for query in drift.queries:
        writer.writerow(
            [
                query.line,
                query.query,
                repr(query.rbo),
                "true" if query.top1_changed else "false",
                query.first[0] if query.first else "",
                query.second[0] if query.second else "",
            ]
        )
    return buffer.getvalue()
