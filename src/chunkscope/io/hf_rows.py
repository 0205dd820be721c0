"""HuggingFace-style dataset exports: one row per question, as ``Dataset.to_json`` writes them.

A SQuAD-shaped export (``squad``, ``squad_v2``, TyDi QA GoldP, JSQuAD: rows ``id, title, context,
question, answers``, with ``answers`` a dict of lists ``{"text": [...], "answer_start": [...]}`` or a
list of ``{text, answer_start}``) carries its own corpus: the contexts. Read as a test set (question +
reference contexts) it would be silently wrong: the whole paragraph would become required evidence and
an unanswerable question would count as answerable. So :func:`detect_hf_rows` recognises the shape and
:func:`load_hf_squad_rows` reads it as what it is, the way ``--squad`` reads SQuAD:

- one document per distinct ``title`` (rows without a title: one per distinct context, named
  ``context-N``), its distinct contexts joined without separator in the order they first appear, each
  a recorded paragraph; a ``TITLE [SEP] `` context prefix (JSQuAD) is removed as ``--squad`` does;
- gold is the first answer (every answer as alternatives with ``answers="any"``), ``answer_start``
  counting in the context (in ``offset_unit``), converted to the document;
- a row with no answer (SQuAD v2 unanswerable) is excluded and counted.

Shapes that mean something else are refused with a line naming them: a flattened HotpotQA export
(``supporting_facts``; its context holds distractor paragraphs, which a test set would make required;
``--dataset`` reads it, :mod:`chunkscope.io.hotpotqa`),
a SQuAD file (``--squad``) and a TyDi QA primary-task file (``--tydi``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, refuse_corpus, register
from chunkscope.io.gold import BadGold, LeftOut, resolve_all
from chunkscope.io.offsets import DocumentOffsets, OffsetError, OffsetUnit
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.squad import ANSWER_NOT_AT_START
from chunkscope.io.testset import testset_rows
from chunkscope.io.text import is_file, read_text, shorten
from chunkscope.model import Corpus, Document, EvidenceItem, IssueKind, Question, Span

HfShape = Literal["squad"]
"""The exports read here; the key of :data:`HF_READERS`."""

_SEP = " [SEP] "
_HOTPOT_KEYS = ("supporting_facts",)
_SQUAD_KEYS = ("context", "question", "answers")


def detect_hf_rows(path: str | Path, rows: Iterable[tuple[int | None, int, dict[str, Any]]]) -> HfShape | None:
    """``"squad"`` when the first row is a SQuAD-shaped HF export row, None for a test set row.

    Raises an InputError naming the shape for rows that are another dataset's (HotpotQA, a SQuAD file,
    TyDi QA), or a SQuAD export written as CSV (its ``answers`` cell is not data any more).
    """
    first = next(iter(rows), None)
    if first is None:
        return None
    line, _, row = first
    where = str(path)
    hotpot_context = isinstance(row.get("context"), dict) and "sentences" in row["context"]
    if hotpot_context or any(key in row for key in _HOTPOT_KEYS):
        raise InputError(
            where,
            "this is a HotpotQA export (rows with supporting_facts and a context of titles and sentences): "
            "give it with --dataset (read as hotpotqa: supporting facts as sentence spans); read as a test set, every "
            "context paragraph, the distractors included, would become required evidence",
            line=line,
        )
    if "paragraphs" in row and "title" in row:
        raise InputError(where, "this is a SQuAD file (articles with paragraphs): give it with --squad", line=line)
    if "document_plaintext" in row and "annotations" in row:
        raise InputError(where, "this is a TyDi QA primary-task file: give it with --tydi", line=line)
    if all(key in row for key in _SQUAD_KEYS) and isinstance(row.get("context"), str):
        if isinstance(row["answers"], str):
            raise InputError(
                where,
                "this is a HuggingFace SQuAD export written as CSV, whose answers cell is no longer data: "
                "export it with Dataset.to_json (JSON lines) and give that to --testset",
                line=line,
            )
        return "squad"
    return None


@dataclass(slots=True)
class _Document:
    doc_id: str
    title: str
    contexts: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each distinct context, in order, with (offset of its body in the document, prefix cut)."""
    length: int = 0


@dataclass(slots=True)
class _Row:
    line: int | None
    index: int
    question_id: str
    question: str
    document: _Document
    context: str
    answers: list[tuple[str, int]]


def load_hf_squad_rows(
    path: str | Path,
    rows: Iterable[tuple[int | None, int, dict[str, Any]]],
    digest: str,
    answers: str = "first",
    offset_unit: OffsetUnit = "codepoint",
    skip_bad_gold: bool = False,
    lenient: bool = False,
) -> Dataset:
    """Read SQuAD-shaped HF rows as documents and gold spans (see the module docstring).

    ``skip_bad_gold``: a row whose answer text is not at its ``answer_start`` is excluded and counted
    ("answer not at answer_start") instead of refusing the file; ``lenient`` (``gold check``) also lists each
    such answer in ``QuestionSet.issues``.
    """
    path = Path(path)
    documents: dict[str, _Document] = {}
    untitled: dict[str, str] = {}
    parsed: list[_Row] = []
    ids: set[str] = set()
    for line, index, row in rows:
        item = _row(str(path), line, index, row, documents, untitled)
        if item.question_id in ids:
            raise _fail(str(path), line, index, "id", f"duplicate question id '{item.question_id}'")
        ids.add(item.question_id)
        parsed.append(item)
    offsets = DocumentOffsets(offset_unit)
    questions: list[Question] = []
    left_out = LeftOut(lenient, skip_bad_gold)
    excluded = left_out.reasons
    for item in parsed:
        try:
            outcome = _gold(str(path), item, answers == "any", offsets, lenient)
        except BadGold as bad:
            left_out.bad(bad, item.question_id)
            continue
        if isinstance(outcome, str):
            excluded[outcome] = excluded.get(outcome, 0) + 1
        else:
            questions.append(Question(item.question_id, item.question, (outcome,)))
    corpus = Corpus(tuple(_document(document) for document in documents.values()))
    if not questions and not left_out.issues:
        counts = "; ".join(f"{count} {reason}" for reason, count in excluded.items()) or "the file has none"
        raise InputError(str(path), f"the question set is empty: no answerable question ({counts})")
    question_set = left_out.question_set(questions)
    return Dataset(corpus, question_set, (SourceFile(str(path), digest),), path.stem)


HF_READERS = {"squad": load_hf_squad_rows}
"""The reader of each export shape, for an entry point that takes a dataset file by its shape."""


def load_hf_testset(
    path: str | Path,
    answers: str = "first",
    offset_unit: OffsetUnit = "codepoint",
    skip_bad_gold: bool = False,
    lenient: bool = False,
) -> Dataset | None:
    """The dataset of a ``--testset`` file that is a HuggingFace SQuAD-shaped export, None for a test set.

    The returned dataset carries the one-line notice of how the file was read.
    """
    path = Path(path)
    if not is_file(path):
        return None  # the test set loader names the problem
    text, digest = read_text(path)
    rows = list(testset_rows(path, text))
    if detect_hf_rows(path, rows) is None:
        return None
    dataset = HF_READERS["squad"](path, rows, digest, answers, offset_unit, skip_bad_gold, lenient)
    return replace(dataset, notices=(*dataset.notices, reading_notice(path, dataset)))


def reading_notice(path: str | Path, dataset: Dataset) -> str:
    """The one line that says how the file was read."""
    unanswerable = dataset.questions.excluded_reasons.get("unanswerable", 0)
    return (
        f"{path}: read as a HuggingFace SQuAD export (id, title, context, question, answers), not as a test set: "
        f"{len(dataset.corpus.documents)} documents (one per title, its contexts joined), gold from the answers, "
        f"{len(dataset.questions.questions)} questions, {unanswerable} unanswerable left out"
    )


def _fail(path: str, line: int | None, index: int, name: str, message: str) -> InputError:
    return InputError(path, message, line=line, field=name if line is not None else f"[{index}].{name}")


def _row(
    path: str,
    line: int | None,
    index: int,
    row: dict[str, Any],
    documents: dict[str, _Document],
    untitled: dict[str, str],
) -> _Row:
    for key in ("context", "question"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise _fail(path, line, index, key, "must be a non-empty string")
    question_id = row.get("id")
    if question_id is None or question_id == "":
        question_id = f"row-{index + 1}"
    if not isinstance(question_id, (str, int)) or isinstance(question_id, bool):
        raise _fail(path, line, index, "id", "must be a string or an integer")
    title = row.get("title")
    if title is not None and not isinstance(title, str):
        raise _fail(path, line, index, "title", "must be a string")
    context = row["context"]
    key = title if title else untitled.setdefault(context, f"context-{len(untitled) + 1}")  # one per context
    document = documents.get(key)
    if document is None:
        document = documents[key] = _Document(key, title or "")
    if context not in document.contexts:
        prefix = f"{title}{_SEP}"
        cut = len(prefix) if title and context.startswith(prefix) else 0
        document.contexts[context] = (document.length, cut)
        document.length += len(context) - cut
    return _Row(line, index, str(question_id), row["question"], document, context, _answers(path, line, index, row))


def _answers(path: str, line: int | None, index: int, row: dict[str, Any]) -> list[tuple[str, int]]:
    """(text, answer_start) pairs from a dict of lists (HF) or a list of objects (SQuAD)."""
    value = row["answers"]
    if value is None:
        return []
    if isinstance(value, dict):
        texts, starts = value.get("text"), value.get("answer_start")
        if not isinstance(texts, list) or not isinstance(starts, list) or len(texts) != len(starts):
            raise _fail(path, line, index, "answers", "must hold lists 'text' and 'answer_start' of the same length")
        pairs = list(zip(texts, starts, strict=True))
    elif isinstance(value, list):
        if not all(isinstance(answer, dict) for answer in value):
            raise _fail(path, line, index, "answers", "must be a list of {text, answer_start} objects")
        pairs = [(answer.get("text"), answer.get("answer_start")) for answer in value]
    else:
        raise _fail(path, line, index, "answers", "must be {text: [...], answer_start: [...]} or a list of objects")
    for i, (text, start) in enumerate(pairs):
        if not isinstance(text, str) or not text:
            raise _fail(path, line, index, f"answers.text[{i}]", "must be a non-empty string")
        if not isinstance(start, int) or isinstance(start, bool):
            raise _fail(path, line, index, f"answers.answer_start[{i}]", "must be an integer")
    return [(text, start) for text, start in pairs]


def _gold(path: str, row: _Row, any_answer: bool, offsets: DocumentOffsets, lenient: bool) -> EvidenceItem | str:
    """The row's gold item, or the reason it is excluded; an answer not at its start raises :class:`BadGold`
    (``lenient``: every chosen answer is looked at, the bad ones raised together)."""
    if not row.answers:
        return "unanswerable"
    offset, cut = row.document.contexts[row.context]
    chosen = list(enumerate(row.answers if any_answer else row.answers[:1]))
    starts = resolve_all(chosen, lambda answer: _answer_start(path, row, offsets, *answer), lenient)
    spans = [
        Span(row.document.doc_id, offset + start - cut, offset + start - cut + len(text))
        for (_, (text, _)), start in zip(chosen, starts, strict=True)
        if start >= cut
    ]
    if not spans:
        return "gold in removed title prefix"
    return EvidenceItem(tuple(dict.fromkeys(spans)))


def _answer_start(path: str, row: _Row, offsets: DocumentOffsets, i: int, answer: tuple[str, int]) -> int:
    """Where answer ``i`` starts in its context, in code points, checked to hold its text."""
    text, given = answer
    name = f"answers.answer_start[{i}]" if row.line is not None else f"[{row.index}].answers.answer_start[{i}]"
    try:
        start = offsets.of(row.context).to_codepoint(given) if offsets.unit != "codepoint" else given
    except OffsetError as exc:
        message = f"{exc} of the context"
        raise BadGold(
            path, message, line=row.line, field=name, reason=ANSWER_NOT_AT_START, kind="out_of_range"
        ) from None
    if start < 0 or row.context[start : start + len(text)] != text:
        message = f"answer text {shorten(text)} is not at offset {given} of the context"
        kind: IssueKind = "out_of_range" if start < 0 else "mismatch"
        raise BadGold(path, message, line=row.line, field=name, reason=ANSWER_NOT_AT_START, kind=kind, quote=text)
    return start


def _document(document: _Document) -> Document:
    """The document: its contexts (prefix cut) joined in the order they first appeared."""
    pieces = [context[cut:] for context, (_, cut) in document.contexts.items()]
    paragraphs = tuple((offset, offset + len(context) - cut) for context, (offset, cut) in document.contexts.items())
    return Document(document.doc_id, "".join(pieces), title=document.title or None, paragraphs=paragraphs)


def _sniff_hf_squad(probe: Probe) -> bool:
    record = probe.record
    if probe.layout not in ("array", "jsonl") or record is None:
        return False
    return all(key in record for key in _SQUAD_KEYS) and isinstance(record.get("context"), str)


def _load_hf_squad(path: Path, options: LoadOptions) -> Dataset:
    refuse_corpus(path, options, "HuggingFace SQuAD export")
    text, digest = read_text(path)
    rows = list(testset_rows(path if path.suffix.lower() in (".json", ".jsonl") else path.with_suffix(".jsonl"), text))
    return HF_READERS["squad"](
        path, rows, digest, options.answers, options.offset_unit, options.skip_bad_gold, options.lenient
    )


register(
    DatasetFormat(
        "hf-squad",
        "HuggingFace SQuAD/TyDi GoldP rows: id, title, context, question, answers{text, answer_start}",
        _sniff_hf_squad,
        _load_hf_squad,
        20,
    )
)
