"""chunkscope's ranking metrics against ir-measures (pytrec_eval) on runs with strictly decreasing scores.

Where the definitions coincide: every question has exactly one relevant unit, one
evidence item whose span lies inside that unit only, so chunkscope's first
correct rank is the rank of the single relevant document. Then
- Recall@k (chunkscope: share of questions with first correct rank <= k) equals
  trec R@k (relevant retrieved in the top k / relevant = 0 or 1);
- MRR@10 equals RR@10;
- chunkscope's single-relevant nDCG@10 = 1/log2(r + 1) equals trec nDCG@10 with binary
  gains, since the ideal DCG of one relevant document is 1.
With several relevant units or several required items the definitions differ, so
they are not compared here.
"""

from __future__ import annotations

import itertools
import random

import pytest

from chunkscope.chunkers import Chunking
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.pipeline.evaluate import IndexedChunking, measure_question
from chunkscope.pipeline.locate import UnitLocator
from chunkscope.results import Config, Ranking

ir_measures = pytest.importorskip("ir_measures")

UNITS = 40
UNIT_SIZE = 50
QUESTIONS = 300
DEPTH = 20


def build_case(seed: int) -> tuple[IndexedChunking, list[Question], list[Ranking]]:
    rng = random.Random(seed)
    text = "x" * (UNITS * UNIT_SIZE)
    units = tuple(
        Chunk(f"u{i}", "doc", i * UNIT_SIZE, (i + 1) * UNIT_SIZE, text[i * UNIT_SIZE : (i + 1) * UNIT_SIZE])
        for i in range(UNITS)
    )
    indexed = IndexedChunking(Chunking(units), UnitLocator(units), tuple(range(UNITS)))
    questions, rankings = [], []
    for q in range(QUESTIONS):
        relevant = rng.randrange(UNITS)
        start = relevant * UNIT_SIZE + 10
        questions.append(Question(f"q{q}", "query", (EvidenceItem((Span("doc", start, start + 5),)),)))
        order = rng.sample(range(UNITS), rng.randint(1, DEPTH))
        scores = sorted((rng.uniform(0.1, 50.0) for _ in order), reverse=True)
        assert all(a > b for a, b in itertools.pairwise(scores)), "scores must strictly decrease"
        rankings.append(Ranking(tuple(order), tuple(scores)))
    return indexed, questions, rankings


@pytest.mark.reference
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_metrics_equal_ir_measures(seed: int) -> None:
    indexed, questions, rankings = build_case(seed)
    config = Config("fixed:size=50", top_k=5)
    results = [measure_question(q, r, indexed, config) for q, r in zip(questions, rankings, strict=True)]
    summary = summarize(results, indexed.chunking.units)

    units = indexed.chunking.units
    qrels = {q.id: {next(u.id for u in units if u.contains(q.evidence[0].alternatives[0])): 1} for q in questions}
    run = {
        q.id: {units[i].id: score for i, score in zip(r.indices, r.scores, strict=True)}
        for q, r in zip(questions, rankings, strict=True)
    }
    measures = [ir_measures.RR @ 10, ir_measures.nDCG @ 10, ir_measures.R @ 5, ir_measures.R @ 20]
    reference = ir_measures.calc_aggregate(measures, qrels, run)
    # Every question is in the run, so both average over the same QUESTIONS questions.
    assert summary.questions == QUESTIONS == len(run)
    assert summary["mrr_at_10"] == pytest.approx(reference[ir_measures.RR @ 10], abs=1e-9)
    assert summary["ndcg_at_10"] == pytest.approx(reference[ir_measures.nDCG @ 10], abs=1e-9)
    assert summary["recall_at_5"] == pytest.approx(reference[ir_measures.R @ 5], abs=1e-9)
    assert summary["recall_at_20"] == pytest.approx(reference[ir_measures.R @ 20], abs=1e-9)
    # The case is not degenerate: some hits, some misses, ranks spread over the cutoffs.
    ranks = [r.first_correct_rank for r in results]
    assert any(r == 1 for r in ranks) and any(r is None for r in ranks) and any(r is not None and r > 10 for r in ranks)


@pytest.mark.reference
def test_per_question_values_equal_ir_measures() -> None:
    from chunkscope.analysis.compare import metric_values
    from chunkscope.results import ConfigResult

    indexed, questions, rankings = build_case(7)
    config = Config("fixed:size=50", top_k=5)
    results = tuple(measure_question(q, r, indexed, config) for q, r in zip(questions, rankings, strict=True))
    values = metric_values(ConfigResult(config, summarize(results, ()), results))  # rows R@5, R@20, MRR@10, nDCG@10
    units = indexed.chunking.units
    qrels = {q.id: {next(u.id for u in units if u.contains(q.gold_spans[0])): 1} for q in questions}
    run = {
        q.id: {units[i].id: s for i, s in zip(r.indices, r.scores, strict=True)}
        for q, r in zip(questions, rankings, strict=True)
    }
    rows = {ir_measures.R @ 5: 0, ir_measures.R @ 20: 1, ir_measures.RR @ 10: 2, ir_measures.nDCG @ 10: 3}
    position = {q.id: i for i, q in enumerate(questions)}
    checked = 0
    for metric in ir_measures.iter_calc(list(rows), qrels, run):
        assert values[rows[metric.measure], position[metric.query_id]] == pytest.approx(metric.value, abs=1e-9)
        checked += 1
    assert checked == 4 * QUESTIONS
