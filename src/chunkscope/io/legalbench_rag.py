"""LegalBench-RAG: a benchmark JSON of tests whose snippets are character spans into corpus files.

A benchmark file (``benchmarks/cuad.json``) holds ``{"tests": [{"query": ..., "snippets": [{"file_path":
"cuad/contract.txt", "span": [start, end], "answer": ...}]}]}``; ``file_path`` is relative to the corpus
directory: ``--corpus DIR``, else ``corpus/`` beside the benchmark's directory (the dataset's own layout,
``data/benchmarks`` beside ``data/corpus``), else ``corpus/`` beside the file. Each file a snippet names is one
document (id: its ``file_path``; only the files named are read, newlines kept as they are). Each snippet is one
required item, its span ``[start, end)`` in characters of the file; ``answer``, when given, must be the text there
(compared by the ``--gold-match`` ladder: exactly, or normalised). The query's id is ``t<n>`` (its position from 1).
A span outside its file, a file that is not there, or an answer that is not the text at its span refuses the file
naming row and field, or with ``--skip-bad-gold`` leaves the test out, counted by reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import (
    DatasetFormat,
    LoadOptions,
    MatchTally,
    Probe,
    empty_question_set,
    left_out_line,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, resolve_all
from chunkscope.io.quotes import QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import is_dir, is_file, parse_json, read_text, reject_bom, shorten
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span, SpanMatch

SPAN_OUT_OF_RANGE = "span outside its file"
FILE_MISSING = "file not in the corpus"
ANSWER_NOT_AT_SPAN = "answer not at its span"


def corpus_root(path: Path, options: LoadOptions) -> Path:
    """Where ``file_path`` values are read from (see the module docstring)."""
    if options.corpus is not None:
        return Path(options.corpus)
    for candidate in (path.parent.parent / "corpus", path.parent / "corpus"):
        if is_dir(candidate):
            return candidate
    raise InputError(str(path), "LegalBench-RAG snippets name corpus files: give --corpus DIR (the corpus directory)")


class _Files:
    """The corpus files, each read once, in the order first named."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.documents: dict[str, Document | None] = {}
        self.sources: list[SourceFile] = []

    def get(self, name: str) -> Document | None:
        if name not in self.documents:
            file = self.root / name
            if ".." in Path(name).parts or not is_file(file):
                self.documents[name] = None
            else:
                text, digest = read_text(file)
                self.documents[name] = Document(name, text, title=Path(name).name)
                self.sources.append(SourceFile(str(file), digest))
        return self.documents[name]


def load_legalbench_rag(path: str | Path, options: LoadOptions) -> Dataset:
    """Read a LegalBench-RAG benchmark with its corpus files (see the module docstring)."""
    path = Path(path)
    text, digest = read_text(path)
    reject_bom(path, text)
    root_value = parse_json(path, text)
    tests = root_value.get("tests") if isinstance(root_value, dict) else None
    if not isinstance(tests, list):
        raise InputError(str(path), "expected an object with a 'tests' list", field="tests")
    files = _Files(corpus_root(path, options))
    finder = QuoteFinder(options.gold_match)
    tally = MatchTally()
    questions: list[Question] = []
    left_out = LeftOut(options.lenient, options.skip_bad_gold)
    excluded = left_out.reasons
    for index, test in enumerate(tests):
        where = f"tests[{index}]"
        if not isinstance(test, dict) or not isinstance(test.get("query"), str) or not test["query"].strip():
            raise InputError(str(path), "must be a non-empty string", field=f"{where}.query")
        snippets = test.get("snippets")
        if not isinstance(snippets, list) or not snippets:
            raise InputError(str(path), "must be a non-empty list of {file_path, span}", field=f"{where}.snippets")
        try:
            named = [(f"{where}.snippets[{s}]", snippet) for s, snippet in enumerate(snippets)]
            items = tuple(resolve_all(named, partial(_item, str(path), files, finder, tally), options.lenient))
        except BadGold as bad:
            left_out.bad(bad, f"t{index + 1}")
            continue
        tags = tuple(tag for tag in test.get("tags") or () if isinstance(tag, str))
        answers = tuple(
            dict.fromkeys(s["answer"] for s in snippets if isinstance(s.get("answer"), str) and s["answer"])
        )
        questions.append(Question(f"t{index + 1}", test["query"], items, tags, answers))
    if not questions and not left_out.issues:
        raise empty_question_set(path, excluded)
    documents = Corpus(tuple(document for document in files.documents.values() if document is not None))
    question_set = left_out.question_set(questions)
    notices = (tally.line(path, "snippets"), left_out_line(path, excluded))
    return Dataset(documents, question_set, (*files.sources, SourceFile(str(path), digest)), path.stem, notices)


def _item(path: str, files: _Files, finder: QuoteFinder, tally: MatchTally, named: tuple[str, Any]) -> EvidenceItem:
    """The item of one snippet (``named``: where it is in the file, and the snippet)."""
    where, snippet = named
    if not isinstance(snippet, Mapping) or not isinstance(snippet.get("file_path"), str):
        raise InputError(path, "must be a string", field=f"{where}.file_path")
    span = snippet.get("span")
    if not isinstance(span, list) or len(span) != 2 or not all(type(value) is int for value in span):
        raise InputError(path, "must be [start, end] (two integers)", field=f"{where}.span")
    start, end = span
    document = files.get(snippet["file_path"])
    if document is None:
        tally.add(None)
        message = f"no file {snippet['file_path']!r} under {files.root}"
        raise BadGold(
            path, message, field=f"{where}.file_path", reason=FILE_MISSING, kind="not_found", quote=snippet["file_path"]
        )
    if not 0 <= start < end <= len(document.text):
        tally.add(None)
        message = f"[{start}, {end}) is outside {snippet['file_path']!r} ({len(document.text)} characters)"
        raise BadGold(
            path, message, field=f"{where}.span", reason=SPAN_OUT_OF_RANGE, kind="out_of_range", doc=document.id
        )
    answer = snippet.get("answer")
    match: SpanMatch | None = None
    if isinstance(answer, str) and answer:
        match = finder.agrees(document.text, answer, start, end)
        if match is None:
            tally.add(None)
            message = f"answer {shorten(answer)} is not the text at [{start}, {end})"
            raise BadGold(
                path,
                message,
                field=f"{where}.answer",
                reason=ANSWER_NOT_AT_SPAN,
                kind="mismatch",
                doc=document.id,
                quote=answer,
            )
    tally.add(match.kind if match is not None else "exact")
    matches = (match,) if match is not None and match.approximate else ()
    return EvidenceItem((Span(document.id, start, end),), matches)


def _sniff(probe: Probe) -> bool:
    tests = probe.value.get("tests") if probe.layout == "object" and isinstance(probe.value, Mapping) else None
    return isinstance(tests, list) and bool(tests) and isinstance(tests[0], dict) and "snippets" in tests[0]


register(
    DatasetFormat(
        "legalbench-rag",
        "LegalBench-RAG benchmark: {tests: [{query, snippets: [{file_path, span: [start, end], answer}]}]}",
        _sniff,
        load_legalbench_rag,
        20,
    )
)
