"""Boundary what-if reports: JSON, CSV and Markdown (the same facts in each). Offsets are code points."""

from __future__ import annotations

import csv
import io
from typing import Any

from chunkscope.analysis.whatif import BoundaryOption, SpanWhatIf, WhatIf, WhatIfCandidate

CSV_COLUMNS = (
    "chunker",
    "question",
    "item",
    "doc",
    "start",
    "end",
    "parameter",
    "current",
    "value",
    "spec",
    "recovered",
    "recovers_questions",
    "chunks",
    "chunk_growth",
    "indexed_chars",
    "indexed_growth",
    "recommended",
    "note",
)
"""One row per (cut span, option); a span without options has one row with empty option cells and its note."""


def whatif_report(result: WhatIf) -> dict[str, Any]:
    """The JSON report."""
    recommendation = result.recommendation
    return {
        "whatif": {
            "chunker": result.chunker,
            "questions": result.questions,
            "lost": list(result.lost),
            "index": {"chunks": result.size.chunks, "indexed_chars": result.size.indexed_chars},
            "recommendation": None if recommendation is None else candidate_dict(recommendation),
            "candidates": [candidate_dict(c) for c in result.candidates],
            "spans": [span_dict(s) for s in result.spans],
        }
    }


def candidate_dict(candidate: WhatIfCandidate) -> dict[str, Any]:
    """One candidate setting as plain JSON values."""
    return {
        "spec": candidate.spec,
        "recovered": list(candidate.recovered),
        "chunks": candidate.size.chunks,
        "indexed_chars": candidate.size.indexed_chars,
        "chunk_growth": candidate.chunk_growth,
        "indexed_growth": candidate.indexed_growth,
    }


def span_dict(span: SpanWhatIf) -> dict[str, Any]:
    """One cut span with its current units and its options."""
    return {
        "question": span.question_id,
        "item": span.item,
        "doc": span.span.doc,
        "start": span.span.start,
        "end": span.span.end,
        "boundaries": [list(b) for b in span.boundaries],
        "note": span.note,
        "options": [option_dict(o) for o in span.options],
    }


def option_dict(option: BoundaryOption) -> dict[str, Any]:
    """One option as plain JSON values."""
    return {
        "parameter": option.parameter,
        "current": option.current,
        "value": option.value,
        "spec": option.spec,
        "boundaries": [list(b) for b in option.boundaries],
        "recovered": option.recovered,
    }


def whatif_csv(result: WhatIf) -> str:
    """One row per (cut span, option), with the option's spec evaluated as the setting."""
    candidates = {c.spec: c for c in result.candidates}
    recommended = None if result.recommendation is None else result.recommendation.spec
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for span in result.spans:
        where = [result.chunker, span.question_id, span.item, span.span.doc, span.span.start, span.span.end]
        if not span.options:
            writer.writerow([*where, *[""] * 11, span.note or ""])
        for option in span.options:
            candidate = candidates.get(option.spec)
            evaluated: list[object] = (
                ["", "", "", "", ""]
                if candidate is None
                else [
                    len(candidate.recovered),
                    candidate.size.chunks,
                    candidate.chunk_growth,
                    candidate.size.indexed_chars,
                    candidate.indexed_growth,
                ]
            )
            option_cells = [option.parameter, option.current, option.value, option.spec, option.recovered]
            writer.writerow([*where, *option_cells, *evaluated, option.spec == recommended, ""])
    return buffer.getvalue()


def whatif_markdown(result: WhatIf) -> str:
    """The summary and recommendation, the lost questions' options, then every candidate setting."""
    lines = [
        "# Boundary what-if",
        "",
        f"Chunker `{result.chunker}`: {len(result.lost)} of {result.questions} questions lost "
        f"(no chunk holds some required item whole); index {result.size.chunks} chunks, "
        f"{result.size.indexed_chars} characters.",
        "",
    ]
    lines += _recommendation_lines(result)
    if result.spans:
        lines += [
            "## Lost questions",
            "",
            "| question | item | span | current chunks | options |",
            "|---|---:|---|---|---|",
        ]
        lines += [_span_row(s) for s in result.spans]
        lines.append("")
    if result.candidates:
        lines += [
            "## Settings",
            "",
            "| setting | recovers | chunks | Δ chunks | indexed chars | Δ indexed chars |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        lines += [_candidate_row(c) for c in result.candidates]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _recommendation_lines(result: WhatIf) -> list[str]:
    best = result.recommendation
    if best is None:
        reason = "no question is lost" if not result.lost else "no setting recovers a lost question"
        return [f"No recommendation: {reason}.", ""]
    return [
        f"**Recommended:** `{best.spec}` recovers {len(best.recovered)} of {len(result.lost)} lost questions; "
        f"index {_signed(best.chunk_growth)} chunks, {_signed(best.indexed_growth)} characters.",
        "",
    ]


def _span_row(span: SpanWhatIf) -> str:
    where = f"`{span.span.doc}` [{span.span.start}, {span.span.end})"
    current = " ".join(f"[{s}, {e})" for s, e in span.boundaries)
    options = "; ".join(_option_text(o) for o in span.options) if span.options else span.note or "none"
    return f"| {span.question_id} | {span.item} | {where} | {current} | {options} |"


def _option_text(option: BoundaryOption) -> str:
    checked = "" if option.recovered else " (does not hold it)"
    return f"{option.parameter} {option.current} → {option.value}{checked}"


def _candidate_row(candidate: WhatIfCandidate) -> str:
    return (
        f"| `{candidate.spec}` | {len(candidate.recovered)} | {candidate.size.chunks} | "
        f"{_signed(candidate.chunk_growth)} | {candidate.size.indexed_chars} | {_signed(candidate.indexed_growth)} |"
    )


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)
