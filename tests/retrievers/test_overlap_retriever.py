"""Keyword overlap: score = number of distinct query tokens present in the chunk."""

from __future__ import annotations

import numpy as np
import pytest

from chunkscope.errors import SpecError
from chunkscope.model import Chunk, Question
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.overlap import KeywordOverlap, OverlapIndex


def unit(doc: str, text: str, start: int = 0) -> Chunk:
    return Chunk(f"{doc}#{start}", doc, start, start + len(text), text)


UNITS = [
    unit("b", "the cat sat"),
    unit("c", "cat cat dog"),
    unit("a", "a dog"),
    unit("d", "bird"),
]


def ask(query: str) -> Question:
    return Question("q", query, ())


def test_scores_count_distinct_query_tokens() -> None:
    index = OverlapIndex(KeywordOverlap(), UNITS)
    # Query tokens {cat, dog} (cat repeated): "the cat sat" has cat -> 1; "cat cat dog" has both -> 2
    # (not 3: neither repeats in the query nor in the chunk count); "a dog" -> 1; "bird" -> 0.
    assert index.scores("cat dog cat").tolist() == [1.0, 2.0, 1.0, 0.0]
    assert index.scores("CAT").tolist() == [1.0, 1.0, 0.0, 0.0]  # lowercase matching
    assert index.scores("ＣＡＴ ｄｏｇ").tolist() == [1.0, 2.0, 1.0, 0.0]  # NFKC matching
    assert not index.scores("zebra").any()
    assert not index.scores("").any()


def test_ranking_orders_ties_by_document_id_and_drops_zero_scores() -> None:
    index = parse_retriever("overlap").build(UNITS)
    (ranking,) = index.rank([ask("cat dog cat")], depth=20)
    # Score 2: "c"; then the two 1s by document id: "a" (unit 2) before "b" (unit 0); "bird" scores 0.
    assert ranking.indices == (1, 2, 0)
    assert ranking.scores == (2.0, 1.0, 1.0)


def test_cjk_overlap_counts_shared_bigrams() -> None:
    units = [unit("ja", "梅雨の前線"), unit("jb", "梅雨前線")]
    index = OverlapIndex(KeywordOverlap(), units)
    # Query bigrams 梅雨, 雨前, 前線: "梅雨の前線" has 梅雨 and 前線 (2), "梅雨前線" has all three.
    assert index.scores("梅雨前線").tolist() == [2.0, 3.0]


def test_depth_limits_the_ranking() -> None:
    units = [unit(f"d{i:02d}", "common word") for i in range(30)]
    index = parse_retriever("overlap").build(units)
    (ranking,) = index.rank([ask("common")], depth=5)
    assert ranking.indices == (0, 1, 2, 3, 4)
    assert np.allclose(ranking.scores, 1.0)


def test_spec_and_defaults() -> None:
    assert parse_retriever("overlap") == KeywordOverlap("default")
    with pytest.raises(SpecError, match="has no parameter 'k1'"):
        parse_retriever("overlap:k1=1")
