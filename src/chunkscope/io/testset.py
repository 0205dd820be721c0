"""RAGAS / DeepEval style test sets: a question and the reference contexts it needs, as text.

JSON (a list of objects, or an object holding one such list), JSONL or CSV. The
question is the first of ``user_input``, ``question``, ``input``, ``query``; the
contexts the first of ``reference_contexts``, ``contexts``, ``context``,
``retrieval_context``. Every context becomes a required piece of evidence,
located in the corpus by the quote ladder.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.chroma import csv_rows
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, need_corpus, register
from chunkscope.io.gold import locate_in_corpus
from chunkscope.io.gold_units import quote_line_endings
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, QuoteFinder, strip_hop_marker
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import jsonl_records, parse_json, read_text, reject_bom, require_regular_file, shorten
from chunkscope.model import Corpus, EvidenceItem, GoldIssue, Question, QuestionSet

QUESTION_FIELDS = ("user_input", "question", "input", "query")
CONTEXT_FIELDS = ("reference_contexts", "contexts", "context", "retrieval_context")
LIST_KEYS = ("samples", "data", "test_cases", "goldens", "examples")
"""Keys under which a JSON object may hold the list of rows."""
TAG_FIELDS = ("synthesizer_name",)
"""Columns whose value becomes a question tag (RAGAS names the synthesizer that made each row)."""
REFERENCE_FIELDS = ("reference", "answer", "expected_output", "ground_truth")
"""Columns holding the reference answer (RAGAS, DeepEval goldens); the first non-empty one is taken."""


def load_testset(
    path: str | Path, corpus: Corpus, policy: MatchPolicy = DEFAULT_POLICY
) -> tuple[QuestionSet, SourceFile]:
    """Load a test set; rows whose contexts cannot all be located are excluded, counted and listed.

    A context found several times (in one document or several) gets every
    occurrence as an alternative: the set gives text, not a position, so any copy
    of it is the evidence. A leading RAGAS multi-hop marker (``<1-hop>``) is not
    part of the context.
    """
    path = Path(path)
    require_regular_file(path)
    text, digest = read_text(path)
    finder = QuoteFinder(policy)
    questions: list[Question] = []
    issues: list[GoldIssue] = []
    excluded = 0
    ids: set[str] = set()
    for line, index, row in testset_rows(path, text):
        where = _Where(str(path), line, index)
        question = _question(row, where, corpus, finder, issues)
        if question.id in ids:
            raise where.fail("id", f"duplicate question id '{question.id}'")
        ids.add(question.id)
        if all(item.alternatives for item in question.evidence):
            questions.append(question)
        else:
            excluded += 1
    if not questions and not excluded:
        raise InputError(str(path), "the test set is empty: nothing to evaluate")
    reasons = {"context not found in the corpus": excluded} if excluded else {}
    return QuestionSet(tuple(questions), excluded, reasons, tuple(issues)), SourceFile(str(path), digest)


class _Where:
    """Where a row is: file, line (when known) and its index in the set."""

    def __init__(self, path: str, line: int | None, index: int) -> None:
        self.path, self.line, self.index = path, line, index

    def name(self, field: str) -> str:
        return field if self.line is not None else f"[{self.index}].{field}"

    def fail(self, field: str, message: str) -> InputError:
        return InputError(self.path, message, line=self.line, field=self.name(field))

    def describe(self, field: str) -> str:
        place = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{place} field '{self.name(field)}'"


def _question(
    row: dict[str, Any], where: _Where, corpus: Corpus, finder: QuoteFinder, issues: list[GoldIssue]
) -> Question:
    question_field = next((name for name in QUESTION_FIELDS if name in row), None)
    if question_field is None:
        raise where.fail(QUESTION_FIELDS[0], f"missing: a row needs one of {', '.join(QUESTION_FIELDS)}")
    query = row[question_field]
    if not isinstance(query, str) or not query.strip():
        raise where.fail(question_field, "must be a non-empty string")
    question_id = row.get("id")
    if question_id is None or question_id == "":
        question_id = f"row-{where.index + 1}"
    if not isinstance(question_id, (str, int)) or isinstance(question_id, bool):
        raise where.fail("id", "must be a string or an integer")
    question_id = str(question_id)
    context_field, contexts = _contexts(row, where)
    evidence = []
    for i, context in enumerate(contexts):
        name = f"{context_field}[{i}]"
        hits = locate_in_corpus(finder, corpus, context)
        if hits.match is None:
            issues.append(
                GoldIssue(
                    "not_found",
                    question_id,
                    where.describe(name),
                    None,
                    context,
                    (),
                    f"context {shorten(context)} not found in the corpus (--gold-match {finder.policy.label})"
                    + _line_endings(corpus, context),
                )
            )
        matches = (hits.match,) * len(hits.places) if hits.match is not None and hits.match.approximate else ()
        evidence.append(EvidenceItem(hits.places, matches))
    tags = tuple(str(row[name]) for name in TAG_FIELDS if isinstance(row.get(name), str) and row[name].strip())
    references = tuple(row[name] for name in REFERENCE_FIELDS if isinstance(row.get(name), str) and row[name].strip())[
        :1
    ]
    return Question(question_id, query, tuple(evidence), tags, references)


def _line_endings(corpus: Corpus, context: str) -> str:
    """The note that line endings differ, when the context is in a CRLF document read with CRLF as LF."""
    notes = (quote_line_endings(document.text, context) for document in corpus.documents if "\r" in document.text)
    return next((note for note in notes if note), "")


def _contexts(row: dict[str, Any], where: _Where) -> tuple[str, list[str]]:
    name = next((candidate for candidate in CONTEXT_FIELDS if candidate in row), None)
    if name is None:
        raise where.fail(CONTEXT_FIELDS[0], f"missing: a row needs one of {', '.join(CONTEXT_FIELDS)}")
    value = row[name]
    if isinstance(value, str):
        value = _context_cell(value, where, name)
    if not isinstance(value, list) or not value:
        raise where.fail(name, "must be a non-empty list of context strings")
    contexts = []
    for i, context in enumerate(value):
        if not isinstance(context, str) or not strip_hop_marker(context).strip():
            raise where.fail(f"{name}[{i}]", "must be a non-empty string")
        contexts.append(strip_hop_marker(context))
    return name, contexts


def _context_cell(cell: str, where: _Where, name: str) -> Any:
    """A CSV cell: a JSON list, a Python list literal (pandas writes lists so), or one context."""
    stripped = cell.strip()
    if not stripped.startswith("["):
        return [cell] if stripped else []
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise where.fail(name, "is nested too deeply") from None
    except ValueError:  # an integer beyond Python's digit limit
        raise where.fail(name, f"holds a number of more than {sys.get_int_max_str_digits():,} digits") from None
    try:
        return ast.literal_eval(stripped)
    except RecursionError:
        raise where.fail(name, "is nested too deeply") from None
    except (ValueError, SyntaxError, MemoryError):
        raise where.fail(name, "looks like a list but is neither JSON nor a Python list literal") from None


def testset_rows(path: Path, text: str) -> Iterator[tuple[int | None, int, dict[str, Any]]]:
    """Every row of a test set file as (line when known, 0-based index, row), by its suffix: CSV, JSONL or JSON."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        reject_bom(path, text)
        for line, index, row in csv_rows(path, text, ()):
            yield line, index, dict(row)
        return
    if suffix == ".jsonl":
        for index, (line, record) in enumerate(jsonl_records(path, text)):
            yield line, index, record
        return
    if suffix != ".json":
        raise InputError(str(path), "a test set must be .json, .jsonl or .csv")
    yield from _json_rows(path, text)


def _json_rows(path: Path, text: str) -> Iterator[tuple[int | None, int, dict[str, Any]]]:
    reject_bom(path, text)
    root = parse_json(path, text)
    if isinstance(root, dict):
        lists = [key for key in LIST_KEYS if isinstance(root.get(key), list)]
        if not lists:
            raise InputError(str(path), f"expected a list of rows, or an object with one of {', '.join(LIST_KEYS)}")
        rows, lines = root[lists[0]], None
    elif isinstance(root, list):
        rows, lines = root, _element_lines(text)
    else:
        raise InputError(str(path), "expected a list of rows")
    for index, row in enumerate(rows):
        line = lines[index] if lines is not None and index < len(lines) else None
        if not isinstance(row, dict):
            raise InputError(str(path), "each row must be an object", line=line, field=None if line else f"[{index}]")
        yield line, index, row


def _element_lines(text: str) -> list[int]:
    """The line on which each element of a top-level JSON list starts."""
    decoder = json.JSONDecoder()
    lines: list[int] = []
    position = text.index("[") + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            return lines
        lines.append(text.count("\n", 0, position) + 1)
        _, position = decoder.raw_decode(text, position)


def _sniff_testset(probe: Probe) -> bool:
    record = probe.record
    if probe.layout == "object" and isinstance(probe.value, dict):
        lists = [probe.value[key] for key in LIST_KEYS if isinstance(probe.value.get(key), list)]
        record = lists[0][0] if lists and lists[0] and isinstance(lists[0][0], dict) else None
    if record is None:
        return False
    return any(key in record for key in QUESTION_FIELDS) and any(key in record for key in CONTEXT_FIELDS)


def _load_testset(path: Path, options: LoadOptions) -> Dataset:

    corpus, corpus_source = load_corpus(need_corpus(path, options, "test set"))
    question_set, source = load_testset(path, corpus, options.gold_match)
    return Dataset(corpus, question_set, (corpus_source, source), Path(options.corpus or path).name)


register(
    DatasetFormat(
        "testset",
        "RAGAS/DeepEval rows: a question and its reference contexts (with --corpus)",
        _sniff_testset,
        _load_testset,
        90,
    )
)
