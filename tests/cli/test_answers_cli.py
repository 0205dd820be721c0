"""Answers through the CLI: --answers on eval and compare, --reader and --judge, reports, and bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.analysis.answers import attribute, delivered_texts, match_answers
from chunkscope.cli import main
from chunkscope.io.answers import load_answers
from chunkscope.io.squad import load_squad
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.answers import AnswerOutcome
from chunkscope.reports.casefile import case_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "answers"
FAST = ["--permutations", "300"]


def error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI in-process; assert exit 2 and one stderr line, no traceback; return that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


def _report(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json", "-"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _squad(tmp_path: Path) -> Path:
    """Two short articles whose answers are numbers."""
    articles = [
        (
            "Warranty",
            "The warranty lasts 24 months. Refurbished devices get 12 months. Batteries are covered for 6 months.",
            [("a1p0q0", "How many months does the warranty last?", "24", 19)],
        ),
        (
            "Shipping",
            "Standard shipping takes 3 days. Express takes 1 day. Islands add 2 days to either.",
            [("a2p0q0", "How many days does standard shipping take?", "3", 24)],
        ),
    ]
    data = {
        "data": [
            {
                "title": title,
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [
                            {"id": qid, "question": q, "answers": [{"text": text, "answer_start": start}]}
                            for qid, q, text, start in qas
                        ],
                    }
                ],
            }
            for title, context, qas in articles
        ]
    }
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data))
    return path


def test_eval_attributes_answers_and_states_their_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    answers = str(FIXTURES / "plain.jsonl")
    report = _report(capsys, "eval", "--chunker", "fixed:size=200", "--chunker", "paragraph", "--answers", answers)
    first, second = report["configs"]
    block = first["answers"]["answers"]
    assert block["why_this_configuration"].startswith("the first configuration")
    assert (block["matched"], block["unanswered"], len(block["unmatched_rows"])) == (4, 36, 1)
    assert sum(block["attribution"].values()) == 4
    assert "answers" not in second  # never attributed to another configuration
    by_id = {q["id"]: q for q in first["questions"]}
    assert by_id["q02"]["answer"] == "From the day you ordered." and by_id["q02"]["answer_correct"] is False
    expected = {
        (True, True): "ok",
        (True, False): "generation",
        (False, False): "retrieval",
        (False, True): "unsupported",
    }
    for qid in ("q01", "q02", "q03", "q05"):
        q = by_id[qid]
        assert q["answer_attribution"] == expected[(bool(q["complete"]), q["answer_correct"])]
    assert by_id["q04"]["answer"] is None
    named = _report(
        capsys,
        "eval",
        "--chunker",
        "fixed:size=200",
        "--chunker",
        "paragraph",
        "--answers",
        answers,
        "--answers-config",
        "2",
    )
    assert "answers" not in named["configs"][0] and named["configs"][1]["answers"]["answers"]["matched"] == 4


def test_reports_without_answer_options_have_no_answer_fields(capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(capsys, "eval", "--chunker", "paragraph")
    assert "answers" not in report["configs"][0] and "answers_configurations" not in report
    assert "answer_in_context" not in report["configs"][0]["questions"][0]


def test_csv_and_markdown_carry_the_attribution(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    csv_path, md_path = tmp_path / "r.csv", tmp_path / "r.md"
    answers = str(FIXTURES / "plain.jsonl")
    args = ["eval", "--chunker", "paragraph", "--answers", answers, "--csv", str(csv_path), "--markdown", str(md_path)]
    assert main(args) == 0
    lines = csv_path.read_text().splitlines()
    assert lines[0].endswith(",answer_in_context,answer_correct,answer_score,answer_attribution")
    q02 = next(line for line in lines if ",q02," in line)
    assert q02.endswith(",0,,generation") or q02.endswith(",0,,retrieval")
    markdown = md_path.read_text()
    assert "## Answers" in markdown and "the only configuration" in markdown


def test_compare_with_answers_for_a_and_b(capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(
        capsys,
        "compare",
        "fixed:size=200",
        "paragraph",
        *FAST,
        "--answers",
        str(FIXTURES / "plain.jsonl"),
        "--answers",
        str(FIXTURES / "plain-scores.csv"),
        "--answer-margin",
        "0.2",
    )
    transitions = report["answers"]["transitions"]
    assert transitions["questions"] == 3  # q01, q02, q03 are answered in both files
    assert sum(sum(row.values()) for row in transitions["transitions"].values()) == 3
    assert transitions["equivalence"]["margin"] == 0.2
    assert transitions["summary"].startswith("Evidence became complete for ")


def test_reader_and_judge_plugins(plugins: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    squad = _squad(tmp_path)
    argv = ["eval", "--squad", str(squad), "--chunker", "fixed:size=30", "--top-k", "1"]
    report = _report(capsys, *argv, "--reader", "python:cs_plugins.answering:first_number", "--judge", "em")
    # oracle: the first number of the delivered text, computed from the evaluation itself
    dataset = load_squad(squad)
    result = Evaluator(dataset.corpus, dataset.questions.questions).evaluate(parse_config("fixed:size=30", "bm25", 1))
    references = {q.id: q.references for q in dataset.questions.questions}
    by_id = {q["id"]: q for q in report["configs"][0]["questions"]}
    for question in result.questions:
        numbers = re.findall(r"\d+", " ".join(delivered_texts(question)))
        answer = numbers[0] if numbers else ""
        assert by_id[question.question_id]["answer"] == answer
        assert by_id[question.question_id]["answer_correct"] == (answer in references[question.question_id])
    block = report["configs"][0]["answers"]
    assert block["answers"]["format"] == "reader" and "questions_with_references" in block
    assert all(q["answer"] for q in by_id.values()) and block["answers"]["correct"] >= 1  # the oracle is not vacuous
    # a plugin judge: the reference occurs in the answer
    judged = _report(
        capsys,
        *argv,
        "--reader",
        "python:cs_plugins.answering:first_chunk",
        "--judge",
        "python:cs_plugins.answering:contains_reference",
    )
    assert (
        judged["configs"][0]["answers"]["answers"]["judged_by"]
        == "judge python:cs_plugins.answering:contains_reference"
    )


def test_answer_in_context_beside_complete(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    squad = _squad(tmp_path)
    # two documents: BM25 idf is 0 for a term in one of two, so word overlap ranks them
    argv = ["eval", "--squad", str(squad), "--chunker", "paragraph", "--retriever", "overlap"]
    report = _report(capsys, *argv, "--answer-in-context")
    block = report["configs"][0]["answers"]
    assert block == {"answer_in_context": 2, "answer_in_context_rate": 1.0, "questions_with_references": 2}
    assert all(q["answer_in_context"] is True for q in report["configs"][0]["questions"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--reader", "python:cs_plugins.answering:not_text"],
            "reader 'python:cs_plugins.answering:not_text' returned int for question",
        ),
        (
            ["--reader", "python:cs_plugins.answering:first_chunk", "--judge", "python:cs_plugins.answering:raises"],
            "raised RuntimeError: judge broke (question ",
        ),
        (
            ["--reader", "python:cs_plugins.answering:first_chunk", "--judge", "python:cs_plugins.answering:says_yes"],
            "returned str for question 'a",
        ),
        (
            ["--reader", "python:cs_plugins.answering:first_chunk", "--judge", "python:cs_plugins.answering:too_high"],
            "returned 7 for question 'a",
        ),
        (["--reader", "cs_plugins.answering:first_chunk"], "--reader takes python:package.module:function"),
        (["--judge", "python:cs_plugins.nothing:x"], "cannot import plugin module 'cs_plugins.nothing'"),
    ],
)
def test_bad_plugins_are_one_line(
    plugins: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], message: str
) -> None:
    line = error_line(capsys, "eval", "--squad", str(_squad(tmp_path)), "--chunker", "paragraph", *extra)
    assert message in line


def test_bad_answers_files_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    nothing = tmp_path / "nothing.jsonl"
    nothing.write_text('{"id": "zz", "answer": "x", "correct": true}\n')
    assert "no row matches a question" in error_line(
        capsys, "eval", "--chunker", "paragraph", "--answers", str(nothing)
    )
    outside = tmp_path / "outside.csv"
    outside.write_text("id,answer,score\nq01,x,3.5\n")
    line = error_line(capsys, "eval", "--chunker", "paragraph", "--answers", str(outside))
    assert "outside.csv:2: score 3.5 lies outside [0, 1]" in line
    assert main(["eval", "--chunker", "paragraph", "--answers", str(outside), "--answer-threshold", "2"]) == 0
    capsys.readouterr()
    line = error_line(capsys, "eval", "--chunker", "paragraph", "--answers", str(outside), "--answers-config", "7")
    assert "--answers-config '7' names no evaluated configuration" in line
    line = error_line(
        capsys,
        "eval",
        "--chunker",
        "paragraph",
        "--answers",
        str(FIXTURES / "ragas.csv"),
        "--answers-format",
        "deepeval",
    )
    assert "ragas.csv" in line


def test_explain_shows_the_answer_beside_the_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(capsys, "explain", "q02", "--chunker", "paragraph", "--answers", str(FIXTURES / "plain.jsonl"))
    (view,) = report["answers"]
    assert view["question"] == "q02" and view["answer"] == "From the day you ordered."
    assert view["answer_correct"] is False
    # the attribution follows the evidence of the explained configuration
    eval_report = _report(capsys, "eval", "--chunker", "paragraph")
    complete = next(q["complete"] for q in eval_report["configs"][0]["questions"] if q["id"] == "q02")
    assert view["answer_attribution"] == ("generation" if complete else "retrieval")


def test_the_case_file_carries_the_answer(sample_result_and_answers: tuple[Any, ...]) -> None:
    question, corpus, result, outcome = sample_result_and_answers
    text = case_file(question, corpus, [result], "sample", answers=outcome)
    assert "### A: answer to q02" in text
    assert "- Answer: “From the day you ordered.”: wrong" in text
    assert case_file(question, corpus, [result], "sample") == case_file(question, corpus, [result], "sample", None)
    assert "answer to" not in case_file(question, corpus, [result], "sample")


@pytest.fixture
def sample_result_and_answers(sample: Any) -> tuple[Any, ...]:
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(parse_config("paragraph", "bm25", 5))
    answers = match_answers(load_answers(FIXTURES / "plain.jsonl")[0], sample.questions, None)
    attribution = attribute(result, answers)
    outcome = AnswerOutcome({}, {result.config: attribution}, {result.config: "the only configuration"})
    question = next(q for q in sample.questions.questions if q.id == "q02")
    return question, sample.corpus, result, outcome


def test_answer_in_context_without_references_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "paragraph", "--answer-in-context", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert "answer_in_context not computed: no question has a reference answer" in captured.err
    assert "answers" not in json.loads(captured.out)["configs"][0]


def test_compare_csv_carries_both_sides(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "c.csv"
    argv = ["compare", "fixed:size=200", "paragraph", *FAST, "--answers", str(FIXTURES / "plain.jsonl")]
    assert main([*argv, "--csv", str(out)]) == 0
    header, *rows = [line.split(",") for line in out.read_text().splitlines()]
    assert header[-8:] == [
        f"{c}_{s}" for s in "ab" for c in ("answer_in_context", "answer_correct", "answer_score", "answer_attribution")
    ]
    q02 = next(row for row in rows if row[0] == "q02")
    assert q02[-7] == "0" and q02[-5] in ("generation", "retrieval")  # A's answer: wrong
    assert q02[-4:] == ["", "", "", ""]  # B has no answers: never attributed to it


def test_answers_default_to_the_imported_production_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    imported = Path(__file__).resolve().parents[2] / "src" / "chunkscope" / "sample_data" / "imported"
    production = ["--chunks", str(imported / "chunks.jsonl"), "--run", str(imported / "run.trec")]
    answers = ["--answers", str(FIXTURES / "plain.jsonl")]
    report = _report(capsys, "eval", *production, *answers)
    (config,) = report["configs"]
    assert (
        config["answers"]["answers"]["why_this_configuration"] == "the imported production pipeline (--chunks + --run)"
    )
    compared = _report(capsys, "compare", "paragraph/bm25", "imported/run", *production, *answers, *FAST)
    first, second = compared["answers"]["configs"]
    assert "answers" not in first  # A is paragraph/bm25: the answers are B's, the production pipeline's
    assert second["answers"]["why_this_configuration"] == "B: the imported production pipeline (--chunks + --run)"


def test_compare_with_a_reader_answers_both_sides(
    plugins: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    squad = _squad(tmp_path)
    reader = ["--reader", "python:cs_plugins.answering:first_number", "--judge", "em"]
    report = _report(
        capsys, "compare", "fixed:size=30", "paragraph", "--squad", str(squad), "--top-k", "1", *FAST, *reader
    )
    a, b = report["answers"]["configs"]
    assert a["answers"]["answered"] == b["answers"]["answered"] == 2
    assert a["answers"]["why_this_configuration"].startswith("generated under it by --reader")
    assert report["answers"]["transitions"]["questions"] == 2
