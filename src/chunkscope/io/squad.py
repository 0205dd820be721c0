"""SQuAD v1.1/v2 (JSQuAD included): articles become documents, answers become gold spans."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, records_of, refuse_corpus, register
from chunkscope.io.gold import BadGold, LeftOut, resolve_all
from chunkscope.io.offsets import DocumentOffsets, OffsetError, OffsetUnit
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import exists, parse_json, read_text, reject_bom, shorten
from chunkscope.model import Corpus, Document, EvidenceItem, IssueKind, Question, Span

_SQUAD_ID = re.compile(r"^a(\d+)p(\d+)q(\d+)$")
_SHORT = 1000
"""Paragraph numbers up to this many digits are converted with int() (Unicode digits included)."""


_SEP = " [SEP] "
ANSWER_NOT_AT_START = "answer not at answer_start"
"""The reason counted for a question left out by ``skip_bad_gold``."""


def load_squad(
    path: str | Path,
    answers: str = "first",
    offset_unit: OffsetUnit = "codepoint",
    skip_bad_gold: bool = False,
    lenient: bool = False,
) -> Dataset:
    """Load SQuAD v1.1/v2 JSON (JSQuAD included): one document per article.

    Paragraphs are joined without separator in their true order, recovered from
    ``a<article>p<paragraph>q<n>`` question ids (JSQuAD stores them in
    lexicographic order); a ``TITLE [SEP] `` context prefix is removed. Gold is
    the first answer, or every answer as alternatives with ``answers="any"``.
    Questions whose gold lies in the removed prefix and unanswerable v2 questions
    are excluded and counted. ``offset_unit`` is what ``answer_start`` counts in its context.
    ``skip_bad_gold``: a question whose answer is not at its ``answer_start`` is excluded and counted
    ("answer not at answer_start") instead of refusing the file; ``lenient`` (``gold check``) also lists each
    such answer in ``QuestionSet.issues``.
    """
    if answers not in ("first", "any"):
        raise InputError(str(path), f"--squad-answers must be 'first' or 'any', got {answers!r}")
    path = Path(path)
    if not exists(path):
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    reject_bom(path, text)
    root = parse_json(path, text)
    articles = root.get("data") if isinstance(root, dict) else None
    if not isinstance(articles, list):
        raise InputError(str(path), "expected a SQuAD object with a 'data' list", field="data")
    builder = _SquadBuilder(str(path), answers, DocumentOffsets(offset_unit), LeftOut(lenient, skip_bad_gold))
    for a, article in enumerate(articles):
        builder.add_article(article, f"data[{a}]")
    if not builder.questions and not builder.left_out.issues:
        excluded = "; ".join(f"{count} {reason}" for reason, count in builder.excluded.items()) or "the file has none"
        raise InputError(
            str(path), f"the question set is empty: no answerable question outside the title prefix ({excluded})"
        )
    questions = builder.left_out.question_set(builder.questions)
    return Dataset(Corpus(tuple(builder.documents)), questions, (SourceFile(str(path), digest),), path.stem)


class _SquadBuilder:
    def __init__(self, path: str, answers: str, offsets: DocumentOffsets, left_out: LeftOut) -> None:
        self.path = path
        self.left_out = left_out
        self.offsets = offsets
        self.any_answer = answers == "any"
        self.documents: list[Document] = []
        self.questions: list[Question] = []
        self.excluded = left_out.reasons
        self.question_ids: set[str] = set()
        self.document_ids: set[str] = set()

    def fail(self, where: str, message: str) -> InputError:
        return InputError(self.path, message, field=where)

    def bad(self, where: str, message: str, kind: IssueKind = "mismatch", quote: str = "") -> BadGold:
        """An answer no span can be made of: the question is left out with ``skip_bad_gold`` or ``lenient``."""
        return BadGold(self.path, message, field=where, reason=ANSWER_NOT_AT_START, kind=kind, quote=quote)

    def add_article(self, article: Any, where: str) -> None:
        if not isinstance(article, dict) or not isinstance(article.get("title"), str):
            raise self.fail(f"{where}.title", "each article needs a string 'title'")
        if not article["title"].strip():
            raise self.fail(f"{where}.title", "must not be empty (an article's title is its document id)")
        paragraphs = article.get("paragraphs")
        if not isinstance(paragraphs, list):
            raise self.fail(f"{where}.paragraphs", "must be a list")
        for p, paragraph in enumerate(paragraphs):
            if isinstance(paragraph, dict) and not isinstance(paragraph.get("qas", []), list):
                raise self.fail(f"{where}.paragraphs[{p}].qas", "must be a list")
        title = article["title"]
        doc_id = title if title not in self.document_ids else f"{title} ({where})"
        self.document_ids.add(doc_id)
        ordered = sorted(enumerate(paragraphs), key=lambda pair: self._paragraph_index(pair[1], pair[0]))
        prefix = f"{title}{_SEP}"
        pieces: list[str] = []
        spans: list[tuple[int, int]] = []
        offset = 0
        for p, paragraph in ordered:
            context = paragraph.get("context") if isinstance(paragraph, dict) else None
            if not isinstance(context, str):
                raise self.fail(f"{where}.paragraphs[{p}].context", "must be a string")
            cut = len(prefix) if context.startswith(prefix) else 0
            body = context[cut:]
            for q, qa in enumerate(paragraph.get("qas", [])):
                self.add_question(qa, doc_id, context, cut, offset, f"{where}.paragraphs[{p}].qas[{q}]")
            pieces.append(body)
            spans.append((offset, offset + len(body)))
            offset += len(body)
        self.documents.append(Document(doc_id, "".join(pieces), title=title, paragraphs=tuple(spans)))

    @staticmethod
    def _paragraph_index(paragraph: Any, stored: int) -> tuple[int, str, int]:
        """Sort key: the paragraph number of its first ``a<n>p<n>q<n>`` id, compared as a number.

        Numbers compare as (digit count, digits) without leading zeros, so an index
        of any length orders correctly without converting it to an int.
        """
        qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
        for qa in qas or []:
            match = _SQUAD_ID.match(str(qa.get("id", ""))) if isinstance(qa, dict) else None
            if match:
                digits = match.group(2)
                digits = str(int(digits)) if len(digits) <= _SHORT else digits.lstrip("0") or "0"
                return (len(digits), digits, stored)
        return (len(str(stored)), str(stored), stored)  # no parsable id: keep the stored position

    def add_question(self, qa: Any, doc_id: str, context: str, cut: int, offset: int, where: str) -> None:
        if not isinstance(qa, dict):
            raise self.fail(where, "must be an object")
        for key in ("id", "question"):
            if not isinstance(qa.get(key), str):
                raise self.fail(f"{where}.{key}", "must be a string")
            if not qa[key].strip():
                raise self.fail(f"{where}.{key}", "must not be empty")
        if not isinstance(qa.get("is_impossible", False), bool):
            raise self.fail(f"{where}.is_impossible", f"must be true or false, got {json.dumps(qa['is_impossible'])}")
        if qa["id"] in self.question_ids:
            raise self.fail(f"{where}.id", f"duplicate question id '{qa['id']}'")
        self.question_ids.add(qa["id"])
        answers = qa.get("answers") or []
        if not isinstance(answers, list):
            raise self.fail(f"{where}.answers", "must be a list")
        if qa.get("is_impossible") or not answers:
            self._exclude("unanswerable")
            return
        chosen = answers if self.any_answer else answers[:1]
        spans = []
        try:
            located = resolve_all(
                enumerate(chosen),
                lambda pair: self._answer(pair[1], context, f"{where}.answers[{pair[0]}]"),
                self.left_out.lenient,
            )
        except BadGold as bad:
            self.left_out.bad(bad, qa["id"])
            return
        for start, length in located:
            if start >= cut:
                spans.append(Span(doc_id, start - cut + offset, start - cut + offset + length))
        if not spans:
            self._exclude("gold in removed title prefix")
            return
        texts = (a.get("text") for a in answers if isinstance(a, dict))
        references = tuple(dict.fromkeys(text for text in texts if isinstance(text, str) and text))
        self.questions.append(Question(qa["id"], qa["question"], (EvidenceItem(tuple(spans)),), (), references))

    def _answer(self, answer: Any, context: str, where: str) -> tuple[int, int]:
        if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
            raise self.fail(f"{where}.text", "must be a string")
        start = answer.get("answer_start")
        if not isinstance(start, int) or isinstance(start, bool):
            raise self.fail(f"{where}.answer_start", "must be an integer")
        if self.offsets.unit != "codepoint":
            try:
                start = self.offsets.of(context).to_codepoint(start)
            except OffsetError as exc:
                raise self.bad(f"{where}.answer_start", f"{exc} of the context", "out_of_range") from None
        length = len(answer["text"])
        if length == 0:
            raise self.fail(f"{where}.text", "must not be empty")
        if start < 0:  # a negative slice would match counting from the end of the context
            raise self.bad(f"{where}.answer_start", f"must not be negative, got {start}", "out_of_range")
        if context[start : start + length] != answer["text"]:
            raise self.bad(
                f"{where}.answer_start",
                f"answer text {shorten(answer['text'])} is not at offset {start} of the context",
                quote=answer["text"],
            )
        return start, length

    def _exclude(self, reason: str) -> None:
        self.excluded[reason] = self.excluded.get(reason, 0) + 1


def _sniff_squad(probe: Probe) -> bool:
    articles = records_of(probe, "data") if probe.layout == "object" else None
    return articles is not None and bool(articles) and isinstance(articles[0], dict) and "paragraphs" in articles[0]


def _load_squad(path: Path, options: LoadOptions) -> Dataset:
    refuse_corpus(path, options, "SQuAD")
    return load_squad(path, options.answers, options.offset_unit, options.skip_bad_gold, options.lenient)


register(
    DatasetFormat("squad", "an object whose 'data' lists articles with 'paragraphs'", _sniff_squad, _load_squad, 10)
)
