"""Per-character tables of the default tokenizer: classes, CJK ranks, and NFKC joins.

What a normalised character is (separator, ASCII letter or digit, CJK run character), the rank
that numbers CJK characters in term codes, and which characters NFKC joins to the one before
them: the facts :mod:`chunkscope.tokenize.streams` tokenises whole documents with.
"""

from __future__ import annotations

import threading
import unicodedata

import numpy as np

from chunkscope.arrays import sorted_unique
from chunkscope.tokenize.cjk import CJK_RANGES

CODE_POINTS = 0x110000


SEPARATOR, WORD, CJK = 0, 1, 2


"""Classes of normalised characters: separators, ASCII letters/digits, CJK run characters."""


def joins_previous(char: str) -> bool:
    """True when NFKC may combine ``char`` with the character before it.

    Canonical reordering moves only combining marks, and composition joins a
    starter with a later mark (category M) or a Hangul vowel or trailing jamo; so
    a character interacts with its predecessor only when its decomposition starts
    with one of those. A character that does not is a normalisation boundary:
    NFKC(left + right) == NFKC(left) + NFKC(right) when ``right`` starts with it.
    """
    first = unicodedata.normalize("NFKD", char)[0]
    return unicodedata.category(first).startswith("M") or is_composing_jamo(ord(first))


def is_composing_jamo(code: int) -> bool:
    """Hangul jamo that NFC joins onto a preceding jamo or syllable: vowels and trailing consonants."""
    return 0x1161 <= code <= 0x1175 or 0x11A8 <= code <= 0x11C2


def normalise(text: str) -> str:
    """The default tokenizer's normalisation: NFKC, then lower-case."""
    return unicodedata.normalize("NFKC", text).lower()


def _class_table() -> np.ndarray:
    table = np.zeros(CODE_POINTS, dtype=np.uint8)
    table[ord("a") : ord("z") + 1] = WORD
    table[ord("0") : ord("9") + 1] = WORD
    for low, high in CJK_RANGES:
        table[low : high + 1] = CJK
    return table


CLASSES = _class_table()


"""Class of every code point, as a normalised character."""


CJK_CHARS = np.flatnonzero(CLASSES == CJK).astype(np.uint32)


"""The CJK run characters in code-point order: a character's rank is its index here."""


CJK_RANK = np.full(CODE_POINTS, -1, dtype=np.int32)
CJK_RANK[CJK_CHARS] = np.arange(len(CJK_CHARS), dtype=np.int32)


WORD_CHAR = -2


_WORD_CHARS = np.flatnonzero(CLASSES[:128] == WORD)
"""The ASCII letters and digits (the only WORD characters), as code points."""


def _char_ranks() -> np.ndarray:
    ranks = CJK_RANK.copy()
    ranks[_WORD_CHARS] = WORD_CHAR
    return ranks


CHAR_RANKS = _char_ranks()


"""A CJK character's rank, ``WORD_CHAR`` for an ASCII letter or digit, -1 for a separator: the class
and the rank in one lookup."""


def _ascii_view() -> np.ndarray:
    # Filled, then the few word characters set: np.where over every code point took 24 ms of each start.
    view = np.full(CODE_POINTS, ord(" "), dtype=np.uint8)
    view[_WORD_CHARS] = _WORD_CHARS
    return view


ASCII_VIEW = _ascii_view()


"""Each character as itself when it is an ASCII letter or digit, else as a space."""


class CharTable:
    """Per code point, learnt on first sight: its normalised form and whether it joins its predecessor."""

    UNKNOWN, CONTEXT_FREE, JOINING = 0, 1, 2

    def __init__(self) -> None:
        self.status = np.zeros(CODE_POINTS, dtype=np.uint8)
        self.first = np.zeros(CODE_POINTS, dtype=np.int32)
        """Index in ``flat`` of the character's first normalised code point."""
        self.length = np.zeros(CODE_POINTS, dtype=np.int32)
        """Number of normalised code points."""
        self.flat = np.zeros(0, dtype=np.uint32)
        self.single = np.zeros(CODE_POINTS, dtype=np.uint32)
        """The first normalised code point (the whole form for most characters)."""
        self.irregular = np.zeros(CODE_POINTS, dtype=np.bool_)
        """True when the form is not one code point, or the character joins its predecessor."""
        self._lock = threading.Lock()

    def form(self, code: int) -> np.ndarray:
        """The normalised code points of one known character."""
        first = int(self.first[code])
        return self.flat[first : first + int(self.length[code])]

    def learn(self, codes: np.ndarray) -> None:
        """Make sure every code point in ``codes`` is known."""
        unknown = codes[self.status[codes] == self.UNKNOWN]
        if not len(unknown):
            return
        with self._lock:
            new = [int(c) for c in sorted_unique(unknown) if self.status[c] == self.UNKNOWN]
            pieces = [self.flat]
            size = len(self.flat)
            for code in new:
                char = chr(code)
                normal = encode_utf32(normalise(char))
                self.first[code] = size
                self.length[code] = len(normal)
                size += len(normal)
                pieces.append(normal)
            self.flat = np.concatenate(pieces)
            for code in new:  # published last: a reader seeing the status sees the form too
                joining = joins_previous(chr(code))
                form = self.form(code)
                self.single[code] = form[0]
                self.irregular[code] = joining or len(form) != 1
                self.status[code] = self.JOINING if joining else self.CONTEXT_FREE


_TABLE: CharTable | None = None


_TABLE_LOCK = threading.Lock()


def char_table() -> CharTable:
    """The process-wide character table (about 20 MB, built on first use)."""
    global _TABLE
    with _TABLE_LOCK:
        if _TABLE is None:
            _TABLE = CharTable()
        return _TABLE


def encode_utf32(text: str) -> np.ndarray:
    """Code points of ``text`` (lone surrogates kept)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
