"""The Sudachi tokenizer (extra chunkscope[ja]) and the splitting of long inputs."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from chunkscope.errors import MissingExtraError
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import parse_retriever
from chunkscope.tokenize.base import get_tokenizer
from chunkscope.tokenize.sudachi import split_long_text

HAS_SUDACHI = all(importlib.util.find_spec(m) is not None for m in ("sudachipy", "sudachidict_core"))
needs_sudachi = pytest.mark.skipif(
    not HAS_SUDACHI, reason="sudachipy + sudachidict-core (chunkscope[ja]) not installed"
)


@needs_sudachi
def test_surface_tokens_without_punctuation() -> None:
    # Sudachi (mode C, core): 東京都 / に / 住ん / で / い / ます / 。 -- the full stop (補助記号) is dropped
    assert get_tokenizer("sudachi")("東京都に住んでいます。") == ["東京都", "に", "住ん", "で", "い", "ます"]


@needs_sudachi
def test_dictionary_form_and_nfkc_lowercase() -> None:
    tokenize = get_tokenizer("sudachi:form=dictionary")
    assert tokenize("東京都に住んでいます。") == ["東京都", "に", "住む", "で", "いる", "ます"]
    # full-width ＡＢＣ becomes abc; the ideographic space (空白) is dropped
    assert get_tokenizer("sudachi")("ＡＢＣ　テスト") == ["abc", "テスト"]


@needs_sudachi
def test_text_over_sudachis_input_limit_is_tokenized() -> None:
    text = "猫が好きです。" * 10_000  # 210,000 UTF-8 bytes on one line, far above Sudachi's ~49 kB
    tokens = get_tokenizer("sudachi")(text)
    assert tokens[:4] == ["猫", "が", "好き", "です"]
    assert len(tokens) == 40_000


@needs_sudachi
def test_bm25_with_dictionary_forms_matches_inflections() -> None:
    # three units, so a term in one of them has idf ln(2.5) - ln(1.5) > 0
    units = (
        Chunk("u0", "d", 0, 8, "京都に住んでいた"),
        Chunk("u1", "d", 8, 13, "大阪で働く"),
        Chunk("u2", "d", 13, 17, "海を見る"),
    )
    question = [Question("q", "住む", (EvidenceItem((Span("d", 0, 1),)),))]
    surface = parse_retriever("bm25:tokenizer=sudachi").build(units).rank(question, 5)[0]
    assert surface.indices == ()  # 住ん is not 住む
    dictionary = parse_retriever('bm25:tokenizer="sudachi:form=dictionary"').build(units).rank(question, 5)[0]
    assert dictionary.indices == (0,)


def test_split_long_text_prefers_line_breaks() -> None:
    text = "aaaa\nbbbb\ncccc\n"
    # limit 10 bytes: "aaaa\nbbbb\n" (10) then "cccc\n"
    assert split_long_text(text, 10) == ["aaaa\nbbbb\n", "cccc\n"]


def test_split_long_text_then_sentence_ends_then_anywhere() -> None:
    # one line of 3 sentences, each 3 characters x 3 bytes = 9 bytes; limit 20: two sentences fit
    assert split_long_text("あい。かき。さし。", 20) == ["あい。かき。", "さし。"]
    # no sentence end: cut at the last character that fits (6 bytes = 2 characters)
    assert split_long_text("あいうえお", 6) == ["あい", "うえ", "お"]


def test_split_long_text_keeps_every_character() -> None:
    text = ("一行目の文です。" * 300 + "\n") * 20 + "終わり"
    pieces = split_long_text(text, 4000)
    assert "".join(pieces) == text
    assert all(len(p.encode("utf-8")) <= 4000 for p in pieces)
    assert split_long_text("short", 4000) == ["short"]


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sudachipy", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'chunkscope\[ja\]'"):
        get_tokenizer("sudachi")
