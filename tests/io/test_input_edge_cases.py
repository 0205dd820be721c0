"""Input edge cases: each gives one line naming file, line and field with exit 2, or, when valid, the right result.

The corpus (offsets by hand):

    d1: "Alpha beta gamma. Delta epsilon zeta."   37 characters; "Delta" at 18..23
    d2: "Kappa lambda mu nu."                      19 characters

With ``fixed:size=20`` the windows of d1 are [0, 20) and [20, 37): "Delta" is cut at 20, so a question about
it is lost and shows up in the Markdown report.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from chunkscope.cli import common, main
from chunkscope.errors import SpecError
from chunkscope.io.squad import load_squad
from chunkscope.retrievers import parse_retriever
from chunkscope.spec.grammar import MAX_DEPTH

if TYPE_CHECKING:
    from conftest import Unprivileged

D1 = "Alpha beta gamma. Delta epsilon zeta."
D2 = "Kappa lambda mu nu."
QUESTION = {"id": "q1", "query": "delta epsilon", "evidence": [{"doc": "d1", "quote": "Delta"}]}
FAST = ("--chunker", "fixed:size=20")
HUGE = "9" * 5000
"""An integer literal longer than Python converts (4,300 digits)."""


def jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"corpus": tmp_path / "corpus.jsonl", "questions": tmp_path / "questions.jsonl"}
    paths["corpus"].write_text(jsonl([{"id": "d1", "text": D1}, {"id": "d2", "text": D2}]), encoding="utf-8")
    paths["questions"].write_text(jsonl([QUESTION]), encoding="utf-8")
    return paths


def inputs(files: dict[str, Path]) -> list[str]:
    return ["--corpus", str(files["corpus"]), "--questions", str(files["questions"])]


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Evaluating fails the test: the input must be refused before."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("evaluation started despite bad input")

    monkeypatch.setattr(common, "evaluate_all", refuse)


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("chunkscope: error: "), err
    return err.strip()


def argparse_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as caught:
        main(list(argv))
    err = capsys.readouterr().err
    assert caught.value.code == 2
    assert "Traceback" not in err
    return err.splitlines()[-1]


def squad(*paragraphs: dict[str, Any], title: str = "T") -> dict[str, Any]:
    return {"data": [{"title": title, "paragraphs": list(paragraphs)}]}


def paragraph(context: str, qid: str, answer: str, start: int) -> dict[str, Any]:
    return {
        "context": context,
        "qas": [{"id": qid, "question": "?", "answers": [{"text": answer, "answer_start": start}]}],
    }


# ------------------------------------------------------------------ integers beyond Python's digit limit


def test_a_huge_integer_in_the_corpus(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    files["corpus"].write_text(jsonl([{"id": "d1", "text": D1}]) + f'{{"id": "d2", "text": {HUGE}}}\n')
    error = one_line_error(capsys, "eval", *inputs(files), *FAST)
    assert (
        error
        == f"chunkscope: error: {files['corpus']}:2: field 'text': a number of 5,000 digits (at most 4,300 are read)"
    )


def test_a_huge_integer_in_the_questions(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    line = json.dumps({**QUESTION, "evidence": [{"doc": "d1", "start": 0, "end": 1}]}).replace(
        '"end": 1', f'"end": {HUGE}'
    )
    files["questions"].write_text(line + "\n", encoding="utf-8")
    error = one_line_error(capsys, "eval", *inputs(files), *FAST)
    assert error.startswith(f"chunkscope: error: {files['questions']}:1: field 'evidence[0].end': a number of 5,000")


def test_a_huge_integer_in_squad(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(squad(paragraph("Alpha beta.", "a0p0q0", "beta", 6))).replace(": 6", f": -{HUGE}"))
    error = one_line_error(capsys, "eval", "--squad", str(path))
    field = "data[0].paragraphs[0].qas[0].answers[0].answer_start"
    assert error == f"chunkscope: error: {path}: field '{field}': a number of 5,000 digits (at most 4,300 are read)"


def test_a_huge_integer_in_the_baseline(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "baseline.json"
    assert main(["eval", *inputs(files), *FAST, "--json", str(saved)]) == 0
    report = json.loads(saved.read_text(encoding="utf-8"))
    report["configs"][0]["summary"]["lost"] = 0
    saved.write_text(json.dumps(report).replace('"lost": 0', f'"lost": {HUGE}', 1), encoding="utf-8")
    capsys.readouterr()
    argv = [*inputs(files), *FAST, "--baseline", str(saved), "--fail-if-worse", "lost"]
    error = one_line_error(capsys, "eval", *argv)
    assert error.startswith(f"chunkscope: error: {saved}: field 'configs[0].summary.lost': not a JSON report: a number")


def test_a_squad_paragraph_index_of_5000_digits_orders_as_a_number(tmp_path: Path) -> None:
    """Stored order: p<10^4999>, p10, p2; the true order is p2, p10, p<10^4999>."""
    path = tmp_path / "squad.json"
    huge_index = "1" + "0" * 4999
    stored = [
        paragraph("Zeta last. ", f"a0p{huge_index}q0", "Zeta", 0),
        paragraph("Beta middle. ", "a0p10q0", "Beta", 0),
        paragraph("Alpha first. ", "a0p2q0", "Alpha", 0),
    ]
    path.write_text(json.dumps(squad(*stored)), encoding="utf-8")
    dataset = load_squad(path)
    (document,) = dataset.corpus.documents
    assert document.text == "Alpha first. Beta middle. Zeta last. "
    assert document.paragraphs == ((0, 13), (13, 26), (26, 37))


# ------------------------------------------------------------------ SQuAD values


def test_a_negative_squad_answer_start(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None) -> None:
    """context[-12:-12 + 5] is 'gamma' (12 from the end), so the slice check alone would accept it."""
    path = tmp_path / "squad.json"
    context = "Alpha beta gamma delta."  # len 23: 'gamma' at 11 == 23 - 12
    path.write_text(json.dumps(squad(paragraph(context, "a0p0q0", "gamma", -12))), encoding="utf-8")
    error = one_line_error(capsys, "eval", "--squad", str(path))
    field = "data[0].paragraphs[0].qas[0].answers[0].answer_start"
    hint = "(--skip-bad-gold leaves such questions out and counts them)"
    assert error == f"chunkscope: error: {path}: field '{field}': must not be negative, got -12 {hint}"


@pytest.mark.parametrize("title", ["", "   "])
def test_an_empty_squad_title(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None, title: str) -> None:
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(squad(paragraph("Alpha beta.", "a0p0q0", "beta", 6), title=title)), encoding="utf-8")
    error = one_line_error(capsys, "eval", "--squad", str(path))
    assert error == (
        f"chunkscope: error: {path}: field 'data[0].title': must not be empty (an article's title is its document id)"
    )


# ------------------------------------------------------------------ files that are not what they seem


@pytest.mark.parametrize("option", ["--corpus", "--questions", "--squad", "--chunks", "--run", "--baseline"])
def test_a_character_device_input_is_refused_before_reading(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """/dev/zero never ends: reading it would run until memory is exhausted."""
    argv = {
        "--corpus": ["--corpus", "/dev/zero", "--questions", str(files["questions"])],
        "--questions": ["--corpus", str(files["corpus"]), "--questions", "/dev/zero"],
        "--squad": ["--squad", "/dev/zero"],
        "--chunks": [*inputs(files), "--chunks", "/dev/zero"],
        "--run": [*inputs(files), *FAST, "--run", "/dev/zero"],
        "--baseline": [*inputs(files), *FAST, "--baseline", "/dev/zero", "--fail-if-worse", "lost"],
    }[option]
    error = one_line_error(capsys, "eval", *argv)
    assert error.startswith("chunkscope: error: /dev/zero: cannot read")
    assert error.endswith("it is a character device, not a regular file")


def test_a_fifo_input_is_refused_without_waiting_for_a_writer(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "questions.fifo"
    os.mkfifo(fifo)
    error = one_line_error(capsys, "eval", "--corpus", str(files["corpus"]), "--questions", str(fifo))
    assert error == f"chunkscope: error: {fifo}: cannot read: it is a FIFO (pipe), not a regular file"


def test_a_corpus_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text(D1, encoding="utf-8")
    name = os.fsdecode(b"b\xff.md")
    (corpus / name).write_text(D2, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(jsonl([{**QUESTION, "evidence": [{"doc": "a.md", "quote": "Delta"}]}]), encoding="utf-8")
    error = one_line_error(capsys, "eval", "--corpus", str(corpus), "--questions", str(questions))
    assert (
        error
        == f"chunkscope: error: {corpus}/b\\xff.md: the file name is not valid UTF-8: rename it (it is the document id)"
    )


def test_an_unreadable_corpus_subdirectory_is_an_error(tmp_path: Path, unprivileged: Unprivileged) -> None:
    corpus = tmp_path / "docs"
    (corpus / "private").mkdir(parents=True)
    (corpus / "a.md").write_text(D1, encoding="utf-8")
    (corpus / "private" / "b.md").write_text(D2, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(jsonl([{**QUESTION, "evidence": [{"doc": "a.md", "quote": "Delta"}]}]), encoding="utf-8")
    (corpus / "private").chmod(0)
    try:
        code = "import sys; from chunkscope.cli import main; sys.exit(main(sys.argv[1:]))"
        result = unprivileged.run(code, "eval", "--corpus", str(corpus), "--questions", str(questions))
    finally:
        (corpus / "private").chmod(0o755)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"chunkscope: error: {corpus / 'private'}: cannot read directory: Permission denied\n"


# ------------------------------------------------------------------ specs


def nested_rrf(depth: int) -> str:
    return "bm25" if depth == 0 else f"rrf:bm25+({nested_rrf(depth - 1)})"


def nested_parent(depth: int) -> str:
    return "fixed:size=50" if depth == 0 else f"parent:child=fixed:size=10,parent=({nested_parent(depth - 1)})"


def test_specs_nest_up_to_the_documented_depth() -> None:
    retriever = parse_retriever(nested_rrf(MAX_DEPTH))
    levels = 0
    while hasattr(retriever, "parts"):
        retriever = retriever.parts[1]
        levels += 1
    assert levels == MAX_DEPTH
    with pytest.raises(SpecError, match=f"specs nest at most {MAX_DEPTH} levels deep"):
        parse_retriever(nested_rrf(MAX_DEPTH + 1))


@pytest.mark.parametrize(
    ("command", "spec"),
    [
        (["eval", "--retriever"], nested_rrf(200)),
        (["compare", "paragraph", "paragraph", "--retriever"], nested_rrf(200)),
        (["sweep", "--retriever"], nested_rrf(200)),
        (["inspect", "--retriever"], nested_rrf(200)),
        (["eval", "--chunker"], nested_parent(330)),
        (["inspect", "--chunker"], nested_parent(330)),
    ],
    ids=["eval-rrf", "compare-rrf", "sweep-rrf", "inspect-rrf", "eval-parent", "inspect-parent"],
)
def test_a_spec_nested_too_deeply_is_one_line(
    capsys: pytest.CaptureFixture[str], no_work: None, command: list[str], spec: str
) -> None:
    error = one_line_error(capsys, *command, spec)
    assert re.fullmatch(
        rf"chunkscope: error: in (chunker|retriever) spec '.{{79}}…': specs nest at most {MAX_DEPTH} levels deep", error
    )


# ------------------------------------------------------------------ numbers in options


def test_an_infinite_gate_threshold_is_refused_before_evaluating(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    error = one_line_error(capsys, "eval", *inputs(files), *FAST, "--fail-if", "recall_at_5<1e400")
    assert error == (
        "chunkscope: error: --fail-if 'recall_at_5<1e400': 1e400 is beyond the range of a number (about 1.8e308)"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["compare", "a", "b", "--permutations", "1000000000000"],
            "--permutations: must be at most 1,000,000, got 1,000,000,000,000",
        ),
        (
            ["compare", "a", "b", "--permutations", HUGE],
            "--permutations: must be at most 1,000,000, got a number of 5,000 digits",
        ),
        (["sweep", "--permutations", "1000001"], "--permutations: must be at most 1,000,000, got 1,000,001"),
        (["compare", "a", "b", "--seed", str(2**32)], "--seed: must be at most 4,294,967,295, got 4,294,967,296"),
        (
            ["compare", "a", "b", "--seed", f"-{HUGE}"],
            "--seed: must not be negative, got a negative number of 5,000 digits",
        ),
        (["compare", "a", "b", "--alpha", "nan"], "--alpha: must lie strictly between 0 and 1, got nan"),
        (["compare", "a", "b", "--alpha", "1e-400"], "--alpha: must lie strictly between 0 and 1, got 1e-400"),
        (["eval", "--top-k", "1000001"], "--top-k: must be at most 1,000,000, got 1,000,001"),
        (["eval", "--budget", str(10**12 + 1)], "--budget: must be at most 1,000,000,000,000, got 1,000,000,000,001"),
        (["inspect", "--top-k", HUGE], "--top-k: must be at most 1,000,000, got a number of 5,000 digits"),
    ],
)
def test_numeric_options_have_bounds(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    line = argparse_error(capsys, *argv)
    assert line.endswith(f"error: argument {message}"), line


def test_the_bounds_themselves_are_accepted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("chunkscope.cli.compare_cmd.run", lambda args: seen.update(vars(args)) or 0)
    argv = ["compare", "a", "b", "--permutations", "1000000", "--seed", str(2**32 - 1), "--top-k", "1000000"]
    assert main([*argv, "--budget", str(10**12)]) == 0
    assert (seen["permutations"], seen["seed"], seen["top_k"], seen["budget"]) == (10**6, 2**32 - 1, 10**6, 10**12)


# ------------------------------------------------------------------ Markdown cells


@pytest.mark.parametrize(
    ("question_id", "shown"),
    [("q\n1", "q\\n1"), ("q\x1b[31m2", "q\\x1b[31m2"), ("q|3", "q\\|3")],
    ids=["newline", "escape", "pipe"],
)
def test_question_ids_cannot_break_a_markdown_row(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], question_id: str, shown: str
) -> None:
    files["questions"].write_text(jsonl([{**QUESTION, "id": question_id}]), encoding="utf-8")
    assert main(["eval", *inputs(files), *FAST, "--markdown", "-"]) == 0
    markdown = capsys.readouterr().out
    assert "\x1b" not in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| q") and not line.startswith("| question |")]
    # the lost question's row: id, state, rank, covered, cuts -> 6 unescaped pipes
    assert rows == [f"| {shown} | lost | – | ✗ | d1 18–23 at 20 |"]
    assert len(re.findall(r"(?<!\\)\|", rows[0])) == 6
