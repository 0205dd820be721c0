"""Questions JSONL: every malformed record or evidence item is refused with its line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import FAST, GOOD_QUESTION, evidence, inputs, jsonl, one_line_error, question, write

from chunkscope.cli import main


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        (question(evidence={"doc": "d1", "quote": "Delta"}), "evidence", "must be a list, got dict"),
        (question(evidence=[]), "evidence", "needs at least one evidence item"),
        (evidence("d1"), "evidence[0]", "must be an object"),
        (evidence({"doc": "d1"}), "evidence[0].start", "missing: give start and end, or a quote"),
        (evidence({"doc": "d1", "start": "18", "end": 23}), "evidence[0].start", "must be an integer"),
        (evidence({"doc": "d1", "start": 18.0, "end": 23}), "evidence[0].start", "must be an integer"),
        (evidence({"doc": "d1", "start": True, "end": 23}), "evidence[0].start", "must be an integer"),
        (evidence({"doc": "d1", "start": 18}), "evidence[0].end", "must be an integer"),
        (evidence({"doc": "d1", "start": -1, "end": 5}), "evidence[0].start", "span [-1, 5) is out of range"),
        # d1 has 37 characters
        (evidence({"doc": "d1", "start": 30, "end": 38}), "evidence[0].start", "(document has 37 characters)"),
        (evidence({"doc": "d1", "start": 5, "end": 5}), "evidence[0].start", "span [5, 5) is empty"),
        (evidence({"doc": "d9", "start": 0, "end": 5}), "evidence[0].doc", "unknown document 'd9'"),
        (evidence({"start": 0, "end": 5}), "evidence[0].doc", "missing"),
        (evidence({"doc": "d1", "quote": ""}), "evidence[0].quote", "must be a non-empty string"),
        (evidence({"doc": "d1", "quote": 5}), "evidence[0].quote", "must be a non-empty string"),
        (evidence({"doc": "d1", "quote": "Omega"}), "evidence[0].quote", "quote 'Omega' found 0 times in 'd1'"),
        # "a" in d1 at 4 (Alph-a), 9 (bet-a), 12 (g-a-mma), 15 (gamm-a), 22 (Delt-a), 35 (zet-a)
        (
            evidence({"doc": "d1", "quote": "a"}),
            "evidence[0].quote",
            "found 6 times in 'd1' at offsets 4, 9, 12, 15, 22, 35",
        ),
        (evidence({"doc": "d1", "quote": "Delta", "occurrence": 1}), "evidence[0].occurrence", "occurs once"),
        (evidence({"doc": "d1", "quote": "Delta", "occurrence": -1}), "evidence[0].occurrence", "non-negative integer"),
        (evidence({"doc": "d1", "quote": "Delta", "occurrence": False}), "evidence[0].occurrence", "got false"),
        (evidence({"doc": "d1", "quote": "Delta", "occurrence": "0"}), "evidence[0].occurrence", 'got "0"'),
        (
            evidence({"doc": "d1", "start": 18, "end": 23, "occurrence": 0}),
            "evidence[0].occurrence",
            "only to a 'quote'",
        ),
        # the quote 'Delta' sits at 18..23, not 0..5
        (
            evidence({"doc": "d1", "quote": "Delta", "start": 0, "end": 5}),
            "evidence[0].start",
            "[0, 5) does not match the quote, found at [18, 23)",
        ),
        (evidence({"doc": "d1", "quote": "Delta", "occurence": 0}), "evidence[0].occurence", "unknown key 'occurence'"),
        (evidence({"any": []}), "evidence[0].any", "needs at least one alternative"),
        (evidence({"any": {"doc": "d1", "quote": "Delta"}}), "evidence[0].any", "must be a list, got dict"),
        (evidence({"any": [{"any": []}]}), "evidence[0].any[0].any", "needs at least one alternative"),
        (evidence({"any": [{"doc": "d1", "quote": "Delta"}], "doc": "d1"}), "evidence[0]", "takes no other keys"),
        (
            evidence({"any": [{"doc": "d1", "quote": "Delta"}, {"doc": "d1", "start": 0}]}),
            "evidence[0].any[1].end",
            "integer",
        ),
        (question(tags="en"), "tags", "must be a list of non-empty strings"),
        (question(tags=["en", 1]), "tags", "must be a list of non-empty strings"),
        (question(tags=[""]), "tags", "must be a list of non-empty strings"),
        (question(query=""), "query", "must not be empty"),
        (question(query=" \t "), "query", "must not be empty"),
        (question(query=3), "query", "must be a string, got int"),
        (question(id=""), "id", "must not be empty"),
        ({"query": "x", "evidence": [{"doc": "d1", "quote": "Delta"}]}, "id", "missing"),
    ],
)
def test_bad_question(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], record: dict[str, Any], field: str, message: str
) -> None:
    write(files["questions"], jsonl([question(id="ok"), record]))
    error = one_line_error(capsys, "eval", *inputs(files), *FAST)
    assert error.startswith(f"chunkscope: error: {files['questions']}:2: field '{field}': "), error
    assert message in error


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        (jsonl([GOOD_QUESTION, GOOD_QUESTION]), ":2: field 'id'", "duplicate question id 'q1' (first on line 1)"),
        ("", "", "the question set is empty"),
        ("\ufeff" + jsonl([GOOD_QUESTION]), ":1:", "byte-order mark (BOM)"),
        (b'{"id": "q1", "query": "\xff"}\n', ":1:", "not valid UTF-8"),
        ('"just a string"\n', ":1:", "each line must be a JSON object"),
    ],
    ids=["duplicate-ids", "empty", "bom", "invalid-utf8", "string-line"],
)
def test_bad_questions_file(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], content: str | bytes, where: str, message: str
) -> None:
    write(files["questions"], content)
    error = one_line_error(capsys, "eval", *inputs(files), *FAST)
    assert error.startswith(f"chunkscope: error: {files['questions']}{where}")
    assert message in error


def test_nested_any_is_valid_and_flattens(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """The evidence grammar lets an 'any' alternative be an ITEM, so another 'any': alternatives of alternatives."""
    nested = {"any": [{"any": [{"doc": "d1", "quote": "Delta"}]}, {"doc": "d2", "quote": "Kappa"}]}
    write(files["questions"], jsonl([evidence(nested)]))
    assert main(["eval", *inputs(files), *FAST, "--json", "-"]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    # fixed:size=20 over d1 (37 chars): windows [0,20) [20,37), so 'Delta' 18..23 is cut at 20; the item
    # still exists through its other alternative 'Kappa' 0..5, inside d2's window [0,19).
    assert config["summary"]["evidence_exists"] == 1
    (cut,) = config["questions"][0]["cuts"]
    assert (cut["doc"], cut["start"], cut["end"], cut["boundaries"], cut["pieces"]) == (
        "d1",
        18,
        23,
        [20],
        ["d1#0", "d1#1"],
    )
