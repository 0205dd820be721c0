"""The default tokenizer: NFKC + lowercase, ASCII words, CJK bigrams, lone CJK unigrams."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.errors import SpecError
from chunkscope.tokenize.base import get_tokenizer
from chunkscope.tokenize.default import DefaultTokenizer

tokenize = DefaultTokenizer()


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("RX-200 error E-114", ["rx", "200", "error", "e", "114"]),
        ("snake_case and CamelCase42", ["snake", "case", "and", "camelcase42"]),
        # NFKC: full-width letters and digits become ASCII before lowercasing.
        ("ＡＢＣ１２３", ["abc123"]),
        # Non-ASCII Latin letters separate tokens (only ASCII letters/digits form words).
        ("café", ["caf"]),
        ("", []),
        ("  ,.;!?  ", []),
    ],
)
def test_ascii_words(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # A run of n CJK characters gives n-1 overlapping bigrams.
        ("寒帯ジェット気流", ["寒帯", "帯ジ", "ジェ", "ェッ", "ット", "ト気", "気流"]),
        ("ひらがな", ["ひら", "らが", "がな"]),
        # Punctuation ends a run; a run of one character stays a unigram.
        ("梅雨。雨", ["梅雨", "雨"]),
        ("日", ["日"]),
        ("a日b", ["a", "日", "b"]),
        # Han, Hiragana and Katakana together are one run; the prolonged sound mark and 々 belong to it.
        ("東京タワーへ", ["東京", "京タ", "タワ", "ワー", "ーへ"]),
        ("人々", ["人々"]),
        # Mixed scripts: ASCII words and CJK runs keep text order.
        ("BM25で検索", ["bm25", "で検", "検索"]),
        # 〇 and supplementary-plane ideographs are Han too.
        ("𠮷野家", ["𠮷野", "野家"]),
        ("〇〇", ["〇〇"]),
    ],
)
def test_cjk_bigrams_and_unigrams(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_half_width_katakana_matches_full_width() -> None:
    # NFKC composes ﾋﾞ (two half-width code points) into ビ.
    assert tokenize("ﾃﾚﾋﾞ") == ["テレ", "レビ"]
    assert tokenize("ﾃﾚﾋﾞ") == tokenize("テレビ")


def test_full_width_and_case_variants_match() -> None:
    assert tokenize("ＲＸ－２００") == tokenize("rx-200") == ["rx", "200"]


def test_registry_and_spec_errors() -> None:
    assert get_tokenizer("default") == DefaultTokenizer()
    with pytest.raises(SpecError, match=r"unknown tokenizer 'nope'; valid tokenizers: .*default"):
        get_tokenizer("nope")


@given(st.text(max_size=50))
def test_tokens_are_nonempty_lowercase_and_never_span_separators(text: str) -> None:
    for token in tokenize(text):
        assert token
        assert token == token.lower()
        assert " " not in token and "\n" not in token
        assert len(token) <= 2 or token.isascii()
