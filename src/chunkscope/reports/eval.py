"""Evaluation reports: results as JSON, CSV and Markdown."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.diagnose import diagnose, diagnosis_dict, failure_detail
from chunkscope.analysis.groups import COMPUTED_FAMILIES, GroupRules, by_tag
from chunkscope.analysis.tables import CUT_KIND, has_tables, severed_dict, severed_rows
from chunkscope.errors import ChunkscopeError
from chunkscope.io.offsets import OffsetUnit
from chunkscope.io.sources import Dataset
from chunkscope.metrics.policy import metric_policy
from chunkscope.metrics.registry import REGISTRY
from chunkscope.model import Corpus, Span
from chunkscope.pipeline.cost import TokenCost, shown_tokens
from chunkscope.reports.format import summary_cell
from chunkscope.reports.offsets import OffsetWriter, chunk_import_dict, chunk_import_line, convert_config_offsets
from chunkscope.reports.pages import add_pages, has_pages, page_label
from chunkscope.reports.rerank import CSV_COLUMNS as RERANK_CSV_COLUMNS
from chunkscope.reports.rerank import RerankEffects, rerank_dict
from chunkscope.reports.rerank import csv_cells as rerank_csv_cells
from chunkscope.reports.rerank import markdown_section as rerank_markdown
from chunkscope.results import ConfigResult, QuestionResult, Summary

SUMMARY_TABLE_LEAD = ("index_chunks", "lost", "pieces")
"""Metrics shown before the tested ones in the Markdown summary table."""
SUMMARY_TABLE_TRAIL = ("sent_chars", "duplicate_chars")
"""Metrics shown after the tested ones."""


def summary_dict(summary: Summary) -> dict[str, Any]:
    """The summary as plain JSON values: every registered metric it holds, in registry order,
    with ``rank_buckets`` right after the last rank metric."""
    metrics = list(REGISTRY)
    rank_metrics = [i for i, m in enumerate(metrics) if m.family == "rank"]
    buckets_at = rank_metrics[-1] + 1 if rank_metrics else len(metrics)
    values: dict[str, Any] = {}
    for position, metric in enumerate(metrics):
        if position == buckets_at:
            values["rank_buckets"] = dict(summary.rank_buckets)
        if metric.name in summary:
            values[metric.name] = summary[metric.name]
    values.setdefault("rank_buckets", dict(summary.rank_buckets))
    return values


def question_dict(result: QuestionResult, tokens: TokenCost | None = None) -> dict[str, Any]:
    """One question's result as plain JSON values (with ``tokens``, the token counts of its hits and context)."""
    entry: dict[str, Any] = {
        "id": result.question_id,
        "evidence_exists": result.evidence_exists,
        "first_correct_rank": result.first_correct_rank,
        "bucket": result.bucket,
        "doc_hit": result.doc_hit,
        "complete": result.complete,
        "covered": list(result.covered),
        "pieces": result.in_pieces,
        "piece_ranks": [list(ranks) for ranks in result.piece_ranks],
        **({"attribution": list(result.attribution)} if result.attribution else {}),
        **({"gold_match": [list(labels) for labels in result.gold_match]} if result.gold_match else {}),
        "sent_chars": result.sent_chars,
        **({"sent_tokens": tokens.sent(result)} if tokens is not None else {}),
        "duplicate_chars": result.duplicate_chars,
        **overlap_values(result),
        "ranked": [_ranked_dict(hit, tokens) for hit in result.ranked],
        "delivered": [
            {"rank": d.rank, "doc": d.chunk.doc, "start": d.start, "end": d.end, "duplicate_chars": d.duplicate_chars}
            | ({"tokens": tokens.delivered(d)} if tokens is not None else {})
            for d in result.delivered
        ],
        "delivery_stop": result.delivery_stop,
        "cuts": [
            {
                "doc": cut.span.doc,
                "start": cut.span.start,
                "end": cut.span.end,
                "boundaries": list(cut.boundaries),
                "pieces": list(cut.pieces),
            }
            for cut in result.cuts
        ],
    }
    if result.past_window:
        entry["past_window"] = list(result.past_window)
    if result.page_hits:
        entry["page_hits"] = list(result.page_hits)
    if result.hops:
        entry["hops"] = {
            "delivered": result.hops_delivered,
            "of": result.hop_count,
            "label": f"{result.hops_delivered} of {result.hop_count}",
            "missing": list(result.missing_hops),
            "item_hops": list(result.hops),
        }
    return entry


def overlap_values(result: QuestionResult) -> dict[str, float]:
    """One question's value of every registered character-overlap metric, by key, in registry order."""
    return {m.name: m.per_question(result) for m in REGISTRY if m.family == "overlap" and m.per_question is not None}


def _ranked_dict(hit: Any, tokens: TokenCost | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "rank": hit.rank,
        "id": hit.chunk.id,
        "doc": hit.chunk.doc,
        "start": hit.chunk.start,
        "end": hit.chunk.end,
        "score": hit.score,
    }
    if tokens is not None:
        entry["tokens"] = tokens.cost(hit.chunk)
    if hit.chunk.section:
        entry["section"] = hit.chunk.section
    if hit.chunk.prefix:
        entry["prefix"] = hit.chunk.prefix
    if hit.delivers is not None:
        entry["parent"] = {"id": hit.delivers.id, "start": hit.delivers.start, "end": hit.delivers.end}
    if hit.parts:
        entry["parts"] = dict(hit.parts)
    return entry


def config_dict(
    result: ConfigResult,
    with_questions: bool = True,
    write: OffsetWriter | None = None,
    rerank: RerankEffects | None = None,
) -> dict[str, Any]:
    """One configuration's result as plain JSON values (offsets in ``write``'s unit; code points by default).

    ``chunk_import`` is there only when the chunker read a dump, ``rerank`` only for a configuration that reranks.
    """
    config = result.config
    entry: dict[str, Any] = {
        "chunker": config.chunker,
        "retriever": config.retriever,
        "top_k": config.top_k,
        "budget": config.budget,
        "overflow": config.overflow,
    }
    if config.budget_tokenizer is not None:
        entry |= {"budget_unit": config.budget_unit, "budget_tokenizer": config.budget_tokenizer}
    tokens = shown_tokens(config)
    if tokens is not None:
        entry |= {"tokenizer": tokens.tokenizer, "sent_tokens": sum(tokens.sent(q) for q in result.questions)}
    entry["summary"] = summary_dict(result.summary)
    effect = rerank.get(config) if rerank else None
    if effect is not None:
        entry["rerank"] = rerank_dict(effect)
    diagnosis = diagnose(result)
    entry["diagnosis"] = diagnosis_dict(diagnosis)
    if with_questions:
        corpus = write.corpus if write is not None and has_tables(write.corpus) else None
        paged = write.corpus if write is not None and has_pages(write.corpus) else None
        entry["questions"] = []
        for q, (_, cause) in zip(result.questions, diagnosis.causes, strict=True):
            severed = severed_rows(q, corpus) if corpus is not None else ()
            question = question_dict(q, tokens)
            question |= {
                "failure_cause": cause.value,
                "failure_detail": failure_detail(q, config, cause, write, severed),
            }
            if corpus is not None:  # only a corpus with tables: every other report stays as it was
                question["header_severed"] = [severed_dict(row, write) for row in severed]
            if paged is not None:  # only a corpus with pages (PDF)
                add_pages(question, paged)
            entry["questions"].append(question)
    if result.chunk_import is not None:
        entry["chunk_import"] = chunk_import_dict(result.chunk_import)
    if write is not None:
        convert_config_offsets(entry, write)
    return entry


def provenance(dataset: Dataset) -> dict[str, Any]:
    """Version, inputs with their SHA-256, and the metric policy."""
    return {
        "chunkscope_version": __version__,
        "inputs": [{"path": s.path, "sha256": s.sha256} for s in dataset.sources],
        "policy": metric_policy(),
    }


def eval_report(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    offset_unit: OffsetUnit = "codepoint",
    rerank: RerankEffects | None = None,
    computed_groups: GroupRules | None = None,
) -> dict[str, Any]:
    """The full ``chunkscope eval`` JSON report, its offsets in ``offset_unit``.

    ``rerank``: effects of the configurations that rerank. ``computed_groups``: the rules of the
    computed groups (``--groups auto``): written as ``computed_groups``, and each tag group then says
    its ``group_source`` (``computed`` or ``tags``). Without them the report is as it always was.
    """
    write = OffsetWriter(dataset.corpus, offset_unit)
    report: dict[str, Any] = {**provenance(dataset)}
    if computed_groups is not None:
        report["computed_groups"] = computed_groups.as_dict()
    report["configs"] = [config_dict(r, write=write, rerank=rerank) for r in results]
    groups = []
    for group in by_tag(results, dataset.questions.questions):
        entry: dict[str, Any] = {"tag": group.tag}
        if computed_groups is not None:
            entry["group_source"] = "computed" if is_computed(group.tag) else "tags"
        entry["questions"] = list(group.question_ids)
        entry["configs"] = [config_dict(r, with_questions=False) for r in group.results]
        groups.append(entry)
    report["by_tag"] = groups
    report["excluded_questions"] = dataset.questions.excluded
    report["excluded_reasons"] = dict(dataset.questions.excluded_reasons)
    return report


def is_computed(tag: str) -> bool:
    """True for a computed group's tag (``lexical:``, ``evidence:``, ``span:``)."""
    return tag.split(":", 1)[0] in COMPUTED_FAMILIES and ":" in tag


def to_json(report: Mapping[str, Any]) -> str:
    """Compact JSON, UTF-8 not ASCII-escaped (``indent`` would bypass the C encoder: 10x slower).

    Strict JSON: a number that is not finite (which JSON cannot hold) is a ChunkscopeError, not
    ``NaN`` or ``Infinity`` in the file.
    """
    try:
        return json.dumps(report, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        raise ChunkscopeError("the report holds a number that is not finite (NaN or infinity): not written") from None


CSV_COLUMNS = (
    "chunker",
    "retriever",
    "top_k",
    "budget",
    "overflow",
    "question",
    "evidence_exists",
    "first_correct_rank",
    "bucket",
    "doc_hit",
    "complete",
    "covered",
    "sent_chars",
    "duplicate_chars",
    "cuts",
    "top_ranked",
    "top_sections",
    "top_prefixes",
    "attribution",
    "top_parts",
    "pieces",
)
"""The fixed CSV columns; the character-overlap metrics' per-question values follow them."""


TOKEN_CSV_COLUMNS = ("tokenizer", "sent_tokens")
"""Columns added after the overlap metrics when some configuration counts tokens (empty for the others)."""


def to_csv(
    results: Sequence[ConfigResult], write: OffsetWriter | None = None, rerank: RerankEffects | None = None
) -> str:
    """One row per (configuration, question); cut offsets in ``write``'s unit (code points by default).

    Token columns only when some configuration counts tokens, rerank columns only when some configuration reranks.
    """
    position = write or _codepoint
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    overlap = [m.name for m in REGISTRY if m.family == "overlap" and m.per_question is not None]
    counters = [shown_tokens(result.config) for result in results]
    with_tokens = any(counter is not None for counter in counters)
    writer.writerow(
        [
            *CSV_COLUMNS,
            *overlap,
            *(TOKEN_CSV_COLUMNS if with_tokens else ()),
            *(RERANK_CSV_COLUMNS if rerank else ()),
        ]
    )
    for result, tokens in zip(results, counters, strict=True):
        c = result.config
        effect = rerank.get(c) if rerank else None
        for index, q in enumerate(result.questions):
            token_cells = (
                ([tokens.tokenizer, tokens.sent(q)] if tokens is not None else ["", ""]) if with_tokens else []
            )
            writer.writerow(
                [
                    c.chunker,
                    c.retriever,
                    c.top_k,
                    "" if c.budget is None else c.budget,
                    c.overflow,
                    q.question_id,
                    int(q.evidence_exists),
                    "" if q.first_correct_rank is None else q.first_correct_rank,
                    q.bucket,
                    int(q.doc_hit),
                    int(q.complete),
                    "".join("1" if x else "0" for x in q.covered),
                    q.sent_chars,
                    q.duplicate_chars,
                    ";".join(
                        f"{cut.span.doc}:{position(cut.span.doc, cut.span.start)}-"
                        f"{position(cut.span.doc, cut.span.end)}@"
                        + "/".join(str(position(cut.span.doc, b)) for b in cut.boundaries)
                        for cut in q.cuts
                    ),
                    ";".join(hit.chunk.id for hit in q.ranked[: c.top_k]),
                    *_structure_cells(q, c.top_k),
                    int(q.in_pieces),
                    *(repr(value) for value in overlap_values(q).values()),
                    *token_cells,
                    *(rerank_csv_cells(effect, index) if rerank else ()),
                ]
            )
    return buffer.getvalue()


def _codepoint(doc: str, offset: int) -> int:
    return offset


def to_markdown(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    offset_unit: OffsetUnit = "codepoint",
    rerank: RerankEffects | None = None,
) -> str:
    """Summary table plus, per configuration, the questions that failed and why (offsets in ``offset_unit``)

    and what a rerank changed.
    """
    position = OffsetWriter(dataset.corpus, offset_unit)
    tables = has_tables(dataset.corpus)
    paged = has_pages(dataset.corpus)
    lines = [f"# chunkscope report: {dataset.name}", ""]
    lines += [
        f"chunkscope {__version__}; inputs: "
        + ", ".join(f"`{s.path}` (sha256 {s.sha256[:12]})" for s in dataset.sources),
        "",
    ]
    lines += markdown_summary_table(results)
    if dataset.questions.excluded:
        lines += [
            "",
            f"Excluded at load: {dataset.questions.excluded} questions "
            f"({', '.join(f'{k}: {v}' for k, v in dataset.questions.excluded_reasons.items())}).",
        ]
    if rerank:
        lines += rerank_markdown(results, rerank)
    for result in results:
        failing = [q for q in result.questions if q.lost or not q.complete]
        config = result.config
        units = "" if config.budget is None or config.budget_tokenizer is None else f" {config.budget_units}"
        lines += [
            "",
            f"## {config.label} (top-{config.top_k}, budget {config.budget or 'none'}{units}, {config.overflow})",
            "",
        ]
        if result.chunk_import is not None:
            lines += [chunk_import_line(result.chunk_import), ""]
        tokens = shown_tokens(config)
        if tokens is not None:
            sent = sum(tokens.sent(q) for q in result.questions)
            lines += [
                f"Delivered context: {sent} {tokens.tokenizer} tokens over {len(result.questions)} questions.",
                "",
            ]
        if not failing:
            lines.append("Every question complete.")
            continue
        extra = _structure_columns(result)
        lines += [
            "| question | state | first correct rank | covered | cuts |" + "".join(f" {h} |" for h, _ in extra),
            "|---|---|---|---|---|" + "---|" * len(extra),
        ]
        for q in failing:
            state = ("lost" if q.lost else "incomplete") + (", in pieces" if q.in_pieces else "")
            cuts = "; ".join(
                f"{c.span.doc} {position(c.span.doc, c.span.start)}–{position(c.span.doc, c.span.end)}"
                + (_page_note(dataset.corpus, c.span) if paged else "")
                + " at "
                + ", ".join(str(position(c.span.doc, b)) for b in c.boundaries)
                for c in q.cuts
            )
            if tables:
                severed = severed_rows(q, dataset.corpus)
                cuts = "; ".join(
                    filter(
                        None,
                        [
                            cuts,
                            *(
                                f"{CUT_KIND} {r.doc} {position(r.doc, r.start)}–{position(r.doc, r.end)} (#{r.rank})"
                                for r in severed
                            ),
                        ],
                    )
                )
            covered = "/".join("✓" if x else "✗" for x in q.covered)
            lines.append(
                f"| {inline(q.question_id)} | {state} | {q.first_correct_rank or '–'} | {covered} | {inline(cuts)} |"
                + "".join(f" {cell(q)} |" for _, cell in extra)
            )
    return "\n".join(lines) + "\n"


def _page_note(corpus: Corpus, span: Span) -> str:
    """`` (p. 12)`` for a span on a page of an extracted PDF, else nothing."""
    label = page_label(corpus, span.doc, span.start, span.end)
    return f" ({label})" if label else ""


def _structure_cells(q: QuestionResult, top_k: int) -> list[str]:
    """CSV cells: sections, prefixes (JSON lists, per top-k hit), attribution, part ranks (JSON)."""
    top = q.ranked[:top_k]
    return [
        json.dumps([hit.chunk.section for hit in top], ensure_ascii=False),
        json.dumps([hit.chunk.prefix for hit in top], ensure_ascii=False),
        "/".join(q.attribution),
        json.dumps([dict(hit.parts) for hit in top], ensure_ascii=False) if q.ranking.parts else "",
    ]


def _structure_columns(result: ConfigResult) -> list[tuple[str, Callable[[QuestionResult], str]]]:
    """Markdown columns shown only when the configuration has sections, prefixes, parents or fused parts."""

    def top_section(q: QuestionResult) -> str:
        return _cell(q.ranked[0].chunk.section or "–") if q.ranking.indices else "–"

    def top_prefix(q: QuestionResult) -> str:
        return _cell(q.ranked[0].chunk.prefix or "–") if q.ranking.indices else "–"

    def top_parts(q: QuestionResult) -> str:
        if not q.ranking.indices:
            return "–"
        return ", ".join(f"{name} {rank or '–'}" for name, rank in q.ranked[0].parts.items())

    columns: list[tuple[str, Callable[[QuestionResult], str]]] = []
    if any(unit.section for unit in result.chunks):
        columns.append(("top hit section", top_section))
    if any(unit.prefix for unit in result.chunks):
        columns.append(("top hit prefix", top_prefix))
    if any(q.attribution for q in result.questions):
        columns.append(("evidence in", lambda q: "/".join(q.attribution)))
    if any(q.ranking.parts for q in result.questions):
        columns.append(("top hit part ranks", top_parts))
    return columns


def _cell(value: str, limit: int = 60) -> str:
    """Free text fit for one Markdown table cell."""
    value = value.replace("\n", "⏎").replace("|", "\\|")
    return value if len(value) <= limit else value[: limit - 1] + "…"


def inline(text: str) -> str:
    """``text`` fit for one Markdown table cell as it is: ``|`` escaped, control characters as visible escapes.

    A newline would end the table row and an ESC would reach a terminal showing
    ``--markdown -``; they become ``\\n``, ``\\x1b``... Other text is unchanged.
    """
    return _UNSAFE.sub(_visible, text)


_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029|]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "|": "\\|"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) <= 0xFF else f"\\u{ord(char):04x}")


def markdown_summary_table(results: Sequence[ConfigResult]) -> list[str]:
    """The per-configuration metrics as a Markdown table: size and loss, the tested metrics, delivery."""
    metrics = [
        *(REGISTRY[name] for name in SUMMARY_TABLE_LEAD),
        *REGISTRY.tested(),
        *(REGISTRY[name] for name in SUMMARY_TABLE_TRAIL),
    ]
    lines = [
        "| chunker | retriever | " + " | ".join(m.label for m in metrics) + " |",
        "|---|---|" + "---:|" * len(metrics),
    ]
    for result in results:
        cells = " | ".join(summary_cell(m, result.summary) for m in metrics)
        lines.append(f"| `{result.config.chunker}` | `{result.config.retriever}` | {cells} |")
    return lines
