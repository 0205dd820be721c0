"""The data model: small frozen values shared by every part of chunkscope.

All offsets are Python ``str`` indices into ``Document.text``, half-open
(``start`` inclusive, ``end`` exclusive).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range of one document."""

    doc: str
    """Id of the document the span lies in."""
    start: int
    """First character (inclusive)."""
    end: int
    """One past the last character (exclusive)."""

    @property
    def length(self) -> int:
        """Number of characters covered."""
        return self.end - self.start

    def within(self, doc: str, start: int, end: int) -> bool:
        """True when this span lies wholly inside ``doc[start:end]``."""
        return self.doc == doc and start <= self.start and self.end <= end


@dataclass(frozen=True, slots=True)
class Document:
    """One document of the corpus."""

    id: str
    """Unique id (a path relative to the corpus directory, or the JSONL ``id``)."""
    text: str
    """The full text; every offset in chunkscope indexes this string."""
    title: str | None = None
    """Optional display title."""
    paragraphs: tuple[tuple[int, int], ...] | None = None
    """Paragraph spans recorded by the loader (e.g. SQuAD paragraphs), if any."""
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False, hash=False)
    """Free-form metadata carried from the input."""
    structure: DocumentMap | None = field(default=None, compare=False, hash=False)
    """Pages and elements of a document extracted from PDF, HTML or DOCX; ``None`` for text and JSONL input."""


ElementKind = Literal["heading", "paragraph", "list-item", "table"]
"""What an extracted block is."""


@dataclass(frozen=True, slots=True)
class Element:
    """One block of an extracted document: a half-open range of its text and what it is."""

    kind: ElementKind
    """``heading``, ``paragraph``, ``list-item`` or ``table``."""
    start: int
    """First character of the block as rendered (a heading's ``#`` marks and a list item's ``-`` included)."""
    end: int
    """One past its last character."""
    level: int = 0
    """A heading's level (1 for ``h1``) or a list item's nesting depth (0 at the top); 0 otherwise."""
    header: tuple[int, int] | None = None
    """A table's header row line (``| a | b |``), without the separator line below it."""
    rows: tuple[tuple[int, int], ...] = ()
    """A table's body row lines, in order (each ``| 1 | 2 |``, without its newline)."""


@dataclass(frozen=True, slots=True)
class DocumentMap:
    """Where the pages and elements of an extracted document lie in its text (all offsets into ``Document.text``)."""

    source_format: str
    """``pdf``, ``html`` or ``docx``."""
    pages: tuple[tuple[int, int], ...] = ()
    """Half-open range of each page's text, page 1 first (PDF only; the blank line between pages is in none)."""
    elements: tuple[Element, ...] = ()
    """Headings, paragraphs, list items and tables in text order (HTML and DOCX; PDF has pages only)."""

    def page_at(self, offset: int) -> int | None:
        """The 1-based page holding character ``offset``, or None (no pages, or a separator between pages)."""
        low, high = 0, len(self.pages)
        while low < high:
            middle = (low + high) // 2
            if self.pages[middle][1] <= offset:
                low = middle + 1
            else:
                high = middle
        if low < len(self.pages) and self.pages[low][0] <= offset:
            return low + 1
        return None

    def pages_of(self, start: int, end: int) -> tuple[int, int] | None:
        """First and last 1-based page sharing a character with ``[start, end)``; None when it touches no page."""
        touched = [n for n, (s, e) in enumerate(self.pages, start=1) if s < end and start < e]
        return (touched[0], touched[-1]) if touched else None

    @property
    def tables(self) -> tuple[Element, ...]:
        """The table elements, in order."""
        return tuple(element for element in self.elements if element.kind == "table")


MatchKind = Literal["exact", "normalized", "fuzzy"]
"""How a gold span was found: given offsets or an exact quote, a normalised quote, an approximate alignment."""


@dataclass(frozen=True, slots=True)
class SpanMatch:
    """How one gold span was located in its document."""

    kind: MatchKind = "exact"
    """``exact`` (offsets, or the quote as given), ``normalized`` or ``fuzzy``."""
    score: float = 1.0
    """Similarity of the quote to the located text (1.0 unless ``fuzzy``)."""

    @property
    def label(self) -> str:
        """``exact``, ``normalized`` or ``fuzzy 0.93`` (score to two decimals, rounded down)."""
        if self.kind == "fuzzy":
            return f"fuzzy {int(self.score * 100) / 100:.2f}"
        return self.kind

    @property
    def approximate(self) -> bool:
        """True unless the span was given exactly."""
        return self.kind != "exact"


EXACT = SpanMatch()
"""The match of a span given by offsets or an exact quote."""


@dataclass(frozen=True, slots=True)
class PageGold:
    """A page given as gold: the page of an extracted (PDF) document, and its range in the text."""

    doc: str
    """Id of the document."""
    page: int
    """Page number, 1-based (whatever base the input used)."""
    start: int
    """First character of the page's text."""
    end: int
    """One past the page's last character."""


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One required piece of evidence: any one of its alternatives satisfies it."""

    alternatives: tuple[Span, ...]
    """Spans that each count as this piece of evidence."""
    matches: tuple[SpanMatch, ...] = ()
    """How each alternative was located, in order; empty when every one was exact."""
    pages: tuple[PageGold, ...] = field(default=(), compare=False, hash=False)
    """Pages the input named for this item (``{"doc": ..., "page": 12}``), any one of which counts for page hit;
    empty when it named none. Not part of equality: the spans define the item."""

    def __post_init__(self) -> None:
        # An empty span holds no character to find or deliver: every share and ratio of it would be 0/0.
        # The loaders refuse one with file and line; this guards values built in code.
        empty = next((span for span in self.alternatives if span.length <= 0), None)
        if empty is not None:
            raise ValueError(f"evidence span {empty.doc}[{empty.start}:{empty.end}] is empty")

    def match_of(self, index: int) -> SpanMatch:
        """How alternative ``index`` was located."""
        return self.matches[index] if self.matches else EXACT

    @property
    def approximate(self) -> bool:
        """True when some alternative was located by a normalised or fuzzy match."""
        return any(match.approximate for match in self.matches)

    @property
    def match_labels(self) -> tuple[str, ...]:
        """The label of each alternative's match (``exact``, ``normalized``, ``fuzzy 0.93``)."""
        return tuple(self.match_of(i).label for i in range(len(self.alternatives)))


@dataclass(frozen=True, slots=True)
class Question:
    """A question with its gold evidence."""

    id: str
    """Unique id."""
    query: str
    """The query text given to the retriever."""
    evidence: tuple[EvidenceItem, ...]
    """Required evidence: every item must be found for the question to be answerable."""
    tags: tuple[str, ...] = ()
    """Groups the question belongs to (for per-group breakdowns)."""
    references: tuple[str, ...] = field(default=(), compare=False, hash=False)
    """Reference answer strings (SQuAD answers, a test set's reference, an ``answers`` field), in file
    order; empty when the input gives none. Not part of equality: the evidence defines the question."""
    hops: tuple[int, ...] = field(default=(), compare=False, hash=False)
    """Multi-hop sets (HotpotQA, MultiHop-RAG): per evidence item, the 0-based hop it belongs to (a hop is a
    supporting document; it is delivered when all its items are). Empty when the input has no hops."""

    @property
    def gold_spans(self) -> tuple[Span, ...]:
        """Every alternative span of every item, in order."""
        return tuple(span for item in self.evidence for span in item.alternatives)

    @property
    def approximate(self) -> bool:
        """True when some gold span was located approximately (the inspector marks it ``≈``)."""
        return any(item.approximate for item in self.evidence)

    @property
    def hop_count(self) -> int:
        """How many hops the question has (0 when the input gives none)."""
        return len(set(self.hops))


@dataclass(frozen=True, slots=True)
class Corpus:
    """The documents, in load order, with lookup by id."""

    documents: tuple[Document, ...]
    """Documents in the order they were loaded."""
    by_id: Mapping[str, Document] = field(default_factory=lambda: _EMPTY, compare=False, hash=False)
    """Lookup from id to document (built automatically)."""

    def __post_init__(self) -> None:
        if not self.by_id:
            object.__setattr__(self, "by_id", MappingProxyType({d.id: d for d in self.documents}))

    @property
    def total_chars(self) -> int:
        """Characters over all documents."""
        return sum(len(d.text) for d in self.documents)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrieval unit cut from one document.

    Invariant: ``corpus.by_id[doc].text[start:end] == text``.
    """

    id: str
    """Id unique within one chunking (``doc#index`` for built-in chunkers)."""
    doc: str
    """Id of the source document."""
    start: int
    """First character of the body (inclusive)."""
    end: int
    """One past the last character of the body (exclusive)."""
    text: str
    """The body: exactly ``document.text[start:end]``."""
    prefix: str = ""
    """Text indexed and delivered before the body but not part of its span
    (a repeated table header, or the section path)."""
    section: str | None = None
    """Section path such as ``Refund policy > Fees``, when known."""
    context: str = ""
    """Text indexed and embedded before the prefix but never delivered nor counted in a budget
    (a contextual chunk's context when it is not sent); not part of the span either."""

    @property
    def length(self) -> int:
        """Characters of the body."""
        return self.end - self.start

    @property
    def indexed_text(self) -> str:
        """What a retriever sees: context, prefix, then body."""
        if self.context:
            return self.context + self.prefix + self.text
        return self.prefix + self.text if self.prefix else self.text

    @property
    def sent_text(self) -> str:
        """What is delivered for the whole chunk: prefix followed by body (never the unsent context)."""
        return self.prefix + self.text if self.prefix else self.text

    @property
    def indexed_prefix(self) -> str:
        """What a retriever sees before the body: context, then prefix."""
        return self.context + self.prefix if self.context else self.prefix

    @property
    def sent_length(self) -> int:
        """Characters this chunk costs in a context budget (prefix + body)."""
        return len(self.prefix) + self.end - self.start

    def contains(self, span: Span) -> bool:
        """True when ``span`` lies wholly inside this chunk's body."""
        return span.doc == self.doc and self.start <= span.start and span.end <= self.end


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """Questions loaded from one source, plus what was excluded and why."""

    questions: tuple[Question, ...]
    """The questions to evaluate."""
    excluded: int = 0
    """Questions dropped at load time (gold in a removed prefix, unanswerable)."""
    excluded_reasons: Mapping[str, int] = field(default_factory=lambda: _EMPTY, compare=False, hash=False)
    """Count of excluded questions per reason."""
    issues: tuple[GoldIssue, ...] = field(default=(), compare=False, hash=False)
    """Gold that could not be resolved, each naming where it came from (the reason behind some exclusions)."""


IssueKind = Literal["not_found", "ambiguous", "mismatch", "out_of_range"]
"""Why a gold reference could not be resolved to one span."""


@dataclass(frozen=True, slots=True)
class GoldIssue:
    """A gold reference that could not be resolved to one span, and where it came from."""

    kind: IssueKind
    """``not_found``: the text is nowhere; ``ambiguous``: it occurs several times and nothing picks one;
    ``mismatch``: the given offsets hold other text; ``out_of_range``: a position (offsets, tokens, a sentence
    index) outside the text it points into, or an empty span."""
    question: str
    """Id of the question the reference belongs to."""
    where: str
    """``file:line field 'name'`` of the reference."""
    doc: str | None
    """Document searched (``None``: the whole corpus)."""
    quote: str
    """The reference's text."""
    places: tuple[tuple[str, int, int], ...] = ()
    """Where the text was found: (document, start, end) of every occurrence."""
    message: str = ""
    """One line saying what is wrong."""
