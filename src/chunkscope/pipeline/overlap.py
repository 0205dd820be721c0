"""Characters of the evidence against the delivered context and the index: interval arithmetic per document.

:func:`measure_overlap` counts the characters the overlap metrics of
:mod:`chunkscope.metrics.overlap` divide; :func:`piece_ranks` finds the required
items delivered in pieces. Both work on the delivered bodies of one question
(at most top-k ranges) and the index units touching its evidence, so they cost a
few comparisons per span.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

from chunkscope.model import Chunk, EvidenceItem, Span
from chunkscope.results import CharacterOverlap, DeliveredChunk

__all__ = [
    "Piece",
    "Range",
    "Unions",
    "delivered_unions",
    "measure_overlap",
    "piece_ranks",
    "union_of",
    "unions_by_doc",
]

Range = tuple[int, int]
"""A half-open character range ``[start, end)`` of one document."""
Unions = dict[str, list[Range]]
"""Per document: disjoint ranges, ascending."""
Piece = tuple[int, str, int, int]
"""A delivered body: ``(rank, document, start, end)`` (truncated bodies as cut)."""
Holding = Callable[[Span], Sequence[Chunk]]
"""The index units that hold or touch a span, ascending by start
(:meth:`chunkscope.pipeline.locate.UnitLocator.touching`)."""


def union_of(ranges: Iterable[Range]) -> list[Range]:
    """The union of ``ranges`` as disjoint ranges, ascending (touching ranges merged, empty ones dropped)."""
    merged: list[Range] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _inside(start: int, end: int, union: Sequence[Range]) -> int:
    """Characters of ``[start, end)`` inside the disjoint ascending ``union``."""
    total = 0
    position = bisect.bisect_right(union, (start, end)) - 1
    for low, high in union[max(position, 0) :]:
        if low >= end:
            break
        total += max(0, min(end, high) - max(start, low))
    return total


def _length(union: Iterable[Range]) -> int:
    return sum(end - start for start, end in union)


def _common(first: Sequence[Range], second: Sequence[Range]) -> int:
    """Characters in both disjoint ascending unions."""
    return sum(_inside(start, end, second) for start, end in first)


def delivered_unions(delivered: Iterable[DeliveredChunk]) -> Unions:
    """The union of the delivered bodies (truncated bodies as cut) per document."""
    return unions_by_doc((d.rank, d.chunk.doc, d.start, d.end) for d in delivered)


def unions_by_doc(pieces: Iterable[Piece]) -> Unions:
    """The union of the delivered bodies given as ``(rank, doc, start, end)`` per document."""
    ranges: dict[str, list[Range]] = {}
    for _, doc, start, end in pieces:
        ranges.setdefault(doc, []).append((start, end))
    return {doc: union_of(found) for doc, found in ranges.items()}


def _by_doc(spans: Iterable[Span]) -> Unions:
    ranges: dict[str, list[Range]] = {}
    for span in spans:
        ranges.setdefault(span.doc, []).append((span.start, span.end))
    return {doc: union_of(found) for doc, found in ranges.items()}


def _delivered_share(span: Span, delivered: Unions) -> Fraction:
    return Fraction(_inside(span.start, span.end, delivered.get(span.doc, ())), span.length)


def _delivery_reference(item: EvidenceItem, delivered: Unions) -> Span:
    """The alternative with the largest share of its characters delivered (the first on ties)."""
    if len(item.alternatives) == 1:
        return item.alternatives[0]
    return max(item.alternatives, key=lambda span: _delivered_share(span, delivered))


def _omega_parts(references: Sequence[Span], holding: Holding) -> tuple[int, int]:
    """Precision Ω's numerator and denominator for ``references`` (see :mod:`chunkscope.metrics.overlap`)."""
    units = {unit.id: unit for span in references for unit in holding(span)}
    bodies: dict[str, list[Range]] = {}
    for unit in units.values():
        bodies.setdefault(unit.doc, []).append((unit.start, unit.end))
    evidence = _by_doc(references)
    numerator = denominator = 0
    for doc, spans in evidence.items():
        held = union_of(bodies.get(doc, ()))
        numerator += _common(spans, held)
        denominator += _length(union_of([*held, *spans]))
    return numerator, denominator + sum(len(unit.prefix) for unit in units.values())


def _omega(span: Span, holding: Holding) -> Fraction:
    numerator, denominator = _omega_parts((span,), holding)
    return Fraction(numerator, denominator) if denominator else Fraction(0)


def _omega_reference(item: EvidenceItem, holding: Holding) -> Span:
    """The alternative with the highest precision Ω on its own (the first on ties)."""
    if len(item.alternatives) == 1:
        return item.alternatives[0]
    return max(item.alternatives, key=lambda span: _omega(span, holding))


def measure_overlap(evidence: Sequence[EvidenceItem], delivered: Unions, holding: Holding) -> CharacterOverlap:
    """The character counts of one question (see :class:`chunkscope.results.CharacterOverlap`).

    ``delivered`` is :func:`delivered_unions` of the delivered chunks (at least of the evidence
    documents); ``holding`` gives the index's delivered units that hold or touch a span.
    """
    if len(evidence) == 1 and len(evidence[0].alternatives) == 1:
        return _one_span_overlap(evidence[0].alternatives[0], delivered, holding)
    references = [_delivery_reference(item, delivered) for item in evidence]
    inside = [_inside(span.start, span.end, delivered.get(span.doc, ())) for span in references]
    reached = sum(_common(spans, delivered.get(doc, ())) for doc, spans in _by_doc(references).items())
    omega_numerator, omega_denominator = _omega_parts([_omega_reference(item, holding) for item in evidence], holding)
    return CharacterOverlap(
        evidence_chars=sum(span.length for span in references),
        delivered_evidence_chars=reached,
        undelivered_evidence_chars=sum(span.length - n for span, n in zip(references, inside, strict=True)),
        omega_evidence_chars=omega_numerator,
        omega_chars=omega_denominator,
    )


def _one_span_overlap(span: Span, delivered: Unions, holding: Holding) -> CharacterOverlap:
    """:func:`measure_overlap` of one item with one span, its reference for both counts (the common case)."""
    inside = _inside(span.start, span.end, delivered.get(span.doc, ()))
    units = holding(span)
    if len(units) > 1:
        units = list({unit.id: unit for unit in units}.values())
    numerator, held = _held_by(span, units)
    # |H ∪ r| = |H| + |r| - |H ∩ r|: the union of the bodies and the span, without building it.
    denominator = held + span.length - numerator + sum(len(unit.prefix) for unit in units)
    return CharacterOverlap(
        evidence_chars=span.length,
        delivered_evidence_chars=inside,
        undelivered_evidence_chars=span.length - inside,
        omega_evidence_chars=numerator,
        omega_chars=denominator,
    )


def _held_by(span: Span, units: Sequence[Chunk]) -> tuple[int, int]:
    """``(|r ∩ H|, |H|)`` for the span ``r`` and the union ``H`` of the units' bodies, in one pass.

    ``units`` come from :meth:`chunkscope.pipeline.locate.UnitLocator.touching`: one document,
    ascending by start, which is the order a union is merged in.
    """
    inside = held = 0
    low = high = -1
    for unit in units:
        start, end = unit.start, unit.end
        if start > high:  # a new run of the union: count the one before
            if high > low:
                inside += max(0, min(high, span.end) - max(low, span.start))
                held += high - low
            low, high = start, end
        elif end > high:
            high = end
    if high > low:
        inside += max(0, min(high, span.end) - max(low, span.start))
        held += high - low
    return inside, held


def piece_ranks(
    evidence: Sequence[EvidenceItem],
    covered: Sequence[bool],
    delivered: Sequence[Piece],
    unions: Unions,
) -> tuple[tuple[int, ...], ...]:
    """Per required item: the ranks of the delivered bodies holding it in pieces, or ``()``.

    An item is delivered in pieces when no delivered chunk holds it whole (``not covered``) but
    every character of one of its alternatives lies in the delivered bodies (``unions``); its
    ranks are those of the delivered bodies (``(rank, doc, start, end)``) overlapping the first
    such alternative, ascending.
    """
    ranks: list[tuple[int, ...]] = []
    for item, whole in zip(evidence, covered, strict=True):
        span = None if whole else next((s for s in item.alternatives if _delivered_share(s, unions) == 1), None)
        if span is None:
            ranks.append(())
            continue
        holders = (
            rank for rank, doc, start, end in delivered if doc == span.doc and start < span.end and span.start < end
        )
        ranks.append(tuple(sorted(holders)))
    return tuple(ranks)
