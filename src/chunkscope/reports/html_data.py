"""The data an HTML report embeds: the JSON report itself, plus the per-question detail it lacks.

The HTML page (:mod:`chunkscope.html`) shows the numbers of the JSON report as they are and never
computes one. What the JSON report does not hold (question texts, gold spans, the documents around
them, each configuration's top-k hits, deliveries, cuts and chunk boundaries, and for compare and
sweep every configuration's per-question state) is computed here, from the same result values the
JSON report was made of, in a compact column form so that a JSQuAD sweep of eight configurations stays
small (:data:`ROW_FIELDS`).

Offsets in the detail are code points into the documents, whatever unit the JSON report was written
in; the page embeds the parts of the documents it shows (each gold span with its context, each shown
chunk), not whole documents. A saved JSON report (``chunkscope report``) has no detail: the page then shows
what the report holds and says that texts are absent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chunkscope import __version__
from chunkscope.analysis.answer_compare import question_transitions
from chunkscope.analysis.comparison import state_of
from chunkscope.analysis.diagnose import diagnose, failure_detail
from chunkscope.errors import InputError
from chunkscope.io.sources import Dataset
from chunkscope.io.text import parse_json, read_text
from chunkscope.reports.answers import AnswerOutcome
from chunkscope.reports.casefile import CONTEXT_CHARS
from chunkscope.results import ConfigResult, DeliveredChunks, QuestionResult

DATA_FORMAT = "chunkscope-html-data"
DATA_VERSION = 1
"""Version of the embedded data's layout (read by the page's script)."""

ROW_FIELDS = (
    "state",
    "first_correct_rank",
    "cause",
    "cause_detail",
    "complete",
    "covered",
    "sent_chars",
    "duplicate_chars",
    "delivery_stop",
    "hits",
    "cuts",
)
"""The fields of one question row of a configuration, in order. ``hits``: the top-k ranked units as
``[rank, chunk id, document index, start, end, score, delivered start, delivered end]`` (delivered start
and end null when the hit sent nothing; the delivered unit is the parent for a parent-child chunker).
``cuts``: ``[document index, start, end, [boundaries]]`` per gold span cut. Each hit's own duplicate
characters are left out (counting them builds every delivered value); the row's total is there."""

KINDS = ("eval", "compare", "sweep")

ANSWER_FIELDS = ("answer", "correct", "score", "attribution", "cause")
"""The fields of one question's answer under a configuration with answers, in order (``null`` for a question
without an answer): the generated answer, whether it was judged correct, the score it was judged by (or
``null``), its attribution class and the failure cause it was crossed with."""


def html_data(
    kind: str,
    report: Mapping[str, Any],
    dataset: Dataset,
    results: Sequence[ConfigResult],
    generated: str,
    answers: AnswerOutcome | None = None,
) -> dict[str, Any]:
    """What the HTML page of ``report`` (a ``kind`` report of ``results`` on ``dataset``) embeds.

    ``generated``: the date and time shown as the page's date (the caller's clock). ``answers``: what
    the answer options computed (the report's ``answers`` numbers come from the same values); with
    answers, each question carries its references and each configuration its questions' answers.
    """
    with_answers = answers is not None and not answers.empty
    documents = _DocumentTable(dataset)
    questions = []
    for question in dataset.questions.questions:
        gold = [
            [item_index, documents.keep(span.doc, span.start - CONTEXT_CHARS, span.end + CONTEXT_CHARS), span.start,
             span.end, int(item.approximate)]
            for item_index, item in enumerate(question.evidence)
            for span in item.alternatives
        ]  # fmt: skip
        entry = {"id": question.id, "query": question.query, "tags": list(question.tags), "gold": gold}
        if with_answers:
            entry["references"] = list(question.references)
        questions.append(entry)
    documents.gold_indexed = len(documents.ids)
    runs = [_run(result, documents) for result in results]
    if answers is not None and with_answers:
        for run, result in zip(runs, results, strict=True):
            run |= answer_columns(result, answers)
    detail: dict[str, Any] = {
        "row_fields": list(ROW_FIELDS),
        "documents": documents.ids,
        "lengths": documents.lengths,
        "segments": documents.segments(),
        "context": CONTEXT_CHARS,
        "questions": questions,
        "runs": runs,
    }
    if with_answers:
        detail["answer_fields"] = list(ANSWER_FIELDS)
    if answers is not None and answers.transitions is not None:
        # [evidence transition, answer transition] of each question answered under A and B (null otherwise)
        moves = question_transitions(answers.transitions.a, answers.transitions.b)
        detail["answer_transitions"] = [
            list(moves[q.id]) if q.id in moves else None for q in dataset.questions.questions
        ]
    return {
        "format": DATA_FORMAT,
        "version": DATA_VERSION,
        "kind": kind,
        "generated": generated,
        "report": report,
        "detail": detail,
    }


def answer_columns(result: ConfigResult, answers: AnswerOutcome) -> dict[str, Any]:
    """One configuration's per-question answer values, in question order, for the page.

    ``answers``: each question's :data:`ANSWER_FIELDS` (``null`` when it has none), when the configuration
    has answers; ``answer_in_context``: each question's flag (``null`` without references), when computed.
    The values are the attribution's own, the ones the JSON report's numbers count.
    """
    columns: dict[str, Any] = {}
    attribution = answers.attributions.get(result.config)
    if attribution is not None:
        by_question = attribution.by_question
        columns["answers"] = [
            None
            if (row := by_question.get(q.question_id)) is None
            else [row.judgment.answer, row.correct, row.judgment.score, row.attribution, row.cause]
            for q in result.questions
        ]
    flags = answers.in_context.get(result.config)
    if flags is not None:
        columns["answer_in_context"] = list(flags)
    return columns


def saved_report_data(report: Mapping[str, Any], generated: str) -> dict[str, Any]:
    """What the page embeds for a saved JSON report (``chunkscope report``): the report alone, no detail."""
    return {
        "format": DATA_FORMAT,
        "version": DATA_VERSION,
        "kind": report_kind(report),
        "generated": generated,
        "report": report,
        "detail": None,
    }


class _DocumentTable:
    """Documents by index, and the parts of their texts the page shows.

    Kept: each gold span with :data:`CONTEXT_CHARS` on each side, and each shown hit's chunk; the page
    embeds those parts (merged where they overlap or touch), not whole documents, so a large corpus does
    not make a large page.
    """

    def __init__(self, dataset: Dataset) -> None:
        self._corpus = dataset.corpus
        self._index: dict[str, int] = {}
        self._ranges: list[list[tuple[int, int]]] = []
        self.ids: list[str] = []
        self.lengths: list[int] = []
        self.gold_indexed = 0
        """The first documents, those gold lies in (indexed before any hit): their chunk boundaries are kept."""

    def index(self, doc: str) -> int:
        """The index of ``doc`` (added on first use)."""
        position = self._index.get(doc)
        if position is None:
            position = self._index[doc] = len(self.ids)
            self.ids.append(doc)
            document = self._corpus.by_id.get(doc)
            self.lengths.append(0 if document is None else len(document.text))
            self._ranges.append([])
        return position

    def keep(self, doc: str, start: int, end: int) -> int:
        """The index of ``doc``, with its text over [start, end) (clipped to the document) kept for the page."""
        position = self.index(doc)
        self._ranges[position].append((start, end))  # clipped when merged: this runs for every hit shown
        return position

    def segments(self) -> list[list[list[Any]]]:
        """Per document, the kept text as ``[start, text]`` pieces: sorted, merged, apart from each other."""
        pieces: list[list[list[Any]]] = []
        for doc, ranges in zip(self.ids, self._ranges, strict=True):
            merged: list[list[int]] = []
            length = self.lengths[len(pieces)]
            clipped = {(max(0, start), min(length, end)) for start, end in ranges}
            for start, end in sorted(r for r in clipped if r[1] > r[0]):
                if merged and start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            document = self._corpus.by_id.get(doc)
            text = "" if document is None else document.text
            pieces.append([[start, text[start:end]] for start, end in merged])
        return pieces

    def gold_index(self, doc: str) -> int | None:
        """The index of ``doc`` when gold lies in it, else None."""
        position = self._index.get(doc)
        return position if position is not None and position < self.gold_indexed else None


def _run(result: ConfigResult, documents: _DocumentTable) -> dict[str, Any]:
    config = result.config
    causes = diagnose(result).causes
    rows = [_row(q, result, cause, documents) for q, (_, cause) in zip(result.questions, causes, strict=True)]
    boundaries: dict[int, set[int]] = {}
    for chunk in result.chunks:
        position = documents.gold_index(chunk.doc)
        if position is not None:
            boundaries.setdefault(position, set()).update((chunk.start, chunk.end))
    return {
        "label": config.label,
        "top_k": config.top_k,
        "budget": config.budget,
        "budget_units": config.budget_units,
        "overflow": config.overflow,
        "rows": rows,
        "boundaries": {str(doc): sorted(offsets) for doc, offsets in sorted(boundaries.items())},
    }


def _row(q: QuestionResult, result: ConfigResult, cause: Any, documents: _DocumentTable) -> list[Any]:
    config = result.config
    sent = _sent_ends(q)
    ranking, units, parents = q.ranking, q.units, q.parents
    hits = []
    for rank, (position, score) in enumerate(zip(ranking.indices[: config.top_k], ranking.scores, strict=False), 1):
        chunk = units[position]
        unit = parents[position] if parents is not None else chunk
        end = sent.get(rank)
        hits.append(
            [
                rank,
                chunk.id,
                documents.keep(chunk.doc, chunk.start, chunk.end),
                chunk.start,
                chunk.end,
                round(score, 4),
                None if end is None else unit.start,
                end,
            ]
        )
    cuts = [[documents.index(c.span.doc), c.span.start, c.span.end, list(c.boundaries)] for c in q.cuts]
    return [
        state_of(q),
        q.first_correct_rank,
        cause.value,
        failure_detail(q, config, cause),
        int(q.complete),
        [int(x) for x in q.covered],
        q.sent_chars,
        q.duplicate_chars,
        q.delivery_stop,
        hits,
        cuts,
    ]


def _sent_ends(q: QuestionResult) -> dict[int, int]:
    """Rank -> one past the last delivered body character, for each delivered hit.

    Read from the kept ranks and ends where the result keeps them: building the delivered values
    (which counts each one's duplicate characters) would cost a JSQuAD sweep's page seconds.
    """
    delivered = q.delivered
    if isinstance(delivered, DeliveredChunks):
        return dict(zip(delivered.ranks, delivered.ends, strict=True))
    return {d.rank: d.end for d in delivered}


def report_kind(report: Mapping[str, Any]) -> str:
    """``eval``, ``compare`` or ``sweep``: which command wrote a JSON report (its keys tell)."""
    if "grid" in report and "pareto" in report:
        return "sweep"
    if "comparison" in report:
        return "compare"
    return "eval"


def check_report(report: object, source: str) -> dict[str, Any]:
    """``report`` when it is a chunkscope eval, compare or sweep JSON report this version can read.

    An InputError naming ``source`` and the field otherwise: not an object, no
    ``chunkscope_version``, ``inputs`` or ``configs``, or written by a newer chunkscope than this one.
    """
    foreign = "not a chunkscope eval, compare or sweep report"
    if not isinstance(report, dict):
        raise InputError(source, f"{foreign} (the JSON is not an object)")
    version = report.get("chunkscope_version")
    if not isinstance(version, str):
        raise InputError(source, f"{foreign} (no chunkscope_version)", field="chunkscope_version")
    for name in ("inputs", "configs"):
        value = report.get(name)
        if not isinstance(value, list) or (name == "configs" and not value):
            raise InputError(source, f"{foreign} (no list of {name})", field=name)
    if not all(isinstance(c, dict) and isinstance(c.get("summary"), dict) for c in report["configs"]):
        raise InputError(source, f"{foreign} (a configuration without a summary)", field="configs")
    if _version_key(version) > _version_key(__version__):
        raise InputError(
            source,
            f"written by chunkscope {version}, newer than this chunkscope {__version__}: render it with that version",
            field="chunkscope_version",
        )
    return report


def load_report(path: str) -> dict[str, Any]:
    """The saved JSON report at ``path``, checked by :func:`check_report`.

    Truncated or malformed JSON is one InputError naming the file and line.
    """
    text, _ = read_text(Path(path))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        what = "truncated JSON" if truncated else f"invalid JSON: {exc.msg}"
        raise InputError(
            path, f"{what} (column {exc.colno}): not a complete chunkscope report", line=exc.lineno
        ) from None
    except (ValueError, RecursionError):
        value = parse_json(path, text)  # names the field or depth that json refused
    return check_report(value, path)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])
