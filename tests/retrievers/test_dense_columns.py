"""Long posting lists as dense columns or intp ids: the same sums, bit for bit, as scattering every posting."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk
from chunkscope.results import Ranking
from chunkscope.retrievers import parse_retriever, scoring
from chunkscope.retrievers.base import build_index
from chunkscope.retrievers.bm25 import BM25, BM25Index
from chunkscope.retrievers.query_terms import QueryTerms
from chunkscope.retrievers.scoring import (
    LongLists,
    batch_scores,
    query_by_query_scores,
    rank_queries_numpy,
)
from chunkscope.tokenize.default import DefaultTokenizer


def bits(scores: np.ndarray) -> list[int]:
    """The scores' IEEE bit patterns (so that -0.0 and 0.0 differ)."""
    return np.ascontiguousarray(scores, dtype=np.float64).view(np.int64).ravel().tolist()


@st.composite
def postings_queries_and_share(
    draw: st.DrawFn,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, list[list[int]], float]:
    unit_count = draw(st.integers(1, 40))
    term_count = draw(st.integers(1, 8))
    # Some lists in every unit, some in a few: with the share drawn below, dense and scattered terms mix.
    lists = [sorted(draw(st.sets(st.integers(0, unit_count - 1)))) for _ in range(term_count)]
    pointers = np.concatenate(([0], np.cumsum([len(units) for units in lists]))).astype(np.int64)
    units = np.array([u for units in lists for u in units], dtype=np.int32)
    # Few distinct values (ties, cancellations), negative and signed zero weights among them.
    values = st.sampled_from([0.5, 0.1, 0.2, 0.3, -0.25, -0.1, 0.0, -0.0, 1e-17, 3.0])
    weights = np.array(draw(st.lists(values, min_size=len(units), max_size=len(units))), dtype=np.float64)
    queries = draw(st.lists(st.lists(st.integers(0, term_count - 1), max_size=9), min_size=1, max_size=6))
    share = draw(st.sampled_from([1.0, 1.5, 2.0, 4.0, 1e9]))
    return pointers, units, weights, unit_count, queries, share


@settings(max_examples=300, deadline=None)
@given(postings_queries_and_share(), st.sampled_from([1, 3, math.inf]), st.booleans())
def test_long_lists_sum_as_scattered_postings(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, int, list[list[int]], float], least: float, unweighted: bool
) -> None:
    pointers, units, weights, unit_count, queries, share = case
    chosen = None if unweighted else weights
    terms = QueryTerms.of(queries)
    dense = LongLists(pointers, units, chosen, unit_count, share=share, least=least)
    expected = batch_scores(pointers, units, chosen, unit_count, terms)
    got = query_by_query_scores(pointers, units, chosen, unit_count, terms, dense)
    assert bits(got) == bits(expected)
    # Brute force: Python floats added term by term in query order, from 0.0.
    for query, row in zip(queries, got, strict=True):
        sums = [0.0] * unit_count
        for term in query:
            for p in range(int(pointers[term]), int(pointers[term + 1])):
                sums[int(units[p])] += 1.0 if chosen is None else float(weights[p])
        assert bits(row) == bits(np.array(sums))


def test_dense_columns_take_the_commonest_terms_within_the_budget() -> None:
    # Term 0 in all 8 units, term 1 in 4, term 2 in 2, term 3 in 1.
    lists = [range(8), range(0, 8, 2), (1, 5), (3,)]
    pointers = np.concatenate(([0], np.cumsum([len(u) for u in lists]))).astype(np.int64)
    units = np.array([u for ul in lists for u in ul], dtype=np.int32)
    weights = np.arange(1, len(units) + 1, dtype=np.float64)
    slots, matrix = LongLists(pointers, units, weights, 8, share=4.0).columns()
    # In more than a quarter of the units: terms 0 and 1.
    assert slots.tolist() == [0, 1, -1, -1]
    assert matrix.tolist() == [[1, 2, 3, 4, 5, 6, 7, 8], [9, 0, 10, 0, 11, 0, 12, 0]]
    # Room for one column only: the commonest term.
    slots, matrix = LongLists(pointers, units, weights, 8, share=4.0, budget=8 * 8).columns()
    assert slots.tolist() == [0, -1, -1, -1]
    assert matrix.shape == (1, 8)
    # Lists of at least 2 postings without a column get their own intp unit ids: term 2 only.
    starts, own = LongLists(pointers, units, weights, 8, share=4.0, least=2).own_units()
    assert starts.tolist() == [-1, -1, 0, -1]
    assert own.tolist() == [1, 5]
    assert own.dtype == np.intp
    slots, matrix = LongLists(pointers, units, None, 8, share=1e9).columns()
    assert slots.tolist() == [0, 1, 2, 3]
    assert matrix[3].tolist() == [0, 0, 0, 1, 0, 0, 0, 0]


TEXTS = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "the cat and the dog",
    "a bird on the wire",
    "the cat sat on the mat",  # a copy of chunk 0: equal scores, ties broken by position
    "the the the mat",
    "fish swim in the sea",
    "the log and the mat and the cat",
    "the sun is hot",
    "the moon is cold",
    "rain on the sea",
    "the wind and the rain",
]
QUERIES = [
    "the cat on the mat",
    "dog log the",
    "the",
    "bird fish the cat cat",
    "zebra",
    "mat the sat the",
    "rain sea and the cat on",
]


def definition_scores(texts: list[str], query: str, params: BM25) -> list[float]:
    """BM25 from its definition (rank_bm25's Okapi, idf floored), in Python floats, query tokens in order."""
    tokenize = DefaultTokenizer()
    docs = [tokenize(t) for t in texts]
    count = len(docs)
    average = sum(map(len, docs)) / count
    vocabulary = list(dict.fromkeys(token for doc in docs for token in doc))
    df = {t: sum(t in doc for doc in docs) for t in vocabulary}
    idf = {t: math.log(count - df[t] + 0.5) - math.log(df[t] + 0.5) for t in vocabulary}
    floor = params.epsilon * sum(idf.values()) / len(idf)
    idf = {t: floor if v < 0 else v for t, v in idf.items()}
    scores = []
    for doc in docs:
        tf = Counter(doc)
        norm = params.k1 * (1 - params.b + params.b * len(doc) / average)
        score = 0.0
        for token in tokenize(query):
            if tf[token]:
                score += idf[token] * (tf[token] * (params.k1 + 1) / (tf[token] + norm))
        scores.append(score)
    return scores


@pytest.mark.parametrize(("share", "least"), [(1.0, math.inf), (2.5, math.inf), (2.5, 2), (1e9, 1)])
def test_mixed_dense_and_scattered_terms_rank_as_the_definition(
    share: float, least: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "the" is in every chunk (a negative idf, floored); "on" in five of twelve, "cat" in four; "bird" in one.
    # Dense columns: none (share 1), "the" and "on" (in more than 12 / 2.5 chunks), every term (share 1e9);
    # own intp ids for the other lists of at least 2 postings ("cat", "mat", "sat", ...), or none.
    monkeypatch.setattr(scoring, "LONG_POSTINGS", 0)  # the query-by-query path, whatever the lists' lengths
    params = BM25()
    units = [Chunk(f"d{i}#0", f"d{i}", 0, len(text), text) for i, text in enumerate(TEXTS)]
    index = BM25Index(params, units)
    postings = index.postings
    dense = LongLists(postings.pointers, postings.units, index.weights, postings.unit_count, share=share, least=least)
    queries = postings.queries_term_ids(QUERIES)
    rankings = rank_queries_numpy(
        postings.pointers, postings.units, index.weights, postings.unit_count, index.tie_break, queries, 5, dense
    )
    for query, ranking in zip(QUERIES, rankings, strict=True):
        scores = definition_scores(TEXTS, query, params)
        order = sorted((u for u in range(len(TEXTS)) if scores[u] > 0), key=lambda u: (-scores[u], units[u].doc))[:5]
        assert list(ranking.indices) == order, query
        assert ranking.scores == pytest.approx([scores[u] for u in order], rel=1e-12, abs=0)
    # Ties are broken by document id, as strings: "d11" before "d2" for "the".
    assert rankings[2].indices[2:4] == (11, 2)
    # The copy of chunk 0 ties with it and comes right after it.
    (first, *_) = rankings
    at = first.indices.index(0)
    assert first.indices[at + 1] == 4
    assert first.scores[at] == first.scores[at + 1]
    assert rankings[4] == Ranking((), ())


@pytest.mark.jsquad
@pytest.mark.parametrize("retriever", ["bm25", "overlap"])
def test_jsquad_rankings_alike_with_and_without_dense_columns(
    jsquad: Dataset, retriever: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # About 2,500 chunks of 100 characters: the common bigrams are in most of them.
    units = chunk_corpus(parse_chunker("fixed:size=100"), jsquad.corpus).units
    monkeypatch.setenv("CHUNKSCOPE_BACKEND", "numpy")
    index = build_index(parse_retriever(retriever), units, jsquad.corpus)
    questions = jsquad.questions.questions
    monkeypatch.setattr(scoring, "LONG_POSTINGS", 10**9)  # one bincount per batch of queries: the reference
    reference = index.rank(questions, 20)
    assert sum(1 for ranking in reference if ranking.indices) > len(questions) // 2
    monkeypatch.setattr(scoring, "LONG_POSTINGS", 0)  # query by query, the commonest terms as dense columns
    assert index.rank(questions, 20) == reference
    slots, _ = index.long_lists.columns()  # type: ignore[attr-defined]
    assert (slots >= 0).sum() > 0
    postings = index.postings  # type: ignore[attr-defined]
    weights = getattr(index, "weights", None)
    many = LongLists(postings.pointers, postings.units, weights, postings.unit_count, share=16.0, least=100)
    assert (many.columns()[0] >= 0).sum() > 50
    monkeypatch.setattr(index, "long_lists", many)
    assert index.rank(questions, 20) == reference
    pytest.importorskip("chunkscope.retrievers.compiled", reason="numba (extra 'fast') is not installed")
    monkeypatch.setenv("CHUNKSCOPE_BACKEND", "numba")
    assert index.rank(questions, 20) == reference
