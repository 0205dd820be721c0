"""Question-set loader: JSONL questions with gold evidence spans or quotes."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, need_corpus, register
from chunkscope.io.gold import BadGold, count_reason, jsonl, span_record, trim_span
from chunkscope.io.gold_units import (
    Newlines,
    Reading,
    Suspicion,
    offsets_line_endings,
    quote_line_endings,
    suspect_reading,
)
from chunkscope.io.offsets import DocumentOffsets, OffsetUnit, evidence_in_codepoints, evidence_in_unit
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, QuoteFinder, find_all
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import exists, field_value, jsonl_records, read_text, record_id, shorten, times
from chunkscope.model import (
    EXACT,
    Corpus,
    Document,
    EvidenceItem,
    GoldIssue,
    IssueKind,
    PageGold,
    Question,
    QuestionSet,
    Span,
    SpanMatch,
)

__all__ = ["EvidenceResolver", "UnresolvedGold", "find_all", "load_questions", "page_gold", "repair_questions"]
"""``find_all`` is re-exported for callers that searched quotes through this module."""

SHOWN_OFFSETS = 10
"""Offsets of an ambiguous quote listed in the error (the count of the others follows: ``+3 more``)."""


GOLD_NOT_RESOLVED = "gold not resolved"


class UnresolvedGold(BadGold):
    """A reference whose quote is not found, is ambiguous, or disagrees with its offsets."""

    def __init__(self, issue: GoldIssue, path: str, line: int, name: str) -> None:
        self.issue = issue
        super().__init__(path, issue.message, line=line, field=name, reason=GOLD_NOT_RESOLVED)

    def __reduce__(self) -> tuple[object, ...]:
        return UnresolvedGold, (self.issue, self.path, self.line, self.field)


def load_questions(
    path: str | Path,
    corpus: Corpus,
    policy: MatchPolicy = DEFAULT_POLICY,
    lenient: bool = False,
    offset_unit: OffsetUnit = "codepoint",
    skip_bad_gold: bool = False,
    newlines: Newlines = "as-is",
    reading: list[Suspicion] | None = None,
) -> tuple[QuestionSet, SourceFile]:
    """Load questions JSONL and resolve every evidence item against the corpus.

    Quotes are located by the ladder of ``policy`` (see ``chunkscope.io.quotes``).
    A quote that is not found, is ambiguous, or disagrees with its offsets is an
    error; with ``lenient`` (``gold check``) it is recorded in ``QuestionSet.issues``
    instead and its question excluded.
    ``offset_unit`` is what the file's ``start``/``end`` count; they are converted to code points first.
    ``skip_bad_gold``: a question with gold no span can be made of (unresolved as above, an unknown
    document, a span out of range or empty, an offset inside a character) is excluded and counted per
    reason instead of refusing the file. ``newlines="lf"``: the offsets count each document read with
    universal newlines (CRLF as LF) and are mapped back to its own text exactly.
    ``reading``: when given, another reading of the file's offsets-only spans clearly better than the
    given one is appended to it (:mod:`chunkscope.io.gold_units`); a refusal then names it too.
    """
    path = Path(path)
    if not exists(path):
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    records = _question_records(path, text)
    suspicion = _suspicion(path, records, corpus, Reading(offset_unit, newlines)) if reading is not None else None
    if reading is not None and suspicion is not None:
        reading.append(suspicion)
    try:
        return _loaded(
            path, digest, records, corpus, policy, lenient, _document_offsets(offset_unit, newlines), skip_bad_gold
        )
    except BadGold as bad:
        if suspicion is None:
            raise
        raise InputError(bad.path, f"{bad.message}; {suspicion.message()}", line=bad.line, field=bad.field) from None


def _loaded(
    path: Path,
    digest: str,
    records: list[tuple[int, dict[str, Any]]],
    corpus: Corpus,
    policy: MatchPolicy,
    lenient: bool,
    offsets: DocumentOffsets | None,
    skip_bad_gold: bool,
) -> tuple[QuestionSet, SourceFile]:
    """The question set of ``records`` resolved against the corpus (see :func:`load_questions`)."""
    resolver = _Resolver(str(path), corpus, QuoteFinder(policy), lenient or skip_bad_gold)
    questions: list[Question] = []
    reasons: dict[str, int] = {}
    for number, record in records:
        where = (str(path), number)
        resolver.question_id = record["id"]
        items = record["evidence"]
        try:
            if offsets is not None:
                items = evidence_in_codepoints(items, corpus, offsets, where)
            evidence = tuple(resolver.item(item, where, f"evidence[{i}]") for i, item in enumerate(items))
        except BadGold as bad:
            if not skip_bad_gold:
                raise
            count_reason(reasons, bad.reason)
            continue
        if all(item.alternatives for item in evidence):
            tags, references = tuple(record.get("tags", [])), tuple(record.get("answers", []))
            questions.append(Question(record["id"], record["query"], evidence, tags, references))
        else:
            count_reason(reasons, GOLD_NOT_RESOLVED)
    excluded = sum(reasons.values())
    if not questions and not excluded:
        raise InputError(str(path), "the question set is empty: nothing to evaluate")
    question_set = QuestionSet(tuple(questions), excluded, reasons, tuple(resolver.issues))
    return question_set, SourceFile(str(path), digest)


def repair_questions(
    path: str | Path,
    corpus: Corpus,
    policy: MatchPolicy = DEFAULT_POLICY,
    offset_unit: OffsetUnit = "codepoint",
    newlines: Newlines = "as-is",
) -> tuple[str, tuple[GoldIssue, ...]]:
    """The questions file with every resolvable quote given by offsets, and the references left as they were.

    Each quote that the ladder resolves becomes ``{doc, quote, start, end}`` with the
    document's exact text as its quote (an approximate match is so resolved to
    offsets); spans lose their edge whitespace; ambiguous or unfound references are
    kept unchanged and returned. Every other key of a record is kept. ``offset_unit``: what the
    file's offsets count; the repaired file's offsets count the same (``newlines`` too).
    """
    path = Path(path)
    offsets = _document_offsets(offset_unit, newlines)
    text, _ = read_text(path)
    resolver = _Resolver(str(path), corpus, QuoteFinder(policy), lenient=True)
    records = []
    for number, record in _question_records(path, text):
        resolver.question_id = record["id"]
        where = (str(path), number)
        items = record["evidence"]
        if offsets is not None:
            items = evidence_in_codepoints(items, corpus, offsets, where)
        evidence = [resolver.repaired(item, where, f"evidence[{i}]") for i, item in enumerate(items)]
        if offsets is not None:
            evidence = evidence_in_unit(evidence, corpus, offsets)
        records.append({**record, "evidence": evidence})
    return jsonl(records), tuple(resolver.issues)


def _document_offsets(unit: OffsetUnit, newlines: Newlines) -> DocumentOffsets | None:
    """The converter of the file's offsets to code points of each document; None when they are code points."""
    return None if unit == "codepoint" and newlines == "as-is" else DocumentOffsets(unit, lf=newlines == "lf")


def _suspicion(
    path: Path, records: list[tuple[int, dict[str, Any]]], corpus: Corpus, given: Reading
) -> Suspicion | None:
    """Another reading of the records' offsets-only spans clearly better than ``given``, or None."""
    spans = [span for _, record in records for span in _offsets_only(record["evidence"], corpus)]
    return suspect_reading(str(path), spans, given)


def _offsets_only(items: Any, corpus: Corpus) -> Iterator[tuple[Document, int, int]]:
    """Every well-formed span of ``items`` given by offsets alone, as written (a quote would check it)."""
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("any"), list):
            yield from _offsets_only(item["any"], corpus)
            continue
        document = corpus.by_id.get(item["doc"]) if isinstance(item.get("doc"), str) else None
        start, end = item.get("start"), item.get("end")
        if document is None or "quote" in item or isinstance(start, bool) or isinstance(end, bool):
            continue
        if isinstance(start, int) and isinstance(end, int):
            yield document, start, end


def _question_records(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    """Validated records (id, query, evidence, tags) with their line numbers."""
    records = []
    first_line: dict[str, int] = {}
    for number, record in jsonl_records(path, text):
        where = (str(path), number)
        question_id = record_id(record, where)
        query = field_value(record, "query", str, where)
        if not query.strip():
            raise InputError(str(path), "must not be empty", line=number, field="query")
        items = field_value(record, "evidence", list, where)
        if not items:
            raise InputError(str(path), "needs at least one evidence item", line=number, field="evidence")
        tags = record.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags):
            raise InputError(str(path), "must be a list of non-empty strings", line=number, field="tags")
        answers = record.get("answers", [])
        if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
            raise InputError(str(path), "must be a list of non-empty strings", line=number, field="answers")
        if question_id in first_line:
            raise InputError(
                str(path),
                f"duplicate question id '{question_id}' (first on line {first_line[question_id]})",
                line=number,
                field="id",
            )
        first_line[question_id] = number
        records.append((number, record))
    return records


_SPAN_KEYS = ("doc", "start", "end", "quote", "occurrence", "page", "page_base")
UNKNOWN_DOCUMENT = "unknown document"
SPAN_OUT_OF_RANGE = "span out of range or empty"


@dataclass(slots=True)
class _Resolver:
    """Resolves one file's evidence against the corpus; collects unresolved gold when lenient."""

    path: str
    corpus: Corpus
    finder: QuoteFinder
    lenient: bool = False
    issues: list[GoldIssue] = field(default_factory=list)
    question_id: str = ""
    pages: list[PageGold] = field(default_factory=list)
    """Every page named so far (an item takes those named while it was resolved)."""

    def item(self, item: Any, where: tuple[str, int], name: str) -> EvidenceItem:
        """An evidence item (with the pages it names): a span or ``{"any": [...]}``."""
        named = len(self.pages)
        resolved = self._item(item, where, name)
        pages = tuple(self.pages[named:])
        return replace(resolved, pages=pages) if pages else resolved

    def _item(self, item: Any, where: tuple[str, int], name: str) -> EvidenceItem:
        """An evidence item: a span or ``{"any": [...]}`` (unresolved alternatives left out when lenient)."""
        alternatives = _alternatives(item, where, name)
        if alternatives is None:
            resolved = self._resolved(item, where, name)
            return EvidenceItem(*_unzip([resolved] if resolved else []))
        found: list[tuple[Span, SpanMatch]] = []
        for i, alternative in enumerate(alternatives):
            inner = self.item(alternative, where, f"{name}.any[{i}]")
            found.extend((span, inner.match_of(j)) for j, span in enumerate(inner.alternatives))
        return EvidenceItem(*_unzip(found))

    def repaired(self, item: Any, where: tuple[str, int], name: str) -> Any:
        """The item with resolvable quotes given by (trimmed) offsets; unresolvable ones as they were."""
        alternatives = _alternatives(item, where, name)
        if alternatives is not None:
            return {"any": [self.repaired(a, where, f"{name}.any[{i}]") for i, a in enumerate(alternatives)]}
        if "page" in item:
            return item  # a page is gold as given: offsets would lose it
        resolved = self._resolved(item, where, name)
        if resolved is None:
            return item
        span = trim_span(resolved[0], self.corpus.by_id[resolved[0].doc].text)
        return span_record(span, self.corpus, with_quote="quote" in item)

    def _resolved(self, item: Mapping[str, Any], where: tuple[str, int], name: str) -> tuple[Span, SpanMatch] | None:
        try:
            return self.span(item, where, name)
        except UnresolvedGold as unresolved:
            if not self.lenient:
                raise
            self.issues.append(unresolved.issue)
            return None

    def span(self, item: Mapping[str, Any], where: tuple[str, int], name: str) -> tuple[Span, SpanMatch]:
        """One span item resolved to a span and how it was found."""
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
        document = self.corpus.by_id.get(doc_id) if isinstance(doc_id, str) else None
        if document is None:
            raise BadGold(path, f"unknown document {doc_id!r}", line=line, field=f"{name}.doc", reason=UNKNOWN_DOCUMENT)
        if "page" in item or "page_base" in item:
            return self._page(item, document, where, name)
        if "quote" in item:
            return self._quote(item, document, where, name)
        if "occurrence" in item:
            raise InputError(path, "applies only to a 'quote'", line=line, field=f"{name}.occurrence")
        if "start" not in item and "end" not in item:
            raise InputError(path, "missing: give start and end, or a quote", line=line, field=f"{name}.start")
        return _offsets(item, document, where, name), EXACT

    def _quote(
        self, item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str
    ) -> tuple[Span, SpanMatch]:
        path, line = where
        quote = item["quote"]
        if not isinstance(quote, str) or not quote:
            raise InputError(path, "must be a non-empty string", line=line, field=f"{name}.quote")
        if "start" in item or "end" in item:
            return self._quote_at_offsets(item, quote, document, where, name)
        hits = self.finder.find(document.id, document.text, quote)
        occurrence = item.get("occurrence")
        if hits.match is None:
            raise self._unresolved(
                "not_found",
                quote,
                document,
                (),
                where,
                f"{name}.quote",
                f"quote {shorten(quote)} found 0 times in '{document.id}' (--gold-match {self.finder.policy.label}"
                f"{wider_match_hint(self.finder, document, quote)}){quote_line_endings(document.text, quote)}",
            )
        starts = [start for start, _ in hits.places]
        if occurrence is None:
            if len(hits.places) != 1:
                raise self._unresolved(
                    "ambiguous",
                    quote,
                    document,
                    hits.places,
                    where,
                    f"{name}.quote",
                    f"quote {shorten(quote)} found {len(starts)} times in '{document.id}' at offsets "
                    f"{', '.join(map(str, starts[:SHOWN_OFFSETS]))}{more_offsets(len(starts))}; "
                    'add "occurrence": N (0-based) to pick one',
                )
            return Span(document.id, *hits.places[0]), hits.match
        if not isinstance(occurrence, int) or isinstance(occurrence, bool) or occurrence < 0:
            raise InputError(
                path,
                f"must be a non-negative integer (0-based), got {json.dumps(occurrence)}",
                line=line,
                field=f"{name}.occurrence",
            )
        if occurrence >= len(hits.places):
            raise BadGold(
                path,
                f"occurrence {occurrence} does not exist: the quote occurs {times(len(hits.places))}",
                line=line,
                field=f"{name}.occurrence",
                reason=GOLD_NOT_RESOLVED,
            )
        return Span(document.id, *hits.places[occurrence]), hits.match

    def _page(
        self, item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str
    ) -> tuple[Span, SpanMatch]:
        """A page alone (the page's text is the span) or a page with a quote (found within the page first)."""
        page = page_gold(item, document, where, name)
        self.pages.append(page)
        path, line = where
        if "start" in item or "end" in item or "occurrence" in item:
            key = next(k for k in ("start", "end", "occurrence") if k in item)
            raise InputError(path, "a page item takes a quote or nothing else", line=line, field=f"{name}.{key}")
        if "quote" not in item:
            return Span(document.id, page.start, page.end), EXACT
        quote = item["quote"]
        if isinstance(quote, str) and quote:
            page_text = document.text[page.start : page.end]
            hits = self.finder.find(f"{document.id}\0page {page.page}", page_text, quote)
            if hits.match is not None and len(hits.places) == 1:
                start, end = hits.places[0]
                return Span(document.id, page.start + start, page.start + end), hits.match
        return self._quote(item, document, where, name)

    def _quote_at_offsets(
        self, item: Mapping[str, Any], quote: str, document: Document, where: tuple[str, int], name: str
    ) -> tuple[Span, SpanMatch]:
        """A quote with offsets: accepted when they agree, however often the quote occurs elsewhere."""
        given = _offsets(item, document, where, name)
        match = self.finder.agrees(document.text, quote, given.start, given.end)
        if match is not None:
            return given, match
        hits = self.finder.find(document.id, document.text, quote)
        elsewhere = (
            f"found at {', '.join(f'[{s}, {e})' for s, e in hits.places[:5])}" if hits.places else "found nowhere"
        )
        raise self._unresolved(
            "mismatch",
            quote,
            document,
            hits.places,
            where,
            f"{name}.start",
            f"[{given.start}, {given.end}) does not match the quote, {elsewhere}"
            + offsets_line_endings(document.text, quote, given.start, given.end),
        )

    def _unresolved(
        self,
        kind: IssueKind,
        quote: str,
        document: Document,
        places: tuple[tuple[int, int], ...],
        where: tuple[str, int],
        name: str,
        message: str,
    ) -> UnresolvedGold:
        path, line = where
        issue = GoldIssue(
            kind,
            self.question_id,
            f"{path}:{line} field '{name}'",
            document.id,
            quote,
            tuple((document.id, s, e) for s, e in places),
            message,
        )
        return UnresolvedGold(issue, path, line, name)


EvidenceResolver = _Resolver
"""Resolves evidence records (``.item(record, (path, line), field)``) against a corpus: for loaders of other formats
that turn their rows into chunkscope evidence records."""


def page_gold(item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str) -> PageGold:
    """The page an item names: ``page`` counted from ``page_base`` (1 unless given; 0 or 1), checked to exist."""
    path, line = where
    base = item.get("page_base", 1)
    if base not in (0, 1) or isinstance(base, bool):
        raise InputError(path, f"must be 0 or 1, got {json.dumps(base)}", line=line, field=f"{name}.page_base")
    if "page" not in item:
        raise InputError(path, "missing (page_base needs a page)", line=line, field=f"{name}.page")
    number = item["page"]
    if not isinstance(number, int) or isinstance(number, bool):
        raise InputError(path, f"must be an integer, got {json.dumps(number)}", line=line, field=f"{name}.page")
    pages = document.structure.pages if document.structure is not None else ()
    if not pages:
        raise InputError(
            path, f"document '{document.id}' has no pages (page gold needs a PDF)", line=line, field=f"{name}.page"
        )
    index = number - base
    if not 0 <= index < len(pages):
        raise InputError(
            path,
            f"page {number} is outside '{document.id}': it has {len(pages)} pages, numbered from {base}",
            line=line,
            field=f"{name}.page",
        )
    start, end = pages[index]
    if start == end:
        raise InputError(path, f"page {number} of '{document.id}' holds no text", line=line, field=f"{name}.page")
    return PageGold(document.id, index + 1, start, end)


def _alternatives(item: Any, where: tuple[str, int], name: str) -> list[Any] | None:
    """The alternatives of an ``{"any": [...]}`` item; ``None`` for a span item."""
    path, line = where
    if not isinstance(item, dict):
        raise InputError(path, "must be an object", line=line, field=name)
    if "any" not in item:
        return None
    alternatives = item["any"]
    if set(item) != {"any"}:
        extra = ", ".join(sorted(set(item) - {"any"}))
        raise InputError(path, f"an 'any' item takes no other keys, got {extra}", line=line, field=name)
    if not isinstance(alternatives, list):
        raise InputError(path, f"must be a list, got {type(alternatives).__name__}", line=line, field=f"{name}.any")
    if not alternatives:
        raise InputError(path, "needs at least one alternative", line=line, field=f"{name}.any")
    return alternatives


def _unzip(found: list[tuple[Span, SpanMatch]]) -> tuple[tuple[Span, ...], tuple[SpanMatch, ...]]:
    """Spans and their matches; no matches at all when every one is exact (the common case stays light)."""
    spans = tuple(span for span, _ in found)
    matches = tuple(match for _, match in found)
    return spans, (matches if any(m.approximate for m in matches) else ())


def _offsets(item: Mapping[str, Any], document: Document, where: tuple[str, int], name: str) -> Span:
    path, line = where
    for key in ("start", "end"):
        value = item.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(path, "must be an integer (or give a 'quote')", line=line, field=f"{name}.{key}")
    start, end = item["start"], item["end"]
    if not 0 <= start < end <= len(document.text):
        problem = "is empty" if start >= end else f"is out of range (document has {len(document.text)} characters)"
        raise BadGold(
            path, f"span [{start}, {end}) {problem}", line=line, field=f"{name}.start", reason=SPAN_OUT_OF_RANGE
        )
    return Span(document.id, start, end)


def more_offsets(count: int) -> str:
    """`` +N more`` when ``count`` offsets are more than the ``SHOWN_OFFSETS`` listed, else nothing."""
    return f" +{count - SHOWN_OFFSETS} more" if count > SHOWN_OFFSETS else ""


def wider_match_hint(finder: QuoteFinder, document: Document, quote: str) -> str:
    """What to try for a quote ``finder`` did not find: ``normalized`` (the default) when the policy is ``exact``
    and normalisation finds it, else ``fuzzy``; nothing when fuzzy matching already failed."""
    if finder.policy.level == "fuzzy":
        return ""
    if finder.policy.level == "exact" and finder.at("normalized", document.id, document.text, quote).places:
        return "; try --gold-match normalized, the default, which finds it"
    return "; try --gold-match fuzzy"


def _sniff_questions(probe: Probe) -> bool:
    return probe.layout == "jsonl" and probe.has("id", "query", "evidence")


def _load_questions(path: Path, options: LoadOptions) -> Dataset:

    corpus, corpus_source = load_corpus(need_corpus(path, options, "questions JSONL"))
    question_set, source = load_questions(
        path,
        corpus,
        options.gold_match,
        options.lenient,
        options.offset_unit,
        options.skip_bad_gold,
        options.newlines,
    )
    return Dataset(corpus, question_set, (corpus_source, source), Path(options.corpus or path).name)


register(
    DatasetFormat(
        "questions",
        "chunkscope questions JSONL: id, query, evidence (with --corpus)",
        _sniff_questions,
        _load_questions,
        10,
    )
)
