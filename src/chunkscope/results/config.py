"""One evaluated configuration: its settings, its summary, its results and how imported chunks were placed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from chunkscope.model import Chunk
from chunkscope.results.question import RANKING_DEPTH, QuestionResult

Overflow = Literal["stop", "skip", "truncate"]


@dataclass(frozen=True, slots=True)
class Config:
    """One evaluated configuration: how to chunk, how to rank, what to deliver."""

    chunker: str
    """Chunker spec in canonical form, e.g. ``fixed:size=400,overlap=80``."""
    retriever: str = "bm25"
    """Retriever spec in canonical form, e.g. ``bm25:k1=1.5,b=0.75``."""
    top_k: int = 5
    """Ranked chunks considered for delivery."""
    budget: int | None = None
    """Context budget in characters (in tokens when ``budget_tokenizer`` is set); ``None`` for unlimited."""
    overflow: Overflow = "stop"
    """What happens to the first chunk that does not fit the budget."""
    budget_tokenizer: str | None = None
    """The counting tokenizer the budget counts tokens of; ``None`` when it counts characters."""
    label: str = field(default="", compare=False, repr=False)
    """``chunker/retriever`` with default parameters left out, for display, written once by
    ``chunkscope.pipeline.config.make_config`` (which parses the specs). A Config made directly
    shows its specs in full. ``dataclasses.replace`` keeps the label, so change delivery settings
    with it, and specs through ``make_config``."""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", f"{self.chunker}/{self.retriever}")

    @property
    def depth(self) -> int:
        """How many ranks the metrics look at."""
        return max(RANKING_DEPTH, self.top_k)

    @property
    def budget_unit(self) -> str:
        """``tokens`` when the budget counts tokens, else ``chars``."""
        return "chars" if self.budget_tokenizer is None else "tokens"

    @property
    def budget_units(self) -> str:
        """What the budget counts, for display: ``chars`` or e.g. ``cl100k tokens``."""
        return "chars" if self.budget_tokenizer is None else f"{self.budget_tokenizer} tokens"


@dataclass(frozen=True, slots=True)
class Summary:
    """Aggregates of one configuration over its questions.

    ``values`` holds every metric of :data:`chunkscope.metrics.registry.REGISTRY`
    by its key, in registry order, so a new metric needs no new field here; a metric
    that applies only to some configurations (``Metric.applies``) is absent from the others.
    """

    values: Mapping[str, float]
    """Metric key -> value, in registry order; counts are ``int``, rates ``float``."""
    rank_buckets: Mapping[str, int]
    """Bucket (``1``, ``2-5``, ``6-20``, ``miss``) -> questions whose first correct rank falls in it."""

    def __getitem__(self, name: str) -> float:
        """The value of the metric keyed ``name`` (KeyError when it is not in the summary)."""
        return self.values[name]

    def __contains__(self, name: object) -> bool:
        """True when the summary holds the metric keyed ``name``."""
        return name in self.values

    def count(self, name: str) -> int:
        """A count metric's value (TypeError when ``name`` is a rate)."""
        value = self.values[name]
        if not isinstance(value, int):
            raise TypeError(f"{name} is a rate, not a count")
        return value

    def rate(self, name: str) -> float:
        """A rate metric's value, a mean in [0, 1] (TypeError when ``name`` is a count)."""
        value = self.values[name]
        if isinstance(value, int):
            raise TypeError(f"{name} is a count, not a rate")
        return value

    @property
    def questions(self) -> int:
        """Questions summarised (the denominator of every rate)."""
        return self.count("questions")


@dataclass(frozen=True, slots=True)
class ConfigResult:
    """The evaluation of one configuration."""

    config: Config
    """What was evaluated."""
    summary: Summary
    """Aggregate metrics."""
    questions: Sequence[QuestionResult]
    """Per-question results, in question-set order (a tuple, or :class:`QuestionResults` from the evaluator)."""
    chunks: tuple[Chunk, ...] = field(default=(), compare=False, hash=False)
    """The index's retrieval units (for display)."""
    chunk_import: ChunkImport | None = field(default=None, compare=False, hash=False)
    """How an imported dump's chunks were placed, when the chunker reads one."""


@dataclass(frozen=True, slots=True)
class UnplacedChunk:
    """A chunk of a dump that was left out: its text is ambiguous or not in its document."""

    id: str
    """The chunk's id."""
    doc: str
    """The corpus document it belongs to."""
    line: int | None
    """Its line in the dump (None in a JSON object without lines per chunk, e.g. a docstore)."""
    status: str
    """``ambiguous`` or ``not_found``."""
    candidates: tuple[int, ...] = ()
    """For ``ambiguous``: the starts still possible (code points)."""


@dataclass(frozen=True, slots=True)
class ChunkImport:
    """How the chunks of an imported dump were placed in their documents (see ``io.locate``)."""

    path: str
    """The dump file."""
    format: str
    """The dump's format: ``chunkscope``, ``langchain``, ``llamaindex`` or ``chonkie``."""
    exact: int
    """Chunks found at their given offsets (or given by offsets only)."""
    relocated: int
    """Chunks whose offset was missing, -1, wrong, or contradicted by the order, placed by their text."""
    unplaced: tuple[UnplacedChunk, ...] = ()
    """Chunks left out, never guessed: ambiguous or not found."""
    unordered_docs: tuple[str, ...] = ()
    """Documents whose chunks the dump does not list front to back: placed without the order."""
    newline_view_docs: tuple[str, ...] = ()
    """Documents with CRLF line endings whose chunks were cut from their universal-newlines (LF) view: placed
    there and mapped back (``io.newlines``)."""
    rewritten: int = 0
    """Chunks not found that their documents hold once whitespace is normalised and heading lines dropped: the
    splitter rewrote the text (e.g. LangChain's MarkdownHeaderTextSplitter)."""
    doc_key: str | None = "doc"
    """The dotted path each chunk's document reference was read from (given, or the format's usual one: the spec's
    ``doc_key=none`` means the latter); None: the format names no document (chonkie), so the corpus's only one."""

    @property
    def document_key_note(self) -> str | None:
        """Where the chunks' documents were read from, when it is not chunkscope's own ``doc`` field."""
        return document_key_note(self.format, self.doc_key)

    @property
    def ambiguous(self) -> int:
        """Chunks whose text fits more than one position."""
        return sum(1 for chunk in self.unplaced if chunk.status == "ambiguous")

    @property
    def not_found(self) -> int:
        """Chunks whose text does not occur in their document."""
        return sum(1 for chunk in self.unplaced if chunk.status == "not_found")

    @property
    def total(self) -> int:
        """Every chunk of the dump."""
        return self.exact + self.relocated + len(self.unplaced)


def document_key_note(format: str, doc_key: str | None) -> str | None:
    """``documents by metadata.source``: where a dump's chunks named their documents; None for chunkscope's ``doc``."""
    if doc_key is None:
        return "documents: the corpus's only one"
    if format == "chunkscope" and doc_key == "doc":
        return None
    return f"documents by {doc_key}"
