"""Gold spans after loading: edge whitespace, quotes searched over the whole corpus, and writing gold back out."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from chunkscope.errors import InputError
from chunkscope.io.quotes import QuoteFinder
from chunkscope.model import Corpus, EvidenceItem, GoldIssue, IssueKind, Question, QuestionSet, Span, SpanMatch

Item = TypeVar("Item")
Resolved = TypeVar("Resolved")

SKIP_BAD_GOLD = "--skip-bad-gold"
"""The option that leaves out a question whose gold cannot be used instead of refusing its file."""


class BadGold(InputError):
    """Gold that no span can be made of (an answer not at its offset, a span out of range, a quote not found...).

    Its message names :data:`SKIP_BAD_GOLD`; a loader given that option catches it, leaves the question out
    and counts it under ``reason`` in ``QuestionSet.excluded_reasons``.
    """

    def __init__(
        self,
        path: str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
        reason: str = "bad gold",
        kind: IssueKind = "mismatch",
        doc: str | None = None,
        quote: str = "",
    ) -> None:
        hint = f" ({SKIP_BAD_GOLD} leaves such questions out and counts them)"
        self.detail = message.removesuffix(hint)
        super().__init__(path, message if message.endswith(hint) else message + hint, line=line, field=field)
        self.reason = reason
        self.kind: IssueKind = kind
        self.doc = doc
        self.quote = quote

    def __reduce__(self) -> tuple[object, ...]:
        # Worker processes send errors back: keep what a lenient load needs (reason, kind, doc, quote).
        fields = (self.path, self.detail, self.line, self.field, self.reason, self.kind, self.doc, self.quote)
        return _rebuild_bad_gold, (type(self), *fields)

    def as_issues(self, question: str) -> tuple[GoldIssue, ...]:
        """This bad reference as the :class:`GoldIssue` a lenient load (``gold check``) lists."""
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        if self.field:
            where += f" field '{self.field}'"
        return (GoldIssue(self.kind, question, where, self.doc, self.quote, message=self.detail),)


class BadGoldGroup(BadGold):
    """Every bad reference of one question, found by a lenient load that looked at all of them (the first
    names the error)."""

    def __init__(self, members: Sequence[BadGold]) -> None:
        first = members[0]
        super().__init__(
            first.path, first.detail, line=first.line, field=first.field, reason=first.reason, kind=first.kind
        )
        self.members = tuple(members)

    def __reduce__(self) -> tuple[object, ...]:
        return BadGoldGroup, (self.members,)

    def as_issues(self, question: str) -> tuple[GoldIssue, ...]:
        """Every member's issue, in file order."""
        return tuple(issue for member in self.members for issue in member.as_issues(question))


def _rebuild_bad_gold(
    cls: type[BadGold],
    path: str,
    message: str,
    line: int | None,
    field: str | None,
    reason: str,
    kind: IssueKind,
    doc: str | None,
    quote: str,
) -> BadGold:
    return cls(path, message, line=line, field=field, reason=reason, kind=kind, doc=doc, quote=quote)


def resolve_all(items: Iterable[Item], resolve: Callable[[Item], Resolved], lenient: bool) -> list[Resolved]:
    """Every item resolved. An item raising :class:`BadGold` stops the others unless ``lenient``: then every item
    is resolved and the bad ones are raised together as one :class:`BadGoldGroup`, so that each is listed."""
    if not lenient:
        return [resolve(item) for item in items]
    done: list[Resolved] = []
    bad: list[BadGold] = []
    for item in items:
        try:
            done.append(resolve(item))
        except BadGold as failed:
            bad.append(failed)
    if bad:
        raise bad[0] if len(bad) == 1 else BadGoldGroup(bad)
    return done


@dataclass(slots=True)
class LeftOut:
    """The questions a dataset loader leaves out, counted by reason, and the bad gold behind them.

    A question with bad gold refuses its file unless ``skip_bad_gold`` (counted) or ``lenient`` (``gold check``:
    counted, and every bad reference kept in ``issues``)."""

    lenient: bool = False
    skip_bad_gold: bool = False
    reasons: dict[str, int] = field(default_factory=dict)
    issues: list[GoldIssue] = field(default_factory=list)

    def bad(self, bad: BadGold, question: str) -> None:
        """Leave out ``question`` for ``bad`` (re-raised when neither lenient nor skipping)."""
        if not (self.lenient or self.skip_bad_gold):
            raise bad
        count_reason(self.reasons, bad.reason)
        if self.lenient:
            self.issues.extend(bad.as_issues(question))

    def question_set(self, questions: Iterable[Question]) -> QuestionSet:
        """The loaded questions with what was left out."""
        return QuestionSet(tuple(questions), sum(self.reasons.values()), dict(self.reasons), tuple(self.issues))


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
    """A question as one questions-JSONL record, gold trimmed and given by offsets with its exact quote, and its
    reference answers (``answers``) when it has any."""
    trimmed = trim_question(question, corpus)
    record: dict[str, Any] = {
        "id": trimmed.id,
        "query": trimmed.query,
        "evidence": [item_record(item, corpus) for item in trimmed.evidence],
    }
    if trimmed.tags:
        record["tags"] = list(trimmed.tags)
    if trimmed.references:
        record["answers"] = list(trimmed.references)  # reference answers, for the answer metrics
    return record


def jsonl(records: Iterable[dict[str, Any]]) -> str:
    """One JSON object per line, UTF-8 not escaped."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def questions_jsonl(questions: Iterable[Question], corpus: Corpus) -> str:
    """Questions as a questions JSONL file that ``--questions`` reads back to the same gold."""
    return jsonl(question_record(question, corpus) for question in questions)
