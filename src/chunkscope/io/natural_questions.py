"""Natural Questions, simplified format: the long answer as the evidence, short answers as references.

Each JSON line (``.jsonl`` or ``.jsonl.gz``) holds ``example_id``, ``question_text``, ``document_text`` (the page's
tokens joined by single spaces), ``long_answer_candidates`` and ``annotations`` (``long_answer: {start_token,
end_token}``, ``short_answers: [{start_token, end_token}]``, ``yes_no_answer``). The document text is
``document_text`` itself, so token ``i`` starts at the summed lengths of tokens ``0..i-1`` plus ``i`` (one space
after each), and a token range ``[start_token, end_token)`` is the characters from the start of its first token
to the end of its last. Each distinct ``document_text`` is one document (id: the ``example_id`` of the first
example on that page; later examples on the same page share it); an example's gold is one required item, every
annotator's long answer an alternative; a question no annotator gave a long answer is left out and counted. Short
answers (their tokens' text) and a ``YES``/``NO`` answer become the question's reference answers. Token offsets
outside the document refuse the file naming line and field, or with ``--skip-bad-gold`` leave the question out.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import accumulate
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
    refuse_corpus,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, count_reason, resolve_all
from chunkscope.io.lines import JsonlLines
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import object_lines, require_regular_file
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span

NO_LONG_ANSWER = "no long answer"
TOKENS_OUT_OF_RANGE = "token offsets outside the document"


def token_starts(document_text: str) -> list[int]:
    """The character offset of each token of ``document_text`` (tokens separated by single spaces)."""
    lengths = [len(token) + 1 for token in document_text.split(" ")]
    return [0, *accumulate(lengths)][: len(lengths)]


def token_span(text: str, starts: list[int], start_token: int, end_token: int) -> tuple[int, int] | None:
    """Characters of tokens ``[start_token, end_token)``; None when the range is empty or outside the text."""
    if not 0 <= start_token < end_token <= len(starts):
        return None
    last = end_token - 1
    end = starts[last + 1] - 1 if last + 1 < len(starts) else len(text)
    return starts[start_token], end


def load_natural_questions(path: str | Path, options: LoadOptions) -> Dataset:
    """Read NQ simplified JSON lines (see the module docstring)."""
    path = Path(path)
    refuse_corpus(path, options, "Natural Questions")
    require_regular_file(path)
    lines = JsonlLines(path)
    documents: list[Document] = []
    questions: list[Question] = []
    left_out = LeftOut(options.lenient, options.skip_bad_gold)
    excluded = left_out.reasons
    tally = MatchTally()
    ids: set[str] = set()
    by_text: dict[str, str] = {}
    for number, record in object_lines(path, lines):
        where = (str(path), number)
        for key in ("question_text", "document_text"):
            if not isinstance(record.get(key), str) or not record[key]:
                raise InputError(str(path), "must be a non-empty string", line=number, field=key)
        example_id = str(record.get("example_id", f"line-{number}"))
        if example_id in ids:
            raise InputError(str(path), f"duplicate example_id {example_id!r}", line=number, field="example_id")
        ids.add(example_id)
        text = record["document_text"]
        starts = token_starts(text)
        doc_id = by_text.get(text)
        if doc_id is None:  # one document per distinct page text: examples on the same page share it
            doc_id = by_text[text] = example_id
            documents.append(Document(doc_id, text, title=record.get("document_title") or None))
        try:
            alternatives, references = _gold(where, record, text, starts, doc_id, options.lenient)
        except BadGold as bad:
            left_out.bad(bad, example_id)
            tally.add(None)
            continue
        if not alternatives:
            count_reason(excluded, NO_LONG_ANSWER)
            continue
        tally.add("exact")
        item = EvidenceItem(tuple(dict.fromkeys(alternatives)))
        questions.append(Question(example_id, record["question_text"], (item,), (), references))
    if not questions and not left_out.issues:
        raise empty_question_set(path, excluded)
    question_set = left_out.question_set(questions)
    notices = (tally.line(path, "long answers"), left_out_line(path, excluded))
    name = path.name.removesuffix(".gz").removesuffix(".jsonl")
    return Dataset(Corpus(tuple(documents)), question_set, (SourceFile(str(path), lines.sha256),), name, notices)


def _gold(
    where: tuple[str, int],
    record: Mapping[str, Any],
    text: str,
    starts: list[int],
    doc: str,
    lenient: bool = False,
) -> tuple[list[Span], tuple[str, ...]]:
    """The long answers' spans and the references (short answers, yes/no); ``lenient``: every token range is
    looked at and the bad ones raised together."""
    path, line = where
    annotations = record.get("annotations")
    if not isinstance(annotations, list):
        raise InputError(path, "must be a list", line=line, field="annotations")
    spans: list[Span] = []
    references: list[str] = []
    ranges: list[tuple[str, int, int]] = []  # (field, start token, end token), long answers then short ones
    for a, annotation in enumerate(annotations):
        name = f"annotations[{a}]"
        if not isinstance(annotation, dict):
            raise InputError(path, "must be an object", line=line, field=name)
        start, end = _tokens(path, line, f"{name}.long_answer", annotation.get("long_answer") or {})
        if start >= 0:
            ranges.append((f"{name}.long_answer", start, end))
        for s, short in enumerate(annotation.get("short_answers") or []):
            ranges.append((f"{name}.short_answers[{s}]", *_tokens(path, line, f"{name}.short_answers[{s}]", short)))
        yes_no = annotation.get("yes_no_answer")
        if yes_no in ("YES", "NO"):
            references.append(yes_no)

    def located(name: str, start: int, end: int) -> tuple[str, int, int]:
        found = token_span(text, starts, start, end)
        if found is None:
            raise _out_of_range(path, line, name, start, end, len(starts), doc)
        return name, *found

    for name, start, end in resolve_all(ranges, lambda found: located(*found), lenient):
        if name.endswith(".long_answer"):
            spans.append(Span(doc, start, end))
        else:
            references.append(text[start:end])
    return spans, tuple(dict.fromkeys(references))


def _tokens(path: str, line: int, name: str, value: Any) -> tuple[int, int]:
    if not isinstance(value, dict):
        raise InputError(path, "must be an object {start_token, end_token}", line=line, field=name)
    start, end = value.get("start_token", -1), value.get("end_token", -1)
    for key, number in (("start_token", start), ("end_token", end)):
        if not isinstance(number, int) or isinstance(number, bool):
            raise InputError(path, "must be an integer", line=line, field=f"{name}.{key}")
    return start, end


def _out_of_range(path: str, line: int, name: str, start: int, end: int, tokens: int, doc: str) -> BadGold:
    return BadGold(
        path,
        f"tokens [{start}, {end}) are outside the document ({tokens} tokens)",
        line=line,
        field=f"{name}.end_token" if start >= 0 else f"{name}.start_token",
        reason=TOKENS_OUT_OF_RANGE,
        kind="out_of_range",
        doc=doc,
    )


def _sniff(probe: Probe) -> bool:
    return probe.layout == "jsonl" and probe.has("document_text", "question_text", "annotations")


register(
    DatasetFormat(
        "natural-questions",
        "Natural Questions simplified JSON lines: document_text, question_text, annotations[].long_answer",
        _sniff,
        load_natural_questions,
        20,
    )
)
