"""TyDi QA primary task (JSONL, optionally gzipped): UTF-8 byte offsets into ``document_plaintext``.

The file is read line by line (a gzip file decompressed as a stream, within the bounds of :mod:`chunkscope.io.lines`).

One record per question: ``example_id``, ``question_text``, ``language``,
``document_title``, ``document_plaintext``, ``passage_answer_candidates``
(``plaintext_start_byte``/``plaintext_end_byte``) and ``annotations``, each with a
``passage_answer`` (``candidate_index``) and a ``minimal_answer`` (byte range, -1
when absent). Byte offsets are converted to code-point offsets; one that falls
inside a multi-byte character is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, refuse_corpus, register
from chunkscope.io.gold import BadGold, BadGoldGroup, LeftOut
from chunkscope.io.lines import JsonlLines
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import object_lines, require_regular_file
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span

BYTE_OFFSET_NOT_ON_A_CHARACTER = "byte offset not on a character"
"""The reason counted for a record left out by ``skip_bad_gold``."""


def load_tydi(
    path: str | Path, language: str | None = None, skip_bad_gold: bool = False, lenient: bool = False
) -> Dataset:
    """Load TyDi QA primary-task records; only ``language`` ones when given (e.g. ``japanese``).

    Gold is one required item per question: every annotator's minimal answer as
    alternatives; for a question no annotator gave a minimal answer (yes/no
    questions, passage-only annotations), every annotated passage answer. Questions
    with neither are excluded as unanswerable; other languages are excluded and
    counted too. Passage candidates become the document's paragraph structure.
    ``skip_bad_gold``: a record with a byte offset inside a character or outside its text is excluded
    and counted instead of refusing the file; ``lenient`` (``gold check``) also lists each such offset in
    ``QuestionSet.issues``.
    """
    path = Path(path)
    require_regular_file(path)
    lines = JsonlLines(path)  # streamed: a gzip file is never decompressed whole (see io.lines for the bounds)
    builder = _TydiBuilder(str(path), language.lower() if language else None, LeftOut(lenient, skip_bad_gold))
    for number, record in object_lines(path, lines):
        builder.add(record, number)
    digest = lines.sha256
    if not builder.questions and not builder.left_out.issues:
        excluded = "; ".join(f"{count} {reason}" for reason, count in builder.excluded.items()) or "the file has none"
        raise InputError(str(path), f"the question set is empty: no answerable question ({excluded})")
    questions = builder.left_out.question_set(builder.questions)
    name = path.name.removesuffix(".gz").removesuffix(".jsonl")
    return Dataset(Corpus(tuple(builder.documents.values())), questions, (SourceFile(str(path), digest),), name)


@dataclass(frozen=True, slots=True)
class ByteOffsets:
    """Converts UTF-8 byte offsets of one text to code-point offsets."""

    raw: bytes

    def to_chars(self, offsets: Sequence[int]) -> list[int]:
        """Code-point offset of each byte offset; ValueError naming the first one inside a character."""
        result: dict[int, int] = {}
        previous_byte = previous_char = 0
        for offset in sorted(set(offsets)):
            if not 0 <= offset <= len(self.raw):
                raise ValueError(f"byte offset {offset} is outside the text ({len(self.raw)} bytes)")
            if offset < len(self.raw) and self.raw[offset] & 0xC0 == 0x80:
                raise ValueError(f"byte offset {offset} falls inside a multi-byte UTF-8 character")
            previous_char += len(self.raw[previous_byte:offset].decode("utf-8"))
            previous_byte = offset
            result[offset] = previous_char
        return [result[offset] for offset in offsets]


class _TydiBuilder:
    def __init__(self, path: str, language: str | None, left_out: LeftOut) -> None:
        self.path = path
        self.left_out = left_out
        self.language = language
        self.documents: dict[str, Document] = {}
        self.by_content: dict[tuple[str, str], Document] = {}
        self.questions: list[Question] = []
        self.excluded = left_out.reasons
        self.ids: set[str] = set()

    def fail(self, line: int, name: str, message: str) -> InputError:
        return InputError(self.path, message, line=line, field=name)

    def string(self, record: dict[str, Any], key: str, line: int) -> str:
        value = record.get(key)
        if not isinstance(value, str):
            raise self.fail(line, key, "missing" if value is None else "must be a string")
        return value

    def add(self, record: dict[str, Any], line: int) -> None:
        language = self.string(record, "language", line).lower()
        if self.language is not None and language != self.language:
            self._exclude(f"language not {self.language}")
            return
        example = record.get("example_id")
        if not isinstance(example, (str, int)) or isinstance(example, bool) or not str(example).strip():
            raise self.fail(line, "example_id", "must be a string or an integer")
        question_id = str(example)
        if question_id in self.ids:
            raise self.fail(line, "example_id", f"duplicate question id '{question_id}'")
        self.ids.add(question_id)
        query = self.string(record, "question_text", line)
        if not query.strip():
            raise self.fail(line, "question_text", "must not be empty")
        text = self.string(record, "document_plaintext", line)
        title = self.string(record, "document_title", line) if record.get("document_title") is not None else ""
        candidates = self.byte_ranges(record.get("passage_answer_candidates"), "passage_answer_candidates", line)
        minimal, passages = self.answers(record.get("annotations"), len(candidates), line)
        converter = ByteOffsets(text.encode("utf-8"))
        named = [*candidates, *minimal]
        try:
            chars = converter.to_chars([offset for _, start, end in named for offset in (start, end)])
        except ValueError:
            bad = self._bad_offsets(converter, named, line)
            self.left_out.bad(bad[0] if len(bad) == 1 else BadGoldGroup(bad), question_id)
            return
        ranges = [(chars[2 * i], chars[2 * i + 1]) for i in range(len(named))]
        paragraphs, answer_spans = ranges[: len(candidates)], ranges[len(candidates) :]
        document = self.document(title or question_id, text, paragraphs, question_id)
        references: tuple[str, ...] = ()
        if answer_spans:
            spans = dict.fromkeys(Span(document.id, s, e) for s, e in answer_spans)
            references = tuple(dict.fromkeys(text[s:e] for s, e in answer_spans if s < e))
        elif passages:
            spans = dict.fromkeys(Span(document.id, *paragraphs[i]) for i in passages)
        else:
            self._exclude("unanswerable")
            return
        self.questions.append(Question(question_id, query, (EvidenceItem(tuple(spans)),), (language,), references))

    def _bad_offsets(self, converter: ByteOffsets, named: list[tuple[str, int, int]], line: int) -> list[BadGold]:
        """Every byte offset with no character offset, in file order (the first names the refusal)."""
        bad: list[BadGold] = []
        for name, start, end in named:
            for key, offset in (("plaintext_start_byte", start), ("plaintext_end_byte", end)):
                try:
                    converter.to_chars([offset])
                except ValueError as exc:
                    field = f"{name}.{key}"
                    reason = BYTE_OFFSET_NOT_ON_A_CHARACTER
                    bad.append(BadGold(self.path, str(exc), line=line, field=field, reason=reason, kind="out_of_range"))
        if not bad:
            raise AssertionError("unreachable: some offset failed as a whole but none alone")
        return bad

    def byte_ranges(self, value: Any, name: str, line: int) -> list[tuple[str, int, int]]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(line, name, "must be a list")
        return [self.byte_range(item, f"{name}[{i}]", line) for i, item in enumerate(value)]

    def byte_range(self, item: Any, name: str, line: int) -> tuple[str, int, int]:
        if not isinstance(item, dict):
            raise self.fail(line, name, "must be an object")
        offsets = []
        for key in ("plaintext_start_byte", "plaintext_end_byte"):
            value = item.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(line, f"{name}.{key}", "must be an integer")
            offsets.append(value)
        start, end = offsets
        if end <= start:
            raise self.fail(line, f"{name}.plaintext_start_byte", f"byte range [{start}, {end}) is empty")
        return name, start, end

    def answers(self, value: Any, candidates: int, line: int) -> tuple[list[tuple[str, int, int]], list[int]]:
        """Minimal answers (byte ranges) and passage answers (candidate indices) over all annotations."""
        if value is None:
            return [], []
        if not isinstance(value, list):
            raise self.fail(line, "annotations", "must be a list")
        minimal: list[tuple[str, int, int]] = []
        passages: list[int] = []
        for i, annotation in enumerate(value):
            name = f"annotations[{i}]"
            if not isinstance(annotation, dict):
                raise self.fail(line, name, "must be an object")
            answer = annotation.get("minimal_answer") or {}
            if not isinstance(answer, dict):
                raise self.fail(line, f"{name}.minimal_answer", "must be an object")
            if answer.get("plaintext_start_byte", -1) != -1:
                minimal.append(self.byte_range(answer, f"{name}.minimal_answer", line))
            passage = annotation.get("passage_answer") or {}
            index = passage.get("candidate_index", -1) if isinstance(passage, dict) else None
            if not isinstance(index, int) or isinstance(index, bool) or not -1 <= index < candidates:
                raise self.fail(
                    line,
                    f"{name}.passage_answer.candidate_index",
                    f"must be -1 or a candidate index below {candidates}",
                )
            if index >= 0:
                passages.append(index)
        return minimal, list(dict.fromkeys(passages))

    def document(self, title: str, text: str, paragraphs: list[tuple[int, int]], question_id: str) -> Document:
        """The document of this title and text, made on its first question (a title used for
        another text gets the question id appended)."""
        known = self.by_content.get((title, text))
        if known is not None:
            return known
        doc_id = title if title not in self.documents else f"{title} ({question_id})"
        document = Document(doc_id, text, title=title, paragraphs=_top_level(paragraphs))
        self.documents[doc_id] = self.by_content[(title, text)] = document
        return document

    def _exclude(self, reason: str) -> None:
        self.excluded[reason] = self.excluded.get(reason, 0) + 1


def _top_level(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...] | None:
    """Candidates in document order, each overlapping an earlier one left out (paragraphs never overlap)."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return tuple(kept) or None


def _sniff_tydi(probe: Probe) -> bool:
    return probe.layout == "jsonl" and probe.has("document_plaintext", "annotations", "passage_answer_candidates")


def _load_tydi(path: Path, options: LoadOptions) -> Dataset:
    refuse_corpus(path, options, "TyDi QA")
    return load_tydi(path, options.language, options.skip_bad_gold, options.lenient)


register(
    DatasetFormat(
        "tydi",
        "JSON lines with document_plaintext, annotations and passage_answer_candidates",
        _sniff_tydi,
        _load_tydi,
        10,
    )
)
