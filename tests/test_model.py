"""The data model and result values: half-open offsets, derived properties, immutability."""

from __future__ import annotations

import dataclasses

import pytest

from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, QuestionSet, Span
from chunkscope.results import (
    BUCKETS,
    Config,
    DeliveredChunk,
    QuestionResult,
    RankedChunk,
    Ranking,
    bucket_of,
)


def test_span_is_half_open() -> None:
    span = Span("d", 3, 7)
    assert span.length == 4
    assert span.within("d", 3, 7)
    assert span.within("d", 0, 10)
    assert not span.within("d", 4, 7)  # starts before the range
    assert not span.within("d", 3, 6)  # end 7 is exclusive, so [3,6) misses position 6
    assert not span.within("other", 0, 10)


def test_chunk_contains_only_whole_spans_of_its_own_document() -> None:
    chunk = Chunk("d#0", "d", 10, 20, "x" * 10)
    assert chunk.contains(Span("d", 10, 20))
    assert chunk.contains(Span("d", 12, 13))
    assert not chunk.contains(Span("d", 9, 12))
    assert not chunk.contains(Span("d", 19, 21))
    assert not chunk.contains(Span("e", 12, 13))


def test_chunk_lengths_and_indexed_text_with_and_without_prefix() -> None:
    plain = Chunk("d#0", "d", 5, 9, "abcd")
    assert plain.length == 4
    assert plain.indexed_text == "abcd"
    assert plain.sent_length == 4
    prefixed = Chunk("d#1", "d", 5, 9, "abcd", prefix="Fees > ")
    assert prefixed.length == 4  # the prefix is not part of the span
    assert prefixed.indexed_text == "Fees > abcd"
    assert prefixed.sent_length == 7 + 4


def test_corpus_builds_lookup_and_counts_characters() -> None:
    corpus = Corpus((Document("a", "hello"), Document("b", "日本語")))
    assert corpus.by_id["b"].text == "日本語"
    assert corpus.total_chars == 5 + 3
    with pytest.raises(TypeError):
        corpus.by_id["c"] = Document("c", "")  # type: ignore[index]


def test_question_gold_spans_flatten_items_in_order() -> None:
    question = Question(
        "q",
        "query",
        (EvidenceItem((Span("a", 0, 1),)), EvidenceItem((Span("b", 2, 3), Span("a", 4, 5)))),
    )
    assert question.gold_spans == (Span("a", 0, 1), Span("b", 2, 3), Span("a", 4, 5))


def test_values_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Span("d", 0, 1).start = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Chunk("d#0", "d", 0, 1, "x").text = "y"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Config("paragraph").top_k = 3  # type: ignore[misc]


def test_question_set_defaults() -> None:
    questions = QuestionSet(())
    assert questions.excluded == 0
    assert dict(questions.excluded_reasons) == {}


@pytest.mark.parametrize(
    ("rank", "bucket"),
    [(1, "1"), (2, "2-5"), (5, "2-5"), (6, "6-20"), (20, "6-20"), (21, "miss"), (None, "miss")],
)
def test_bucket_boundaries(rank: int | None, bucket: str) -> None:
    assert bucket_of(rank) == bucket
    assert bucket in BUCKETS


@pytest.mark.parametrize(("top_k", "depth"), [(1, 20), (5, 20), (20, 20), (25, 25)])
def test_ranking_depth_is_twenty_or_top_k(top_k: int, depth: int) -> None:
    assert Config("paragraph", top_k=top_k).depth == depth


def test_ranked_chunk_delivers_itself_unless_a_parent_is_set() -> None:
    child = Chunk("p/0", "d", 0, 5, "abcde")
    parent = Chunk("p", "d", 0, 10, "abcdefghij")
    assert RankedChunk(1, child, 1.0).delivered_unit is child
    assert RankedChunk(1, child, 1.0, delivers=parent).delivered_unit is parent


def test_delivered_chunk_knows_when_it_was_truncated() -> None:
    chunk = Chunk("d#0", "d", 10, 20, "x" * 10)
    assert not DeliveredChunk(1, chunk, 10, 20, 10, 0).truncated
    assert DeliveredChunk(1, chunk, 10, 14, 4, 0).truncated


def test_question_result_derived_values() -> None:
    a = Chunk("d#0", "d", 0, 10, "x" * 10)
    b = Chunk("d#1", "d", 5, 15, "x" * 10, prefix="P: ")
    result = QuestionResult(
        question_id="q",
        evidence_exists=True,
        cuts=(),
        ranking=Ranking((0, 1), (2.0, 1.0)),
        first_correct_rank=3,
        delivered=(DeliveredChunk(1, a, 0, 10, 10, 0), DeliveredChunk(2, b, 5, 15, 13, 5)),
        skipped_ranks=(),
        delivery_stop="top_k",
        covered=(True, False),
        doc_hit=True,
        units=(a, b),
    )
    assert result.bucket == "2-5"
    assert not result.complete  # one of two items uncovered
    assert not result.lost
    assert result.sent_chars == 10 + 13
    assert result.duplicate_chars == 5
    assert [(hit.rank, hit.chunk.id, hit.score) for hit in result.ranked] == [(1, "d#0", 2.0), (2, "d#1", 1.0)]
    assert dataclasses.replace(result, covered=(True, True)).complete
    assert dataclasses.replace(result, evidence_exists=False).lost
