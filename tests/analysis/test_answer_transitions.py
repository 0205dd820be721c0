"""Answers under A and B: transitions and the paired answer test against a brute force."""

from __future__ import annotations

import math
import random
from collections import Counter
from types import MappingProxyType

import pytest

from chunkscope.analysis.answer_compare import answer_transitions
from chunkscope.analysis.answers import AnswerSet, Judgment, attribute
from chunkscope.errors import ChunkscopeError
from chunkscope.io.sources import Dataset
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator


def _answers(ids: list[str], rng: random.Random) -> AnswerSet:
    judgments = {qid: Judgment(qid, "x", rng.random() < 0.5, None, "row") for qid in ids}
    return AnswerSet("f", "plain", MappingProxyType(judgments))


def _two_sided_sign_test(plus: int, minus: int) -> float:
    # exact: K ~ Binomial(m, 1/2) over the m discordant questions; p = P(|2K − m| >= |plus − minus|)
    m = plus + minus
    observed = abs(plus - minus)
    return sum(math.comb(m, k) for k in range(m + 1) if abs(2 * k - m) >= observed) / 2**m


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_transitions_and_p_value_against_a_brute_force(sample: Dataset, seed: int) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    a = evaluator.evaluate(parse_config("fixed:size=200", "bm25", 3, None, "stop"))
    b = evaluator.evaluate(parse_config("paragraph", "bm25", 3, None, "stop"))
    rng = random.Random(seed)
    ids = [q.id for q in sample.questions.questions]
    # 12 answered under both (2^12 sign vectors: the test is exact), a few under one side only
    both = rng.sample(ids, 12)
    only_a = [i for i in ids if i not in both][:3]
    found = answer_transitions(
        attribute(a, _answers(both + only_a, rng)), attribute(b, _answers(both, rng)), 10_000, 0, 0.05, margin=0.3
    )
    assert set(found.questions) == set(both)

    complete_a = {q.question_id: q.complete for q in a.questions}
    complete_b = {q.question_id: q.complete for q in b.questions}
    correct_a = {r.question_id: r.correct for r in found.a.rows}
    correct_b = {r.question_id: r.correct for r in found.b.rows}
    names = {(False, True): "became complete", (True, True): "stayed complete", (True, False): "became incomplete"}
    answers = {(False, True): "turned correct", (True, True): "stayed correct", (True, False): "turned wrong"}
    expected = Counter(
        (
            names.get((complete_a[q], complete_b[q]), "stayed incomplete"),
            answers.get((correct_a[q], correct_b[q]), "stayed wrong"),
        )
        for q in both
    )
    assert {(e, t): n for e, row in found.crossed.items() for t, n in row.items() if n} == dict(expected)

    plus = sum(not correct_a[q] and correct_b[q] for q in both)
    minus = sum(correct_a[q] and not correct_b[q] for q in both)
    assert found.answer_test.exact
    assert found.answer_test.p_value == pytest.approx(_two_sided_sign_test(plus, minus))
    assert found.answer_test.mean_difference == pytest.approx((plus - minus) / 12)
    assert found.equivalence is not None and found.equivalence.margin == 0.3


def test_nothing_answered_under_both_is_an_error(sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    result = evaluator.evaluate(parse_config("paragraph", "bm25", 3, None, "stop"))
    rng = random.Random(0)
    with pytest.raises(ChunkscopeError, match="no question has an answer under both"):
        answer_transitions(
            attribute(result, _answers(["q01"], rng)), attribute(result, _answers(["q02"], rng)), 100, 0, 0.05
        )
