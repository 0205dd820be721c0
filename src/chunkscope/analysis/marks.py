"""Marks over document text: what the inspector highlights, computed without any UI.

Everything here is a pure function of core values (documents, chunks, questions,
results) and returns offsets into ``Document.text``, half-open like every span in
chunkscope. The inspector's widgets only decide how a mark looks.

Query-term matches follow the default tokenizer (:mod:`chunkscope.tokenize.default`): a
range is marked when the text there yields a token that the query also yields.
Text is compared after NFKC and lower-casing, applied character by character so
each normalised character maps back to the original character it came from.
ASCII tokens match whole letter/digit runs only (``refund`` does not mark inside
``refunds``, as BM25 does not count it); a CJK bigram matches wherever its two
characters stand next to each other; a lone CJK query character matches only a
lone CJK character in the text. Overlapping and touching matches are merged.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from chunkscope.arrays import run_positions
from chunkscope.model import Chunk, Document, Question, Span
from chunkscope.pipeline.locate import cut_offsets, cut_spans, held_whole
from chunkscope.results import DeliveredChunk, QuestionResult, RankedChunk
from chunkscope.tokenize.default import _TOKEN_RUNS as TOKEN_RUNS
from chunkscope.tokenize.default import DefaultTokenizer

Range = tuple[int, int]
BoundaryKind = Literal["join", "start", "end", "overlap-start", "overlap-end"]


@dataclass(frozen=True, slots=True)
class ChunkExtent:
    """Where one chunk lies in its document."""

    start: int
    """First body character."""
    end: int
    """One past the last body character."""
    ordinal: int
    """Position among the document's chunks in document order (0-based), for alternating shading."""
    chunk_id: str
    """Id of the chunk."""


@dataclass(frozen=True, slots=True)
class Boundary:
    """An offset where at least one chunk starts or ends."""

    offset: int
    """The offset."""
    kind: BoundaryKind
    """``join``: one chunk ends where the next starts; ``start``/``end``: a chunk starts
    after / ends before text no chunk covers; ``overlap-start``/``overlap-end``: a chunk
    starts / ends inside another chunk."""


@dataclass(frozen=True, slots=True)
class GoldMark:
    """A gold span, or the part of one inside the marked range."""

    start: int
    """First gold character inside the marked range."""
    end: int
    """One past the last gold character inside the marked range."""
    span: Span
    """The whole gold span."""
    item: int
    """Index of the evidence item the span is an alternative of."""
    whole: bool
    """For a document: the span is not cut (:func:`spans_cut`). For a chunk: the chunk contains it."""
    cut: bool = False
    """The span is cut: no unit holds it whole (:func:`spans_cut`)."""


@dataclass(frozen=True, slots=True)
class RankMark:
    """A ranked hit shown at the start of its chunk."""

    offset: int
    """Start of the ranked chunk's body."""
    rank: int
    """1-based rank."""
    chunk_id: str
    """Id of the ranked chunk."""
    delivered: bool
    """The hit was delivered (whole or truncated)."""


@dataclass(frozen=True, slots=True)
class TextMarks:
    """All marks over ``text[start:end]`` of one document, each list ascending by offset."""

    doc: str
    """Document id."""
    start: int
    """First offset described."""
    end: int
    """One past the last offset described."""
    chunks: tuple[ChunkExtent, ...] = ()
    """Chunks overlapping the range, by (start, end)."""
    overlaps: tuple[Range, ...] = ()
    """Ranges covered by two or more chunks."""
    boundaries: tuple[Boundary, ...] = ()
    """Chunk starts and ends within ``[start, end]``."""
    gold: tuple[GoldMark, ...] = ()
    """Gold spans overlapping the range, clipped to it."""
    cuts: tuple[int, ...] = ()
    """Offsets where a boundary splits a cut gold span (see :func:`document_marks`, :func:`chunk_marks`)."""
    duplicates: tuple[Range, ...] = ()
    """Delivered characters already sent by an earlier delivered chunk."""
    unsent: tuple[Range, ...] = ()
    """Characters of a delivered chunk left out by truncation."""
    delivered: tuple[Range, ...] = ()
    """Characters sent in the context (union of delivered bodies)."""
    query_matches: tuple[Range, ...] = ()
    """Ranges that match a query token (rule in the module docstring)."""
    ranks: tuple[RankMark, ...] = ()
    """Ranked hits whose chunk starts in the range."""


def chunk_extents(chunks: Iterable[Chunk], doc: str) -> tuple[ChunkExtent, ...]:
    """Extents of the chunks of ``doc``, ordered by (start, end); other documents' chunks are ignored."""
    own = sorted((c.start, c.end, c.id) for c in chunks if c.doc == doc)
    return tuple(ChunkExtent(start, end, ordinal, chunk_id) for ordinal, (start, end, chunk_id) in enumerate(own))


def coverage(extents: Sequence[ChunkExtent]) -> tuple[tuple[Range, ...], tuple[Boundary, ...]]:
    """Overlap ranges (covered by >= 2 chunks) and classified boundaries of ``extents``.

    A sweep over the start/end events: the coverage just before and just after each
    event offset decides the boundary kind.
    """
    starting: dict[int, int] = {}
    ending: dict[int, int] = {}
    for extent in extents:
        if extent.end <= extent.start:
            continue
        starting[extent.start] = starting.get(extent.start, 0) + 1
        ending[extent.end] = ending.get(extent.end, 0) + 1
    overlaps: list[Range] = []
    boundaries: list[Boundary] = []
    depth = 0
    overlap_start: int | None = None
    for offset in sorted(starting.keys() | ending.keys()):
        before = depth
        depth += starting.get(offset, 0) - ending.get(offset, 0)
        boundaries.append(Boundary(offset, _boundary_kind(offset in starting, offset in ending, before, depth)))
        if before < 2 <= depth:
            overlap_start = offset
        elif depth < 2 <= before and overlap_start is not None:
            overlaps.append((overlap_start, offset))
            overlap_start = None
    return tuple(overlaps), tuple(boundaries)


def _boundary_kind(starts: bool, ends: bool, before: int, after: int) -> BoundaryKind:
    if starts and ends:
        return "join"
    if starts:
        return "overlap-start" if before > 0 else "start"
    return "overlap-end" if after > 0 else "end"


@dataclass(frozen=True, slots=True)
class ChunkLayout:
    """The chunk-derived marks of one document: they depend on the chunking only, not the question."""

    doc: str
    """Document id."""
    extents: tuple[ChunkExtent, ...]
    """The document's chunks (see :func:`chunk_extents`)."""
    overlaps: tuple[Range, ...]
    """Ranges covered by two or more chunks."""
    boundaries: tuple[Boundary, ...]
    """Classified chunk starts and ends."""


def chunk_layout(chunks: Iterable[Chunk], doc: str) -> ChunkLayout:
    """Extents, overlaps and boundaries of ``doc``'s chunks, to reuse across questions."""
    extents = chunk_extents(chunks, doc)
    overlaps, boundaries = coverage(extents)
    return ChunkLayout(doc, extents, overlaps, boundaries)


def gold_spans_of(question: Question, doc: str) -> list[tuple[Span, int]]:
    """The question's gold spans in ``doc``, each with the index of its evidence item."""
    return [
        (span, item)
        for item, evidence in enumerate(question.evidence)
        for span in evidence.alternatives
        if span.doc == doc
    ]


def document_cuts(gold: Sequence[GoldMark], boundaries: Sequence[Boundary]) -> tuple[int, ...]:
    """Boundary offsets strictly inside a gold span that is cut (``whole`` false).

    The rule of :mod:`chunkscope.pipeline.locate`: a span that some unit holds whole
    is not cut, even if other chunks end inside it.
    """
    return cut_offsets([mark.span for mark in gold if not mark.whole], (b.offset for b in boundaries))


def spans_cut(question: Question, doc: str, result: QuestionResult | None, extents: Iterable[Range]) -> frozenset[Span]:
    """The question's gold spans in ``doc`` that are cut.

    With a result, the evaluator's verdict (:func:`chunkscope.pipeline.locate.cut_spans`);
    without one, the same rule over the chunks at hand: the spans none of ``extents`` holds whole.
    """
    spans = [span for span, _ in gold_spans_of(question, doc)]
    if result is not None:
        cut = cut_spans(result)
        return frozenset(span for span in spans if span in cut)
    known = list(extents)
    return frozenset(span for span in spans if not held_whole(span, known))


def duplicate_ranges(delivered: Sequence[DeliveredChunk]) -> dict[int, tuple[Range, ...]]:
    """Per delivered rank, the body ranges that an earlier delivered chunk already sent.

    Their lengths add up to that chunk's ``DeliveredChunk.duplicate_chars``.
    """
    sent: dict[str, list[Range]] = {}
    duplicates: dict[int, tuple[Range, ...]] = {}
    for item in delivered:
        earlier = sent.setdefault(item.chunk.doc, [])
        duplicates[item.rank] = tuple(_intersections(earlier, item.start, item.end))
        earlier[:] = merge_ranges([*earlier, (item.start, item.end)])
    return duplicates


def _intersections(ranges: Sequence[Range], start: int, end: int) -> list[Range]:
    return [(max(s, start), min(e, end)) for s, e in ranges if s < end and e > start]


def merge_ranges(ranges: Iterable[Range]) -> list[Range]:
    """Union of ranges as sorted, disjoint ranges (touching ranges are joined; empty ones dropped)."""
    merged: list[Range] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@lru_cache(maxsize=65_536)
def _normal_character(character: str) -> str:
    return unicodedata.normalize("NFKC", character).lower()


def _normalize_with_origin(text: str) -> tuple[str, np.ndarray | None]:
    """NFKC + lower-case per character, and for each normalised character its source offset.

    The origin is ``None`` when normalisation kept the length of every character
    (then offsets are unchanged).
    """
    if text.isascii():
        return text.lower(), None
    if unicodedata.is_normalized("NFKC", text):
        # no character changes under NFKC, so only lower-casing can change lengths
        lowered = text.lower()
        if len(lowered) == len(text):
            return lowered, None
    replacements = {}
    for character in set(text):
        normal = _normal_character(character)
        if normal != character:
            replacements[ord(character)] = normal
    normal_text = text.translate(replacements)
    if all(len(r) == 1 for r in replacements.values()):
        return normal_text, None
    lengths = np.ones(len(text), dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    for code, replacement in replacements.items():
        if len(replacement) != 1:
            lengths[codes == code] = len(replacement)
    return normal_text, np.repeat(np.arange(len(text), dtype=np.int64), lengths)


@dataclass(frozen=True, slots=True)
class _TokenIndex:
    """Where each default-tokenizer token occurs in one text (offsets into its normalised form)."""

    words: dict[str, list[int]]
    """ASCII letter/digit runs and lone CJK characters -> start offsets."""
    pair_codes: np.ndarray
    """Sorted codes (first << 21 | second code point) of the CJK bigrams."""
    pair_starts: np.ndarray
    """Start offset of each bigram in ``pair_codes`` order."""
    origin: np.ndarray | None
    """Source offset of each normalised character (``None``: the same offsets)."""


_LONG_TEXT = 20_000


def _build_token_index(text: str) -> _TokenIndex:
    """Index the tokens the default tokenizer makes of ``text``, with its own run pattern,
    so the marks follow the tokenizer when its character classes change."""
    normal, origin = _normalize_with_origin(text)
    codes = np.frombuffer(normal.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    runs = np.array([m.span() for m in TOKEN_RUNS.finditer(normal)], dtype=np.int64).reshape(-1, 2)
    # a run is a token itself when ASCII or a lone CJK character; longer CJK runs give bigrams
    whole = (codes[runs[:, 0]] < 0x80) | (runs[:, 1] - runs[:, 0] == 1) if len(runs) else np.zeros(0, dtype=bool)
    words: dict[str, list[int]] = {}
    for start, end in runs[whole].tolist():
        words.setdefault(normal[start:end], []).append(start)
    bigram_runs = runs[~whole]
    starts = _range_positions(list(zip(bigram_runs[:, 0].tolist(), (bigram_runs[:, 1] - 1).tolist(), strict=True)))
    pair_codes = (codes[starts] << 21) | codes[starts + 1]
    order = np.argsort(pair_codes)
    return _TokenIndex(words, pair_codes[order], starts[order], origin)


def _range_positions(ranges: Sequence[Range]) -> np.ndarray:
    """Every offset inside the given half-open ranges, ascending (vectorised)."""
    if not ranges:
        return np.zeros(0, dtype=np.int64)
    bounds = np.array(ranges, dtype=np.int64)
    lengths = bounds[:, 1] - bounds[:, 0]
    before = np.cumsum(lengths) - lengths
    positions: np.ndarray = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(bounds[:, 0] - before, lengths)
    return positions


@lru_cache(maxsize=8)
def _long_text_index(text: str) -> _TokenIndex:
    return _build_token_index(text)


@lru_cache(maxsize=4096)
def _short_text_index(text: str) -> _TokenIndex:
    # The inspector marks the same chunks and documents again for every question that ranks them.
    return _build_token_index(text)


def query_matches(text: str, query: str, offset: int = 0) -> tuple[Range, ...]:
    """Ranges of ``text`` matching a token of ``query`` (rule in the module docstring), shifted by ``offset``.

    Texts are indexed once and the index cached (the last few long ones, documents, and many
    short ones, chunks), and so are a query's tokens, so each new text costs one dictionary
    lookup per word token and one vectorised search for all bigram tokens.
    """
    words, pair_codes, pair_lengths = _query_tokens(query)
    if not (words or pair_codes.size) or not text:
        return ()
    index = _long_text_index(text) if len(text) >= _LONG_TEXT else _short_text_index(text)
    start_list: list[int] = []
    end_list: list[int] = []
    for token in words:
        for start in index.words.get(token, ()):
            start_list.append(start)
            end_list.append(start + len(token))
    pair_starts, pair_ends = _pair_matches(index, pair_codes, pair_lengths)
    start_array = np.concatenate((np.array(start_list, dtype=np.int64), pair_starts))
    end_array = np.concatenate((np.array(end_list, dtype=np.int64), pair_ends))
    if not start_array.size:
        return ()
    if index.origin is not None:
        start_array, end_array = index.origin[start_array], index.origin[end_array - 1] + 1
    return _merge_arrays(start_array + offset, end_array + offset)


@lru_cache(maxsize=64)
def _query_tokens(query: str) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """A query's distinct tokens: those matched as words, and the others' bigram codes and lengths."""
    tokens = dict.fromkeys(DefaultTokenizer()(query))
    words = tuple(token for token in tokens if token[0] < "\u0080" or len(token) == 1)
    pairs = [token for token in tokens if not (token[0] < "\u0080" or len(token) == 1)]
    codes = np.array([(ord(token[0]) << 21) | ord(token[1]) for token in pairs], dtype=np.int64)
    lengths = np.array([len(token) for token in pairs], dtype=np.int64)
    return words, codes, lengths


def _pair_matches(index: _TokenIndex, codes: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets (in the index's normalised text) of every occurrence of each bigram code."""
    low = np.searchsorted(index.pair_codes, codes, side="left")
    high = np.searchsorted(index.pair_codes, codes, side="right")
    counts = high - low
    # Positions low[i] .. high[i] - 1 of every code, in one gather.
    found = index.pair_starts[run_positions(low, counts)].astype(np.int64, copy=False)
    return found, found + np.repeat(lengths, counts)


def _merge_arrays(starts: np.ndarray, ends: np.ndarray) -> tuple[Range, ...]:
    """Vectorised :func:`merge_ranges` for non-empty ranges."""
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    reach = np.maximum.accumulate(ends)
    opens = np.concatenate(([True], starts[1:] > reach[:-1]))
    first = np.flatnonzero(opens)
    last = np.concatenate((first[1:] - 1, [len(starts) - 1]))
    return tuple(zip(starts[first].tolist(), reach[last].tolist(), strict=True))


def _rank_marks(
    ranked: Sequence[RankedChunk], result: QuestionResult, doc: str, start: int, end: int
) -> tuple[RankMark, ...]:
    delivered_ranks = {d.rank for d in result.delivered}
    marks = [
        RankMark(hit.chunk.start, hit.rank, hit.chunk.id, hit.rank in delivered_ranks)
        for hit in ranked
        if hit.chunk.doc == doc and start <= hit.chunk.start < end
    ]
    return tuple(sorted(marks, key=lambda m: (m.offset, m.rank)))


def _clip(ranges: Iterable[Range], start: int, end: int) -> tuple[Range, ...]:
    return tuple((max(s, start), min(e, end)) for s, e in ranges if s < end and e > start)


def document_marks(
    document: Document,
    chunks: Iterable[Chunk],
    question: Question | None = None,
    result: QuestionResult | None = None,
    ranked_depth: int | None = None,
    layout: ChunkLayout | None = None,
) -> TextMarks:
    """Marks for a whole document: chunk extents of ``chunks`` in it, overlaps, boundaries,
    gold spans (``whole`` when the span is not cut: :func:`spans_cut`), cuts (boundaries
    inside cut spans), delivered and duplicate ranges, query matches and the ranks
    of the first ``ranked_depth`` hits (all when ``None``) whose chunk lies in the document.

    ``layout`` (from :func:`chunk_layout` for the same chunks) saves recomputing the
    chunk-derived marks when only the question changes.
    """
    doc = document.id
    length = len(document.text)
    if layout is None or layout.doc != doc:
        layout = chunk_layout(chunks, doc)
    extents, overlaps, boundaries = layout.extents, layout.overlaps, layout.boundaries
    gold: tuple[GoldMark, ...] = ()
    cuts: tuple[int, ...] = ()
    matches: tuple[Range, ...] = ()
    if question is not None:
        cut = spans_cut(question, doc, result, ((e.start, e.end) for e in extents))
        gold = tuple(
            GoldMark(span.start, span.end, span, item, span not in cut, span in cut)
            for span, item in sorted(gold_spans_of(question, doc), key=lambda g: (g[0].start, g[0].end))
        )
        cuts = document_cuts(gold, boundaries)
        matches = query_matches(document.text, question.query)
    duplicates: tuple[Range, ...] = ()
    delivered: tuple[Range, ...] = ()
    ranks: tuple[RankMark, ...] = ()
    if result is not None:
        own = [d for d in result.delivered if d.chunk.doc == doc]
        delivered = tuple(merge_ranges((d.start, d.end) for d in own))
        repeated = duplicate_ranges(result.delivered)
        duplicates = tuple(merge_ranges(r for d in own for r in repeated[d.rank]))
        ranked = result.ranked if ranked_depth is None else result.ranked[:ranked_depth]
        ranks = _rank_marks(ranked, result, doc, 0, length + 1)
    return TextMarks(
        doc=doc,
        start=0,
        end=length,
        chunks=extents,
        overlaps=overlaps,
        boundaries=boundaries,
        gold=gold,
        cuts=cuts,
        duplicates=duplicates,
        delivered=delivered,
        query_matches=matches,
        ranks=ranks,
    )


def chunk_marks(
    document: Document,
    chunk: Chunk,
    question: Question | None = None,
    result: QuestionResult | None = None,
) -> TextMarks:
    """Marks for one chunk's body ``[chunk.start, chunk.end)``.

    Gold is ``whole`` when the chunk contains the span, otherwise the part inside the
    chunk is marked; a cut sits at each chunk edge strictly inside a span that is cut
    (:func:`spans_cut`: with ``result``, no unit of the configuration holds it whole;
    without, this chunk does not). When the chunk was delivered: its duplicate ranges
    (sent earlier) and, if truncated, the unsent tail. Query matches are searched in the
    chunk text alone, as the retriever saw it.
    """
    start, end = chunk.start, chunk.end
    gold: list[GoldMark] = []
    cuts: tuple[int, ...] = ()
    matches: tuple[Range, ...] = ()
    if question is not None:
        cut = spans_cut(question, chunk.doc, result, ((start, end),))
        for span, item in gold_spans_of(question, chunk.doc):
            if span.start < end and span.end > start:
                whole = start <= span.start and span.end <= end
                gold.append(GoldMark(max(span.start, start), min(span.end, end), span, item, whole, span in cut))
        cuts = cut_offsets(cut, (start, end))
        matches = query_matches(document.text[start:end], question.query, offset=start)
    duplicates: tuple[Range, ...] = ()
    unsent: tuple[Range, ...] = ()
    delivered: tuple[Range, ...] = ()
    ranks: tuple[RankMark, ...] = ()
    if result is not None:
        sent = [d for d in result.delivered if d.chunk.id == chunk.id]
        if sent:
            duplicates = duplicate_ranges(result.delivered)[sent[0].rank]
            delivered = ((sent[0].start, sent[0].end),)
            if sent[0].end < end:
                unsent = ((sent[0].end, end),)
        ranks = _rank_marks([h for h in result.ranked if h.chunk.id == chunk.id], result, chunk.doc, start, end)
    return TextMarks(
        doc=chunk.doc,
        start=start,
        end=end,
        chunks=(ChunkExtent(start, end, 0, chunk.id),),
        boundaries=(Boundary(start, "start"), Boundary(end, "end")),
        gold=tuple(sorted(gold, key=lambda g: (g.start, g.end))),
        cuts=cuts,
        duplicates=_clip(duplicates, start, end),
        unsent=unsent,
        delivered=delivered,
        query_matches=matches,
        ranks=ranks,
    )
