"""Fragility on a hand-worked fixture, the neighbour rules and their edge cases.

The fixture (tests/fixtures/fragility) has two 60-character documents and five questions, each
asking for one word found only inside its gold span, so a chunk holding the span ranks first and
is delivered: a question is OK exactly when some window holds its span whole, else CUT. Fixed
windows of size s and overlap o start at 0, s-o, 2(s-o), ... until one reaches the end (60).

Base ``fixed:size=20``: windows 0-20, 20-40, 40-60. Neighbours, in order: sizes 16, 18, 22, 24,
then overlaps 1, 2, 3, 4 (5-20% of the size, since the base overlap is 0). By hand:

* q1 a.txt 0-6: the first window holds it under every setting: OK everywhere.
* q2 a.txt 22-30: base 20-40 OK; 16-32, 18-36, 22-44 OK; size 24 has 0-24 and 24-48: CUT;
  overlaps: 19-39, 18-38, 17-37, 16-36 OK. One change in eight.
* q3 b.txt 12-22: base 0-20, 20-40 CUT; 16 and 18 CUT; 22 (0-22) and 24 (0-24) OK; overlaps
  (0-20 then 19-39, 18-38, 17-37, 16-36) CUT. Two changes.
* q4 b.txt 30-56: 26 characters, longer than any window: CUT everywhere.
* q5 a.txt 40-58: base 40-60 OK; 16 (32-48, 48-60), 18 (36-54, 54-60), 22 (22-44, 44-60),
  24 (24-48, 48-60) CUT; overlap 1 (38-58) OK; overlaps 2 (36-56, 54-60), 3 (34-54, 51-60),
  4 (32-52, 48-60) CUT. Seven changes.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from chunkscope.analysis.diagnose import FailureCause
from chunkscope.analysis.fragility import (
    FragilityCancelled,
    NoNeighbours,
    Verdict,
    fragility,
    fragility_rows,
    neighbours,
    scaled,
)
from chunkscope.io.dataset import load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fragility"
OK, CUT = FailureCause.OK, FailureCause.CUT

HAND_STATES = {
    "q1": (OK, (OK, OK, OK, OK, OK, OK, OK, OK)),
    "q2": (OK, (OK, OK, OK, CUT, OK, OK, OK, OK)),
    "q3": (CUT, (CUT, CUT, OK, OK, CUT, CUT, CUT, CUT)),
    "q4": (CUT, (CUT, CUT, CUT, CUT, CUT, CUT, CUT, CUT)),
    "q5": (OK, (CUT, CUT, CUT, CUT, OK, CUT, CUT, CUT)),
}
"""(base state, states under the eight neighbours), worked out in the module docstring."""


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    dataset = load_dataset(str(FIXTURE / "corpus"), str(FIXTURE / "questions.jsonl"))
    return Evaluator(dataset.corpus, dataset.questions.questions)


def specs(chunker: str) -> list[str]:
    return [n.config.chunker for n in neighbours(make_config(chunker))]


def changes(chunker: str) -> list[tuple[str, int]]:
    return [(n.parameter, n.value) for n in neighbours(make_config(chunker))]


# ---------------------------------------------------------------- the hand-worked fixture


def test_states_under_each_neighbour_match_the_hand_computation(evaluator: Evaluator) -> None:
    result = fragility(evaluator, make_config("fixed:size=20"))
    assert [n.rule for n in result.neighbours] == [
        "size -20%",
        "size -10%",
        "size +10%",
        "size +20%",
        "overlap 5% of size",
        "overlap 10% of size",
        "overlap 15% of size",
        "overlap 20% of size",
    ]
    assert {row.question_id: (row.base, row.states) for row in result.rows} == HAND_STATES


def test_shares_verdicts_and_marks(evaluator: Evaluator) -> None:
    result = fragility(evaluator, make_config("fixed:size=20"))
    shares = {row.question_id: row.share for row in result.rows}
    assert shares == {"q1": 0.0, "q2": 1 / 8, "q3": 2 / 8, "q4": 0.0, "q5": 7 / 8}
    verdicts = {row.question_id: row.verdict for row in result.rows}
    assert verdicts == {
        "q1": Verdict.ROBUST_OK,
        "q2": Verdict.FRAGILE_OK,
        "q3": Verdict.OK_NEARBY,
        "q4": Verdict.NOT_OK,
        "q5": Verdict.FRAGILE_OK,
    }
    assert "".join(row.mark for row in result.rows) == " ~+ ~"
    assert [row.question_id for row in result.rows if row.is_fragile_ok] == ["q2", "q5"]


def test_summary_separates_robust_from_fragile_ok(evaluator: Evaluator) -> None:
    summary = fragility(evaluator, make_config("fixed:size=20")).summary
    assert (summary.questions, summary.ok, summary.robust_ok, summary.fragile_ok) == (5, 3, 1, 2)
    assert (summary.ok_nearby, summary.not_ok, summary.changed) == (1, 1, 3)
    assert summary.mean_share == pytest.approx(float(Fraction(0 + 1 + 2 + 0 + 7, 8 * 5)))


def test_most_fragile_first(evaluator: Evaluator) -> None:
    result = fragility(evaluator, make_config("fixed:size=20"))
    assert [row.question_id for row in result.most_fragile()] == ["q5", "q3", "q2"]
    assert [row.question_id for row in result.most_fragile(2)] == ["q5", "q3"]
    assert result.row("q3").changed == 2
    with pytest.raises(KeyError):
        result.row("nope")


def test_every_neighbour_is_cached_and_progress_counts_the_evaluations(evaluator: Evaluator) -> None:
    calls: list[tuple[str, int, int]] = []
    result = fragility(evaluator, make_config("fixed:size=20"), progress=lambda *call: calls.append(call))
    assert [done for _, done, _ in calls] == list(range(10))
    assert {stage for stage, _, _ in calls} == {"fragility"} and {total for _, _, total in calls} == {9}
    assert all(evaluator.cached(n.config) is not None for n in result.neighbours)


def test_cancel_stops_before_the_next_evaluation(evaluator: Evaluator) -> None:
    asked: list[int] = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(FragilityCancelled):
        fragility(evaluator, make_config("fixed:size=20,overlap=10"), cancel=cancel)
    assert len(asked) == 4


def test_rows_refuse_results_of_other_questions(evaluator: Evaluator) -> None:
    base = evaluator.evaluate(make_config("fixed:size=20"))
    other = Evaluator(evaluator.corpus, evaluator.questions[:2]).evaluate(make_config("fixed:size=16"))
    with pytest.raises(ValueError, match="questions"):
        fragility_rows(base, [other])


# ---------------------------------------------------------------- the neighbour rules


def test_rounding_is_half_up_in_integers() -> None:
    assert [scaled(10, p) for p in (5, 15, 85, 95)] == [1, 2, 9, 10]
    assert [scaled(4, p) for p in (80, 90, 110, 120)] == [3, 4, 4, 5]


def test_non_zero_overlap_is_scaled_like_the_size() -> None:
    assert specs("fixed:size=400,overlap=80") == [
        "fixed:size=320,overlap=80",
        "fixed:size=360,overlap=80",
        "fixed:size=440,overlap=80",
        "fixed:size=480,overlap=80",
        "fixed:size=400,overlap=64",
        "fixed:size=400,overlap=72",
        "fixed:size=400,overlap=88",
        "fixed:size=400,overlap=96",
    ]


def test_duplicates_after_rounding_are_dropped() -> None:
    # Overlaps of 5%, 10%, 15%, 20% of 10 are 0.5, 1, 1.5, 2: rounded half up 1, 1, 2, 2.
    assert changes("fixed:size=10") == [
        ("size", 8),
        ("size", 9),
        ("size", 11),
        ("size", 12),
        ("overlap", 1),
        ("overlap", 2),
    ]
    # Size 4: 3.2, 3.6, 4.4, 4.8 -> 3, 4 (the base), 4 (the base), 5; overlaps 0.2, 0.4, 0.6, 0.8 -> 0, 0, 1, 1.
    assert changes("fixed:size=4") == [("size", 3), ("size", 5), ("overlap", 1)]


def test_a_size_too_small_for_its_overlap_is_dropped() -> None:
    # size -20% is 8, not larger than the overlap 8; overlap +20% is 9.6 -> 10, not smaller than the size.
    assert changes("fixed:size=10,overlap=8") == [
        ("size", 9),
        ("size", 11),
        ("size", 12),
        ("overlap", 6),
        ("overlap", 7),
        ("overlap", 9),
    ]


def test_token_units_and_other_chunkers_keep_their_parameters() -> None:
    assert specs("fixed:size=100,unit=tokens")[0] == "fixed:size=80,overlap=0,unit=tokens,tokenizer=cl100k"
    assert specs("recursive:size=300,overlap=30")[4] == "recursive:size=300,overlap=24"
    nudged = neighbours(make_config("langchain:chunk_size=500,chunk_overlap=50"))
    assert [(n.parameter, n.value) for n in nudged][3:5] == [("chunk_size", 600), ("chunk_overlap", 40)]


def test_a_chunker_with_a_size_only_gets_eight_size_steps() -> None:
    nudged = neighbours(make_config("markdown:max_chars=1000"))
    assert [n.value for n in nudged] == [800, 850, 900, 950, 1050, 1100, 1150, 1200]
    assert {n.parameter for n in nudged} == {"max_chars"}


def test_neighbour_specs_are_canonical_and_keep_the_delivery_settings() -> None:
    base = make_config("fixed:size=200,overlap=40", "bm25", top_k=3, budget=500, overflow="skip")
    for neighbour in neighbours(base):
        config = neighbour.config
        again = make_config(config.chunker, config.retriever, 3, 500, "skip")
        assert (config, config.label) == (again, again.label)


@pytest.mark.parametrize("chunker", ["paragraph", "parent"])
def test_chunkers_without_a_size_parameter_have_no_neighbours(chunker: str) -> None:
    with pytest.raises(NoNeighbours, match="needs a chunker with a size parameter"):
        neighbours(make_config(chunker))


def test_an_overlap_given_as_a_share_is_refused() -> None:
    pytest.importorskip("semchunk")
    with pytest.raises(NoNeighbours, match="whole-number overlaps"):
        neighbours(make_config("semchunk:size=100,overlap=0.5"))


def test_a_size_of_one_has_no_valid_neighbour() -> None:
    with pytest.raises(NoNeighbours, match="no valid neighbour"):
        neighbours(make_config("fixed:size=1"))
