"""Imported chunks (--chunks) and run files (--run): bad records refused, unlocatable text a warning."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hostile_helpers import CHUNKSCOPE, GOOD_CHUNKS, inputs, jsonl, one_line_error, write

from chunkscope.cli import main


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        ("{x\n", ":1:", "invalid JSON"),
        ("1\n", ":1:", "each line must be a JSON object"),
        ("[1]\n", ":1: field '[0]'", "each element of the array must be a JSON object"),
        (
            jsonl([*GOOD_CHUNKS, {"id": "c4", "doc": "d9", "start": 0, "end": 5}]),
            ":4: field 'doc'",
            "unknown document 'd9'",
        ),
        (
            jsonl([{"id": "c1", "doc": "d1", "start": "0", "end": 5}]),
            ":1: field 'start'",
            'must be an integer, got "0"',
        ),
        (
            jsonl([{"id": "c1", "doc": "d1", "start": -1, "end": 5}]),
            ":1: field 'start'",
            "offset -1 is outside the document (0..37 code points)",
        ),
        (
            jsonl([{"id": "c1", "doc": "d1", "start": 0, "end": 38}]),
            ":1: field 'end'",
            "offset 38 is outside the document (0..37 code points)",
        ),
        (jsonl([{"id": "c1", "doc": "d1", "start": 5, "end": 5}]), ":1: field 'end'", "must be greater than start"),
        (jsonl([{"id": "c1", "doc": "d1", "start": 0}]), ":1: field 'end'", "missing"),
        (jsonl([{"id": "c1", "doc": "d1"}]), ":1: field 'start'", "give start and end, or text"),
        (jsonl([{"id": 1.5, "doc": "d1", "start": 0, "end": 5}]), ":1: field 'id'", "must be a non-empty string"),
        (jsonl([GOOD_CHUNKS[0], GOOD_CHUNKS[0]]), ":2: field 'id'", "duplicate chunk id 'c1' (first on line 1)"),
        (
            jsonl([{"id": "c1", "doc": "d1", "start": 0, "end": 5, "text": "Alpha", "prefix": 3}]),
            ":1: field 'prefix'",
            "must be a string, got 3",
        ),
        ("", "", "the chunking is empty: it lists no chunks"),
        (jsonl([{"id": "c1", "doc": "d1", "text": "Omega"}]), "", "none of its 1 chunks could be located"),
        ("\ufeff" + jsonl(GOOD_CHUNKS), ":1:", "byte-order mark (BOM)"),
        (b'{"id": "c1", "doc": "d1", "text": "\xff"}\n', "", "not valid UTF-8"),
    ],
    ids=[
        "invalid-json",
        "non-object",
        "non-object-element",
        "unknown-doc",
        "start-string",
        "start-negative",
        "end-beyond",
        "end-not-after-start",
        "end-missing",
        "neither-offsets-nor-text",
        "id-float",
        "duplicate-id",
        "prefix-int",
        "empty",
        "nothing-located",
        "bom",
        "invalid-utf8",
    ],
)
def test_bad_chunks_file(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], content: str | bytes, where: str, message: str
) -> None:
    write(files["chunks"], content)
    error = one_line_error(capsys, "eval", *inputs(files), "--chunks", str(files["chunks"]))
    assert error.startswith(f"chunkscope: error: {files['chunks']}{where}")
    assert message in error


def test_chunk_text_not_found_is_a_warning(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write(files["chunks"], jsonl([*GOOD_CHUNKS, {"id": "c4", "doc": "d2", "text": "Omega"}]))
    assert main(["eval", *inputs(files), "--chunks", str(files["chunks"])]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"chunkscope: warning: {files['chunks']}:4: chunk 'c4' text not found in 'd2'; left out" in err
    assert (
        f"chunkscope: chunks {files['chunks']} (chunkscope): 4 chunks: 3 exact, 0 relocated, 0 ambiguous, 1 not found"
        in err
    )


def test_chunk_text_contradicting_its_offsets_is_relocated(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    write(files["chunks"], jsonl([{"id": "c1", "doc": "d1", "start": 1, "end": 6, "text": "Alpha"}, GOOD_CHUNKS[1]]))
    assert main(["eval", *inputs(files), "--chunks", str(files["chunks"]), "--json", "-"]) == 0
    captured = capsys.readouterr()
    (config,) = json.loads(captured.out)["configs"]
    assert config["chunk_import"]["exact"] == 1 and config["chunk_import"]["relocated"] == 1
    assert "1 relocated" in captured.err


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        ("q1 Q0 c2 1 3.0\n", ":1:", "expected 6 whitespace-separated fields"),
        (
            "q1 Q0 c2 1 3.0 t\nq1 Q0 c9 2 1.0 t\nq1 Q0 c8 3 0.5 t\n",
            ":2: field 'chunk_id'",
            "2 chunk ids are not in the chunking: c9, c8",
        ),
        ("q1 Q0 c2 one 3.0 t\n", ":1: field 'rank'", "must be an integer, got 'one'"),
        ("q1 Q0 c2 1.5 3.0 t\n", ":1: field 'rank'", "must be an integer, got '1.5'"),
        ("q1 Q0 c2 1 high t\n", ":1: field 'score'", "must be a number, got 'high'"),
        ("q1 Q0 c2 1 nan t\n", ":1: field 'score'", "must be a finite number, got 'nan'"),
        ("q1 Q0 c2 1 inf t\n", ":1: field 'score'", "must be a finite number, got 'inf'"),
        ("", "", "the run is empty"),
        ("\n\n", "", "the run is empty"),
        ("x1 Q0 c2 1 3.0 t\n", ": field 'qid'", "ranks none of the 1 questions: its question ids (x1)"),
        ("\ufeffq1 Q0 c2 1 3.0 t\n", ":1:", "byte-order mark (BOM)"),
        (b"q1 Q0 c2 1 3.0 \xff\n", "", "not valid UTF-8"),
    ],
    ids=[
        "five-fields",
        "unknown-chunk-ids",
        "rank-word",
        "rank-float",
        "score-word",
        "score-nan",
        "score-inf",
        "empty",
        "blank",
        "another-question-set",
        "bom",
        "invalid-utf8",
    ],
)
def test_bad_run_file(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], content: str | bytes, where: str, message: str
) -> None:
    write(files["run"], content)
    argv = [*inputs(files), "--chunks", str(files["chunks"]), "--run", str(files["run"])]
    error = one_line_error(capsys, "eval", *argv)
    assert error.startswith(f"chunkscope: error: {files['run']}{where}"), error
    assert message in error


def test_run_file_with_tabs_and_crlf_is_valid(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write(files["run"], "q1\tQ0\tc2\t1\t3.0\tprod\r\n")
    argv = [*inputs(files), "--chunks", str(files["chunks"]), "--run", str(files["run"]), "--json", "-"]
    assert main(["eval", *argv]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    # 'Delta' (18..23) lies in c2 (18..37), ranked first
    assert config["questions"][0]["first_correct_rank"] == 1


def test_bare_imported_without_chunks_option(files: dict[str, Path]) -> None:
    """Through the console entry point: the whole stderr is one line naming the option."""
    result = subprocess.run(
        [*CHUNKSCOPE, "eval", *inputs(files), "--chunker", "imported"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "chunkscope: error: in chunker spec 'imported': imported needs path=FILE (or the --chunks FILE option)"
    ]
