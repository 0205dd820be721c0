"""Chunk tokens taken from the documents' token streams equal tokenising each chunk's text alone."""

from __future__ import annotations

import itertools
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.model import Chunk, Corpus, Document
from chunkscope.tokenize.char_table import is_composing_jamo, joins_previous
from chunkscope.tokenize.chunks import chunk_token_batches, chunk_tokens
from chunkscope.tokenize.default import DefaultTokenizer
from chunkscope.tokenize.streams import ChunkTokens, encode_documents

tokenize = DefaultTokenizer()

TRICKY = (
    "ｶﾞｷﾞﾊﾟﾋﾟｰｯ"  # half-width katakana with (semi-)voiced marks that NFKC composes
    "ﬁﬂﬃ"  # ligatures that expand to ASCII words
    "…℃㍿½①㈱"  # expansions, some with separators inside
    "é\u0301\u0308\u0323\u3099\u309a"  # precomposed letter and combining marks
    "가각각"  # Hangul syllables and conjoining jamo
    "İΣßK"  # lower() that lengthens, final sigma, Kelvin sign
    "ＡＢ１２"  # full-width letters and digits
    "\ufe0f\U000e0100𠮷々ー〇"  # variation selectors, supplementary ideograph, iteration and prolonged marks
)
ALPHABET = st.one_of(
    st.sampled_from("abcXYZ019 ,.\n\t-_"),
    st.sampled_from("日本語の梅雨前線ひらがなカタカナ。、「」"),
    st.sampled_from(TRICKY),
    st.characters(),
)
TEXTS = st.text(alphabet=ALPHABET, max_size=60)
PREFIXES = st.sampled_from(["", "Title\n", "見出し > 節\n", "abc", "x ", "ﾞ\n", "日本"])


def token_texts(units: list[Chunk], corpus: Corpus | None) -> list[list[str]]:
    return unit_token_texts(chunk_tokens(tokenize, units, corpus))


def unit_token_texts(tokens: ChunkTokens) -> list[list[str]]:
    bounds = np.concatenate(([0], np.cumsum(tokens.lengths))).tolist()
    ids = tokens.ids.tolist()
    return [[tokens.term_text(i) for i in ids[a:b]] for a, b in itertools.pairwise(bounds)]


@st.composite
def chunked_corpora(draw: st.DrawFn) -> tuple[Corpus, list[Chunk]]:
    texts = draw(st.lists(TEXTS, min_size=1, max_size=4))
    documents = [Document(f"d{i}", text) for i, text in enumerate(texts)]
    units = []
    for number in range(draw(st.integers(0, 12))):
        document = draw(st.sampled_from(documents))
        start = draw(st.integers(0, len(document.text)))
        end = draw(st.integers(start, len(document.text)))
        prefix = draw(PREFIXES)
        units.append(Chunk(f"u{number}", document.id, start, end, document.text[start:end], prefix))
    return Corpus(tuple(documents)), units


@settings(max_examples=400, deadline=None)
@given(chunked_corpora())
def test_chunk_tokens_equal_tokenising_each_chunk(case: tuple[Corpus, list[Chunk]]) -> None:
    corpus, units = case
    expected = [tokenize(unit.indexed_text) for unit in units]
    assert token_texts(units, corpus) == expected
    assert token_texts(units, None) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXTS, max_size=5))
def test_document_streams_hold_each_documents_tokens(texts: list[str]) -> None:
    tokens = encode_documents(texts)
    units = [Chunk(f"d{i}#0", f"d{i}", 0, len(t), t) for i, t in enumerate(texts)]
    corpus = Corpus(tuple(Document(f"d{i}", t) for i, t in enumerate(texts)))
    assert token_texts(units, corpus) == [tokenize(t) for t in texts]
    assert len(tokens.term_ids) == sum(len(tokenize(t)) for t in texts)


def test_every_window_of_a_mixed_document() -> None:
    # Brute force over every (start, end) of a document dense with edge cases.
    text = "ｶﾞｽ管ﬁle…日本語e\u0301 ok İx ½7 가\u11a8 BM25で検索。ﾊﾟﾝ"
    document = Document("d", text)
    units = [Chunk(f"{s}-{e}", "d", s, e, text[s:e]) for s in range(len(text) + 1) for e in range(s, len(text) + 1)]
    assert token_texts(units, Corpus((document,))) == [tokenize(u.text) for u in units]


def test_same_token_same_id_across_edges_and_documents() -> None:
    text = "hello world 日本語 hello"
    units = [Chunk("a", "d", 0, 11, text[:11]), Chunk("b", "d", 2, 9, text[2:9]), Chunk("c", "d", 12, 21, text[12:])]
    tokens = chunk_tokens(tokenize, units, Corpus((Document("d", text),)))
    texts = [tokens.term_text(i) for i in tokens.ids.tolist()]
    assert texts == ["hello", "world", "llo", "wor", "日本", "本語", "hello"]
    ids = tokens.ids.tolist()
    assert ids[0] == ids[6] and len(set(ids)) == 6
    assert tokens.lookup(["hello", "llo", "本語", "nope", "日"]).tolist()[:3] == [ids[0], ids[2], ids[5]]
    assert tokens.lookup(["nope", "日"]).tolist() == [-1, -1]


def test_chunks_of_documents_not_in_the_corpus_are_tokenised_alone() -> None:
    units = [Chunk("x#0", "x", 0, 5, "ab cd")]
    assert token_texts(units, Corpus((Document("d", "zz"),))) == [["ab", "cd"]]


@settings(max_examples=300, deadline=None)
@given(chunked_corpora(), st.integers(1, 80))
def test_batches_of_units_hold_the_tokens_of_each_unit(case: tuple[Corpus, list[Chunk]], batch_chars: int) -> None:
    """However the units are cut into runs, each run's tokens are its units' own, in order."""
    corpus, units = case
    expected = [tokenize(unit.indexed_text) for unit in units]
    for source in (corpus, None):
        found: list[list[str]] = []
        for first, tokens in chunk_token_batches(tokenize, units, source, batch_chars):
            assert first == len(found)
            found += unit_token_texts(tokens)
        assert found == expected


def test_batches_cover_units_of_documents_outside_the_corpus_and_other_tokenizers() -> None:
    units = [Chunk("x#0", "x", 0, 5, "ab cd"), Chunk("d#0", "d", 0, 2, "zz")]
    corpus = Corpus((Document("d", "zz"),))
    assert [unit_token_texts(t) for _, t in chunk_token_batches(tokenize, units, corpus, 1)] == [
        [["ab", "cd"]],
        [["zz"]],
    ]
    split = [unit_token_texts(t) for _, t in chunk_token_batches(str.split, units, corpus, 1000)]
    assert split == [[["ab", "cd"], ["zz"]]]


@settings(max_examples=200, deadline=None)
@given(chunked_corpora())
def test_term_texts_are_the_text_of_every_id_in_order(case: tuple[Corpus, list[Chunk]]) -> None:
    corpus, units = case
    for tokens in (chunk_tokens(tokenize, units, corpus), chunk_tokens(str.split, units, corpus)):
        count = int(tokens.ids.max()) + 1 if len(tokens.ids) else 0
        assert tokens.term_texts(count) == [tokens.term_text(i) for i in range(count)]


# The premises of ``joins_previous``, checked on the running Python's Unicode database.


def test_only_marks_compose_with_a_preceding_character_by_the_decomposition_table() -> None:
    seconds = set()
    for code in range(0x110000):
        decomposition = unicodedata.decomposition(chr(code))
        if decomposition and not decomposition.startswith("<") and len(decomposition.split()) == 2:
            seconds.add(int(decomposition.split()[1], 16))
    assert seconds
    assert all(unicodedata.category(chr(c)).startswith("M") for c in seconds)


def test_hangul_composition_joins_exactly_vowel_and_trailing_jamo() -> None:
    jamo_blocks = [*range(0x1100, 0x1200), *range(0xA960, 0xA980), *range(0xD7B0, 0xD800)]
    # A vowel joins a leading consonant; a trailing consonant joins a vowel-ending syllable.
    joining = {
        c for c in jamo_blocks for lead in ("\u1100", "\uac00") if len(unicodedata.normalize("NFC", lead + chr(c))) == 1
    }
    assert joining == {c for c in jamo_blocks if is_composing_jamo(c)}


def test_only_marks_have_a_nonzero_combining_class() -> None:
    assert all(unicodedata.category(chr(c)).startswith("M") for c in range(0x110000) if unicodedata.combining(chr(c)))


@pytest.mark.parametrize(
    ("char", "joins"),
    [
        ("a", False),
        ("\u0301", True),
        ("ﾞ", True),
        ("\u1161", True),
        ("\u1100", False),
        ("가", False),
        ("\ufe0f", True),
        ("。", False),
    ],
)
def test_joins_previous(char: str, joins: bool) -> None:
    assert joins_previous(char) is joins
