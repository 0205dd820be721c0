"""Question-set loader: JSONL questions with gold evidence spans or quotes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.sources import SourceFile
from chunkscope.io.text import field_value, jsonl_records, read_text, record_id, shorten, times
from chunkscope.model import Corpus, Document, EvidenceItem, Question, QuestionSet, Span

SHOWN_OFFSETS = 10
"""Offsets of an ambiguous quote listed in the error (the count of the others follows: ``+3 more``)."""


def load_questions(path: str | Path, corpus: Corpus) -> tuple[QuestionSet, SourceFile]:
    """Load questions JSONL and resolve every evidence item against the corpus."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    for number, record in jsonl_records(path, text):
        where = (str(path), number)
        question_id = record_id(record, where)
        query = field_value(record, "query", str, where)
        if not query.strip():
            raise InputError(str(path), "must not be empty", line=number, field="query")
        items = field_value(record, "evidence", list, where)
        if not items:
            raise InputError(str(path), "needs at least one evidence item", line=number, field="evidence")
        tags = record.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
            raise InputError(str(path), "must be a list of non-empty strings", line=number, field="tags")
        if question_id in first_line:
            raise InputError(
                str(path),
                f"duplicate question id '{question_id}' (first on line {first_line[question_id]})",
                line=number,
                field="id",
            )
        first_line[question_id] = number
        evidence = tuple(_evidence_item(item, corpus, where, f"evidence[{i}]") for i, item in enumerate(items))
        questions.append(Question(question_id, query, evidence, tuple(tags)))
    if not questions:
        raise InputError(str(path), "the question set is empty: nothing to evaluate")
    return QuestionSet(tuple(questions)), SourceFile(str(path), digest)


def _evidence_item(item: Any, corpus: Corpus, where: tuple[str, int], name: str) -> EvidenceItem:
    path, line = where
    if not isinstance(item, dict):
        raise InputError(path, "must be an object", line=line, field=name)
    if "any" in item:
        alternatives = item["any"]
        if set(item) != {"any"}:
            extra = ", ".join(sorted(set(item) - {"any"}))
            raise InputError(path, f"an 'any' item takes no other keys, got {extra}", line=line, field=name)
        if not isinstance(alternatives, list):
            raise InputError(path, f"must be a list, got {type(alternatives).__name__}", line=line, field=f"{name}.any")
        if not alternatives:
            raise InputError(path, "needs at least one alternative", line=line, field=f"{name}.any")
        spans: list[Span] = []
        for i, alternative in enumerate(alternatives):
            spans.extend(_evidence_item(alternative, corpus, where, f"{name}.any[{i}]").alternatives)
        return EvidenceItem(tuple(spans))
    return EvidenceItem((_span(item, corpus, where, name),))


_SPAN_KEYS = ("doc", "start", "end", "quote", "occurrence")


def _span(item: Mapping[str, Any], corpus: Corpus, where: tuple[str, int], name: str) -> Span:
    path, line = where
    unknown = [key for key in item if key not in _SPAN_KEYS]
    if unknown:
        raise InputError(
            path,
            f"unknown key {unknown[0]!r} (valid: {', '.join(_SPAN_KEYS)}, or 'any')",
            line=line,
            field=f"{name}.{unknown[0]}",
        )
    if "doc" not in item:
        raise InputError(path, "missing", line=line, field=f"{name}.doc")
    doc_id = item["doc"]
    document = corpus.by_id.get(doc_id) if isinstance(doc_id, str) else None
    if document is None:
        raise InputError(path, f"unknown document {doc_id!r}", line=line, field=f"{name}.doc")
    if "quote" in item:
        span = _locate_quote(item, document, where, name)
        if "start" in item or "end" in item:
            given = _offsets(item, document, where, name)
            if given != span:
                raise InputError(
                    path,
                    f"[{given.start}, {given.end}) does not match the quote, found at [{span.start}, {span.end})",
                    line=line,
                    field=f"{name}.start",
                )
        return span
    if "occurrence" in item:
        raise InputError(path, "applies only to a 'quote'", line=line, field=f"{name}.occurrence")
    if "start" not in item and "end" not in item:
        raise InputError(path, "missing: give start and end, or a quote", line=line, field=f"{name}.start")
    return _offsets(item, document, where, name)


def _offsets(item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str) -> Span:
    path, line = where
    for key in ("start", "end"):
        value = item.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(path, "must be an integer (or give a 'quote')", line=line, field=f"{name}.{key}")
    start, end = item["start"], item["end"]
    if not 0 <= start < end <= len(document.text):
        problem = "is empty" if start >= end else f"is out of range (document has {len(document.text)} characters)"
        raise InputError(path, f"span [{start}, {end}) {problem}", line=line, field=f"{name}.start")
    return Span(document.id, start, end)


def _locate_quote(item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str) -> Span:
    path, line = where
    quote = item["quote"]
    if not isinstance(quote, str) or not quote:
        raise InputError(path, "must be a non-empty string", line=line, field=f"{name}.quote")
    found = find_all(document.text, quote)
    occurrence = item.get("occurrence")
    if occurrence is None:
        if len(found) != 1:
            more = f" +{len(found) - SHOWN_OFFSETS} more" if len(found) > SHOWN_OFFSETS else ""
            where_found = f" at offsets {', '.join(map(str, found[:SHOWN_OFFSETS]))}{more}" if found else ""
            hint = '; add "occurrence": N (0-based) to pick one' if found else ""
            raise InputError(
                path,
                f"quote {shorten(quote)} found {len(found)} times in '{document.id}'{where_found}{hint}",
                line=line,
                field=f"{name}.quote",
            )
        start = found[0]
    else:
        if not isinstance(occurrence, int) or isinstance(occurrence, bool) or occurrence < 0:
            raise InputError(
                path,
                f"must be a non-negative integer (0-based), got {json.dumps(occurrence)}",
                line=line,
                field=f"{name}.occurrence",
            )
        if occurrence >= len(found):
            raise InputError(
                path,
                f"occurrence {occurrence} does not exist: the quote occurs {times(len(found))}",
                line=line,
                field=f"{name}.occurrence",
            )
        start = found[occurrence]
    return Span(document.id, start, start + len(quote))


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of every (possibly overlapping) occurrence of ``needle``."""
    found = []
    position = text.find(needle)
    while position != -1:
        found.append(position)
        position = text.find(needle, position + 1)
    return found
