"""Gold spans after loading: edge whitespace, quotes searched over the whole corpus, and writing gold back out."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.quotes import QuoteFinder
from chunkscope.model import Corpus, EvidenceItem, Question, QuestionSet, Span, SpanMatch

SKIP_BAD_GOLD = "--skip-bad-gold"
"""The option that leaves out a question whose gold cannot be used instead of refusing its file."""


class BadGold(InputError):
    """Gold that no span can be made of (an answer not at its offset, a span out of range, a quote not found...).

    Its message names :data:`SKIP_BAD_GOLD`; a loader given that option catches it, leaves the question out
    and counts it under ``reason`` in ``QuestionSet.excluded_reasons``.
    """

    def __init__(
        self, path: str, message: str, *, line: int | None = None, field: str | None = None, reason: str = "bad gold"
    ) -> None:
        hint = f" ({SKIP_BAD_GOLD} leaves such questions out and counts them)"
        super().__init__(path, message if message.endswith(hint) else message + hint, line=line, field=field)
        self.reason = reason


def count_reason(reasons: dict[str, int], reason: str) -> None:
    """One more question excluded for ``reason``."""
    reasons[reason] = reasons.get(reason, 0) + 1


def trim_span(span: Span, text: str) -> Span:
    """``span`` without its leading and trailing whitespace (unchanged when it holds only whitespace).

    A chunk contains a gold span when it contains the span's trimmed form: a
    chunker that drops the space at a chunk's edge has not cut the evidence.
    """
    held = text[span.start : span.end]
    stripped = held.strip()
    if not stripped or stripped == held:
        return span
    start = span.start + len(held) - len(held.lstrip())
    return Span(span.doc, start, start + len(stripped))


def trim_question(question: Question, corpus: Corpus) -> Question:
    """``question`` with every gold span trimmed (the same object when nothing changes)."""
    evidence = tuple(
        replace(item, alternatives=spans)
        if (spans := tuple(trim_span(s, corpus.by_id[s.doc].text) for s in item.alternatives)) != item.alternatives
        else item
        for item in question.evidence
    )
    return question if evidence == question.evidence else replace(question, evidence=evidence)


def trim_questions(questions: Sequence[Question], corpus: Corpus) -> tuple[Question, ...]:
    """Every question with its gold spans trimmed."""
    return tuple(trim_question(question, corpus) for question in questions)


def trim_question_set(question_set: QuestionSet, corpus: Corpus) -> QuestionSet:
    """The question set with every gold span trimmed."""
    return replace(question_set, questions=trim_questions(question_set.questions, corpus))


# ------------------------------------------------------------------ quotes over the whole corpus


@dataclass(frozen=True, slots=True)
class CorpusHits:
    """Where a text occurs in the corpus, at the first rung of the ladder that found it anywhere."""

    match: SpanMatch | None
    places: tuple[Span, ...] = ()


def locate_in_corpus(finder: QuoteFinder, corpus: Corpus, quote: str) -> CorpusHits:
    """Every occurrence of ``quote`` in any document, rung by rung over the whole corpus.

    An exact occurrence in one document wins over a normalised one in another;
    a fuzzy search keeps the single best-scoring alignment (the first document
    among equals).
    """
    for level in finder.levels:
        found: list[tuple[SpanMatch, Span]] = []
        for document in corpus.documents:
            hits = finder.at(level, document.id, document.text, quote)
            if hits.match is not None:
                found.extend((hits.match, Span(document.id, s, e)) for s, e in hits.places)
        if not found:
            continue
        if level == "fuzzy":
            best = max(found, key=lambda pair: pair[0].score)  # max keeps the first of equals
            return CorpusHits(best[0], (best[1],))
        return CorpusHits(found[0][0], tuple(span for _, span in found))
    return CorpusHits(None)


# ------------------------------------------------------------------ writing gold as questions JSONL


def span_record(span: Span, corpus: Corpus, with_quote: bool = True) -> dict[str, Any]:
    """A span as a questions-JSONL evidence item: doc, quote (its exact text), start, end."""
    record: dict[str, Any] = {"doc": span.doc}
    if with_quote:
        record["quote"] = corpus.by_id[span.doc].text[span.start : span.end]
    record["start"], record["end"] = span.start, span.end
    return record


def item_record(item: EvidenceItem, corpus: Corpus) -> dict[str, Any]:
    """One evidence item: a span, or ``{"any": [...]}`` for several alternatives."""
    spans = [span_record(span, corpus) for span in item.alternatives]
    return spans[0] if len(spans) == 1 else {"any": spans}


def question_record(question: Question, corpus: Corpus) -> dict[str, Any]:
    """A question as one questions-JSONL record, gold trimmed and given by offsets with its exact quote."""
    trimmed = trim_question(question, corpus)
    record: dict[str, Any] = {
        "id": trimmed.id,
        "query": trimmed.query,
        "evidence": [item_record(item, corpus) for item in trimmed.evidence],
    }
    if trimmed.tags:
        record["tags"] = list(trimmed.tags)
    return record


def jsonl(records: Iterable[dict[str, Any]]) -> str:
    """One JSON object per line, UTF-8 not escaped."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def questions_jsonl(questions: Iterable[Question], corpus: Corpus) -> str:
    """Questions as a questions JSONL file that ``--questions`` reads back to the same gold."""
    return jsonl(question_record(question, corpus) for question in questions)
