"""Questions measured at once in arrays give exactly the results of the per-question path, the oracle."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import fields

import pytest

from chunkscope.chunkers import Chunking
from chunkscope.io.dataset import Dataset
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, Span, SpanMatch
from chunkscope.pipeline.batch import measure_single_spans, single_span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import (
    Evaluator,
    IndexedChunking,
    delivery_totals,
    index_chunking,
    measure_question,
    measured_at_once,
)
from chunkscope.results import Config, QuestionResults, Ranking, ResultColumns


def check_against_oracle(
    questions: Sequence[Question], rankings: Sequence[Ranking], indexed: IndexedChunking, config: Config
) -> int:
    """Assert every batched result and its columns equal the per-question ones; return how many were batched."""
    totals = delivery_totals(rankings, indexed, config)
    assert totals is not None
    batch = measure_single_spans(questions, rankings, indexed, config, totals)
    if batch is None:
        return 0
    assert list(batch.positions) == sorted(batch.positions)
    expected_results = []
    for position in batch.positions:
        got = batch.results.result(position)
        expected = measure_question(questions[position], rankings[position], indexed, config, None, totals[position])
        assert got == expected, questions[position].id
        # repr tells a numpy integer from a Python one, which equality does not (the reports print them).
        assert repr(got) == repr(expected), questions[position].id
        assert got.units is expected.units and got.parents is expected.parents
        assert (got.sent_chars, got.duplicate_chars, got.in_pieces) == (
            expected.sent_chars,
            expected.duplicate_chars,
            expected.in_pieces,
        )
        expected_results.append(expected)
    assert_same_columns(batch.columns, ResultColumns.of(expected_results))
    return len(batch.positions)


def assert_same_columns(got: ResultColumns, expected: ResultColumns) -> None:
    assert got.question_ids == expected.question_ids
    for column in fields(ResultColumns)[1:]:
        mine, theirs = getattr(got, column.name), getattr(expected, column.name)
        assert mine.dtype == theirs.dtype and mine.tolist() == theirs.tolist(), column.name


def evaluated_rankings(
    dataset: Dataset, chunker: str, top_k: int
) -> tuple[Evaluator, Config, list[Ranking], IndexedChunking]:
    config = make_config(chunker, "bm25", top_k=top_k)
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    result = evaluator.evaluate(config)
    return evaluator, config, [q.ranking for q in result.questions], evaluator.chunking(config.chunker)


SAMPLE_SETTINGS = (
    ("fixed:size=200,overlap=60", 5),
    ("fixed:size=120,overlap=90", 20),
    ("fixed:size=50", 1),
    ("paragraph", 3),
    ("markdown:prefix=path", 5),
    ("markdown:max_chars=200,prefix=path", 4),
    ("recursive:size=150", 5),
)


@pytest.mark.parametrize(("chunker", "top_k"), SAMPLE_SETTINGS)
def test_the_sample_questions_batched_equal_the_per_question_path(sample: Dataset, chunker: str, top_k: int) -> None:
    evaluator, config, rankings, indexed = evaluated_rankings(sample, chunker, top_k)
    checked = check_against_oracle(evaluator.questions, rankings, indexed, config)
    # Every single-span question is batched; the others are left to the per-question path.
    assert checked == sum(single_span(q) is not None for q in evaluator.questions) > 0


def test_jsquad_batched_equals_the_per_question_path(jsquad: Dataset) -> None:
    for chunker, top_k in (("fixed:size=100", 5), ("fixed:size=200,overlap=40", 20), ("paragraph", 5)):
        evaluator, config, rankings, indexed = evaluated_rankings(jsquad, chunker, top_k)
        assert check_against_oracle(evaluator.questions, rankings, indexed, config) == len(evaluator.questions)


# --- hand-written hard cases --------------------------------------------------------------------------

TEXT_A = "".join(chr(ord("a") + i % 26) for i in range(100))
TEXT_B = "".join(chr(ord("A") + i % 26) for i in range(60))
TEXT_C = "no unit cuts this document"
CORPUS = Corpus(
    (Document("a", TEXT_A), Document("b", TEXT_B), Document("c", TEXT_C)),
)


def unit(index: int, doc: str, start: int, end: int, prefix: str = "") -> Chunk:
    text = {"a": TEXT_A, "b": TEXT_B}[doc]
    return Chunk(f"{doc}#{index}", doc, start, end, text[start:end], prefix)


# Overlapping, touching, nested, with prefixes and a gap; "b" ends before its text does; "c" has no unit.
UNITS = (
    unit(0, "a", 0, 20),
    unit(1, "a", 15, 40, "P> "),
    unit(2, "a", 40, 60),  # touches unit 1
    unit(3, "a", 45, 50),  # nested in unit 2
    unit(4, "a", 70, 100, "long prefix "),  # a gap 60..70 before it
    unit(5, "b", 0, 30),
    unit(6, "b", 25, 50, "B "),
)


def question(name: str, *items: tuple[Span, ...], approximate: bool = False) -> Question:
    evidence = tuple(
        EvidenceItem(spans, tuple(SpanMatch("normalized") for _ in spans) if approximate else ()) for spans in items
    )
    return Question(name, f"query {name}", evidence)


def span(doc: str, start: int, end: int) -> tuple[Span, ...]:
    return (Span(doc, start, end),)


HARD_QUESTIONS = (
    question("inside one unit", span("a", 2, 10)),
    question("inside overlapping units", span("a", 16, 19)),
    question("cut across a boundary", span("a", 12, 30)),
    question("cut in the gap", span("a", 55, 75)),
    question("in pieces beside a touching unit", span("a", 20, 50)),
    question("whole unit", span("a", 40, 60)),
    question("in the nested unit", span("a", 46, 49)),
    question("at the document end", span("a", 90, 100)),
    question("at the document start", span("a", 0, 1)),
    question("touching two units", span("a", 40, 41)),
    question("past the last unit of b", span("b", 50, 58)),
    question("cut in b", span("b", 20, 40)),
    question("a document without units", span("c", 0, 5)),
    question("approximate", span("a", 3, 8), approximate=True),
    question("two items", span("a", 2, 10), span("b", 1, 3)),
    question("alternatives", (Span("a", 2, 10), Span("b", 1, 3))),
)

HARD_RANKINGS = (
    (0, 1, 2),
    (1, 0),
    (0, 1, 5),  # delivered in pieces: units 0 and 1 together hold a[12:30]
    (2, 4, 1),
    (0, 1, 2),  # unit 0 ends where the span starts: it touches the span, it holds none of it
    (3, 2),
    (2,),
    (4, 5, 6, 0, 1, 2, 3),
    (),
    (1, 2, 3),
    (6, 5),
    (5, 6),
    (0,),
    (0, 1, 2, 3, 4, 5),
    (0, 5),
    (5, 0),
)


@pytest.mark.parametrize("top_k", [1, 2, 3, 5, 10])
def test_hand_written_cases_batched_equal_the_per_question_path(top_k: int) -> None:
    indexed = index_chunking(Chunking(UNITS))
    config = Config("hand", top_k=top_k)
    rankings = [Ranking(indices, tuple(float(-r) for r in range(len(indices)))) for indices in HARD_RANKINGS]
    batch = measured_at_once(
        HARD_QUESTIONS, rankings, indexed, config, None, delivery_totals(rankings, indexed, config)
    )
    assert batch is not None
    left = {"a document without units", "two items", "alternatives"}
    assert [HARD_QUESTIONS[p].id for p in batch.positions] == [q.id for q in HARD_QUESTIONS if q.id not in left]
    assert check_against_oracle(HARD_QUESTIONS, rankings, indexed, config) == len(HARD_QUESTIONS) - 3


def test_hand_written_cases_cover_the_hard_outcomes() -> None:
    indexed = index_chunking(Chunking(UNITS))
    config = Config("hand", top_k=3)
    rankings = [Ranking(indices, tuple(0.0 for _ in indices)) for indices in HARD_RANKINGS]
    totals = delivery_totals(rankings, indexed, config)
    assert totals is not None
    batch = measure_single_spans(HARD_QUESTIONS, rankings, indexed, config, totals)
    assert batch is not None
    results = {HARD_QUESTIONS[p].id: batch.results.result(p) for p in batch.positions}
    assert results["cut across a boundary"].cuts and not results["cut across a boundary"].evidence_exists
    assert results["cut across a boundary"].piece_ranks == ((1, 2),)  # a[12:30] sent by units 0 and 1
    assert results["in pieces beside a touching unit"].piece_ranks == ((2, 3),)
    assert results["inside overlapping units"].item_ranks == ((1, 2),)
    assert results["past the last unit of b"].lost
    assert results["approximate"].gold_match == (("normalized",),)
    assert (
        results["touching two units"].overlap.omega_chars > results["touching two units"].overlap.omega_evidence_chars
    )
    assert results["at the document start"].first_correct_rank is None  # nothing ranked


def test_configurations_the_batch_does_not_measure_are_left_to_the_per_question_path(sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    questions = evaluator.questions
    for config in (
        make_config("fixed:size=200,overlap=60", "bm25", top_k=5, budget=700),
        make_config("parent:child=fixed:size=120,parent=markdown", "bm25", top_k=5),
    ):
        result = evaluator.evaluate(config)
        rankings = [q.ranking for q in result.questions]
        indexed = evaluator.chunking(config.chunker)
        totals = delivery_totals(rankings, indexed, config)
        assert measured_at_once(questions, rankings, indexed, config, None, totals) is None
    parents = evaluator.chunking("parent:child=fixed:size=120,parent=markdown")
    with pytest.raises(ValueError, match="without parents"):
        measure_single_spans(questions, [], parents, make_config("paragraph", "bm25"), [])


def test_a_top_k_holding_a_unit_twice_is_left_to_the_per_question_path() -> None:
    indexed = index_chunking(Chunking(UNITS))
    config = Config("hand", top_k=3)
    rankings = [Ranking((0, 0, 1), (0.0, 0.0, 0.0))]
    questions = HARD_QUESTIONS[:1]
    totals = delivery_totals(rankings, indexed, config)
    assert totals is None
    assert measured_at_once(questions, rankings, indexed, config, None, totals) is None
    duplicated = index_chunking(Chunking((unit(0, "a", 0, 20), unit(0, "a", 10, 30))))  # one id twice
    assert delivery_totals([Ranking((0, 1), (0.0, 0.0))], duplicated, config) is None


@pytest.mark.parametrize(("chunker", "top_k"), [("fixed:size=200,overlap=60", 5), ("paragraph", 3)])
def test_the_evaluator_keeps_batched_results_that_read_like_the_per_question_ones(
    sample: Dataset, chunker: str, top_k: int
) -> None:
    evaluator, config, rankings, indexed = evaluated_rankings(sample, chunker, top_k)
    result = evaluator.evaluate(config)
    kept = result.questions
    assert isinstance(kept, QuestionResults)
    alone = tuple(
        measure_question(question, ranking, indexed, config)
        for question, ranking in zip(evaluator.questions, rankings, strict=True)
    )
    # The columns are read without building a result; the results, built on use, are the per-question ones.
    assert_same_columns(kept.columns, ResultColumns.of(alone))
    assert kept[3] == alone[3] and kept[-1] == alone[-1] and kept[1:4] == alone[1:4]
    assert kept == alone and tuple(kept) == alone and len(kept) == len(alone)
    assert pickle.loads(pickle.dumps(kept)) == alone
    assert summarize(kept, indexed.chunking.units) == summarize(alone, indexed.chunking.units)
    assert repr(summarize(kept, indexed.chunking.units)) == repr(summarize(alone, indexed.chunking.units))


def test_a_pickled_batch_builds_its_results_after_unpickling(sample: Dataset) -> None:
    evaluator, config, _, _ = evaluated_rankings(sample, "fixed:size=200,overlap=60", 5)
    fresh = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    copied = pickle.loads(pickle.dumps(fresh.questions))  # pickled before any result was built
    assert isinstance(copied, QuestionResults)
    assert copied == evaluator.evaluate(config).questions
