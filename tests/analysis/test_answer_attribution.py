"""Answers matched to questions, and the attribution checked against a brute force over the per-question table."""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from chunkscope.analysis.answers import (
    AnswerSet,
    Judgment,
    agreement_and_phi,
    attribute,
    match_answers,
    phi_coefficient,
)
from chunkscope.analysis.diagnose import failure_cause
from chunkscope.analysis.stats import bootstrap_ci
from chunkscope.errors import InputError
from chunkscope.io.answers import load_answers
from chunkscope.io.sources import Dataset
from chunkscope.model import EvidenceItem, Question, QuestionSet, Span
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "answers"


def test_rows_match_by_id_then_by_exact_question_text(sample: Dataset) -> None:
    answers = match_answers(load_answers(FIXTURES / "plain.jsonl")[0], sample.questions, None)
    assert {qid: j.correct for qid, j in answers.judgments.items()} == {
        "q01": True,
        "q02": False,
        "q03": True,
        "q05": True,  # "Can gift cards be returned?" is q05's text
    }
    assert len(answers.unmatched) == 1 and answers.unmatched[0].endswith("plain.jsonl:5")  # q99


def test_scores_are_judged_at_the_threshold(sample: Dataset) -> None:
    file, _ = load_answers(FIXTURES / "plain-scores.csv")
    default = match_answers(file, sample.questions, None)
    # 0.9 and 0.5 reach the default 0.5, 0.2 does not
    assert [default.judgments[q].correct for q in ("q01", "q02", "q03")] == [True, True, False]
    strict = match_answers(file, sample.questions, 0.6)
    assert [strict.judgments[q].correct for q in ("q01", "q02", "q03")] == [True, False, False]
    assert "score >= 0.6" in strict.judged_by


def test_bad_answers_fail_with_one_line(sample: Dataset, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"id": "q01", "answer": "x", "score": 7}\n')
    with pytest.raises(InputError, match=r"outside.jsonl:1: score 7 lies outside \[0, 1\]"):
        match_answers(load_answers(outside)[0], sample.questions, None)
    assert match_answers(load_answers(outside)[0], sample.questions, 5.0).judgments["q01"].correct
    nothing = tmp_path / "nothing.jsonl"
    nothing.write_text('{"id": "zz", "answer": "x", "correct": true}\n{"id": "yy", "answer": "x", "correct": true}\n')
    with pytest.raises(InputError, match=r"no row matches a question .* \(2 rows; first: .*nothing.jsonl:1\)"):
        match_answers(load_answers(nothing)[0], sample.questions, None)
    unjudged = tmp_path / "unjudged.jsonl"
    unjudged.write_text('{"id": "q01", "answer": "x"}\n')
    with pytest.raises(InputError, match=r"unjudged\.jsonl:1: no judgment"):
        match_answers(load_answers(unjudged)[0], sample.questions, None)


def _random_answers(question_ids: list[str], seed: int, share: float = 0.8) -> AnswerSet:
    rng = random.Random(seed)
    judgments = {
        qid: Judgment(qid, f"answer {qid}", rng.random() < 0.5, None, f"row {i}")
        for i, qid in enumerate(question_ids)
        if rng.random() < share
    }
    return AnswerSet("answers.jsonl", "plain", MappingProxyType(judgments))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_attribution_counts_and_phi_against_a_brute_force(sample: Dataset, seed: int) -> None:
    config = parse_config("fixed:size=200,overlap=0", "bm25", 3, 600, "stop")
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    answers = _random_answers([q.id for q in sample.questions.questions], seed)
    found = attribute(result, answers, seed=0, resamples=2000)

    # the per-question table, built from the raw values
    table = []
    for question in result.questions:
        judgment = answers.judgments.get(question.question_id)
        if judgment is not None:
            table.append((question.complete, judgment.correct, str(failure_cause(question, config))))
    names = {(True, True): "ok", (True, False): "generation", (False, False): "retrieval", (False, True): "unsupported"}
    expected = Counter(names[(complete, correct)] for complete, correct, _ in table)
    assert dict(found.counts) == {name: expected[name] for name in ("ok", "generation", "retrieval", "unsupported")}
    assert len(found.unanswered) == len(result.questions) - len(table)
    crossed = Counter((cause, names[(complete, correct)]) for complete, correct, cause in table)
    assert {(c, a): n for c, row in found.by_cause.items() for a, n in row.items() if n} == dict(crossed)

    complete = np.array([row[0] for row in table], dtype=float)
    correct = np.array([row[1] for row in table], dtype=float)
    assert 0 < complete.sum() < len(complete) and 0 < correct.sum() < len(correct)  # every cell can occur
    assert found.agreement.value == pytest.approx(float(np.mean(complete == correct)))
    assert found.phi.value == pytest.approx(float(np.corrcoef(complete, correct)[0, 1]))  # phi is Pearson's r
    assert found.agreement.low <= found.agreement.value <= found.agreement.high


def test_phi_by_hand() -> None:
    # a=10 ok, b=5 generation, c=5 unsupported, d=20 retrieval:
    # (10·20 − 5·5) / sqrt(15 · 25 · 15 · 25) = 175 / 375 = 0.4666…
    assert phi_coefficient(10, 5, 5, 20) == pytest.approx(175 / 375)
    assert phi_coefficient(10, 0, 5, 0) is None  # nobody is wrong: undefined


def test_the_bootstrap_interval_is_close_to_the_normal_one() -> None:
    # n = 2000 with agreement 0.7: the normal interval is 0.7 ± 1.96·sqrt(0.7·0.3/2000) = 0.7 ± 0.0201.
    agreement, phi = agreement_and_phi(700, 300, 300, 700, seed=0, resamples=4000)
    half = 1.96 * math.sqrt(0.7 * 0.3 / 2000)
    assert agreement.low == pytest.approx(0.7 - half, abs=0.003)
    assert agreement.high == pytest.approx(0.7 + half, abs=0.003)
    # phi = (700² − 300²) / 1000² = 0.4; its large-sample standard error is about (1 − phi²) / sqrt(n) = 0.0188.
    assert phi.value == pytest.approx(0.4)
    assert phi.low == pytest.approx(0.4 - 1.96 * 0.84 / math.sqrt(2000), abs=0.006)
    assert phi.high == pytest.approx(0.4 + 1.96 * 0.84 / math.sqrt(2000), abs=0.006)


def test_a_question_text_shared_by_two_questions_matches_neither(tmp_path: Path) -> None:
    evidence = (EvidenceItem((Span("d", 0, 1),)),)
    questions = QuestionSet(
        (Question("a", "Same?", evidence), Question("b", "Same?", evidence), Question("c", "Other?", evidence))
    )
    path = tmp_path / "answers.jsonl"
    path.write_text(
        '{"question": "Same?", "answer": "x", "correct": true}\n'
        '{"question": "Other?", "answer": "y", "correct": false}\n'
        '{"id": "b", "question": "Same?", "answer": "z", "correct": true}\n'
    )
    answers = match_answers(load_answers(path)[0], questions, None)
    assert sorted(answers.judgments) == ["b", "c"]  # the id decides for row 3
    assert answers.unmatched == (f"{path}:1 (its question text is shared by several questions)",)


def test_the_agreement_interval_agrees_with_the_project_bootstrap() -> None:
    # the same 2x2 table as per-question indicators, resampled question by question by analysis/stats.py
    a, b, c, d = 620, 180, 240, 960
    agree = np.array([1.0] * a + [0.0] * (b + c) + [1.0] * d)
    ((low, high),) = bootstrap_ci(agree[None, :], resamples=4000, seed=3)
    found, _ = agreement_and_phi(a, b, c, d, seed=0, resamples=4000)
    assert found.low == pytest.approx(low, abs=0.004) and found.high == pytest.approx(high, abs=0.004)
