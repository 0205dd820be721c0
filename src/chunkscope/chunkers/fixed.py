"""Fixed-size windows of characters or tokens, optionally overlapping."""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkscope.chunkers.base import Chunking, chunkers, make_chunk
from chunkscope.chunkers.measure import TokenMeasure, check_window, resolve_unit, window_spans
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.tokenize.counting import TokenSpans, token_counter

__all__ = ["FixedChunker", "check_window", "set_unit", "window_spans"]


@chunkers.register("fixed")
@dataclass(frozen=True, slots=True)
class FixedChunker:
    """Windows of ``size`` characters starting at 0 and advancing by ``size - overlap``.

    Stops as soon as a window reaches the end of the document, so no trailing
    window lies inside the previous one; the last window may be short.

    With ``unit=tokens``, ``size`` and ``overlap`` count tokens of the document's
    tokenization by ``tokenizer`` (``cl100k`` by default; see
    :meth:`chunkscope.chunkers.measure.TokenMeasure.windows`): each window holds at
    most ``size`` tokens and starts ``size - overlap`` tokens after the previous one,
    always at a character start.
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
        if self.tokenizer is None:
            spans = window_spans(len(document.text), self.size, self.overlap)
            return [make_chunk(document, i, start, end) for i, (start, end) in enumerate(spans)]
        return self._token_windows(document, token_counter(self.tokenizer).spans(document.text))

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        """Every document's windows; in tokens, the corpus is encoded in one call."""
        documents = corpus.documents
        if self.tokenizer is None:
            return Chunking(tuple(chunk for document in documents for chunk in self.chunk_document(document)))
        token_spans = token_counter(self.tokenizer).spans_many([document.text for document in documents])
        return Chunking(
            tuple(
                chunk
                for document, spans in zip(documents, token_spans, strict=True)
                for chunk in self._token_windows(document, spans)
            )
        )

    def _token_windows(self, document: Document, spans: TokenSpans) -> list[Chunk]:
        windows = TokenMeasure(spans).windows(0, len(document.text), self.size, self.overlap)
        return [make_chunk(document, i, start, end) for i, (start, end) in enumerate(windows)]


def set_unit(chunker: object) -> None:
    """Write a chunker's ``unit`` and ``tokenizer`` in canonical form (ValueError when they are invalid).

    ``tokenizer`` becomes the counting tokenizer in use (None for characters), ``unit`` says which.
    """
    tokenizer = resolve_unit(getattr(chunker, "unit"), getattr(chunker, "tokenizer"))  # noqa: B009
    object.__setattr__(chunker, "tokenizer", tokenizer)
    object.__setattr__(chunker, "unit", "chars" if tokenizer is None else "tokens")
