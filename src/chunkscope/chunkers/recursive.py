"""The recursive splitter: separators from paragraph break down to single characters."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from chunkscope.chunkers.base import Chunking, chunkers, make_chunk
from chunkscope.chunkers.fixed import check_window, set_unit
from chunkscope.chunkers.measure import CharMeasure, Measure, TokenMeasure, text_measure
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.tokenize.counting import token_counter

SEPARATORS = ("\n\n", "\n", "。", ". ", "! ", "? ", " ", "")
"""Tried in this order; the empty separator splits into single characters."""


@chunkers.register("recursive")
@dataclass(frozen=True, slots=True)
class RecursiveChunker:
    """The recursive character splitter, with exact offsets.

    1. Take the first separator of :data:`SEPARATORS` that occurs in the text and
       cut the text after every occurrence (the separator ends the piece before it).
    2. Pieces of at most ``size`` characters are merged in order: a piece is added
       while the chunk stays within ``size``; otherwise the chunk is emitted, and
       whole pieces are dropped from its front until the rest totals at most
       ``overlap`` characters and leaves room for the new piece; the rest starts
       the next chunk (so consecutive chunks share at most ``overlap`` characters,
       made of whole pieces).
    3. A piece longer than ``size`` is split the same way with the following
       separators; its chunks are never merged with its neighbours. At the
       character level this gives windows of ``size`` advancing by ``size - overlap``.
    4. Each chunk's leading and trailing whitespace is left out of its span;
       chunks that are only whitespace, or that trimming leaves wholly inside a
       neighbouring chunk, are dropped (the larger of the two is kept).

    Every non-whitespace character lies in some chunk; no chunk is longer than ``size``.

    With ``unit=tokens``, every length above is the number of the document's tokens
    (by ``tokenizer``, ``cl100k`` by default) touching the span, and the single-character
    level gives token windows (:meth:`chunkscope.chunkers.measure.TokenMeasure.windows`);
    only a chunk of one character may exceed ``size`` (a character that alone takes more tokens).
    """

    size: int = field(default=400, metadata={"always_show": True})
    overlap: int = 0
    unit: str = field(default="chars", metadata={"omit_default": True})
    """``chars`` or ``tokens``: what ``size`` and ``overlap`` count."""
    tokenizer: str | None = field(default=None, metadata={"omit_default": True})
    """The counting tokenizer of ``unit=tokens`` (``cl100k``, ``o200k``, ``e5``, ...)."""

    def __post_init__(self) -> None:
        check_window(self.size, self.overlap)
        set_unit(self)

    def chunk_document(self, document: Document) -> list[Chunk]:
        return self._chunks(document, text_measure(self.tokenizer, document.text))

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        """Every document's chunks; in tokens, the corpus is encoded in one call."""
        documents = corpus.documents
        if self.tokenizer is None:
            measures: list[Measure] = [CharMeasure()] * len(documents)
        else:
            measures = [
                TokenMeasure(spans) for spans in token_counter(self.tokenizer).spans_many([d.text for d in documents])
            ]
        return Chunking(
            tuple(
                chunk
                for document, measure in zip(documents, measures, strict=True)
                for chunk in self._chunks(document, measure)
            )
        )

    def _chunks(self, document: Document, measure: Measure) -> list[Chunk]:
        spans = recursive_spans(document.text, self.size, self.overlap, measure)
        return [make_chunk(document, i, start, end) for i, (start, end) in enumerate(spans)]


def recursive_spans(text: str, size: int, overlap: int, measure: Measure | None = None) -> list[tuple[int, int]]:
    """Chunk spans of ``text`` under the rules of :class:`RecursiveChunker` (lengths by ``measure``, else chars)."""
    spans: list[tuple[int, int]] = []
    for start, end in _Splitter(text, size, overlap, measure or CharMeasure()).split(0, len(text), 0):
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            continue
        # Trimming can leave one chunk wholly inside its neighbour: keep only the larger.
        if spans and spans[-1][0] <= start and end <= spans[-1][1]:
            continue
        while spans and start <= spans[-1][0] and spans[-1][1] <= end:
            spans.pop()
        spans.append((start, end))
    return spans


class _Splitter:
    def __init__(self, text: str, size: int, overlap: int, measure: Measure) -> None:
        self.text = text
        self.size = size
        self.overlap = overlap
        self.measure = measure

    def split(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        """Chunk spans of ``text[start:end]`` using separators from ``level`` on."""
        text = self.text
        level = next(
            i for i in range(level, len(SEPARATORS)) if not SEPARATORS[i] or text.find(SEPARATORS[i], start, end) >= 0
        )
        separator = SEPARATORS[level]
        if not separator:
            return self.measure.windows(start, end, self.size, self.overlap)
        chunks: list[tuple[int, int]] = []
        fitting: list[tuple[int, int]] = []
        for piece in pieces_after(text, start, end, separator):
            if self.measure.length(*piece) <= self.size:
                fitting.append(piece)
                continue
            if fitting:
                chunks.extend(self.merge(fitting))
                fitting = []
            chunks.extend(self.split(piece[0], piece[1], level + 1))
        if fitting:
            chunks.extend(self.merge(fitting))
        return chunks

    def merge(self, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Merge contiguous pieces up to ``size``, carrying whole pieces up to ``overlap`` forward.

        Lengths are of spans (first kept piece's start to an end): for characters that is the sum of
        the pieces; in tokens a token shared by two pieces counts once.
        """
        length = self.measure.length
        size, overlap = self.size, self.overlap
        chunks = []
        current: deque[tuple[int, int]] = deque()
        for start, end in pieces:
            if current and length(current[0][0], end) > size:
                chunks.append((current[0][0], current[-1][1]))
                while current and (
                    length(current[0][0], current[-1][1]) > overlap or length(current[0][0], end) > size
                ):
                    current.popleft()
            current.append((start, end))
        if current:
            chunks.append((current[0][0], current[-1][1]))
        return chunks


def pieces_after(text: str, start: int, end: int, separator: str) -> list[tuple[int, int]]:
    """``text[start:end]`` cut after every occurrence of ``separator``."""
    pieces = []
    position = start
    while True:
        found = text.find(separator, position, end)
        if found < 0:
            break
        cut = found + len(separator)
        pieces.append((position, cut))
        position = cut
    if position < end:
        pieces.append((position, end))
    return pieces
