"""QASPER: questions on NLP papers whose evidence is whole paragraphs, given as strings.

The published JSON maps each paper id to ``{title, abstract, full_text: [{section_name, paragraphs: [...]}],
qas: [{question, question_id, answers: [{answer: {unanswerable, extractive_spans, yes_no, free_form_answer,
evidence, highlighted_evidence}}]}]}``. Each paper is one document (id: the paper id), its text the title, the
abstract, then each section's name (when it has one) and paragraphs, every piece separated by a blank line
(``"\\n\\n"``); each piece is a recorded paragraph. A question's gold is the evidence of its first answer that
is answerable and gives evidence: each evidence string one required item, located in the paper by the quote
ladder (``--gold-match``). Evidence that is a figure or a table (``FLOAT SELECTED: ...``, text the paper's
``full_text`` does not hold) leaves the question out, counted; so do unanswerable questions and answers without
evidence. Evidence not found in the paper refuses the file naming the field, or with ``--skip-bad-gold`` leaves
the question out, counted. Extractive spans, the free-form answer and a yes/no answer become references.
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
    quote_item,
    refuse_corpus,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, count_reason, resolve_all
from chunkscope.io.quotes import QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import parse_json, read_text, reject_bom
from chunkscope.model import Corpus, Document, EvidenceItem, Question

SEPARATOR = "\n\n"
FLOAT = "FLOAT SELECTED"
UNANSWERABLE = "unanswerable"
NO_EVIDENCE = "no evidence"
FIGURE_OR_TABLE = "evidence is a figure or table"
NOT_FOUND = "evidence not found in the paper"


def paper_document(paper_id: str, paper: Mapping[str, Any], path: str) -> Document:
    """The paper as one document: title, abstract, section names and paragraphs, blank lines between."""
    pieces: list[str] = []
    for key in ("title", "abstract"):
        if isinstance(paper.get(key), str) and paper[key].strip():
            pieces.append(paper[key])
    sections = paper.get("full_text") or []
    if not isinstance(sections, list):
        raise InputError(path, "must be a list of {section_name, paragraphs}", field=f"{paper_id}.full_text")
    for s, section in enumerate(sections):
        paragraphs = section.get("paragraphs") if isinstance(section, dict) else None
        if not isinstance(paragraphs, list):
            raise InputError(path, "must be a list of strings", field=f"{paper_id}.full_text[{s}].paragraphs")
        name = section.get("section_name")
        if isinstance(name, str) and name.strip():
            pieces.append(name)
        pieces.extend(p for p in paragraphs if isinstance(p, str) and p.strip())
    spans: list[tuple[int, int]] = []
    offset = 0
    for piece in pieces:
        spans.append((offset, offset + len(piece)))
        offset += len(piece) + len(SEPARATOR)
    title = paper.get("title") if isinstance(paper.get("title"), str) else None
    return Document(paper_id, SEPARATOR.join(pieces), title=title, paragraphs=tuple(spans))


def _chosen_answer(answers: list[Any]) -> Mapping[str, Any] | str:
    """The first answerable answer with evidence, or the reason the question has none."""
    reason = UNANSWERABLE
    for entry in answers:
        answer = entry.get("answer") if isinstance(entry, dict) else None
        if not isinstance(answer, dict) or answer.get("unanswerable"):
            continue
        if answer.get("evidence"):
            return answer
        reason = NO_EVIDENCE
    return reason


def _references(answer: Mapping[str, Any]) -> tuple[str, ...]:
    found = [span for span in answer.get("extractive_spans") or () if isinstance(span, str) and span]
    free = answer.get("free_form_answer")
    if isinstance(free, str) and free.strip():
        found.append(free)
    if answer.get("yes_no") is not None:
        found.append("Yes" if answer["yes_no"] else "No")
    return tuple(dict.fromkeys(found))


def load_qasper(path: str | Path, options: LoadOptions) -> Dataset:
    """Read a QASPER JSON file (see the module docstring)."""
    path = Path(path)
    refuse_corpus(path, options, "QASPER")
    text, digest = read_text(path)
    reject_bom(path, text)
    papers = parse_json(path, text)
    if not isinstance(papers, dict):
        raise InputError(str(path), "expected an object mapping paper ids to papers")
    finder = QuoteFinder(options.gold_match)
    tally = MatchTally()
    documents: list[Document] = []
    questions: list[Question] = []
    left_out = LeftOut(options.lenient, options.skip_bad_gold)
    excluded = left_out.reasons
    for paper_id, paper in papers.items():
        if not isinstance(paper, dict) or not isinstance(paper.get("qas"), list):
            raise InputError(str(path), "must be a list of questions", field=f"{paper_id}.qas")
        document = paper_document(str(paper_id), paper, str(path))
        documents.append(document)
        for q, qa in enumerate(paper["qas"]):
            where = f"{paper_id}.qas[{q}]"
            if not isinstance(qa, dict) or not isinstance(qa.get("question"), str) or not qa["question"].strip():
                raise InputError(str(path), "must be a non-empty string", field=f"{where}.question")
            answer = _chosen_answer(qa.get("answers") or [])
            if isinstance(answer, str):
                count_reason(excluded, answer)
                continue
            evidence = [e for e in answer["evidence"] if isinstance(e, str) and e.strip()]
            if any(e.startswith(FLOAT) for e in evidence):
                count_reason(excluded, FIGURE_OR_TABLE)
                continue
            question_id = qa.get("question_id") if isinstance(qa.get("question_id"), str) else f"{paper_id}-{q + 1}"
            try:
                named = [(f"{where}.answers.evidence[{e}]", quote.strip()) for e, quote in enumerate(evidence)]
                items = resolve_all(named, partial(_paragraph, str(path), document, finder, tally), options.lenient)
            except BadGold as bad:
                left_out.bad(bad, str(question_id))
                continue
            questions.append(Question(str(question_id), qa["question"], tuple(items), (), _references(answer)))
    if not questions and not left_out.issues:
        raise empty_question_set(path, excluded)
    question_set = left_out.question_set(questions)
    notices = (tally.line(path, "evidence paragraphs"), left_out_line(path, excluded))
    return Dataset(Corpus(tuple(documents)), question_set, (SourceFile(str(path), digest),), path.stem, notices)


def _paragraph(
    path: str, document: Document, finder: QuoteFinder, tally: MatchTally, named: tuple[str, str]
) -> EvidenceItem:
    """The item of one evidence paragraph located in its paper (``named``: its field, and the paragraph)."""
    name, quote = named
    item = quote_item(finder, tally, document, quote)
    if item is None:
        message = f"evidence paragraph not found in paper {document.id!r}"
        raise BadGold(path, message, field=name, reason=NOT_FOUND, kind="not_found", doc=document.id, quote=quote)
    return item


def _sniff(probe: Probe) -> bool:
    if probe.layout != "object" or not isinstance(probe.value, Mapping) or not probe.value:
        return False
    first = next(iter(probe.value.values()))
    return isinstance(first, Mapping) and "full_text" in first and "qas" in first


register(
    DatasetFormat(
        "qasper",
        "QASPER papers: {paper_id: {title, abstract, full_text: [{section_name, paragraphs}], qas: [...]}}",
        _sniff,
        load_qasper,
        20,
    )
)
