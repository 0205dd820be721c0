"""How a chunker measures length: in characters, or in tokens of a counting tokenizer.

``unit=chars`` (the default) measures a span ``[start, end)`` as ``end - start``. ``unit=tokens``
measures it as the number of the document's tokens (its tokenization as a whole, by the named
counting tokenizer) that touch a character of the span: a token holding part of a character counts
for every span holding that character (see :mod:`chunkscope.tokenize.counting`). Every cut a
token-measured chunker makes is a character start, so offsets stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from chunkscope.tokenize.counting import TokenSpans, check_counter_name, token_counter

UNITS = ("chars", "tokens")
DEFAULT_TOKENIZER = "cl100k"
"""The counting tokenizer of ``unit=tokens`` when the spec names none."""


class Measure(Protocol):
    """Lengths and fixed windows over one document's text."""

    def length(self, start: int, end: int) -> int:
        """The length of ``text[start:end]``."""
        ...

    def windows(self, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
        """Windows of at most ``size`` over ``[start, end)``, each starting ``size - overlap`` after the last."""
        ...


class CharMeasure:
    """Lengths in characters."""

    def length(self, start: int, end: int) -> int:
        return end - start

    def windows(self, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
        return window_spans(end - start, size, overlap, start)


@dataclass(frozen=True, slots=True)
class TokenMeasure:
    """Lengths in the tokens of one text's tokenization."""

    spans: TokenSpans

    def length(self, start: int, end: int) -> int:
        return self.spans.touching(start, end)

    def windows(self, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
        """Token windows over ``[start, end)``, cut at character starts.

        A window starts at a character ``a`` and takes the ``size`` tokens from the first one
        touching ``a``; it ends where the next token begins (a character start, so a character
        split between tokens goes to the next window). The next window starts where the token
        ``size - overlap`` after that first one begins. A window always holds at least one
        character, even one that alone takes more than ``size`` tokens. Stops when a window
        reaches ``end``.
        """
        spans = self.spans
        step = size - overlap
        windows: list[tuple[int, int]] = []
        position = start
        while position < end:
            first = spans.first_touching(position)
            stop = min(end, spans.cut_before(first + size))
            if stop <= position:
                stop = position + 1
            windows.append((position, stop))
            if stop >= end:
                break
            position = max(position + 1, spans.cut_before(first + step))
        return windows


def text_measure(tokenizer: str | None, text: str) -> Measure:
    """The measure over ``text``: characters when ``tokenizer`` is None, else that tokenizer's tokens."""
    if tokenizer is None:
        return CharMeasure()
    return TokenMeasure(token_counter(tokenizer).spans(text))


def resolve_unit(unit: str, tokenizer: str | None) -> str | None:
    """The counting tokenizer a chunker's ``unit`` and ``tokenizer`` parameters mean (None: characters).

    ``unit=tokens`` without a tokenizer means ``cl100k``; ``tokenizer=chars`` means characters.
    ValueError for an unknown unit, a tokenizer with ``unit=chars``, or an unknown tokenizer.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be chars or tokens, got {unit!r}")
    if unit == "chars":
        if tokenizer not in (None, "chars"):
            raise ValueError(f"tokenizer={tokenizer} counts tokens: add unit=tokens")
        return None
    name = tokenizer or DEFAULT_TOKENIZER
    check_counter_name(name)
    return None if name == "chars" else name


def check_window(size: int, overlap: int) -> None:
    """Reject sizes below 1, negative overlaps and overlaps not smaller than the size."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    if overlap < 0:
        raise ValueError(f"overlap must not be negative, got {overlap}")
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be smaller than size ({size})")


def window_spans(length: int, size: int, overlap: int, offset: int = 0) -> list[tuple[int, int]]:
    """Spans of the fixed character windows over ``length`` characters, shifted by ``offset``."""
    step = size - overlap
    spans = []
    start = 0
    while start < length:
        end = min(start + size, length)
        spans.append((offset + start, offset + end))
        if end == length:
            break
        start += step
    return spans
