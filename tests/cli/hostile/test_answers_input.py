"""Answers files and answer options: every bad input is one line naming the file, row and field; exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_helpers import FAST, digest, inputs, one_line_error, write

from chunkscope.cli import main


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.jsonl", '{"id": "q1", "answer": [5], "correct": true}\n', "a.jsonl:1: field 'answer': must be text"),
        ("a.jsonl", '{"id": "q1", "answer": "x", "correct": "maybe"}\n', "field 'correct': must be true or false"),
        ("a.jsonl", '{"id": "q1", "answer": "x", "score": "high"}\n', "field 'score': must be a number"),
        ("a.jsonl", '{"id": "q1", "answer": "x", "score": 1e999}\n', "a.jsonl"),
        ("a.jsonl", '{"id": ["q1"], "answer": "x", "correct": true}\n', "field 'id': must be text, got list"),
        ("a.jsonl", '{"id": "q1", "answer": "x", "correct": true}\n[1]\n', "a.jsonl:2"),
        ("a.jsonl", "", "cannot tell the answers format"),
        ("a.json", "[1, 2]", "cannot tell the answers format"),
        ("a.json", "{not json", "a.json"),
        ("a.csv", "id,answer,score\nq1,x,nan\n", "a.csv:2: field 'score': must be a finite number"),
        ("a.csv", "\ufeffid,answer,correct\nq1,x,true\n", "a.csv"),
        ("a.csv", "user_input,response,answer_correctness\ndelta epsilon,x,\n", "missing score"),
        ("a.json", '{"testCases": {"input": "x"}}', "field 'testCases': expected a list of rows"),
        (
            "a.json",
            '{"testCases": [{"input": "delta epsilon", "success": "ok"}]}',
            "a.json: field 'testCases[0].success': must be true or false",
        ),
        (
            "a.json",
            '{"results": {"results": [{"vars": [], "success": true}]}}',
            "field 'results.results[0].vars': must be an object",
        ),
        ("a.jsonl", '{"id": "zz", "answer": "x", "correct": true}\n', "no row matches a question"),
        ("a.jsonl", '{"id": "q1", "answer": "x", "score": -0.5}\n', "a.jsonl:1: score -0.5 lies outside [0, 1]"),
        ("a.jsonl", '{"id": "q1", "answer": "x"}\n', "a.jsonl:1: no judgment"),
    ],
)
def test_bad_answers_files(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, message: str
) -> None:
    path = write(tmp_path / name, content)
    before = digest(path)
    line = one_line_error(capsys, "eval", *inputs(files), *FAST, "--answers", str(path))
    assert message in line
    assert digest(path) == before  # never modified


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--answers", "missing.jsonl"], "missing.jsonl: no such file"),
        (["--answers-format", "plain", "--answers", "{answers}", "--answers", "{answers}"], "at most 1"),
        (["--answers", "{answers}", "--reader", "python:x:y"], "--answers and --reader go separately"),
        (["--answers", "{answers}", "--answers-config", "nothing"], "names no evaluated configuration"),
        (["--answers", "{answers}", "--json", "{answers}"], "refusing to write --json"),
        (["--judge", "exact"], "--judge takes python:package.module:function"),
    ],
)
def test_bad_answer_options(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    answers = write(tmp_path / "answers.jsonl", '{"id": "q1", "answer": "Delta", "correct": true}\n')
    before = digest(answers)
    argv = [part.replace("{answers}", str(answers)) for part in extra]
    assert message in one_line_error(capsys, "eval", *inputs(files), *FAST, *argv)
    assert digest(answers) == before


def test_compare_refuses_a_side_name_it_does_not_know(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = write(tmp_path / "answers.jsonl", '{"id": "q1", "answer": "Delta", "correct": true}\n')
    argv = ["compare", "fixed:size=20", "paragraph", *inputs(files), "--permutations", "50", "--answers", str(answers)]
    assert "--answers-config takes a or b" in one_line_error(capsys, *argv, "--answers-config", "c")
    assert main([*argv, "--answers-config", "b"]) == 0
