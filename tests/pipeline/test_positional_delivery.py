"""Delivery measured on unit positions: the same results as building every delivered chunk, counted by hand."""

from __future__ import annotations

import pickle

import pytest

from chunkscope.io.dataset import Dataset
from chunkscope.model import EvidenceItem, Span
from chunkscope.pipeline.assembly import assemble
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, delivery_totals, measure_question
from chunkscope.pipeline.locate import UnitLocator
from chunkscope.pipeline.overlap import measure_overlap
from chunkscope.results import Config, ConfigResult, DeliveredChunk, DeliveredChunks, QuestionResult, ranked_chunks

SETTINGS = (
    ("fixed:size=200,overlap=60", {"top_k": 5}),
    ("fixed:size=120,overlap=90", {"top_k": 20}),
    ("paragraph", {"top_k": 3}),
    ("parent:child=fixed:size=120,parent=markdown", {"top_k": 5}),
    ("fixed:size=200,overlap=60", {"top_k": 5, "budget": 700, "overflow": "skip"}),
    ("fixed:size=200,overlap=60", {"top_k": 5, "budget": 500, "overflow": "truncate"}),
)


def evaluated(sample: Dataset, chunker: str, settings: dict[str, object]) -> tuple[Evaluator, Config, ConfigResult]:
    config = make_config(chunker, "bm25", **settings)  # type: ignore[arg-type]
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    return evaluator, config, evaluator.evaluate(config)


def resent_by_hand(delivered: list[DeliveredChunk]) -> int:
    """Body characters minus distinct (document, offset) pairs: every character counted one by one."""
    seen: set[tuple[str, int]] = set()
    body = 0
    for d in delivered:
        body += d.end - d.start
        seen.update((d.chunk.doc, offset) for offset in range(d.start, d.end))
    return body - len(seen)


@pytest.mark.parametrize(("chunker", "settings"), SETTINGS)
def test_every_question_matches_the_assembly_of_built_chunks(
    sample: Dataset, chunker: str, settings: dict[str, object]
) -> None:
    evaluator, config, result = evaluated(sample, chunker, settings)
    indexed = evaluator.chunking(config.chunker)
    chunking = indexed.chunking
    for question, measured in zip(evaluator.questions, result.questions, strict=True):
        ranked = ranked_chunks(measured.ranking, chunking.units, chunking.parents)
        reference = assemble(ranked, config.top_k, config.budget, config.overflow)
        assert measured.delivered == reference.delivered
        assert tuple(measured.delivered) == reference.delivered
        assert measured.skipped_ranks == reference.skipped_ranks
        assert measured.delivery_stop == reference.stop
        assert measured.sent_chars == sum(d.sent_chars for d in reference.delivered)
        assert measured.duplicate_chars == resent_by_hand(list(reference.delivered))
        covered = tuple(
            any(
                d.chunk.doc == s.doc and d.start <= s.start and s.end <= d.end
                for d in reference.delivered
                for s in i.alternatives
            )
            for i in question.evidence
        )
        assert measured.covered == covered
        evidence_docs = {span.doc for span in question.gold_spans}
        assert measured.doc_hit == any(d.chunk.doc in evidence_docs for d in reference.delivered)


@pytest.mark.parametrize(("chunker", "settings"), SETTINGS)
def test_the_per_question_path_gives_the_results_of_the_batched_one(
    sample: Dataset, chunker: str, settings: dict[str, object]
) -> None:
    evaluator, config, result = evaluated(sample, chunker, settings)
    indexed = evaluator.chunking(config.chunker)
    for question, measured in zip(evaluator.questions, result.questions, strict=True):
        alone = measure_question(question, measured.ranking, indexed, config)
        assert alone == measured
        assert (alone.sent_chars, alone.duplicate_chars) == (measured.sent_chars, measured.duplicate_chars)


def test_totals_are_given_only_when_every_top_k_unit_is_sent_whole(sample: Dataset) -> None:
    evaluator, plain, result = evaluated(sample, "fixed:size=200,overlap=60", {"top_k": 5})
    rankings = [q.ranking for q in result.questions]
    indexed = evaluator.chunking(plain.chunker)
    totals = delivery_totals(rankings, indexed, plain)
    assert totals == [(q.sent_chars, q.duplicate_chars) for q in result.questions]
    assert any(resent for _, resent in totals)  # the overlap re-sends characters somewhere
    budgeted = make_config("fixed:size=200,overlap=60", "bm25", top_k=5, budget=700)
    assert delivery_totals(rankings, indexed, budgeted) is None
    parents = evaluator.chunking("parent:child=fixed:size=120,parent=markdown")
    parent_config = make_config("parent:child=fixed:size=120,parent=markdown", "bm25", top_k=5)
    parent_rankings = [q.ranking for q in evaluator.evaluate(parent_config).questions]
    assert delivery_totals(parent_rankings, parents, parent_config) is None  # parents are shared by children


def test_delivered_chunks_read_like_the_tuple_of_their_values(sample: Dataset) -> None:
    evaluator, config, result = evaluated(sample, "fixed:size=200,overlap=60", {"top_k": 5})
    measured: QuestionResult = max(result.questions, key=lambda q: q.duplicate_chars)
    delivered = measured.delivered
    assert isinstance(delivered, DeliveredChunks)
    built = tuple(delivered)
    assert len(delivered) == len(built) and delivered[0] == built[0] and delivered[1:] == built[1:]
    assert delivered == built and delivered == list(built) and hash(delivered) == hash(built)
    assert repr(delivered) == repr(built)
    assert sum(d.duplicate_chars for d in built) == delivered.duplicate_chars > 0
    assert delivered != built[:-1]
    fresh = measure_question(
        evaluator.questions[result.questions.index(measured)],
        measured.ranking,
        evaluator.chunking(config.chunker),
        config,
    )
    assert pickle.loads(pickle.dumps(fresh.delivered)) == built  # pickled before being built
    assert pickle.loads(pickle.dumps(delivered)) == built  # and after


def test_one_span_overlap_equals_the_general_reference_search(sample: Dataset) -> None:
    units = Evaluator(sample.corpus, []).chunking("fixed:size=120,overlap=30").chunking.units
    locator = UnitLocator(units)
    doc = units[0].doc
    delivered = {doc: [(0, 100), (150, 260)]}
    for start, end in [(10, 40), (90, 170), (100, 150), (255, 300), (0, 1)]:
        span = Span(doc, start, end)
        alone = measure_overlap((EvidenceItem((span,)),), delivered, locator.touching)
        # Twice the same alternative takes the general path (reference search, unions per document).
        general = measure_overlap((EvidenceItem((span, span)),), delivered, locator.touching)
        assert alone == general


def test_one_span_precision_omega_counts_characters(sample: Dataset) -> None:
    # Reference: the characters of the span, the holding units' bodies and their prefixes, as sets.
    chunking = Evaluator(sample.corpus, []).chunking("fixed:size=90,overlap=40").chunking
    locator = UnitLocator(chunking.units)
    doc = chunking.units[0].doc
    for start in range(0, 400, 23):
        for length in (1, 7, 40, 90, 150):
            span = Span(doc, start, start + length)
            overlap = measure_overlap((EvidenceItem((span,)),), {}, locator.touching)
            units = {unit.id: unit for unit in locator.touching(span)}.values()
            bodies = {offset for unit in units for offset in range(unit.start, unit.end)}
            evidence = set(range(span.start, span.end))
            assert overlap.omega_evidence_chars == len(evidence & bodies)
            assert overlap.omega_chars == len(evidence | bodies) + sum(len(unit.prefix) for unit in units)
