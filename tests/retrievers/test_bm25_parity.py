"""BM25 scores equal rank_bm25.BM25Okapi.get_scores on the same tokens, within 1e-9."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.bm25 import BM25, BM25Index, bm25_idf
from chunkscope.tokenize.default import DefaultTokenizer

pytestmark = [
    pytest.mark.reference,
    # rank_bm25's 0 / 0 for empty chunks when b = 1 (see assert_parity).
    pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning"),
]

tokenize = DefaultTokenizer()
TOLERANCE = 1e-9


def units_of(texts: list[str]) -> list[Chunk]:
    return [Chunk(f"d{i}#0", f"d{i}", 0, len(t), t) for i, t in enumerate(texts)]


def assert_parity(texts: list[str], queries: list[str], params: BM25 | None = None) -> BM25Index:
    params = params or BM25()
    units = units_of(texts)
    index = BM25Index(params, units)
    tokens = [tokenize(t) for t in texts]
    reference = BM25Okapi(tokens, k1=params.k1, b=params.b, epsilon=params.epsilon)
    for query in queries:
        expected = reference.get_scores(tokenize(query))
        # With b = 1 a chunk of no tokens has length norm k1 * (1 - 1 + 1 * 0 / avgdl) = 0, and rank_bm25
        # computes 0 * (k1 + 1) / (0 + 0) = NaN for it; the term is absent, so chunkscope scores it 0.
        undefined = np.isnan(expected)
        assert all(params.b == 1 and not tokens[i] for i in np.flatnonzero(undefined))
        expected = np.where(undefined, 0.0, expected)
        np.testing.assert_allclose(index.scores(query), expected, rtol=0, atol=TOLERANCE, err_msg=query)
    return index


def test_hand_computed_scores_with_the_idf_floor() -> None:
    # N = 3 chunks "cat", "dog", "dog fish": lengths 1, 1, 2, avgdl = 4/3.
    # idf(cat) = idf(fish) = ln(3 - 1 + 0.5) - ln(1 + 0.5) = ln(5/3);
    # idf(dog) = ln(3 - 2 + 0.5) - ln(2 + 0.5) = ln(3/5) < 0, floored to
    #   0.25 * mean(ln 5/3, ln 3/5, ln 5/3) = 0.25 * ln(5/3) / 3 = ln(5/3) / 12.
    # Length norm k1 * (1 - b + b * len/avgdl): len 1 -> 1.5 * (0.25 + 0.5625) = 1.21875,
    #   len 2 -> 1.5 * (0.25 + 1.125) = 2.0625. With tf = 1 the tf part is 2.5 / (1 + norm).
    index = BM25Index(BM25(), units_of(["cat", "dog", "dog fish"]))
    ln53 = math.log(5 / 3)
    np.testing.assert_allclose(index.scores("cat"), [ln53 * 2.5 / 2.21875, 0, 0], rtol=0, atol=1e-12)
    floor = ln53 / 12
    np.testing.assert_allclose(
        index.scores("dog"), [0, floor * 2.5 / 2.21875, floor * 2.5 / 3.0625], rtol=0, atol=1e-12
    )


def test_negative_idf_is_floored_not_kept() -> None:
    # "the" is in all four chunks: ln(0.5) - ln(4.5) < 0, so the floor epsilon * mean idf applies.
    texts = ["the cat sat", "the dog ran", "the cat ran", "the end"]
    index = assert_parity(texts, ["the", "the cat", "cat the the"])
    raw = math.log(4 - 4 + 0.5) - math.log(4 + 0.5)
    assert raw < 0
    term = index.postings.vocabulary["the"]
    assert index.idf[term] == pytest.approx(
        0.25 * float(np.mean([math.log(4 - df + 0.5) - math.log(df + 0.5) for df in index.postings.document_frequency]))
    )
    assert index.idf[term] != pytest.approx(raw)


def test_idf_floor_function() -> None:
    # df = [1, 3] over N = 3: ln(2.5/1.5) = 0.5108 and ln(0.5/3.5) = -1.9459; mean -0.7175; floor -0.1794.
    idf = bm25_idf(np.array([1, 3]), 3, 0.25)
    assert idf[0] == pytest.approx(math.log(2.5 / 1.5))
    assert idf[1] == pytest.approx(0.25 * (math.log(2.5 / 1.5) + math.log(0.5 / 3.5)) / 2)


def test_repeated_unknown_and_empty_queries() -> None:
    texts = ["alpha beta beta", "beta gamma", "delta", "alpha alpha alpha gamma", "epsilon zeta"]
    index = assert_parity(texts, ["beta", "beta beta", "alpha alpha beta", "unknown", "unknown alpha", "", "!!"])
    # A repeated query token counts twice (rank_bm25 sums over query tokens).
    np.testing.assert_allclose(index.scores("beta beta"), 2 * index.scores("beta"), rtol=0, atol=1e-12)
    assert not index.scores("unknown").any()


def test_cjk_bigrams_and_parameters() -> None:
    texts = ["梅雨は日本の雨季", "梅雨前線が北上する", "寒帯ジェット気流", "日本の気候", "気流と前線"]
    queries = ["梅雨前線", "日本の梅雨", "ジェット気流", "雨", "未知語"]
    assert_parity(texts, queries)
    assert_parity(texts, queries, BM25(k1=1.2, b=0.5))
    assert_parity(texts, queries, BM25(k1=0.9, b=1.0, epsilon=0.5))


def test_empty_chunk_among_others() -> None:
    assert_parity(["", "word", "word other", "。。"], ["word", "other word"])
    index = assert_parity(["", "word", "word other", "。。"], ["word", "other word"], BM25(b=1.0))
    assert index.scores("word")[0] == 0.0


@pytest.mark.parametrize("chunker", ["fixed:size=200", "fixed:size=200,overlap=40", "paragraph", "fixed:size=50"])
def test_sample_data_chunks(sample: Dataset, chunker: str) -> None:
    units = chunk_corpus(parse_chunker(chunker), sample.corpus).units
    index = BM25Index(BM25(), units)
    reference = BM25Okapi([tokenize(u.indexed_text) for u in units])
    for question in sample.questions.questions:
        expected = reference.get_scores(tokenize(question.query))
        np.testing.assert_allclose(index.scores(question.query), expected, rtol=0, atol=TOLERANCE)


def test_ranking_scores_are_the_bm25_scores(sample: Dataset) -> None:
    units = chunk_corpus(parse_chunker("paragraph"), sample.corpus).units
    index = parse_retriever("bm25").build(units)
    rankings = index.rank(sample.questions.questions, 20)
    reference = BM25Okapi([tokenize(u.indexed_text) for u in units])
    for question, ranking in zip(sample.questions.questions, rankings, strict=True):
        expected = reference.get_scores(tokenize(question.query))
        for unit, score in zip(ranking.indices, ranking.scores, strict=True):
            assert score == pytest.approx(expected[unit], abs=TOLERANCE)


WORDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "x1", "y2", "日本", "本語"])


@settings(max_examples=150, deadline=None)
@given(
    documents=st.lists(st.lists(WORDS, max_size=12).map(" ".join), min_size=1, max_size=12),
    queries=st.lists(st.lists(st.one_of(WORDS, st.just("zz")), max_size=6).map(" ".join), min_size=1, max_size=4),
    k1=st.floats(min_value=0.1, max_value=3.0),
    b=st.floats(min_value=0.0, max_value=1.0),
)
def test_random_corpora(documents: list[str], queries: list[str], k1: float, b: float) -> None:
    # rank_bm25 divides by the average length: it needs at least one token somewhere.
    assume(any(tokenize(d) for d in documents))
    assert_parity(documents, queries, BM25(k1=k1, b=b))


@pytest.mark.jsquad
def test_jsquad_chunks(jsquad: Dataset) -> None:
    units = chunk_corpus(parse_chunker("fixed:size=400,overlap=80"), jsquad.corpus).units
    index = BM25Index(BM25(), units)
    reference = BM25Okapi([tokenize(u.indexed_text) for u in units])
    for question in jsquad.questions.questions[::20]:  # 199 of 3,973 questions keep the test under a second
        expected = reference.get_scores(tokenize(question.query))
        np.testing.assert_allclose(index.scores(question.query), expected, rtol=0, atol=TOLERANCE)
