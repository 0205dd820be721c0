"""The ``gold check`` report: findings as JSON and Markdown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.gold import FINDING_KINDS, Finding, GoldCheck
from chunkscope.io.sources import Dataset
from chunkscope.model import GoldIssue


def finding_dict(finding: Finding) -> dict[str, Any]:
    """One finding as plain JSON values (absent parts left out)."""
    entry: dict[str, Any] = {"kind": finding.kind, "question": finding.question}
    if finding.item is not None:
        entry["item"] = finding.item
    if finding.span is not None:
        entry |= {"doc": finding.span.doc, "start": finding.span.start, "end": finding.span.end}
    if finding.where:
        entry["where"] = finding.where
    if finding.places:
        entry["places"] = [list(place) for place in finding.places]
    entry["detail"] = finding.detail
    return entry


def gold_report(
    dataset: Dataset,
    check: GoldCheck,
    gold_match: str,
    allowed: Sequence[str] = (),
    written: str | None = None,
    left_as_is: Sequence[GoldIssue] = (),
) -> dict[str, Any]:
    """The full ``chunkscope gold check`` JSON report."""
    report: dict[str, Any] = {
        "chunkscope_version": __version__,
        "inputs": [{"path": s.path, "sha256": s.sha256} for s in dataset.sources],
        "gold_match": gold_match,
        "thresholds": {"repeated": check.options.repeated, "near_duplicate": check.options.near_duplicate},
        "allowed": list(allowed),
        "questions": check.questions,
        "excluded_questions": check.excluded,
        "excluded_reasons": dict(dataset.questions.excluded_reasons),
        "spans": check.spans,
        "problems": len(check.problems(allowed)),
        "counts": dict(check.counts),
        "findings": [finding_dict(finding) for finding in check.findings],
    }
    if written is not None:
        report["written"] = {
            "path": written,
            "left_as_is": [{"question": i.question, "where": i.where, "kind": i.kind} for i in left_as_is],
        }
    return report


def to_markdown(dataset: Dataset, check: GoldCheck, gold_match: str, allowed: Sequence[str] = ()) -> str:
    """Counts per kind, then one table per kind that has findings."""
    lines = [f"# chunkscope gold check: {dataset.name}", ""]
    lines += [
        f"chunkscope {__version__}; inputs: "
        + ", ".join(f"`{s.path}` (sha256 {s.sha256[:12]})" for s in dataset.sources)
        + f"; --gold-match {gold_match}",
        "",
        f"{check.questions} questions ({check.excluded} excluded at load), {check.spans} gold spans, "
        f"{len(check.problems(allowed))} problems" + (f" (allowed: {', '.join(allowed)})" if allowed else "") + ".",
        "",
        "| finding | meaning | count |",
        "|---|---|---:|",
    ]
    counts = check.counts
    lines += [f"| `{kind}` | {meaning} | {counts[kind]} |" for kind, meaning in FINDING_KINDS.items()]
    for kind in FINDING_KINDS:
        found = [finding for finding in check.findings if finding.kind == kind]
        if not found:
            continue
        lines += ["", f"## {kind}", "", "| question | item | detail |", "|---|---:|---|"]
        lines += [f"| {_cell(f.question)} | {'' if f.item is None else f.item} | {_cell(_detail(f))} |" for f in found]
    return "\n".join(lines) + "\n"


def _detail(finding: Finding) -> str:
    where = f"{finding.where}: " if finding.where else ""
    places = ""
    if finding.kind == "ambiguous" and finding.places:
        places = " — at " + ", ".join(f"{doc} [{start}, {end})" for doc, start, end in finding.places)
    return where + finding.detail + places


def _cell(value: str) -> str:
    return value.replace("\n", "⏎").replace("|", "\\|")
