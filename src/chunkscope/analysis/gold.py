"""Gold integrity: what is wrong with a question set's evidence before any chunking is measured.

``check_gold`` looks at a loaded question set and its corpus and reports, per
question, gold that could not be resolved (not found, ambiguous, offsets that
disagree: recorded by a lenient load), gold located only approximately, span
edges inside a word or a grapheme, edge whitespace, spans crossing paragraph or
section structure, duplicate and near-duplicate questions, and evidence whose
text occurs many times in the corpus. It is what ``chunkscope gold check``
prints and what the inspector lists.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from chunkscope.analysis.occurrences import count_occurrences
from chunkscope.io.gold import trim_span
from chunkscope.io.quotes import inside_word
from chunkscope.model import Corpus, Document, Question, QuestionSet, Span

FindingKind = Literal[
    "offset_unit",
    "not_found",
    "ambiguous",
    "mismatch",
    "out_of_range",
    "approximate",
    "inside_word",
    "inside_grapheme",
    "edge_whitespace",
    "crosses_paragraph",
    "crosses_section",
    "duplicate_question",
    "near_duplicate_question",
    "repeated_evidence",
]

FINDING_KINDS: Mapping[FindingKind, str] = {
    "offset_unit": "offsets-only spans read clearly better in another unit or with CRLF read as LF",
    "not_found": "quote or context found nowhere",
    "ambiguous": "quote found several times and nothing picks one",
    "mismatch": "offsets hold other text than the quote",
    "out_of_range": "offsets, tokens or a sentence index outside the text they point into, or an empty span",
    "approximate": "located only by a normalised or fuzzy match",
    "inside_word": "span starts or ends inside a word",
    "inside_grapheme": "span starts or ends inside a grapheme (a character and its marks)",
    "edge_whitespace": "span starts or ends with whitespace",
    "crosses_paragraph": "span crosses a paragraph break",
    "crosses_section": "span crosses a section heading",
    "duplicate_question": "same question text as an earlier question",
    "near_duplicate_question": "nearly the same question text as an earlier question",
    "repeated_evidence": "evidence text occurs several times in the corpus",
}
"""Every kind of finding, in report order, with what it means."""

UNRESOLVED: tuple[FindingKind, ...] = ("not_found", "ambiguous", "mismatch", "out_of_range")


DEFAULT_REPEATED = 2
DEFAULT_NEAR_DUPLICATE = 0.8


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Thresholds of the check."""

    repeated: int = DEFAULT_REPEATED
    """Evidence whose exact text occurs at least this many times in the corpus is reported."""
    near_duplicate: float = DEFAULT_NEAR_DUPLICATE
    """Least character-trigram Jaccard similarity of two normalised questions to report them."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem with one question's gold."""

    kind: FindingKind
    question: str
    """Id of the question."""
    detail: str
    """One line saying what is wrong."""
    item: int | None = None
    """0-based required evidence item, when the finding is about one."""
    span: Span | None = None
    """The gold span concerned (as loaded, edge whitespace included)."""
    places: tuple[tuple[str, int, int], ...] = ()
    """Every (document, start, end) where the text was found (ambiguous, mismatch)."""
    where: str = ""
    """``file:line field 'name'`` when known."""


@dataclass(frozen=True, slots=True)
class GoldCheck:
    """The integrity report of one question set."""

    questions: int
    """Questions loaded."""
    excluded: int
    """Questions left out at load (unresolved gold among them)."""
    spans: int
    """Gold spans checked."""
    findings: tuple[Finding, ...]
    """Every finding, by kind (in ``FINDING_KINDS`` order), then question order."""
    options: CheckOptions = field(default_factory=CheckOptions)

    @property
    def counts(self) -> dict[FindingKind, int]:
        """Findings per kind, every kind present."""
        counted = Counter(finding.kind for finding in self.findings)
        return {kind: counted.get(kind, 0) for kind in FINDING_KINDS}

    def for_question(self, question_id: str) -> tuple[Finding, ...]:
        """The findings about one question."""
        return tuple(finding for finding in self.findings if finding.question == question_id)

    def problems(self, allowed: Sequence[str] = ()) -> tuple[Finding, ...]:
        """Findings whose kind is not in ``allowed``."""
        return tuple(finding for finding in self.findings if finding.kind not in allowed)


CheckProgress = Callable[[str, int, int], None]
"""Called with (stage, done, total) while the check runs: counting evidence texts, checking spans, comparing
questions."""
PROGRESS_EVERY = 1000
"""Questions checked between two progress calls."""


def check_gold(
    corpus: Corpus,
    question_set: QuestionSet,
    options: CheckOptions = CheckOptions(),
    progress: CheckProgress | None = None,
    file_findings: Sequence[Finding] = (),
) -> GoldCheck:
    """Every finding about ``question_set``'s gold (load it untrimmed to see edge whitespace).

    Time linear in the questions and the corpus: the corpus-wide counts of the evidence texts come from one
    scan (:mod:`chunkscope.analysis.occurrences`), not one scan per span. ``file_findings``: findings about
    the question file as a whole (``offset_unit``), found by the loader's side.
    """
    questions = question_set.questions
    found: list[Finding] = [*file_findings] + [
        Finding(issue.kind, issue.question, issue.message, places=issue.places, where=issue.where)
        for issue in question_set.issues
    ]
    counts = _TextCounts(corpus, questions, progress)
    for number, question in enumerate(questions, 1):
        found.extend(_span_findings(question, corpus, counts, options))
        if progress is not None and (number % PROGRESS_EVERY == 0 or number == len(questions)):
            progress("checking spans", number, len(questions))
    if progress is not None:
        progress("comparing questions", 0, 1)
    found.extend(_duplicate_questions(questions, options.near_duplicate))
    order = {kind: i for i, kind in enumerate(FINDING_KINDS)}
    position = {question.id: i for i, question in enumerate(questions)}
    found.sort(key=lambda f: (order[f.kind], position.get(f.question, -1)))
    spans = sum(len(question.gold_spans) for question in questions)
    return GoldCheck(len(questions), question_set.excluded, spans, tuple(found), options)


# ------------------------------------------------------------------ per span


def _span_findings(question: Question, corpus: Corpus, counts: _TextCounts, options: CheckOptions) -> Iterator[Finding]:
    for index, item in enumerate(question.evidence):
        for alternative, span in enumerate(item.alternatives):
            document = corpus.by_id[span.doc]
            text = document.text
            match = item.match_of(alternative)

            def finding(kind: FindingKind, detail: str, span: Span = span, index: int = index) -> Finding:
                return Finding(kind, question.id, f"{_where(span)}: {detail}", index, span)

            if match.approximate:
                yield finding("approximate", f"located by a {match.label} match: {_excerpt(text, span)}")
            trimmed = trim_span(span, text)
            if trimmed != span:
                yield finding("edge_whitespace", f"edges hold whitespace: {_excerpt(text, span)}")
            for edge, position in (("starts", trimmed.start), ("ends", trimmed.end)):
                if inside_grapheme(text, position):
                    yield finding(
                        "inside_grapheme", f"{edge} inside a grapheme at {position}: {_excerpt(text, trimmed)}"
                    )
                elif inside_word(text, position):
                    yield finding("inside_word", f"{edge} inside a word at {position}: {_excerpt(text, trimmed)}")
            crossing = paragraph_breaks(document, trimmed)
            if crossing:
                yield finding("crosses_paragraph", f"crosses a paragraph break at {', '.join(map(str, crossing))}")
            headings = section_headings(text, trimmed)
            if headings:
                yield finding("crosses_section", f"crosses a section heading at {', '.join(map(str, headings))}")
            held = text[trimmed.start : trimmed.end]
            occurrences = counts.count(held)
            if occurrences >= options.repeated and not _every_copy_given(held, item.alternatives, corpus, occurrences):
                yield finding(
                    "repeated_evidence",
                    f"its text occurs {occurrences} times in the corpus ({text.count(held)} in its document): "
                    f"{_excerpt(text, trimmed)}",
                )


def _every_copy_given(held: str, alternatives: Sequence[Span], corpus: Corpus, occurrences: int) -> bool:
    """True when the item already lists every copy of the text as an alternative (any copy counts)."""
    texts = [corpus.by_id[s.doc].text[s.start : s.end].strip() for s in alternatives]
    return sum(1 for text in texts if text == held) >= occurrences


class _TextCounts:
    """Non-overlapping occurrences over the whole corpus of every trimmed gold text, counted in one scan."""

    def __init__(self, corpus: Corpus, questions: Sequence[Question], progress: CheckProgress | None = None) -> None:
        texts = (
            _trimmed_text(span, corpus)
            for question in questions
            for item in question.evidence
            for span in item.alternatives
        )
        scan = None if progress is None else (lambda done, total: progress("counting evidence texts", done, total))
        self.counts = count_occurrences([document.text for document in corpus.documents], texts, scan)

    def count(self, text: str) -> int:
        return self.counts.get(text, 0)


def _trimmed_text(span: Span, corpus: Corpus) -> str:
    text = corpus.by_id[span.doc].text
    trimmed = trim_span(span, text)
    return text[trimmed.start : trimmed.end]


def _where(span: Span) -> str:
    return f"{span.doc} [{span.start}, {span.end})"


def _excerpt(text: str, span: Span, limit: int = 50) -> str:
    held = text[span.start : span.end]
    shown = held if len(held) <= limit else held[: limit // 2 - 1] + "…" + held[-(limit // 2) :]
    return repr(shown)


_VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")


def inside_grapheme(text: str, position: int) -> bool:
    """True when ``position`` splits a grapheme cluster (an approximation of Unicode UAX #29).

    Inside: before a combining mark, a variation selector, a zero-width joiner or an
    emoji modifier; after a zero-width joiner; between CR and LF; between Hangul
    jamo that join; between two regional indicators of a flag pair.
    """
    if not 0 < position < len(text):
        return False
    before, after = text[position - 1], text[position]
    if before == "\r" and after == "\n":
        return True
    if unicodedata.category(after).startswith("M") or _VARIATION_SELECTORS.match(after):
        return True
    if after == "\u200d" or before == "\u200d" or "\U0001f3fb" <= after <= "\U0001f3ff":
        return True
    if _jamo_joins(before, after):
        return True
    return _regional_pair_split(text, position)


def _jamo_joins(before: str, after: str) -> bool:
    leading, vowel, trailing = (
        "\u1100" <= before <= "\u115f",
        "\u1160" <= after <= "\u11a7",
        "\u11a8" <= after <= "\u11ff",
    )
    vowel_before = "\u1160" <= before <= "\u11a7"
    return (leading and ("\u1100" <= after <= "\u115f" or vowel)) or (vowel_before and (vowel or trailing))


def _regional_pair_split(text: str, position: int) -> bool:
    def regional(character: str) -> bool:
        return "\U0001f1e6" <= character <= "\U0001f1ff"

    if not (regional(text[position - 1]) and regional(text[position])):
        return False
    run = 0
    while position - run - 1 >= 0 and regional(text[position - run - 1]):
        run += 1
    return run % 2 == 1


_BLANK_LINE_BREAK = re.compile(r"\n[^\S\n]*\n")
_HEADING_LINE = re.compile(r"(?m)^ {0,3}#{1,6}(?:[ \t]|$)")


def paragraph_breaks(document: Document, span: Span) -> list[int]:
    """Paragraph boundaries strictly inside ``span``: recorded paragraph edges, else blank lines."""
    if document.paragraphs is not None:
        edges = {edge for start, end in document.paragraphs for edge in (start, end)}
        return sorted(edge for edge in edges if span.start < edge < span.end)
    held = document.text[span.start : span.end]
    return [span.start + m.start() for m in _BLANK_LINE_BREAK.finditer(held)]


def section_headings(text: str, span: Span) -> list[int]:
    """Starts of Markdown ATX heading lines that begin strictly inside ``span``."""
    held = text[span.start : span.end]
    return [
        span.start + m.start() for m in _HEADING_LINE.finditer(held) if m.start() > 0 and held[m.start() - 1] == "\n"
    ]


# ------------------------------------------------------------------ questions


def normalized_query(query: str) -> str:
    """The query as compared for duplicates: NFKC, case-folded, letters and digits only."""
    folded = unicodedata.normalize("NFKC", query).casefold()
    return "".join(character for character in folded if character.isalnum())


def trigrams(text: str) -> frozenset[str]:
    """Character trigrams of ``text`` (the text itself when shorter)."""
    if len(text) < 3:
        return frozenset([text]) if text else frozenset()
    return frozenset(text[i : i + 3] for i in range(len(text) - 2))


def _duplicate_questions(questions: Sequence[Question], threshold: float) -> Iterator[Finding]:
    first: dict[str, str] = {}
    distinct: list[tuple[str, frozenset[str]]] = []
    for question in questions:
        key = normalized_query(question.query)
        if key in first:
            yield Finding("duplicate_question", question.id, f"same question as {first[key]}: {question.query!r}")
            continue
        first[key] = question.id
        distinct.append((question.id, trigrams(key)))
    queries = {question.id: question.query for question in questions}
    for earlier, later, similarity in similar_pairs(distinct, threshold):
        query = queries[later]
        yield Finding(
            "near_duplicate_question",
            later,
            f"nearly the same question as {earlier} (trigram Jaccard {similarity:.2f}): {query!r}",
        )


def similar_pairs(sets: Sequence[tuple[str, frozenset[str]]], threshold: float) -> list[tuple[str, str, float]]:
    """Every pair (earlier id, later id, Jaccard) of sets with Jaccard similarity >= ``threshold``.

    Exact, by prefix filtering on token *pairs*, so the candidates do not grow with the square of
    the sets (a single token's posting list grows with them, a pair's hardly does). With tokens
    ordered rarest first, two sets with ``J >= t`` share at least ``ceil(t * |A|)`` tokens, so their
    two rarest shared tokens both lie among the first ``|A| - ceil(t * |A|) + 2`` tokens of each:
    every pair of those is a key, and only sets sharing a key are compared. Two sets can share a
    single token and still reach ``t`` only when both hold at most ``1 / t`` tokens; such small sets
    are keyed by each token too. Pairs are listed by the later set, then the earlier, in input order.
    """
    frequency = Counter(token for _, tokens in sets for token in tokens)
    rank = {token: i for i, token in enumerate(sorted(frequency, key=lambda t: (frequency[t], t)))}  # rarest first
    index: dict[int, list[int]] = {}
    pairs = []
    for i, (_, tokens) in enumerate(sets):
        size = len(tokens)
        if not size:
            continue
        ordered = sorted(tokens, key=rank.__getitem__)
        length = min(size, size - math.ceil(threshold * size - _SLACK) + 2)
        keys = {hash(pair) for pair in itertools.combinations(ordered[:length], 2)}
        if size * threshold <= 1 + _SLACK:
            keys.update(hash(token) for token in ordered)
        candidates = {j for key in keys for j in index.get(key, ())}
        for j in sorted(candidates):
            other = sets[j][1]
            if not threshold * size <= len(other) * (1 + _SLACK) or not threshold * len(other) <= size * (1 + _SLACK):
                continue  # the sizes alone keep the similarity below the threshold
            similarity = len(other & tokens) / len(other | tokens)
            if similarity >= threshold:
                pairs.append((sets[j][0], sets[i][0], similarity))
        for key in keys:
            index.setdefault(key, []).append(i)
    return pairs


_SLACK = 1e-9
"""Rounding room in the bounds: a looser bound only keeps more candidates, it never loses a pair."""
