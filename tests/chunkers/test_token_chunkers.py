"""Token-sized fixed and recursive chunks: counted with tiktoken itself, exact offsets, canonical specs."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.errors import SpecError
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.spec.grammar import format_spec
from reference_bpe import reference_encoding, tokens_touching

FRAGMENTS = [
    *"ab .,\n7",
    "word",
    " the",
    "\n\n",
    "\u00e9",
    "e\u0301",
    "日本",
    "語",
    "。",
    "🚀",
    "👍🏽",
    "👩\u200d💻",
    "한",
    "ﬁ",
    "\u3000",
]
TEXT = st.lists(st.sampled_from(FRAGMENTS), max_size=70).map("".join)
"""ASCII, accents precomposed and combining, CJK, emoji with modifiers and ZWJ, a ligature, wide space."""
ASCII_TEXT = st.lists(st.sampled_from([*"ab .,\n7", "word", " the", "\n\n", "12345"]), min_size=20, max_size=70).map(
    "".join
)


def chunks_of(chunker: object, text: str) -> list[Chunk]:
    return chunker.chunk_document(Document("doc", text))  # type: ignore[attr-defined,no-any-return]


def assert_exact(chunks: list[Chunk], text: str) -> None:
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.start < chunk.end
        if "\ufffd" not in text:
            assert "\ufffd" not in chunk.text


# ------------------------------------------------------------------ fixed


@settings(max_examples=200, deadline=None)
@given(TEXT, st.integers(1, 30), st.data())
def test_fixed_token_windows(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = chunks_of(FixedChunker(size, overlap, unit="tokens", tokenizer="cl100k"), text)
    assert_exact(chunks, text)
    if not text:
        assert chunks == []
        return
    # The windows cover the text without a gap, start at 0 and end at the end, and always advance.
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for before, after in itertools.pairwise(chunks):
        assert before.start < after.start <= before.end
    # tiktoken's own tokens of the document: at most `size` touch a chunk (one character may take more).
    for chunk in chunks:
        touching = tokens_touching("cl100k", text, chunk.start, chunk.end)
        assert len(touching) <= size or chunk.length == 1


@settings(max_examples=150, deadline=None)
@given(ASCII_TEXT, st.integers(2, 12), st.data())
def test_fixed_token_windows_hold_size_tokens_and_share_overlap(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = chunks_of(FixedChunker(size, overlap, unit="tokens", tokenizer="cl100k"), text)
    assume(len(chunks) > 1)
    tokens = [tokens_touching("cl100k", text, c.start, c.end) for c in chunks]
    # Without a character split between tokens, every window but the last holds exactly `size` tokens,
    # and consecutive windows share exactly `overlap` of them.
    assert all(len(t) == size for t in tokens[:-1])
    assert len(tokens[-1]) <= size
    for before, after in itertools.pairwise(tokens):
        assert len(before & after) == overlap


def test_fixed_tokens_by_hand() -> None:
    # cl100k: "Hello" " world" "," " Hello" " again" "." are six tokens.
    text = "Hello world, Hello again."
    assert len(reference_encoding("cl100k").encode_ordinary(text)) == 6
    chunks = chunks_of(FixedChunker(2, 0, unit="tokens", tokenizer="cl100k"), text)
    assert [c.text for c in chunks] == ["Hello world", ", Hello", " again."]
    chunks = chunks_of(FixedChunker(3, 1, unit="tokens", tokenizer="cl100k"), text)
    assert [c.text for c in chunks] == ["Hello world,", ", Hello again", " again."]


def test_no_replacement_character_where_a_token_splits_an_emoji() -> None:
    text = "🚀" * 9
    encoding = reference_encoding("cl100k")
    ids = encoding.encode_ordinary(text)
    assert len(ids) > 9  # each rocket takes more than one byte-level token
    # Decoding token windows, as token splitters do, leaves broken characters...
    assert any("\ufffd" in encoding.decode(ids[i : i + 2]) for i in range(0, len(ids), 2))
    # ...the chunks cut at character starts instead.
    chunks = chunks_of(FixedChunker(2, 0, unit="tokens", tokenizer="cl100k"), text)
    assert_exact(chunks, text)
    assert "".join(c.text for c in chunks) == text


def test_a_character_longer_than_the_window_is_one_chunk() -> None:
    chunks = chunks_of(FixedChunker(1, 0, unit="tokens", tokenizer="cl100k"), "a🚀b")
    assert [c.text for c in chunks] == ["a", "🚀", "b"]


@pytest.mark.parametrize("tokenizer", ["o200k", "e5"])
@settings(max_examples=40, deadline=None)
@given(text=TEXT, size=st.integers(1, 20))
def test_fixed_token_windows_with_other_tokenizers(tokenizer: str, text: str, size: int) -> None:
    from chunkscope.tokenize.counting import token_counter

    chunks = chunks_of(FixedChunker(size, 0, unit="tokens", tokenizer=tokenizer), text)
    assert_exact(chunks, text)
    assert "".join(c.text for c in chunks) == text
    spans = token_counter(tokenizer).spans(text)
    for chunk in chunks:
        assert spans.touching(chunk.start, chunk.end) <= size or chunk.length == 1


def test_corpus_and_document_paths_agree(sample) -> None:  # type: ignore[no-untyped-def]
    for spec in ("fixed:size=60,overlap=10,unit=tokens", "recursive:size=60,overlap=10,unit=tokens,tokenizer=o200k"):
        chunker = parse_chunker(spec)
        by_document = [c for d in sample.corpus.documents for c in chunker.chunk_document(d)]  # type: ignore[union-attr]
        assert list(chunk_corpus(chunker, sample.corpus).units) == by_document


# ------------------------------------------------------------------ recursive


@settings(max_examples=150, deadline=None)
@given(TEXT, st.integers(1, 30), st.data())
def test_recursive_token_chunks(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    chunks = chunks_of(RecursiveChunker(size, overlap, unit="tokens", tokenizer="cl100k"), text)
    assert_exact(chunks, text)
    for chunk in chunks:
        touching = tokens_touching("cl100k", text, chunk.start, chunk.end)
        assert len(touching) <= size or chunk.length == 1
    covered = {i for c in chunks for i in range(c.start, c.end)}
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())


def test_recursive_tokens_by_hand() -> None:
    text = "One two three. Four five six. Seven eight."
    encoding = reference_encoding("cl100k")
    words = [encoding.decode([t]) for t in encoding.encode_ordinary(text)]
    assert words == ["One", " two", " three", ".", " Four", " five", " six", ".", " Seven", " eight", "."]
    # The pieces cut after ". " are "One two three. ", "Four five six. " and "Seven eight.". The first
    # touches 5 document tokens (its last space lies in " Four"); the first two together touch 9, the
    # last two 7 (" Four" to the final ".").
    nine = chunks_of(RecursiveChunker(9, 0, unit="tokens", tokenizer="cl100k"), text)
    assert [c.text for c in nine] == ["One two three. Four five six.", "Seven eight."]
    eight = chunks_of(RecursiveChunker(8, 0, unit="tokens", tokenizer="cl100k"), text)
    assert [c.text for c in eight] == ["One two three.", "Four five six. Seven eight."]


# ------------------------------------------------------------------ specs


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("fixed:size=400", "fixed:size=400,overlap=0"),
        ("fixed:size=400,unit=chars", "fixed:size=400,overlap=0"),
        ("fixed:size=400,unit=tokens,tokenizer=chars", "fixed:size=400,overlap=0"),
        ("fixed:size=512,overlap=64,unit=tokens", "fixed:size=512,overlap=64,unit=tokens,tokenizer=cl100k"),
        ("fixed:size=256,unit=tokens,tokenizer=o200k", "fixed:size=256,overlap=0,unit=tokens,tokenizer=o200k"),
        ("recursive:size=300,overlap=60", "recursive:size=300,overlap=60"),
        ("recursive:size=300,unit=tokens,tokenizer=e5", "recursive:size=300,overlap=0,unit=tokens,tokenizer=e5"),
        (
            "parent:child=fixed:size=50,unit=tokens",
            "parent:child=(fixed:size=50,overlap=0,unit=tokens,tokenizer=cl100k),"
            "parent=(markdown:max_chars=1500,levels=3,prefix=none)",
        ),
    ],
)
def test_canonical_specs(spec: str, canonical: str) -> None:
    strategy = parse_chunker(spec)
    assert format_spec(strategy) == canonical
    assert parse_chunker(canonical) == strategy


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fixed:size=10,unit=words", "unit must be chars or tokens, got 'words'"),
        ("fixed:size=10,tokenizer=cl100k", "tokenizer=cl100k counts tokens: add unit=tokens"),
        (
            "fixed:size=10,unit=tokens,tokenizer=gpt2",
            "unknown counting tokenizer 'gpt2'; valid counting tokenizers: chars, cl100k, e5, e5-enpt, o200k",
        ),
        ("recursive:size=10,unit=tokens,tokenizer=bert", "unknown counting tokenizer 'bert'"),
    ],
)
def test_bad_unit_specs(spec: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_chunker(spec)
    assert message in str(caught.value)
    assert spec in str(caught.value)


def test_parent_children_in_tokens() -> None:
    document = Document("doc", "# Title\n\nHello world, Hello again. " * 3)
    chunker = ParentChildChunker(child=FixedChunker(4, 0, unit="tokens", tokenizer="cl100k"))
    chunking = chunker.chunk_corpus(Corpus((document,)))
    assert chunking.parents is not None
    for child, parent in zip(chunking.units, chunking.parents, strict=True):
        assert document.text[child.start : child.end] == child.text
        # Children are token windows of their parent's body, tokenized on its own.
        start, end = child.start - parent.start, child.end - parent.start
        assert len(tokens_touching("cl100k", parent.text, start, end)) <= 4
