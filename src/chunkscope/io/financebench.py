"""FinanceBench questions (``--financebench FILE``): evidence by page of a filing's PDF, 0-indexed.

One JSON object per line, as FinanceBench publishes it (``financebench_open_source.jsonl``)::

    {"financebench_id": "financebench_id_03029", "doc_name": "3M_2018_10K",
     "question": "What is the FY2018 capital expenditure amount ...?", "answer": "$1577.00",
     "evidence": [{"evidence_text": "Purchases of property, plant and equipment (PP&E) (1,577) ...",
                   "doc_name": "3M_2018_10K", "evidence_page_num": 59}]}

``evidence_page_num`` counts pages from 0. Each evidence entry is a page with a quote: ``evidence_text`` is found
within that page first, then by the usual ladder in the whole document; a text found nowhere leaves the item its
page alone (one warning counts them: ``N evidence texts found nowhere: those items are their pages``). A
``doc_name`` names the corpus document with that id, else ``doc_name.pdf``, else the one PDF whose name without
its suffix is ``doc_name``. Other fields (``company``, ``question_type``, ``justification``...) are ignored.
"""

from __future__ import annotations

import warnings
from pathlib import Path, PurePosixPath
from typing import Any

from chunkscope.errors import ChunkscopeWarning, InputError
from chunkscope.io.questions import EvidenceResolver, UnresolvedGold
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, QuoteFinder
from chunkscope.io.sources import SourceFile
from chunkscope.io.text import exists, field_value, jsonl_records, read_text
from chunkscope.model import Corpus, EvidenceItem, Question, QuestionSet


class UnlocatedEvidenceWarning(ChunkscopeWarning):
    """Some FinanceBench evidence texts were found nowhere: those items are their pages alone."""


_FIELDS = {"doc": "doc_name", "page": "evidence_page_num", "quote": "evidence_text"}
"""chunkscope's evidence keys and the FinanceBench fields they come from (named in messages)."""


def load_financebench(
    path: str | Path, corpus: Corpus, policy: MatchPolicy = DEFAULT_POLICY
) -> tuple[QuestionSet, SourceFile]:
    """Load FinanceBench JSONL against a corpus of its PDFs (see the module docstring)."""
    path = Path(path)
    if not exists(path):
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    resolver = EvidenceResolver(str(path), corpus, QuoteFinder(policy))
    questions: list[Question] = []
    seen: dict[str, int] = {}
    unlocated = 0
    for number, record in jsonl_records(path, text):
        where = (str(path), number)
        question_id = str(field_value(record, "financebench_id", (str, int), where))
        if question_id in seen:
            raise InputError(
                str(path), f"duplicate id '{question_id}' (first on line {seen[question_id]})", line=number,
                field="financebench_id",
            )  # fmt: skip
        seen[question_id] = number
        query = field_value(record, "question", str, where)
        entries = field_value(record, "evidence", list, where)
        if not entries:
            raise InputError(str(path), "needs at least one evidence entry", line=number, field="evidence")
        evidence = []
        for index, entry in enumerate(entries):
            item, located = _item(resolver, record, entry, corpus, where, f"evidence[{index}]")
            evidence.append(item)
            unlocated += not located
        answer = record.get("answer")
        references = (answer,) if isinstance(answer, str) and answer.strip() else ()
        questions.append(Question(question_id, query, tuple(evidence), (), references))
    if not questions:
        raise InputError(str(path), "the question set is empty: nothing to evaluate")
    if unlocated:
        warnings.warn(
            f"{path}: {unlocated} evidence texts found nowhere (--gold-match {policy.label}): those items are their "
            "pages",
            UnlocatedEvidenceWarning,
            stacklevel=2,
        )
    return QuestionSet(tuple(questions)), SourceFile(str(path), digest)


def _item(
    resolver: Any, record: dict[str, Any], entry: Any, corpus: Corpus, where: tuple[str, int], name: str
) -> tuple[EvidenceItem, bool]:
    """One evidence entry as an item, and whether its text was located (else the item is its page)."""
    path, line = where
    if not isinstance(entry, dict):
        raise InputError(path, "must be an object", line=line, field=name)
    doc_name = entry.get("doc_name", record.get("doc_name"))
    if not isinstance(doc_name, str) or not doc_name:
        raise InputError(path, "missing: a document name is needed", line=line, field=f"{name}.doc_name")
    doc_id = _document_id(doc_name, corpus)
    if doc_id is None:
        raise InputError(path, f"no corpus document named {doc_name!r} (nor {doc_name}.pdf)", line=line,
                         field=f"{name}.doc_name")  # fmt: skip
    if "evidence_page_num" not in entry:
        raise InputError(path, "missing", line=line, field=f"{name}.evidence_page_num")
    gold: dict[str, Any] = {"doc": doc_id, "page": entry["evidence_page_num"], "page_base": 0}
    quote = entry.get("evidence_text")
    try:
        if isinstance(quote, str) and quote.strip():
            try:
                return resolver.item({**gold, "quote": quote}, where, name), True
            except UnresolvedGold:
                pass
        return resolver.item(gold, where, name), not (isinstance(quote, str) and quote.strip())
    except InputError as error:
        if error.field is None or error.path != path:
            raise
        head, _, key = error.field.rpartition(".")
        field = f"{head}.{_FIELDS.get(key, key)}" if head else error.field
        raise InputError(error.path, error.message, line=error.line, field=field) from None


def _document_id(doc_name: str, corpus: Corpus) -> str | None:
    for candidate in (doc_name, f"{doc_name}.pdf"):
        if candidate in corpus.by_id:
            return candidate
    stems = [d.id for d in corpus.documents if PurePosixPath(d.id).stem == doc_name and d.id.lower().endswith(".pdf")]
    return stems[0] if len(stems) == 1 else None
