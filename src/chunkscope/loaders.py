"""Loaders for corpora and question sets. They validate everything and never write.

Every problem raises :class:`InputError` naming the file, the line (JSONL) or
the JSON path (SQuAD) and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.model import Corpus, Document, EvidenceItem, Question, QuestionSet, Span

CORPUS_SUFFIXES = (".md", ".txt")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """An input file (or directory) and the SHA-256 of its content."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Dataset:
    """A corpus with its questions, ready to evaluate."""

    corpus: Corpus
    questions: QuestionSet
    sources: tuple[SourceFile, ...]
    name: str


def read_text(path: Path, what: str = "") -> tuple[str, str]:
    """Text (newlines kept exactly, so CRLF offsets stay true) and its SHA-256.

    ``what`` names the kind of file in the message when it cannot be read (``chunks file``).
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        kind = f" {what}" if what else ""
        raise InputError(str(path), f"cannot read{kind}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(str(path), f"not valid UTF-8 (byte {exc.start})", line=line) from None
    return text, hashlib.sha256(raw).hexdigest()


def reject_bom(path: str | Path, text: str) -> None:
    """InputError when a JSON/JSONL/run file starts with a byte-order mark (JSON parsers refuse it)."""
    if text.startswith("\ufeff"):
        raise InputError(str(path), "starts with a UTF-8 byte-order mark (BOM): save it as UTF-8 without BOM", line=1)


def parse_json(path: str | Path, text: str, line: int | None = None) -> Any:
    """``json.loads`` with every failure as an InputError naming the file and line.

    JSON escapes can spell lone surrogates (``"\\ud800"``) that no UTF-8 report can hold,
    so they are refused here rather than when a report is written.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", line=where) from None
    except RecursionError:
        raise InputError(str(path), "invalid JSON: nested too deeply", line=line) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                str(path), "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)", line=line
            ) from None
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _jsonl_records(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reject_bom(path, text)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        record = parse_json(path, line, number)
        if not isinstance(record, dict):
            raise InputError(str(path), "each line must be a JSON object", line=number)
        yield number, record


def _field(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: tuple[str, int]) -> Any:
    path, line = where
    if name not in record:
        raise InputError(path, "missing", line=line, field=name)
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(path, f"must be {_article(expected)}, got {type(value).__name__}", line=line, field=name)
    return value


def _identifier(record: Mapping[str, Any], where: tuple[str, int]) -> str:
    value: str = _field(record, "id", str, where)
    if not value.strip():
        raise InputError(where[0], "must not be empty", line=where[1], field="id")
    return value


def _article(word: str) -> str:
    return {"str": "a string", "int": "an integer", "list": "a list", "dict": "an object"}.get(word, word)


# ---------------------------------------------------------------- corpus


def load_corpus(path: str | Path) -> tuple[Corpus, SourceFile]:
    """Load a corpus from a JSONL file or a directory of ``.md``/``.txt`` files."""
    path = Path(path)
    if path.is_dir():
        return _load_corpus_dir(path)
    if not path.exists():
        raise InputError(str(path), "no such file or directory")
    text, digest = read_text(path)
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    for number, record in _jsonl_records(path, text):
        where = (str(path), number)
        doc_id = _identifier(record, where)
        body = _field(record, "text", str, where)
        title = _field(record, "title", str, where) if record.get("title") is not None else None
        metadata = _field(record, "metadata", dict, where) if record.get("metadata") is not None else {}
        if doc_id in first_line:
            raise InputError(
                str(path),
                f"duplicate document id '{doc_id}' (first on line {first_line[doc_id]})",
                line=number,
                field="id",
            )
        first_line[doc_id] = number
        documents.append(Document(doc_id, body, title=title, metadata=metadata))
    if not documents:
        raise InputError(str(path), "the corpus is empty")
    return Corpus(tuple(documents)), SourceFile(str(path), digest)


def _load_corpus_dir(root: Path) -> tuple[Corpus, SourceFile]:
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES)
    if not files:
        raise InputError(str(root), f"no {' or '.join(CORPUS_SUFFIXES)} files in this directory")
    combined = hashlib.sha256()
    documents = []
    for file in files:
        doc_id = file.relative_to(root).as_posix()
        text, digest = read_text(file)
        combined.update(f"{doc_id}\0{digest}\n".encode())
        documents.append(Document(doc_id, text, title=doc_id))
    return Corpus(tuple(documents)), SourceFile(str(root), combined.hexdigest())


# ---------------------------------------------------------------- questions


def load_questions(path: str | Path, corpus: Corpus) -> tuple[QuestionSet, SourceFile]:
    """Load questions JSONL and resolve every evidence item against the corpus."""
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    questions: list[Question] = []
    first_line: dict[str, int] = {}
    for number, record in _jsonl_records(path, text):
        where = (str(path), number)
        question_id = _identifier(record, where)
        query = _field(record, "query", str, where)
        if not query.strip():
            raise InputError(str(path), "must not be empty", line=number, field="query")
        items = _field(record, "evidence", list, where)
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
            where_found = f" at offsets {', '.join(map(str, found[:10]))}" if found else ""
            hint = '; add "occurrence": N (0-based) to pick one' if found else ""
            raise InputError(
                path,
                f"quote {_short(quote)} found {len(found)} times in '{document.id}'{where_found}{hint}",
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
                f"occurrence {occurrence} does not exist: the quote occurs {_times(len(found))}",
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


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# ---------------------------------------------------------------- SQuAD

_SQUAD_ID = re.compile(r"^a(\d+)p(\d+)q(\d+)$")
_SEP = " [SEP] "


def load_squad(path: str | Path, answers: str = "first") -> Dataset:
    """Load SQuAD v1.1/v2 JSON (JSQuAD included): one document per article.

    Paragraphs are joined without separator in their true order, recovered from
    ``a<article>p<paragraph>q<n>`` question ids (JSQuAD stores them in
    lexicographic order); a ``TITLE [SEP] `` context prefix is removed. Gold is
    the first answer, or every answer as alternatives with ``answers="any"``.
    Questions whose gold lies in the removed prefix and unanswerable v2 questions
    are excluded and counted.
    """
    if answers not in ("first", "any"):
        raise InputError(str(path), f"--squad-answers must be 'first' or 'any', got {answers!r}")
    path = Path(path)
    if not path.exists():
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    reject_bom(path, text)
    root = parse_json(path, text)
    articles = root.get("data") if isinstance(root, dict) else None
    if not isinstance(articles, list):
        raise InputError(str(path), "expected a SQuAD object with a 'data' list", field="data")
    builder = _SquadBuilder(str(path), answers)
    for a, article in enumerate(articles):
        builder.add_article(article, f"data[{a}]")
    if not builder.questions:
        excluded = "; ".join(f"{count} {reason}" for reason, count in builder.excluded.items()) or "the file has none"
        raise InputError(
            str(path), f"the question set is empty: no answerable question outside the title prefix ({excluded})"
        )
    questions = QuestionSet(tuple(builder.questions), sum(builder.excluded.values()), dict(builder.excluded))
    return Dataset(Corpus(tuple(builder.documents)), questions, (SourceFile(str(path), digest),), path.stem)


class _SquadBuilder:
    def __init__(self, path: str, answers: str) -> None:
        self.path = path
        self.any_answer = answers == "any"
        self.documents: list[Document] = []
        self.questions: list[Question] = []
        self.excluded: dict[str, int] = {}
        self.question_ids: set[str] = set()
        self.document_ids: set[str] = set()

    def fail(self, where: str, message: str) -> InputError:
        return InputError(self.path, message, field=where)

    def add_article(self, article: Any, where: str) -> None:
        if not isinstance(article, dict) or not isinstance(article.get("title"), str):
            raise self.fail(f"{where}.title", "each article needs a string 'title'")
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
    def _paragraph_index(paragraph: Any, stored: int) -> tuple[int, int]:
        qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
        for qa in qas or []:
            match = _SQUAD_ID.match(str(qa.get("id", ""))) if isinstance(qa, dict) else None
            if match:
                return (int(match.group(2)), stored)
        return (stored, stored)  # no parsable id: keep the stored position

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
        for i, answer in enumerate(chosen):
            start, length = self._answer(answer, context, f"{where}.answers[{i}]")
            if start >= cut:
                spans.append(Span(doc_id, start - cut + offset, start - cut + offset + length))
        if not spans:
            self._exclude("gold in removed title prefix")
            return
        self.questions.append(Question(qa["id"], qa["question"], (EvidenceItem(tuple(spans)),)))

    def _answer(self, answer: Any, context: str, where: str) -> tuple[int, int]:
        if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
            raise self.fail(f"{where}.text", "must be a string")
        start = answer.get("answer_start")
        if not isinstance(start, int) or isinstance(start, bool):
            raise self.fail(f"{where}.answer_start", "must be an integer")
        length = len(answer["text"])
        if length == 0:
            raise self.fail(f"{where}.text", "must not be empty")
        if context[start : start + length] != answer["text"]:
            raise self.fail(
                f"{where}.answer_start", f"answer text {_short(answer['text'])} is not at offset {start} of the context"
            )
        return start, length

    def _exclude(self, reason: str) -> None:
        self.excluded[reason] = self.excluded.get(reason, 0) + 1


def load_dataset(
    corpus: str | Path | None = None,
    questions: str | Path | None = None,
    squad: str | Path | None = None,
    squad_answers: str = "first",
) -> Dataset:
    """Load either a corpus + questions pair or a SQuAD file (the bundled sample when none)."""
    if squad is not None:
        if corpus is not None or questions is not None:
            raise InputError(str(squad), "give either --squad or --corpus/--questions, not both")
        return load_squad(squad, squad_answers)
    name = None
    if corpus is None and questions is None:
        corpus, questions = sample_paths()
        name = "sample data"
    if corpus is None or questions is None:
        missing = "--questions" if questions is None else "--corpus"
        raise InputError(str(corpus or questions), f"{missing} is needed too")
    loaded_corpus, corpus_source = load_corpus(corpus)
    question_set, question_source = load_questions(questions, loaded_corpus)
    return Dataset(loaded_corpus, question_set, (corpus_source, question_source), name or Path(corpus).name)


def sample_paths() -> tuple[Path, Path]:
    """The bundled sample corpus directory and questions file."""
    root = Path(__file__).parent / "sample_data"
    return root / "corpus", root / "questions.jsonl"
