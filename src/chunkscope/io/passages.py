"""MTCB-style passage sets: one gold passage string per question, located in the corpus.

Rows (a JSON list, an object holding one under ``data``/``samples``/``examples``, or JSON lines) of
``{question, passage}`` (``reference`` or ``chunk`` instead of ``passage``), with an optional ``doc`` (or
``document``/``doc_id``) naming the corpus document that holds it, and an optional ``id``. The documents come from
``--corpus``. The passage is one required item, located by the quote ladder (``--gold-match``) in its ``doc``
when given, else anywhere in the corpus; every occurrence at the rung that found it is an alternative (the set
gives text, not a position). A passage not found, or a ``doc`` the corpus lacks, refuses the file naming row and
field, or with ``--skip-bad-gold`` leaves the question out, counted by reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset_formats import (
    DatasetFormat,
    LoadOptions,
    MatchTally,
    Probe,
    empty_question_set,
    left_out_line,
    need_corpus,
    quote_item,
    records_of,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, locate_in_corpus
from chunkscope.io.quotes import QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.testset import CONTEXT_FIELDS, testset_rows
from chunkscope.io.text import read_text
from chunkscope.model import Corpus, EvidenceItem, Question, SpanMatch

PASSAGE_FIELDS = ("passage", "reference", "chunk")
DOC_FIELDS = ("doc", "document", "doc_id")
NOT_FOUND = "passage not found in the corpus"
UNKNOWN_DOC = "document not in the corpus"


def _first(row: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str, Any]:
    return next(((name, row[name]) for name in names if name in row), (names[0], None))


def _item(finder: QuoteFinder, tally: MatchTally, corpus: Corpus, doc: Any, passage: str) -> EvidenceItem | None:
    if doc is not None:
        return quote_item(finder, tally, corpus.by_id[str(doc)], passage)
    hits = locate_in_corpus(finder, corpus, passage)
    tally.add(hits.match.kind if hits.match is not None else None)
    if hits.match is None:
        return None
    matches: tuple[SpanMatch, ...] = (hits.match,) * len(hits.places) if hits.match.approximate else ()
    return EvidenceItem(hits.places, matches)


def load_passages(path: str | Path, options: LoadOptions) -> Dataset:
    """Read an MTCB-style passage set with its corpus (see the module docstring)."""
    path = Path(path)
    corpus, corpus_source = load_corpus(need_corpus(path, options, "passage set"))
    text, digest = read_text(path)
    readable = path if path.suffix.lower() in (".json", ".jsonl") else path.with_suffix(".jsonl")
    finder = QuoteFinder(options.gold_match)
    tally = MatchTally()
    questions: list[Question] = []
    left_out = LeftOut(options.lenient, options.skip_bad_gold)
    excluded = left_out.reasons
    ids: set[str] = set()
    for line, index, row in testset_rows(readable, text):
        prefix = "" if line is not None else f"[{index}]."

        def name(field: str, prefix: str = prefix) -> str:
            return prefix + field

        if not isinstance(row.get("question"), str) or not row["question"].strip():
            raise InputError(str(path), "must be a non-empty string", line=line, field=name("question"))
        passage_field, passage = _first(row, PASSAGE_FIELDS)
        if not isinstance(passage, str) or not passage.strip():
            raise InputError(str(path), "must be a non-empty string", line=line, field=name(passage_field))
        doc_field, doc = _first(row, DOC_FIELDS)
        question_id = str(row.get("id") or f"row-{index + 1}")
        if question_id in ids:
            raise InputError(str(path), f"duplicate question id '{question_id}'", line=line, field=name("id"))
        ids.add(question_id)
        try:
            if doc is not None and str(doc) not in corpus.by_id:
                tally.add(None)
                message = f"no document {doc!r} in the corpus"
                raise BadGold(
                    str(path),
                    message,
                    line=line,
                    field=name(doc_field),
                    reason=UNKNOWN_DOC,
                    kind="not_found",
                    quote=str(doc),
                )
            item = _item(finder, tally, corpus, doc, passage.strip())
            if item is None:
                raise BadGold(
                    str(path),
                    "passage not found",
                    line=line,
                    field=name(passage_field),
                    reason=NOT_FOUND,
                    kind="not_found",
                    doc=None if doc is None else str(doc),
                    quote=passage.strip(),
                )
        except BadGold as bad:
            left_out.bad(bad, question_id)
            continue
        answer = row.get("answer")
        references = (answer,) if isinstance(answer, str) and answer else ()
        questions.append(Question(question_id, row["question"], (item,), (), references))
    if not questions and not left_out.issues:
        raise empty_question_set(path, excluded)
    question_set = left_out.question_set(questions)
    notices = (tally.line(path, "passages"), left_out_line(path, excluded))
    sources = (corpus_source, SourceFile(str(path), digest))
    return Dataset(corpus, question_set, sources, Path(options.corpus or path).name, notices)


def _sniff(probe: Probe) -> bool:
    record = probe.record
    if probe.layout == "object":
        rows = next((records_of(probe, key) for key in ("data", "samples", "examples") if records_of(probe, key)), None)
        record = rows[0] if rows and isinstance(rows[0], Mapping) else None
    if record is None or "question" not in record or any(key in record for key in CONTEXT_FIELDS):
        return False
    return any(isinstance(record.get(key), str) for key in PASSAGE_FIELDS)


register(
    DatasetFormat(
        "passages",
        "MTCB-style rows: question, passage (or reference), doc? (with --corpus)",
        _sniff,
        load_passages,
        80,
    )
)
