"""A Markdown case file for one question: everything needed to discuss it without the tool.

The query, the gold evidence with its surrounding text, and per configuration the state, the
failure cause, the top-k ranked chunks (rank, score, span, length, what was delivered, which
evidence each holds) and their texts with the gold and the chunk boundaries marked.

Marks (in text blocks): ``⟦`` and ``⟧`` enclose gold; ``|`` is a chunk boundary of the
configuration; ``✂`` is a boundary strictly inside a gold span that no unit holds whole
(the cut, by the one rule of :mod:`chunkscope.pipeline.locate`, as the inspector marks it).
Delivery facts come from :func:`chunkscope.pipeline.assembly.delivery_decisions`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from chunkscope import __version__
from chunkscope.analysis.compare import Comparison, state_of
from chunkscope.analysis.diagnose import failure_cause, failure_detail
from chunkscope.analysis.marks import spans_cut
from chunkscope.analysis.tables import severed_rows
from chunkscope.model import Chunk, Corpus, Question, Span
from chunkscope.pipeline.assembly import delivery_decisions
from chunkscope.pipeline.locate import cut_offsets
from chunkscope.reports.answers import AnswerOutcome, question_answer_markdown, question_answer_view
from chunkscope.results import ConfigResult, DeliveryStatus, HitDelivery, QuestionResult, RankedChunk

GOLD_OPEN, GOLD_CLOSE, BOUNDARY, CUT = "⟦", "⟧", "|", "✂"
CONTEXT_CHARS = 120
"""Characters of surrounding text shown on each side of a gold span."""

_STOP_REASONS = {
    "top_k": "top-k reached",
    "budget": "budget reached",
    "exhausted": "ranking ran out before top-k",
}
"""How ``QuestionResult.delivery_stop`` reads in a case file."""

_NOT_DELIVERED: dict[DeliveryStatus, str] = {
    "budget-stop": "no (budget)",
    "budget-skip": "no (budget)",
    "beyond-top-k": "no (below top-k)",
    "already-sent": "no (unit already sent)",
}
"""How a hit that sent nothing reads in the ranked table."""


def mark_text(text: str, offset: int, gold: Sequence[Span], boundaries: Iterable[int], cuts: Iterable[int]) -> str:
    """``text`` (which starts at document offset ``offset``) with gold and boundary marks inserted.

    ``gold`` are spans of the same document; ``boundaries`` and ``cuts`` are document offsets.
    An offset of ``cuts`` (from :func:`chunkscope.pipeline.locate.cut_offsets`) is marked ``✂``,
    any other boundary ``|``; at one position a closing gold mark comes first, then the
    boundary, then an opening gold mark.
    """
    end = offset + len(text)
    marks: dict[int, list[str]] = {}

    def add(position: int, order: int, mark: str) -> None:
        if offset <= position <= end:
            marks.setdefault(position, []).append(f"{order}{mark}")

    for span in gold:
        if span.end > offset and span.start < end:
            add(max(span.start, offset), 2, GOLD_OPEN)
            add(min(span.end, end), 0, GOLD_CLOSE)
    cut = set(cuts)
    for position in set(boundaries) | cut:
        add(position, 1, CUT if position in cut else BOUNDARY)
    pieces = []
    previous = offset
    for position in sorted(marks):
        pieces.append(text[previous - offset : position - offset])
        pieces.append("".join(mark[1:] for mark in sorted(marks[position])))
        previous = position
    pieces.append(text[previous - offset :])
    return "".join(pieces)


def fenced(text: str, info: str = "text") -> list[str]:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *text.split("\n"), fence]


def _boundaries(chunks: Iterable[Chunk], doc: str) -> set[int]:
    return {offset for chunk in chunks if chunk.doc == doc for offset in (chunk.start, chunk.end)}


def _evidence_of(hit: RankedChunk, question: Question, result: QuestionResult, cut: Collection[Span]) -> str:
    """Which required items a hit's delivered unit holds whole, and which gold it only partly holds.

    A part of an item is marked ``✂`` when the span it belongs to is ``cut``.
    """
    whole = [f"item {i + 1}" for i, ranks in enumerate(result.item_ranks) if hit.rank in ranks]
    unit = hit.delivered_unit
    partial = []
    for i, item in enumerate(question.evidence):
        if f"item {i + 1}" in whole:
            continue
        parts = [s for s in item.alternatives if s.doc == unit.doc and s.start < unit.end and unit.start < s.end]
        if parts:
            partial.append(f"part of item {i + 1}" + (f" {CUT}" if any(s in cut for s in parts) else ""))
    return ", ".join(whole + partial) or "–"


def _delivery_of(decision: HitDelivery) -> str:
    if not decision.delivered:
        return _NOT_DELIVERED[decision.status]
    notes = ["yes"]
    if decision.status == "truncated":
        notes.append(f"truncated to {decision.body_chars} chars")
    if decision.duplicate_chars:
        notes.append(f"{decision.duplicate_chars} chars duplicate")
    return ", ".join(notes)


def _state_line(result: QuestionResult) -> str:
    items = len(result.covered)
    delivered = sum(result.covered)
    if result.lost:
        return "lost: a chunk boundary cut the evidence before retrieval"
    if result.complete:
        return f"complete: every required item delivered ({items} of {items})"
    return f"incomplete: {delivered} of {items} required items delivered"


def _config_section(name: str, question: Question, result: ConfigResult, corpus: Corpus) -> list[str]:
    config = result.config
    question_result = next(q for q in result.questions if q.question_id == question.id)
    budget = "no budget" if config.budget is None else f"budget {config.budget} {config.budget_units}"
    rank = question_result.first_correct_rank
    lines = [
        f"## {name}: `{config.label}` (top-{config.top_k}, {budget}, overflow {config.overflow})",
        "",
        f"- Chunker `{config.chunker}`, retriever `{config.retriever}`",
        f"- State: {_state_line(question_result)}",
        f"- Cause: {failure_cause(question_result, config).value}: "
        f"{failure_detail(question_result, config, severed=severed_rows(question_result, corpus))}",
        f"- First correct rank: {rank if rank is not None else '–'} (bucket {state_of(question_result)})",
        f"- Delivered: {len(question_result.delivered)} chunks, {question_result.sent_chars} chars sent, "
        f"{question_result.duplicate_chars} duplicate; "
        f"delivery stopped: {_STOP_REASONS[question_result.delivery_stop]}",
        "",
        "Gold in its context, with this configuration's chunk boundaries:",
        "",
    ]
    for span in question.gold_spans:
        lines += _context_block(span, question, question_result, corpus, _boundaries(result.chunks, span.doc))
        lines.append("")
    top = question_result.ranked[: config.top_k]
    if not top:
        return [*lines, "Nothing was retrieved (no chunk scored above 0).", ""]
    decisions = delivery_decisions(question_result, config)
    cut = {doc: spans_cut(question, doc, question_result, ()) for doc in {hit.delivered_unit.doc for hit in top}}
    lines += [
        f"Top-{config.top_k} ranked chunks:",
        "",
        "| rank | score | document | span | length | delivered | evidence |",
        "|---:|---:|---|---|---:|---|---|",
    ]
    for hit in top:
        chunk = hit.chunk
        evidence = _evidence_of(hit, question, question_result, cut[hit.delivered_unit.doc])
        lines.append(
            f"| {hit.rank} | {hit.score:.3f} | `{chunk.doc}` | {chunk.start}–{chunk.end} | {chunk.length} | "
            f"{_delivery_of(decisions.of(hit.rank))} | {evidence} |"
        )
    lines.append("")
    for hit in top:
        unit = hit.delivered_unit
        gold = [span for span in question.gold_spans if span.doc == unit.doc]
        parent = f" (delivers parent {unit.start}–{unit.end})" if hit.delivers is not None else ""
        lines += [f"### {name} #{hit.rank} `{hit.chunk.doc}` {hit.chunk.start}–{hit.chunk.end}{parent}", ""]
        if unit.prefix:
            lines += [f"Prefix sent before the body: `{unit.prefix.strip()}`", ""]
        edges = (unit.start, unit.end)
        lines += fenced(mark_text(unit.text, unit.start, gold, edges, cut_offsets(cut[unit.doc], edges)))
        lines.append("")
    return lines


def _context_block(
    span: Span, question: Question, result: QuestionResult, corpus: Corpus, boundaries: set[int]
) -> list[str]:
    text = corpus.by_id[span.doc].text
    start = max(0, span.start - CONTEXT_CHARS)
    end = min(len(text), span.end + CONTEXT_CHARS)
    gold = [s for s in question.gold_spans if s.doc == span.doc]
    cuts = cut_offsets(spans_cut(question, span.doc, result, ()), boundaries)
    marked = mark_text(text[start:end], start, gold, boundaries, cuts)
    before = "…" if start > 0 else ""
    after = "…" if end < len(text) else ""
    return [f"`{span.doc}` {span.start}–{span.end}:", "", *fenced(f"{before}{marked}{after}")]


def case_file(
    question: Question,
    corpus: Corpus,
    results: Sequence[ConfigResult],
    dataset_name: str,
    comparison: Comparison | None = None,
    answers: AnswerOutcome | None = None,
) -> str:
    """The Markdown case file of ``question`` under each configuration of ``results`` (A, then B).

    ``comparison`` (A against B) adds how the question moved between them; ``answers`` (when an answer
    option was given) the references, answer_in_context and the answer under each configuration that has one.
    """
    lines = [
        f"# Case {question.id}: {question.query}",
        "",
        f"Dataset `{dataset_name}` · chunkscope {__version__}"
        + (f" · tags: {', '.join(question.tags)}" if question.tags else ""),
        "",
        "Marks in text blocks: `⟦ ⟧` gold evidence, `|` chunk boundary, "
        "`✂` boundary inside gold that no chunk holds whole (a cut).",
        "",
        "## Query",
        "",
        *fenced(question.query),
        "",
        "## Gold evidence",
        "",
    ]
    for number, item in enumerate(question.evidence, start=1):
        heading = f"{number}. Required item {number}" + (" (any one of):" if len(item.alternatives) > 1 else ":")
        lines.append(heading)
        for span in item.alternatives:
            gold_text = corpus.by_id[span.doc].text[span.start : span.end]
            lines.append(f"   - `{span.doc}` {span.start}–{span.end} ({span.length} chars): “{gold_text}”")
    lines.append("")
    if comparison is not None:
        move = comparison.move(question.id)
        notes: list[str] = [move.movement]
        if move.recovered:
            notes.append("recovered (evidence lost under A exists under B)")
        if move.newly_lost:
            notes.append("newly lost (evidence that exists under A is lost under B)")
        rank_a = move.rank_a if move.rank_a is not None else "–"
        rank_b = move.rank_b if move.rank_b is not None else "–"
        lines += [
            "## A → B",
            "",
            f"State {move.state_a} → {move.state_b}, first correct rank {rank_a} → {rank_b}, "
            f"cause {move.cause_a.value} → {move.cause_b.value}: {', '.join(notes)}.",
            "",
        ]
    for name, result in zip("AB", results, strict=False):
        lines += _config_section(name, question, result, corpus)
        if answers is not None and not answers.empty:
            view = question_answer_view(question, result, answers)
            lines += [
                line.replace("### Answer to", f"### {name}: answer to", 1) for line in question_answer_markdown(view)
            ]
    return "\n".join(lines).rstrip("\n") + "\n"
