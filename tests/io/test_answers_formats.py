"""Answers files: each format read from a hand-written fixture, detection, forcing, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.answers import load_answers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "answers"


def test_plain_jsonl() -> None:
    answers, source = load_answers(FIXTURES / "plain.jsonl")
    assert (answers.format, answers.detected) == ("plain", True)
    assert [(r.question_id, r.question, r.correct) for r in answers.records] == [
        ("q01", None, True),
        ("q02", None, False),
        ("q03", None, True),
        (None, "Can gift cards be returned?", True),
        ("q99", None, True),
    ]
    assert answers.records[1].answer == "From the day you ordered."
    assert answers.records[1].where.endswith("plain.jsonl:2")
    assert len(source.sha256) == 64


def test_plain_csv_scores() -> None:
    answers, _ = load_answers(FIXTURES / "plain-scores.csv")
    assert [(r.question_id, r.score, r.correct) for r in answers.records] == [
        ("q01", 0.9, None),
        ("q02", 0.5, None),
        ("q03", 0.2, None),
    ]
    assert answers.score_name == "score"


def test_ragas_csv_takes_answer_correctness() -> None:
    answers, _ = load_answers(FIXTURES / "ragas.csv")
    assert answers.format == "ragas"
    assert answers.score_name == "answer_correctness"
    assert [(r.question, r.score) for r in answers.records] == [
        ("Can opened audio items be returned?", 0.82),
        ("How many days after the check do I get my refund?", 0.18),
        ("Can gift cards be returned?", 0.91),
    ]
    assert answers.records[0].answer == "Yes, within 30 days, after an inspection."
    assert answers.records[2].references == ("Gift cards cannot be returned.",)


def test_ragas_json_factual_correctness_variant_and_forced_metric() -> None:
    answers, _ = load_answers(FIXTURES / "ragas-factual.json")
    assert answers.score_name == "factual_correctness(mode=f1)"
    assert [r.score for r in answers.records] == [0.67, 0.0]
    forced, _ = load_answers(FIXTURES / "ragas.csv", metric="faithfulness")
    assert [r.score for r in forced.records] == [1.0, 0.0, 1.0]


def test_deepeval_success_or_a_named_metric() -> None:
    answers, _ = load_answers(FIXTURES / "deepeval.json")
    assert answers.format == "deepeval"
    assert [(r.question_id, r.question, r.correct) for r in answers.records] == [
        ("test_case_0", "Can opened audio items be returned?", True),
        ("q05", "Can gift cards be returned?", False),
    ]
    scored, _ = load_answers(FIXTURES / "deepeval.json", metric="Correctness (GEval)")
    assert [(r.correct, r.score) for r in scored.records] == [(None, 0.8), (None, 0.1)]


def test_promptfoo_success_or_a_named_score() -> None:
    answers, _ = load_answers(FIXTURES / "promptfoo.json")
    assert answers.format == "promptfoo"
    assert [(r.question_id, r.answer, r.correct) for r in answers.records] == [
        ("q10", "Express costs 18 euros there.", False),
        (None, "The filter is blocked.", True),
    ]
    assert answers.records[1].question == "What does E-114 mean on the RX-200?"
    scored, _ = load_answers(FIXTURES / "promptfoo.json", metric="correctness")
    assert [r.score for r in scored.records] == [0.2, 0.9]


def test_a_forced_format_is_used_and_says_so(tmp_path: Path) -> None:
    # plain rows that also look like ragas (user_input, response): detection takes ragas (which then
    # wants a metric column), forcing plain reads them as plain.
    path = tmp_path / "both.jsonl"
    path.write_text('{"id": "q01", "user_input": "x", "response": "y", "answer": "z", "correct": true}\n')
    with pytest.raises(InputError, match="no judgment column"):
        load_answers(path)
    forced, _ = load_answers(path, "plain")
    assert (forced.format, forced.detected, forced.records[0].answer) == ("plain", False, "z")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.jsonl", '{"id": "q01", "answer": "x", "correct": "maybe"}\n', "a.jsonl:1: field 'correct'"),
        ("b.jsonl", '{"id": "q01", "answer": "x", "score": "high"}\n', "b.jsonl:1: field 'score'"),
        ("c.jsonl", '{"answer": "x"}\n', "cannot tell the answers format"),
        ("d.txt", "x", "must be .json, .jsonl or .csv"),
        ("e.json", '{"testCases": [{"input": "q", "actualOutput": "a"}]}', "field 'testCases[0].success'"),
        ("f.json", '{"results": {"results": [{"vars": {"question": "q"}, "response": {"output": 3}}]}}', "output"),
        ("g.csv", "user_input,response,faithfulness\nq,a,1\n", "no judgment column"),
    ],
)
def test_bad_answers_files_name_the_file_and_row(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        load_answers(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_forced_format_lists_the_formats(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="choose from deepeval, plain, promptfoo, ragas"):
        load_answers(FIXTURES / "plain.jsonl", "trulens")
