"""Which units hold which gold spans, and where a gold span is cut.

The one rule of a cut: a gold span is *cut* when no unit holds it whole, and
then every unit boundary strictly inside it is a cut. A boundary inside a span
that some unit holds whole is an ordinary boundary. The evaluator records the
cut spans of each question (``QuestionResult.cuts``, judged against the
delivered units); the case file and the inspector mark ``✂`` by
:func:`cut_offsets` over those spans.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence

from chunkscope.model import Chunk, Span
from chunkscope.results import Cut, QuestionResult


def held_whole(span: Span, extents: Iterable[tuple[int, int]]) -> bool:
    """Some ``(start, end)`` extent of ``span``'s document contains ``span``."""
    return any(start <= span.start and span.end <= end for start, end in extents)


def cut_spans(result: QuestionResult) -> frozenset[Span]:
    """The gold spans of ``result`` that are cut: no delivered unit holds them whole."""
    return frozenset(cut.span for cut in result.cuts)


def cut_offsets(spans: Collection[Span], boundaries: Iterable[int]) -> tuple[int, ...]:
    """The ``boundaries`` strictly inside one of ``spans`` (which are cut), ascending and distinct.

    Pass only cut spans (:func:`cut_spans`, or the spans no shown unit holds whole):
    a boundary inside a span that some unit holds whole is no cut.
    """
    return tuple(sorted({b for b in boundaries if any(s.start < b < s.end for s in spans)}))


class UnitLocator:
    """Finds which units of a chunking wholly contain a span, and where spans are cut."""

    def __init__(self, units: Sequence[Chunk]) -> None:
        by_doc: dict[str, list[tuple[int, int, int]]] = {}
        for index, unit in enumerate(units):
            by_doc.setdefault(unit.doc, []).append((unit.start, unit.end, index))
        self.units = units
        self.by_doc = {doc: sorted(entries) for doc, entries in by_doc.items()}
        self.starts = {doc: [s for s, _, _ in entries] for doc, entries in self.by_doc.items()}
        self.longest = {doc: max(e - s for s, e, _ in entries) for doc, entries in self.by_doc.items()}

    def containing(self, span: Span) -> list[int]:
        """Indices of units whose body wholly contains ``span``."""
        entries = self.by_doc.get(span.doc)
        if not entries:
            return []
        last = bisect.bisect_right(self.starts[span.doc], span.start)
        earliest = span.end - self.longest[span.doc]
        found = []
        for position in range(last - 1, -1, -1):
            start, end, index = entries[position]
            if start < earliest:
                break
            if end >= span.end:
                found.append(index)
        return found

    def touching(self, span: Span) -> list[Chunk]:
        """Units that share a character with ``span`` or touch it: ``start <= span.end`` and ``span.start <= end``.

        The units precision Ω counts as holding evidence: Chroma's intersection test accepts
        an empty intersection, so a unit ending where the span begins (or beginning where it
        ends) is among them.
        """
        entries = self.by_doc.get(span.doc)
        if not entries:
            return []
        starts = self.starts[span.doc]
        first = bisect.bisect_left(starts, span.start - self.longest[span.doc])
        last = bisect.bisect_right(starts, span.end)
        return [self.units[index] for _, end, index in entries[first:last] if end >= span.start]

    def cut(self, span: Span) -> Cut:
        """Boundaries strictly inside ``span`` and the units overlapping it."""
        entries = self.by_doc.get(span.doc, [])
        overlapping = [(s, e, i) for s, e, i in entries if s < span.end and e > span.start]
        boundaries = cut_offsets((span,), (b for s, e, _ in overlapping for b in (s, e)))
        return Cut(span, boundaries, tuple(self.units[i].id for _, _, i in overlapping))
