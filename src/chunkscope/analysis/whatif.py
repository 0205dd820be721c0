"""Boundary what-if: for each cut gold span, the smallest change of the chunker that keeps it whole.

A span is *whole* when some delivered unit contains it (:func:`chunkscope.pipeline.locate.held_whole`,
the one rule of a cut; gold spans trimmed as the evaluator trims them). For a cut span, with every
other parameter of the spec unchanged:

* ``fixed`` (characters): the smallest ``size`` above the current one, the smallest ``overlap``
  (in ``[0, size - shift)``) and the smallest ``shift`` (in ``[0, size - overlap)``) whose windows
  hold it, solved from the window arithmetic (:mod:`chunkscope.analysis.whatif_fixed`);
* ``recursive`` (characters): the first ``size`` above the current one at which it is whole;
* ``markdown``: the first ``max_chars`` above the current one at which it is whole
  (both by :mod:`chunkscope.analysis.whatif_sizes`: containment is not monotone in the size);
* ``parent``: the same changes of its ``parent`` chunker (the delivered units).

A size that does not exist (a ``fixed`` span longer than the size has no overlap or shift
that holds it) is no option. Each option is checked by chunking the span's document with the
new spec, which also gives the preview: the new units of that document overlapping the span.

The *recommendation* over all lost questions (no unit holds any alternative of some required
item): every option's spec is a candidate; each is chunked over the documents of the lost
questions' evidence, and a lost question is recovered when every required item then has a whole
alternative. The recommendation recovers the most; ties go to the least index growth (retrieval
units, then indexed characters ``len(prefix) + end - start``, over the whole corpus), then to the
spec in text order. Nothing is retrieved: the what-if needs only chunkings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from chunkscope.analysis.whatif_fixed import smallest_overlap, smallest_shift, smallest_size
from chunkscope.analysis.whatif_sizes import smallest_markdown_size, smallest_recursive_size
from chunkscope.analysis.whatif_spans import IndexSize, SpanHolder, corpus_index_size, delivered_spans, index_size
from chunkscope.chunkers import Chunker, Chunking, chunk_corpus, parse_chunker
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.io.gold import trim_questions
from chunkscope.model import Corpus, Document, Question, Span
from chunkscope.pipeline.locate import UnitLocator, held_whole
from chunkscope.spec.grammar import format_spec

__all__ = [
    "BoundaryOption",
    "IndexSize",
    "SpanWhatIf",
    "WhatIf",
    "WhatIfCandidate",
    "corpus_index_size",
    "delivered_spans",
    "index_size",
    "span_whatif",
    "whatif",
    "whatif_for_question",
]


@dataclass(frozen=True, slots=True)
class BoundaryOption:
    """One parameter change that keeps a span whole."""

    parameter: str
    """``size``, ``overlap``, ``shift`` or ``max_chars``."""
    current: int
    value: int
    """The smallest value that holds the span (above ``current`` for sizes)."""
    spec: str
    """The whole chunker spec with this one change (canonical)."""
    boundaries: tuple[tuple[int, int], ...]
    """The new delivered units of the span's document that overlap the span, ``(start, end)``."""
    recovered: bool
    """The new chunking holds the span (checked by chunking)."""


@dataclass(frozen=True, slots=True)
class SpanWhatIf:
    """The options of one cut gold span."""

    question_id: str
    item: int
    """Index of the required item among the question's evidence."""
    span: Span
    boundaries: tuple[tuple[int, int], ...]
    """The current delivered units of the document that overlap the span."""
    options: tuple[BoundaryOption, ...]
    note: str | None = None
    """Why there are no options, when the chunker has none (e.g. ``unit=tokens``)."""


@dataclass(frozen=True, slots=True)
class WhatIfCandidate:
    """One candidate setting, evaluated over the lost questions."""

    spec: str
    recovered: tuple[str, ...]
    """Ids of the lost questions whose every required item it keeps whole."""
    size: IndexSize
    chunk_growth: int
    """``size.chunks`` minus the current chunking's."""
    indexed_growth: int
    """``size.indexed_chars`` minus the current chunking's."""


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The what-if of one chunker spec over a question set."""

    chunker: str
    questions: int
    lost: tuple[str, ...]
    """Ids of the lost questions, in question order."""
    spans: tuple[SpanWhatIf, ...]
    """Every cut span of a lost question's unheld items, in question order."""
    size: IndexSize
    """The current chunking's index."""
    candidates: tuple[WhatIfCandidate, ...]
    """Every option's spec, best first (most recovered, least growth in chunks then characters, spec)."""

    @property
    def recommendation(self) -> WhatIfCandidate | None:
        """The setting that recovers the most lost questions for the least index growth (None: none recovers one)."""
        if not self.candidates or not self.candidates[0].recovered:
            return None
        return self.candidates[0]


Solver = Callable[[Document, Span], list[tuple[str, int, int, Chunker]]]
"""For one span: ``(parameter, current, value, new chunker)`` per option."""


def whatif_for_question(
    chunker_spec: str, corpus: Corpus, question: Question, chunking: Chunking | None = None
) -> tuple[SpanWhatIf, ...]:
    """The options of every cut span of ``question`` (its gold trimmed here) under ``chunker_spec``.

    Pass the spec's ``chunking`` of ``corpus`` when it is at hand (the inspector's evaluator has it).
    """
    chunker = parse_chunker(chunker_spec)
    delivered = (chunking or chunk_corpus(chunker, corpus)).delivered_units
    locator = UnitLocator(delivered)
    trimmed = trim_questions([question], corpus)[0]
    return tuple(
        span_whatif(chunker, corpus.by_id[span.doc], span, locator, question.id, item)
        for item, span in _cut_spans(trimmed, locator, only_unheld=False)
    )


def span_whatif(
    chunker: Chunker, document: Document, span: Span, locator: UnitLocator, question_id: str = "", item: int = 0
) -> SpanWhatIf:
    """The options of one span under ``chunker`` (``locator`` over its current delivered units)."""
    current = _overlapping([(u.start, u.end) for u in locator.touching(span)], span)
    solver, note = _solver(chunker)
    if solver is None:
        return SpanWhatIf(question_id, item, span, current, (), note)
    options = []
    for parameter, old, value, changed in solver(document, span):
        spans = delivered_spans(changed, document)
        boundaries = _overlapping(spans, span)
        recovered = held_whole(span, spans)
        options.append(BoundaryOption(parameter, old, value, format_spec(changed), boundaries, recovered))
    return SpanWhatIf(question_id, item, span, current, tuple(options), None)


def whatif(chunker_spec: str, corpus: Corpus, questions: Sequence[Question]) -> WhatIf:
    """Every lost question's options under ``chunker_spec``, and every option evaluated as the setting."""
    chunker = parse_chunker(chunker_spec)
    chunking = chunk_corpus(chunker, corpus)
    locator = UnitLocator(chunking.delivered_units)
    trimmed = trim_questions(questions, corpus)
    lost = [q for q in trimmed if not all(_item_held(item.alternatives, locator) for item in q.evidence)]
    spans = tuple(
        span_whatif(chunker, corpus.by_id[span.doc], span, locator, question.id, item)
        for question in lost
        for item, span in _cut_spans(question, locator, only_unheld=True)
    )
    base = index_size(chunking.units)
    specs = dict.fromkeys(option.spec for s in spans for option in s.options if option.recovered)
    candidates = [_candidate(spec, corpus, lost, base) for spec in specs]
    candidates.sort(key=lambda c: (-len(c.recovered), c.chunk_growth, c.indexed_growth, c.spec))
    return WhatIf(format_spec(chunker), len(trimmed), tuple(q.id for q in lost), spans, base, tuple(candidates))


def _candidate(spec: str, corpus: Corpus, lost: Sequence[Question], base: IndexSize) -> WhatIfCandidate:
    """Which lost questions ``spec`` recovers (chunking only their documents), and its index over the corpus."""
    chunker = parse_chunker(spec)
    holder = SpanHolder(chunker, corpus)
    recovered = tuple(
        q.id for q in lost if all(any(holder.holds(span) for span in item.alternatives) for item in q.evidence)
    )
    size = corpus_index_size(chunker, corpus)
    return WhatIfCandidate(spec, recovered, size, size.chunks - base.chunks, size.indexed_chars - base.indexed_chars)


def _item_held(alternatives: Iterable[Span], locator: UnitLocator) -> bool:
    return any(locator.containing(span) for span in alternatives)


def _cut_spans(question: Question, locator: UnitLocator, only_unheld: bool) -> list[tuple[int, Span]]:
    """``(item index, span)`` of every alternative no unit holds (of items no alternative of which is held)."""
    found: list[tuple[int, Span]] = []
    for index, item in enumerate(question.evidence):
        if only_unheld and _item_held(item.alternatives, locator):
            continue
        found.extend((index, span) for span in item.alternatives if not locator.containing(span))
    return found


def _overlapping(extents: Iterable[tuple[int, int]], span: Span) -> tuple[tuple[int, int], ...]:
    """The ``(start, end)`` extents of ``span``'s document sharing a character with it, in order."""
    return tuple(sorted({(s, e) for s, e in extents if s < span.end and span.start < e}))


def _solver(chunker: Chunker) -> tuple[Solver | None, str | None]:
    """How to find the options of ``chunker``'s spans, or why there is none."""
    if isinstance(chunker, ParentChildChunker):
        inner, note = _solver(chunker.parent)
        if inner is None:
            return None, note
        solve_inner = inner

        def solve_parent(document: Document, span: Span) -> list[tuple[str, int, int, Chunker]]:
            return [
                (f"parent.{name}", old, value, dataclasses.replace(chunker, parent=changed))
                for name, old, value, changed in solve_inner(document, span)
            ]

        return solve_parent, None
    if isinstance(chunker, (FixedChunker, RecursiveChunker)) and chunker.tokenizer is not None:
        name = "fixed" if isinstance(chunker, FixedChunker) else "recursive"
        return None, f"{name} in tokens is not supported: the what-if counts characters"
    if isinstance(chunker, FixedChunker):
        return _fixed_solver(chunker), None
    if isinstance(chunker, RecursiveChunker):
        return _recursive_solver(chunker), None
    if isinstance(chunker, MarkdownChunker):
        return _markdown_solver(chunker), None
    name = getattr(chunker, "spec_name", type(chunker).__name__)
    return None, f"no what-if for '{name}' chunking (fixed, recursive, markdown and their parent-child forms only)"


def _fixed_solver(chunker: FixedChunker) -> Solver:
    size, overlap, shift = chunker.size, chunker.overlap, chunker.shift

    def solve(document: Document, span: Span) -> list[tuple[str, int, int, Chunker]]:
        del document  # the window arithmetic does not depend on the document's length
        start, end = span.start, span.end
        found: list[tuple[str, int, int, Chunker]] = []
        value = smallest_size(start, end, size, overlap, shift)
        if value is not None:
            found.append(("size", size, value, dataclasses.replace(chunker, size=value)))
        value = smallest_overlap(start, end, size, overlap, shift)
        if value is not None and value != overlap:
            found.append(("overlap", overlap, value, dataclasses.replace(chunker, overlap=value)))
        value = smallest_shift(start, end, size, overlap, shift)
        if value is not None and value != shift:
            found.append(("shift", shift, value, dataclasses.replace(chunker, shift=value)))
        return found

    return solve


def _recursive_solver(chunker: RecursiveChunker) -> Solver:
    def solve(document: Document, span: Span) -> list[tuple[str, int, int, Chunker]]:
        value = smallest_recursive_size(document.text, span.start, span.end, chunker.size, chunker.overlap)
        return [] if value is None else [("size", chunker.size, value, dataclasses.replace(chunker, size=value))]

    return solve


def _markdown_solver(chunker: MarkdownChunker) -> Solver:
    def solve(document: Document, span: Span) -> list[tuple[str, int, int, Chunker]]:
        value = smallest_markdown_size(document, span.start, span.end, chunker)
        if value is None:
            return []
        return [("max_chars", chunker.max_chars, value, dataclasses.replace(chunker, max_chars=value))]

    return solve
