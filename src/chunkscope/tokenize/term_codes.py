"""Term codes of the default tokenizer: how a token becomes a 64-bit code and a dense term id.

ASCII words are numbered in order of first sight; a CJK unigram or bigram is coded from its
characters’ CJK ranks. :mod:`chunkscope.tokenize.streams` builds token streams from these codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np

from chunkscope.arrays import sorted_unique
from chunkscope.tokenize.char_table import (
    CJK_CHARS,
    CJK_RANK,
    encode_utf32,
)

RANK_BITS = 18


RANK_MASK = (1 << RANK_BITS) - 1


WORD_BASE = 1 << 37


"""Term codes. CJK characters are numbered by their rank among the CJK run characters (fewer
than ``2**18``): a unigram's code is its rank ``r``, a bigram's ``((a + 1) << 18) | b`` (from
``2**18`` up to below ``2**37``); the ``k``-th distinct ASCII word's code is ``WORD_BASE + k``.
Codes stay below ``2**38``, so a code and a position below ``2**25`` pack into one int64 sort key."""


POSITION_BITS = 25


class WordIds(dict[str, int]):
    """ASCII words numbered in order of first sight."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


def dense_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct codes (ascending) and each code's index among them (int32).

    One sort of ``code << 25 | position`` keys does both: cheaper than ``np.unique``
    with ``return_inverse`` (an argsort) or a binary search per code.
    """
    count = len(codes)
    if count >= 1 << POSITION_BITS:
        vocabulary = sorted_unique(codes)
        return vocabulary, np.searchsorted(vocabulary, codes).astype(np.int32)
    keys = codes << POSITION_BITS
    keys |= np.arange(count, dtype=np.int64)
    keys.sort()
    ordered = keys >> POSITION_BITS
    new = np.empty(count, dtype=np.bool_)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    ids = np.empty(count, dtype=np.int32)
    ids[keys & ((1 << POSITION_BITS) - 1)] = np.cumsum(new, dtype=np.int32) - 1
    return ordered[new], ids


def position_dtype(size: int) -> type[np.signedinteger]:
    """The narrowest of int32/int64 that holds positions up to ``size``."""
    return np.int32 if size < 2**31 - 1 else np.int64


def ids_of_codes(sorted_codes: np.ndarray, sorted_ids: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The id of each code (int64), -1 for codes not in ``sorted_codes``."""
    if not len(sorted_codes):
        return np.full(len(codes), -1, dtype=np.int64)
    where = np.minimum(np.searchsorted(sorted_codes, codes), len(sorted_codes) - 1)
    return np.where(sorted_codes[where] == codes, sorted_ids[where], -1)


def code_length(codes: np.ndarray, word_lengths: np.ndarray) -> np.ndarray:
    """Length in normalised characters of each term code's token."""
    lengths = np.where(codes > RANK_MASK, 2, 1)
    is_word = codes >= WORD_BASE
    lengths[is_word] = word_lengths[codes[is_word] - WORD_BASE]
    return lengths


def codes_of(tokens: Sequence[str], words: dict[str, int]) -> np.ndarray:
    """The term code of each default-tokenizer token (int64); -1 for an ASCII word not in ``words``
    and for a text that is no such token."""
    codes = np.full(len(tokens), -1, dtype=np.int64)
    ascii_flags = np.fromiter(map(str.isascii, tokens), dtype=np.bool_, count=len(tokens))
    ascii_at = np.flatnonzero(ascii_flags)
    if len(ascii_at):
        numbers = np.fromiter(
            map(words.get, [tokens[i] for i in ascii_at.tolist()], repeat(-1)), dtype=np.int64, count=len(ascii_at)
        )
        codes[ascii_at] = np.where(numbers >= 0, WORD_BASE + numbers, -1)
    other_at = np.flatnonzero(~ascii_flags)
    if len(other_at):
        others = [tokens[i] for i in other_at.tolist()]
        sizes = np.fromiter(map(len, others), dtype=np.int64, count=len(others))
        ranks = CJK_RANK[encode_utf32("".join(others))].astype(np.int64)
        first = np.cumsum(sizes) - sizes
        head = ranks[first]
        tail = ranks[np.minimum(first + 1, len(ranks) - 1)]
        pair = ((head + 1) << RANK_BITS) | tail
        valid = (head >= 0) & ((sizes == 1) | ((sizes == 2) & (tail >= 0)))
        codes[other_at] = np.where(valid, np.where(sizes == 1, head, pair), -1)
    return codes


def tokens_of(codes: np.ndarray, word_list: Sequence[str]) -> list[str]:
    """The token text of each term code (``token_of`` of every code, at once)."""
    count = len(codes)
    is_word = codes >= WORD_BASE
    is_bigram = (codes > RANK_MASK) & ~is_word
    # Two UTF-32 code units per code: a unigram's character and a NUL, a bigram's two characters.
    pairs = np.zeros((count, 2), dtype=np.uint32)
    pairs[:, 0] = CJK_CHARS[np.where(is_bigram, (codes >> RANK_BITS) - 1, codes & RANK_MASK)]
    pairs[:, 1] = np.where(is_bigram, CJK_CHARS[codes & RANK_MASK], 0)
    text = pairs.tobytes().decode("utf-32-le")
    lengths = np.where(is_bigram, 2, 1).tolist()
    tokens = [text[at : at + length] for at, length in zip(range(0, 2 * count, 2), lengths, strict=True)]
    for index, code in zip(np.flatnonzero(is_word).tolist(), codes[is_word].tolist(), strict=True):
        tokens[index] = word_list[code - WORD_BASE]
    return tokens


def token_of(code: int, word_list: Sequence[str]) -> str:
    """The token text of a term code (inverse of ``codes_of``)."""
    if code >= WORD_BASE:
        return word_list[code - WORD_BASE]
    if code > RANK_MASK:
        return chr(CJK_CHARS[(code >> RANK_BITS) - 1]) + chr(CJK_CHARS[code & RANK_MASK])
    return chr(CJK_CHARS[code])
