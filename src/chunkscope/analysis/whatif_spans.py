"""Delivered spans of a chunking without building its chunks, where the chunker's arithmetic allows.

The what-if chunks the same documents with many candidate settings; character windows
(``fixed``) and recursive spans are computed as ``(start, end)`` pairs by the chunkers' own
span functions, which give exactly the chunks' offsets; a parent-child chunking delivers its
parents, and its children are the child chunker's spans of each parent's body. Any other
chunker is run as usual.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from chunkscope.chunkers import Chunker, chunk_corpus
from chunkscope.chunkers.fixed import FixedChunker, shifted_window_spans
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker, recursive_spans
from chunkscope.model import Chunk, Corpus, Document, Span

__all__ = ["IndexSize", "SpanHolder", "corpus_index_size", "delivered_spans", "index_size"]


@dataclass(frozen=True, slots=True)
class IndexSize:
    """What a chunking indexes: retrieval units and characters (``len(prefix) + end - start``)."""

    chunks: int
    indexed_chars: int


def index_size(units: Sequence[Chunk]) -> IndexSize:
    """Retrieval units and indexed characters of a chunking's units."""
    return IndexSize(len(units), sum(len(u.prefix) + u.end - u.start for u in units))


def _span_function(chunker: Chunker) -> bool:
    """The chunker's offsets come from a span function of the document's text alone."""
    return isinstance(chunker, (FixedChunker, RecursiveChunker)) and chunker.tokenizer is None


def _text_spans(chunker: Chunker, text: str) -> list[tuple[int, int]]:
    if isinstance(chunker, FixedChunker):
        return shifted_window_spans(len(text), chunker.size, chunker.overlap, chunker.shift)
    assert isinstance(chunker, RecursiveChunker)
    return recursive_spans(text, chunker.size, chunker.overlap)


def delivered_spans(chunker: Chunker, document: Document) -> list[tuple[int, int]]:
    """``(start, end)`` of the units ``chunker`` delivers for ``document``, in order (parent-child: the parents)."""
    if isinstance(chunker, ParentChildChunker):
        return delivered_spans(chunker.parent, document)
    if _span_function(chunker):
        return _text_spans(chunker, document.text)
    return [(u.start, u.end) for u in chunk_corpus(chunker, Corpus((document,))).delivered_units]


def corpus_index_size(chunker: Chunker, corpus: Corpus) -> IndexSize:
    """The index ``chunker`` builds over ``corpus`` (span functions count without building chunks)."""
    if _span_function(chunker):
        spans = [_text_spans(chunker, d.text) for d in corpus.documents]
        return IndexSize(sum(map(len, spans)), sum(e - s for doc_spans in spans for s, e in doc_spans))
    if isinstance(chunker, ParentChildChunker) and _span_function(chunker.child):
        # The children of each parent are the child chunker's spans of the parent's body.
        child = chunker.child
        children = [
            _text_spans(child, d.text[start:end])
            for d in corpus.documents
            for start, end in delivered_spans(chunker, d)
        ]
        return IndexSize(sum(map(len, children)), sum(e - s for spans in children for s, e in spans))
    return index_size(chunk_corpus(chunker, corpus).units)


class SpanHolder:
    """Answers whether some delivered unit of ``chunker`` contains a span, chunking each document once, on demand."""

    def __init__(self, chunker: Chunker, corpus: Corpus) -> None:
        self.chunker = chunker
        self.corpus = corpus
        self._documents: dict[str, tuple[list[int], list[int]]] = {}

    def holds(self, span: Span) -> bool:
        """Some delivered unit of the span's document contains it."""
        found = self._documents.get(span.doc)
        if found is None:
            spans = sorted(delivered_spans(self.chunker, self.corpus.by_id[span.doc]))
            # starts, and the furthest end among the units starting up to each one
            found = ([s for s, _ in spans], list(accumulate((e for _, e in spans), max)))
            self._documents[span.doc] = found
        starts, furthest = found
        before = bisect.bisect_right(starts, span.start)
        return before > 0 and furthest[before - 1] >= span.end
