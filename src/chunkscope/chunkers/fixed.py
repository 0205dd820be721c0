"""Fixed-size windows of characters or tokens, optionally overlapping."""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkscope.chunkers.base import Chunking, chunkers, make_chunk
from chunkscope.chunkers.measure import TokenMeasure, check_window, resolve_unit, window_spans
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.tokenize.counting import TokenSpans, token_counter

__all__ = ["FixedChunker", "check_shift", "check_window", "set_unit", "shifted_window_spans", "window_spans"]


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

    ``shift`` (characters only, ``0 <= shift < size - overlap``) moves the window grid right:
    windows start at ``shift + k * (size - overlap)``, and the part of the grid window before
    ``shift`` that lies inside the document comes first, as the head window ``[0, shift + overlap)``
    (it overlaps the next window by ``overlap`` like any two neighbours). ``shift=0`` is the
    unshifted grid and is left out of the spec.
    """

    size: int = field(default=400, metadata={"always_show": True})
    overlap: int = 0
    unit: str = field(default="chars", metadata={"omit_default": True})
    """``chars`` or ``tokens``: what ``size`` and ``overlap`` count."""
    tokenizer: str | None = field(default=None, metadata={"omit_default": True})
    """The counting tokenizer of ``unit=tokens`` (``cl100k``, ``o200k``, ``e5``, ...)."""
    shift: int = field(default=0, metadata={"omit_default": True})
    """Where the window grid starts, in characters (a head window ``[0, shift + overlap)`` comes before it)."""

    def __post_init__(self) -> None:
        check_window(self.size, self.overlap)
        set_unit(self)
        check_shift(self.shift, self.size, self.overlap, self.tokenizer)

    def chunk_document(self, document: Document) -> list[Chunk]:
        if self.tokenizer is None:
            spans = shifted_window_spans(len(document.text), self.size, self.overlap, self.shift)
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


def check_shift(shift: int, size: int, overlap: int, tokenizer: str | None) -> None:
    """Reject a shift outside ``[0, size - overlap)``, or any shift of token windows (ValueError)."""
    if shift == 0:
        return
    if tokenizer is not None:
        raise ValueError("shift is not supported with unit=tokens (it counts characters)")
    if not 0 <= shift < size - overlap:
        raise ValueError(f"shift must be between 0 and size - overlap - 1 ({size - overlap - 1}), got {shift}")


def shifted_window_spans(length: int, size: int, overlap: int, shift: int, offset: int = 0) -> list[tuple[int, int]]:
    """The windows of :class:`FixedChunker` with ``shift``: the head ``[0, shift + overlap)``, then the grid.

    Stops as soon as a window reaches ``length``, the head included. ``shift=0`` gives
    :func:`~chunkscope.chunkers.measure.window_spans` exactly.
    """
    if shift == 0 or length == 0:
        return window_spans(length, size, overlap, offset)
    head_end = min(shift + overlap, length)
    if head_end == length:
        return [(offset, offset + length)]
    return [(offset, offset + head_end), *window_spans(length - shift, size, overlap, offset + shift)]
