"""Japanese morphological tokenizer for lexical retrieval: Sudachi (extra ``chunkscope[ja]``).

Use it as ``bm25:tokenizer=sudachi`` (or ``overlap:tokenizer=sudachi``); options go
in quotes: ``bm25:tokenizer="sudachi:mode=A,form=dictionary"``.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chunkscope.errors import MissingExtraError
from chunkscope.tokenize.base import tokenizers

MAX_INPUT_BYTES = 40_000
"""Sudachi rejects a single input over about 49 kB (UTF-8); longer texts are split first."""

SKIPPED_POS = ("補助記号", "空白")
"""Parts of speech dropped: punctuation/symbols and whitespace."""

FORMS = ("surface", "dictionary", "normalized")
_SENTENCE_END = re.compile(r"(?<=[。．！？!?])|(?<=\. )")


@tokenizers.register("sudachi")
@dataclass(frozen=True, slots=True)
class SudachiTokenizer:
    """Sudachi morphemes (sudachidict-core) as tokens.

    ``mode`` is Sudachi's split mode: A (shortest units), B, or C (longest, the
    default). ``form`` picks each morpheme's surface (default), dictionary form
    (``住ん`` -> ``住む``) or Sudachi's normalized form (``居る``). Each token is
    then NFKC-normalised and lower-cased. Morphemes tagged 補助記号 (symbols,
    punctuation) or 空白 (whitespace) are dropped. Texts over 40,000 UTF-8 bytes
    are split at line breaks, then sentence ends, then anywhere, and tokenized
    piece by piece.
    """

    mode: str = "C"
    form: str = "surface"

    def __post_init__(self) -> None:
        if self.mode not in ("A", "B", "C"):
            raise ValueError(f"mode must be A, B or C, got {self.mode!r}")
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(FORMS)}, got {self.form!r}")
        for module, package in (("sudachipy", "sudachipy"), ("sudachidict_core", "sudachidict-core")):
            if importlib.util.find_spec(module) is None:
                raise MissingExtraError("the sudachi tokenizer", "ja", package)

    def __call__(self, text: str) -> list[str]:
        tokenizer = sudachi_tokenizer(self.mode)
        tokens: list[str] = []
        for piece in split_long_text(text):
            for morpheme in tokenizer.tokenize(piece):
                if morpheme.part_of_speech()[0] in SKIPPED_POS:
                    continue
                token = _form(morpheme, self.form)
                token = unicodedata.normalize("NFKC", token).lower().strip()
                if token:
                    tokens.append(token)
        return tokens


def _form(morpheme: Any, form: str) -> str:
    if form == "dictionary":
        return str(morpheme.dictionary_form())
    if form == "normalized":
        return str(morpheme.normalized_form())
    return str(morpheme.surface())


_TOKENIZERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def sudachi_tokenizer(mode: str) -> Any:
    """A Sudachi tokenizer over sudachidict-core (the dictionary is loaded once per process)."""
    with _LOCK:
        if mode not in _TOKENIZERS:
            try:
                # The extra "ja" is optional: sudachipy loads with the first Sudachi tokenizer only.
                from sudachipy import Dictionary, SplitMode
            except ImportError:
                raise MissingExtraError("the sudachi tokenizer", "ja", "sudachipy") from None
            try:
                dictionary = _TOKENIZERS.get("dictionary") or Dictionary(dict="core")
            except Exception as exc:  # sudachipy raises its own error types for a missing dictionary
                raise MissingExtraError("the sudachi tokenizer", "ja", "sudachidict-core") from exc
            _TOKENIZERS["dictionary"] = dictionary
            _TOKENIZERS[mode] = dictionary.tokenizer(mode=getattr(SplitMode, mode))
        return _TOKENIZERS[mode]


def split_long_text(text: str, limit: int = MAX_INPUT_BYTES) -> list[str]:
    """``text`` cut into consecutive pieces of at most ``limit`` UTF-8 bytes.

    Cuts fall after a line break where possible, else after a sentence end
    (``。．！？!?`` or ``. ``), else at the last character that fits. Joining the
    pieces gives back ``text``.
    """
    if _size(text) <= limit:
        return [text]
    return _pack(text.splitlines(keepends=True), limit, _split_line)


def _split_line(line: str, limit: int) -> list[str]:
    return _pack([s for s in _SENTENCE_END.split(line) if s], limit, _split_anywhere)


def _pack(parts: list[str], limit: int, split_further: Callable[[str, int], list[str]]) -> list[str]:
    """Consecutive ``parts`` joined into pieces of at most ``limit`` bytes; a part too long alone is split further."""
    pieces: list[str] = []
    current: list[str] = []
    current_size = 0
    for part in parts:
        size = _size(part)
        if current and current_size + size <= limit:
            current.append(part)
            current_size += size
            continue
        if current:
            pieces.append("".join(current))
            current, current_size = [], 0
        if size <= limit:
            current, current_size = [part], size
        else:
            pieces.extend(split_further(part, limit))
    if current:
        pieces.append("".join(current))
    return pieces


def _split_anywhere(text: str, limit: int) -> list[str]:
    pieces = []
    start = 0
    size = 0
    for position, char in enumerate(text):
        width = _size(char)
        if size + width > limit:
            pieces.append(text[start:position])
            start, size = position, 0
        size += width
    pieces.append(text[start:])
    return pieces


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
