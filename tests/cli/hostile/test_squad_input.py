"""SQuAD files: malformed articles, paragraphs and answers are refused with their JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import FAST, one_line_error, qa, squad, write

P0 = "data[0].paragraphs[0]"
QA0 = f"{P0}.qas[0]"


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        ("{oops", None, "invalid JSON"),
        ([1, 2], "data", "expected a SQuAD object with a 'data' list"),
        ({"version": "v2.0"}, "data", "expected a SQuAD object with a 'data' list"),
        ({"data": [{"title": "T", "paragraphs": {}}]}, "data[0].paragraphs", "must be a list"),
        ({"data": [{"title": "T", "paragraphs": [{"qas": [qa()]}]}]}, f"{P0}.context", "must be a string"),
        ({"data": [{"paragraphs": []}]}, "data[0].title", "string 'title'"),
        (
            squad(qa(answers=[{"text": "gamma", "answer_start": 500}])),
            f"{QA0}.answers[0].answer_start",
            "not at offset 500",
        ),
        (
            squad(qa(answers=[{"text": "gamma", "answer_start": 0}])),
            f"{QA0}.answers[0].answer_start",
            "not at offset 0",
        ),
        (squad(qa(answers=[{"text": "gamma", "answer_start": "11"}])), f"{QA0}.answers[0].answer_start", "integer"),
        (squad(qa(answers=[{"text": "", "answer_start": 0}])), f"{QA0}.answers[0].text", "must not be empty"),
        (squad(qa(answers={"text": "gamma"})), f"{QA0}.answers", "must be a list"),
        (squad(qa(question="")), f"{QA0}.question", "must not be empty"),
        (squad(qa(is_impossible="false")), f"{QA0}.is_impossible", 'must be true or false, got "false"'),
        (squad(qa(), qa()), f"{P0}.qas[1].id", "duplicate question id 'a1p0q0'"),
        # v2: every question unanswerable -> nothing left to evaluate
        (squad(qa(is_impossible=True, answers=[]), qa(id="a1p0q1", answers=[])), None, "(2 unanswerable)"),
        ({"data": []}, None, "the question set is empty"),
        ("[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
        ("\ufeff" + json.dumps(squad(qa())), None, "byte-order mark (BOM)"),
    ],
    ids=[
        "not-json",
        "json-list",
        "data-missing",
        "paragraphs-not-list",
        "context-missing",
        "title-missing",
        "answer-start-beyond-context",
        "answer-text-mismatch",
        "answer-start-string",
        "answer-text-empty",
        "answers-not-list",
        "question-empty",
        "is-impossible-string",
        "duplicate-question-id",
        "v2-all-impossible",
        "no-articles",
        "nested-too-deep",
        "bom",
    ],
)
def test_bad_squad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, field: str | None, message: str
) -> None:
    path = write(tmp_path / "squad.json", content if isinstance(content, str) else json.dumps(content))
    error = one_line_error(capsys, "eval", "--squad", str(path), *FAST)
    assert error.startswith(f"chunkscope: error: {path}")
    if field is not None:
        assert f": field '{field}': " in error
    assert message in error
