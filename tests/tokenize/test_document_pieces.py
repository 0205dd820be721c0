"""A long document encoded in pieces gives the tokens, positions and shifts of the document encoded at once.

The default tokenizer used to encode a document longer than its batch as one batch: per-character arrays of
the whole document (a 200 MB document took gigabytes). It now cuts such a document at safe places; the oracle
here is the same document encoded as one batch (a batch larger than the corpus).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.tokenize.streams import DocumentTokens, _pieces, encode_documents
from chunkscope.tokenize.term_codes import tokens_of

WHOLE = 1 << 40
"""A batch no test corpus fills: every document encoded in one piece."""

PARTS = st.sampled_from(
    [
        "Returns within 30 days. ",
        "返品は三十日以内です。\n",
        "Cafe\u0301 ",
        " \u0301x ",  # a combining mark after a space: no cut may separate them
        "ＡＢＣ１２３ ",
        "ｶﾞｷﾞ ",
        "\n\n",
        "日本語",
        "ﬁne ",
        "가\u1161 ",
        " ",
    ]
)


def described(tokens: DocumentTokens) -> tuple[list[str], list[int], bytes, list[int], list[int], list[int], list[int]]:
    """Everything a chunk's tokens are derived from, with term ids as their texts (ids are numbered per batch)."""
    return (
        tokens_of(tokens.codes[tokens.term_ids], tokens.word_list),
        tokens.token_starts.tolist(),
        tokens.ascii_view,
        tokens.shift_at.tolist(),
        tokens.shift.tolist(),
        tokens.cluster_starts.tolist(),
        tokens.cluster_ends.tolist(),
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(PARTS, max_size=30).map("".join), min_size=1, max_size=3), st.integers(1, 40))
def test_pieces_give_the_tokens_of_whole_documents(texts: list[str], batch_chars: int) -> None:
    assert described(encode_documents(texts, batch_chars)) == described(encode_documents(texts, WHOLE))


def test_a_long_document_is_cut_and_its_pieces_are_the_document() -> None:
    text = "Returns within 30 days of delivery. 返品は三十日以内です。\n" * 2000
    pieces = list(_pieces([text], 4096))
    assert len(pieces) > 10
    assert "".join(piece.joined for piece in pieces) == text + "\n"
    assert all(len(piece.joined) < 4096 + 100 for piece in pieces)
    assert described(encode_documents([text], 4096)) == described(encode_documents([text], WHOLE))


def test_no_cut_before_a_joining_character() -> None:
    # Every space is followed by a combining mark: there is no safe cut, so the document stays one piece.
    text = "a \u0301" * 1000
    assert len(list(_pieces([text], 100))) == 1
    whole = encode_documents([text], WHOLE)
    assert described(encode_documents([text], 100)) == described(whole)
    assert len(np.asarray(whole.cluster_starts)) > 0
