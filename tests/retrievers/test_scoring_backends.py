"""The numpy and compiled scoring paths rank exactly alike, and as a brute-force oracle does."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk
from chunkscope.results import Ranking
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.base import build_index, tie_break_positions, top_hits
from chunkscope.retrievers.bm25 import BM25
from chunkscope.retrievers.lexical import build_postings
from chunkscope.retrievers.scoring import (
    QueryTerms,
    batch_scores,
    block_size,
    query_by_query_scores,
    rank_queries,
    rank_queries_numpy,
    top_rows,
)


@pytest.fixture(name="compiled", scope="module")
def compiled_module() -> ModuleType:
    """The compiled scoring path; its tests skip without numba (extra ``fast``)."""
    return pytest.importorskip("chunkscope.retrievers.compiled", reason="numba (extra 'fast') is not installed")


# Few distinct weights, some negative or zero, so that sums tie and some scores are not above 0.
WEIGHTS = st.sampled_from([0.5, 0.25, 1.0, -0.25, 0.0, 0.1, 0.2, 0.3])


Case = tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray, list[list[int]]]
"""Postings (pointers, units, weights), unit count, tie-break positions and query term lists."""


@st.composite
def postings_and_queries(draw: st.DrawFn) -> Case:
    unit_count = draw(st.integers(1, 12))
    term_count = draw(st.integers(1, 6))
    lists = [sorted(draw(st.sets(st.integers(0, unit_count - 1)))) for _ in range(term_count)]
    pointers = np.concatenate(([0], np.cumsum([len(units) for units in lists]))).astype(np.int64)
    units = np.array([u for units in lists for u in units], dtype=np.int32)
    weights = np.array(draw(st.lists(WEIGHTS, min_size=len(units), max_size=len(units))), dtype=np.float64)
    tie_break = np.array(draw(st.permutations(range(unit_count))), dtype=np.int64)
    queries = draw(st.lists(st.lists(st.integers(0, term_count - 1), max_size=5), min_size=1, max_size=6))
    return pointers, units, weights, unit_count, tie_break, queries


def brute_force(
    pointers: np.ndarray,
    units: np.ndarray,
    weights: np.ndarray | None,
    unit_count: int,
    tie_break: np.ndarray,
    queries: list[list[int]],
    depth: int,
) -> list[Ranking]:
    """Python floats added in query-term order, then every unit sorted by (-score, tie-break)."""
    rankings = []
    for query in queries:
        scores = [0.0] * unit_count
        for term in query:
            for p in range(int(pointers[term]), int(pointers[term + 1])):
                scores[int(units[p])] += 1.0 if weights is None else float(weights[p])
        hits = sorted((u for u in range(unit_count) if scores[u] > 0), key=lambda u: (-scores[u], int(tie_break[u])))
        rankings.append(Ranking(tuple(hits[:depth]), tuple(scores[u] for u in hits[:depth])))
    return rankings


@settings(max_examples=300, deadline=None)
@given(postings_and_queries(), st.integers(1, 8), st.booleans())
def test_both_paths_equal_the_oracle(compiled: ModuleType, case: Case, depth: int, unweighted: bool) -> None:
    pointers, units, weights, unit_count, tie_break, queries = case
    if unweighted:
        weights = None
    expected = brute_force(pointers, units, weights, unit_count, tie_break, queries, depth)
    args = (pointers, units, weights, unit_count, tie_break, QueryTerms.of(queries), depth)
    assert rank_queries_numpy(*args) == expected
    assert compiled.rank_queries(*args) == expected


def test_ties_break_by_position_and_zero_scores_are_not_retrieved(compiled: ModuleType) -> None:
    # Term 0 is in units 0..3 with equal weights; unit 4 only has a zero weight.
    pointers = np.array([0, 4, 5], dtype=np.int64)
    units = np.array([0, 1, 2, 3, 4], dtype=np.int32)
    weights = np.array([0.5, 0.5, 0.5, 0.5, 0.0])
    tie_break = np.array([3, 1, 2, 0, 4], dtype=np.int64)
    for rank in (rank_queries_numpy, compiled.rank_queries):
        (ranking,) = rank(pointers, units, weights, 5, tie_break, QueryTerms.of([[0, 1]]), 3)
        assert ranking == Ranking((3, 1, 2), (0.5, 0.5, 0.5))
        (nothing,) = rank(pointers, units, weights, 5, tie_break, QueryTerms.of([[1]]), 3)
        assert nothing == Ranking((), ())


def test_distinct_query_terms_keep_first_occurrences() -> None:
    distinct = QueryTerms.of([[3, 1, 3, 2, 1], [], [5, 5]]).distinct()
    assert distinct.terms.tolist() == [3, 1, 2, 5]
    assert distinct.offsets.tolist() == [0, 3, 3, 4]


def test_top_rows_matches_top_hits() -> None:
    generator = np.random.default_rng(7)
    scores = generator.choice([0.0, -1.0, 0.5, 1.0, 2.0], size=(40, 30))
    tie_break = generator.permutation(30)
    for depth in (1, 5, 30, 50):
        assert top_rows(scores, tie_break, depth) == [top_hits(row, tie_break, depth) for row in scores]


@pytest.mark.parametrize("columns", [1024, 1000, 4097])
def test_top_rows_by_blocks_matches_top_hits(columns: int) -> None:
    # Wide rows take the block-maxima route; few distinct values make ties across and within blocks.
    generator = np.random.default_rng(columns)
    scores = generator.choice([0.0, -1.0, 0.5, 1.0, 2.0, 3.0], size=(12, columns), p=[0.5, 0.1, 0.2, 0.1, 0.07, 0.03])
    scores[0] = 0.0
    scores[1, :] = -1.0
    scores[1, -1] = 0.25
    scores[2] = generator.random(columns)
    tie_break = generator.permutation(columns)
    for depth in (1, 3, 20):
        assert top_rows(scores, tie_break, depth) == [top_hits(row, tie_break, depth) for row in scores]


@pytest.mark.parametrize("columns", [16, 79, 80, 81, 200, 326, 633, 1009, 2467])
def test_top_rows_with_small_blocks_matches_top_hits(columns: int) -> None:
    # JSQuAD's chunkings have 300 to 2,500 units: blocks of 4 to 11 columns, a remainder past the last stride.
    generator = np.random.default_rng(columns + 1)
    scores = generator.choice([0.0, -1.0, 0.5, 1.0, 2.0], size=(9, columns), p=[0.6, 0.1, 0.2, 0.07, 0.03])
    scores[0] = 0.0
    scores[1, -1] = 4.0  # the best score in the remainder
    scores[2] = generator.random(columns)
    tie_break = generator.permutation(columns)
    for depth in (1, 2, 5, 20):
        assert top_rows(scores, tie_break, depth) == [top_hits(row, tie_break, depth) for row in scores]
    assert top_rows(scores, tie_break, 0) == [Ranking((), ())] * 9


def test_block_sizes_follow_the_square_root_rule() -> None:
    assert block_size(2467, 20) == 11 and block_size(326, 20) == 4 and block_size(91_789, 20) == 64
    assert block_size(319, 20) == 0  # fewer than four blocks of 4 per hit: partitioned whole
    assert block_size(10, 20) == 0


def test_wide_postings_rank_as_the_oracle(compiled: ModuleType) -> None:
    # Thousands of units and lists in most of them: the numpy path takes its rows' block maxima.
    generator = np.random.default_rng(11)
    unit_count, term_count = 3000, 40
    lists = [
        np.sort(generator.choice(unit_count, generator.integers(1, unit_count), replace=False))
        for _ in range(term_count)
    ]
    pointers = np.concatenate(([0], np.cumsum([len(units) for units in lists]))).astype(np.int64)
    units = np.concatenate(lists).astype(np.int32)
    # Weights of a few values, so that many sums tie; a zero weight scores no unit above 0 on its own.
    weights = generator.choice([0.0, 0.125, 0.5, 1.0, 1.5], size=len(units))
    tie_break = generator.permutation(unit_count).astype(np.int64)
    queries = [generator.integers(0, term_count, generator.integers(0, 12)).tolist() for _ in range(30)]
    for depth in (1, 5, 20):
        expected = brute_force(pointers, units, weights, unit_count, tie_break, queries, depth)
        args = (pointers, units, weights, unit_count, tie_break, QueryTerms.of(queries), depth)
        assert rank_queries_numpy(*args) == expected
        assert compiled.rank_queries(*args) == expected


@pytest.mark.jsquad
def test_jsquad_rankings_equal_each_query_scored_alone(jsquad: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # About 2,500 chunks: wide enough rows for the block maxima at depth 5.
    units = chunk_corpus(parse_chunker("fixed:size=100"), jsquad.corpus).units
    monkeypatch.setenv("CHUNKSCOPE_BACKEND", "numpy")
    index = build_index(BM25(), units, jsquad.corpus)
    questions = jsquad.questions.questions[::10]
    rankings = index.rank(questions, 5)
    tie_break = tie_break_positions(units)
    assert rankings == [top_hits(index.scores(q.query), tie_break, 5) for q in questions]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), max_size=15), min_size=1, max_size=8))
def test_postings_builders_agree(compiled: ModuleType, token_lists: list[list[int]]) -> None:
    ids = np.array([t for tokens in token_lists for t in tokens], dtype=np.int32)
    lengths = np.array([len(tokens) for tokens in token_lists], dtype=np.int64)
    numpy_built = build_postings(ids, lengths)
    compiled_built = compiled.build_postings(ids, lengths)
    for ours, theirs in zip(numpy_built, compiled_built, strict=True):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    # Oracle: each (term, unit) pair once, with its count; terms in order of first occurrence.
    stream_ids, pointers, units, frequencies, first_seen = numpy_built
    pairs = {(t, u): tokens.count(t) for u, tokens in enumerate(token_lists) for t in tokens}
    got = {
        (int(stream_ids[k]), int(units[p])): int(frequencies[p])
        for k in range(len(stream_ids))
        for p in range(int(pointers[k]), int(pointers[k + 1]))
    }
    assert got == pairs
    flat = [t for tokens in token_lists for t in tokens]
    assert [int(stream_ids[k]) for k in first_seen] == list(dict.fromkeys(flat))


@pytest.mark.parametrize("retriever", ["bm25", "overlap", "bm25:k1=0.9,b=0.3"])
def test_retrievers_rank_alike_on_both_backends(
    compiled: ModuleType, sample: Dataset, retriever: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    units = chunk_corpus(parse_chunker("fixed:size=120,overlap=30"), sample.corpus).units
    questions = sample.questions.questions
    monkeypatch.setenv("CHUNKSCOPE_BACKEND", "numpy")
    reference = build_index(parse_retriever(retriever), units, sample.corpus).rank(questions, 20)
    monkeypatch.setenv("CHUNKSCOPE_BACKEND", "numba")
    assert build_index(parse_retriever(retriever), units, sample.corpus).rank(questions, 20) == reference
    assert any(ranking.indices for ranking in reference)


def test_rank_queries_without_queries_or_terms() -> None:
    pointers = np.array([0, 1], dtype=np.int64)
    units = np.array([0], dtype=np.int32)
    assert rank_queries(pointers, units, None, 1, np.arange(1), QueryTerms.of([]), 5) == []
    (empty,) = rank_queries(pointers, units, None, 1, np.arange(1), QueryTerms.of([[]]), 5)
    assert empty == Ranking((), ())


def test_compiled_bm25_weights_are_bit_identical(
    compiled: ModuleType, sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    units = chunk_corpus(parse_chunker("fixed:size=90,overlap=20"), sample.corpus).units
    weights = {}
    for backend in ("numpy", "numba"):
        monkeypatch.setenv("CHUNKSCOPE_BACKEND", backend)
        for params in (BM25(), BM25(k1=0.7, b=0.9, epsilon=0.5)):
            index = build_index(params, units, sample.corpus)
            assert index.postings.compiled is (backend == "numba")
            weights[backend, params] = index.weights
    for params in (BM25(), BM25(k1=0.7, b=0.9, epsilon=0.5)):
        np.testing.assert_array_equal(weights["numpy", params], weights["numba", params])


@settings(max_examples=100, deadline=None)
@given(postings_and_queries(), st.booleans())
def test_query_by_query_scores_equal_batch_scores(case: Case, unweighted: bool) -> None:
    pointers, units, weights, unit_count, _, queries = case
    args = (pointers, units, None if unweighted else weights, unit_count, QueryTerms.of(queries))
    np.testing.assert_array_equal(query_by_query_scores(*args), batch_scores(*args))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "日本", "a\U0001f600", "ab", ""]), st.integers(0, 5), st.integers(0, 5)),
        max_size=25,
    )
)
def test_tie_break_positions_follow_document_start_end_id(spans: list[tuple[str, int, int]]) -> None:
    units = [
        Chunk(f"{doc}#{n % 3}-{n}", doc, start, start + length, "") for n, (doc, start, length) in enumerate(spans)
    ]
    expected = sorted(range(len(units)), key=lambda i: (units[i].doc, units[i].start, units[i].end, units[i].id))
    positions = tie_break_positions(units)
    assert [int(i) for i in np.argsort(positions)] == expected
