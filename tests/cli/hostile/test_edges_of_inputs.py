"""Edges a QA pass found: Chroma corpora as inputs, names the system refuses, numbers past float or digit limits,
help on a full disk, offsets in report units inside the failure detail."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from hostile_helpers import FAST, digest, inputs, jsonl, one_line_error, write

from chunkscope.cli import build_parser, main

CHROMA_CORPUS = "The cat sat on the mat. Dogs bark.\n"
CHROMA_REFERENCE = '"[{""content"": ""The cat sat"", ""start_index"": 0, ""end_index"": 11}]"'


def chroma(tmp_path: Path, corpus_id: str = "c1") -> tuple[Path, Path]:
    """A one-question Chroma CSV and its corpus file ``corpora/c1.md`` beside it."""
    (tmp_path / "corpora").mkdir()
    document = write(tmp_path / "corpora" / "c1.md", CHROMA_CORPUS)
    csv_path = write(
        tmp_path / "q.csv", f'question,references,corpus_id\n"Where cat?",{CHROMA_REFERENCE},{corpus_id}\n'
    )
    return csv_path, document


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--jobs", "1", "--json"],
        ["gold", "check", "--write"],
        ["chunks", "paragraph", "--out"],
    ],
)
def test_a_report_never_replaces_a_chroma_corpus_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    csv_path, document = chroma(tmp_path)
    before = digest(document)
    command, option = argv[:-1], argv[-1]
    error = one_line_error(capsys, *command, "--chroma", str(csv_path), option, str(document))
    assert error == (
        f"chunkscope: error: refusing to write {option} {document}: "
        f"it would add a document to the corpus directory {tmp_path / 'corpora'}"
    )
    assert digest(document) == before


def test_a_report_beside_chroma_corpora_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, _ = chroma(tmp_path)
    report = tmp_path / "corpora" / "report.json"  # not a corpus document: the loader never reads it
    assert main(["eval", "--jobs", "1", "--chroma", str(csv_path), "--json", str(report)]) == 0
    assert json.loads(report.read_text(encoding="utf-8"))["configs"]


@pytest.mark.parametrize("corpus_id", ["../outside", "/etc/hostname", "sub/../../outside"])
def test_a_chroma_corpus_id_cannot_leave_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], corpus_id: str
) -> None:
    write(tmp_path / "outside.md", CHROMA_CORPUS)  # would be read if the id were followed
    csv_path, _ = chroma(tmp_path, corpus_id)
    error = one_line_error(capsys, "eval", "--chroma", str(csv_path))
    assert error == (
        f"chunkscope: error: {csv_path}:2: field 'corpus_id': {corpus_id!r} names a file outside "
        f"the corpora directory {tmp_path / 'corpora'}"
    )


@pytest.mark.parametrize("option", ["--questions", "--squad", "--tydi", "--testset", "--chroma", "--corpus"])
def test_a_name_too_long_for_the_system_is_one_line(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], option: str
) -> None:
    name = str(tmp_path / ("a" * 300))  # over NAME_MAX (255): stat() fails with ENAMETOOLONG, not ENOENT
    other = ["--corpus", str(files["corpus"])] if option in ("--questions", "--testset") else []
    other = ["--questions", str(files["questions"])] if option == "--corpus" else other
    error = one_line_error(capsys, "eval", option, name, *other)
    assert error == f"chunkscope: error: {name}: cannot read: File name too long"


def test_a_test_set_cell_nested_too_deeply_names_its_field(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    testset = write(tmp_path / "t.csv", f'user_input,reference_contexts\ncat?,"{"[" * 1000}{"]" * 1000}"\n')
    error = one_line_error(capsys, "eval", "--corpus", str(files["corpus"]), "--testset", str(testset))
    assert error.startswith(f"chunkscope: error: {testset}:2: field 'reference_contexts': is nested too deeply")


def test_a_test_set_cell_with_a_huge_integer_names_its_field(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    testset = write(tmp_path / "t.csv", f'user_input,reference_contexts\ncat?,"[{"1" * 5000}]"\n')
    error = one_line_error(capsys, "eval", "--corpus", str(files["corpus"]), "--testset", str(testset))
    assert error == (
        f"chunkscope: error: {testset}:2: field 'reference_contexts': holds a number of more than 4,300 digits"
    )


@pytest.mark.parametrize("line", [1, 3])
def test_a_chunk_dump_integer_past_the_digit_limit_names_line_and_field(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str], line: int
) -> None:
    records = [{"id": f"c{n}", "doc": "d1", "start": 0, "end": 18} for n in range(3)]
    text = jsonl(records).splitlines()
    text[line - 1] = text[line - 1].replace('"end": 18', '"end": ' + "9" * 5000)
    dump = write(tmp_path / "dump.jsonl", "\n".join(text) + "\n")
    error = one_line_error(capsys, "eval", *inputs(files), "--chunks", str(dump))
    assert error == (
        f"chunkscope: error: {dump}:{line}: field 'end': a number of 5,000 digits (at most 4,300 are read)"
    )


def test_a_docstore_integer_past_the_digit_limit_names_its_field(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    node = {"text": "Alpha", "start_char_idx": 0, "end_char_idx": int("9" * 50)}
    store = json.dumps({"docstore/data": {"n1": {"__data__": node}}}, indent=2).replace("9" * 50, "9" * 5000)
    dump = write(tmp_path / "docstore.json", store)
    error = one_line_error(capsys, "eval", *inputs(files), "--chunks", str(dump))
    assert "a number of 5,000 digits (at most 4,300 are read)" in error
    assert "end_char_idx" in error


def test_a_docstore_node_string_that_does_not_parse_names_its_field(
    tmp_path: Path, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dump = write(tmp_path / "docstore.json", json.dumps({"docstore/data": {"n1": {"__data__": "x"}}}))
    error = one_line_error(capsys, "eval", *inputs(files), "--chunks", str(dump))
    assert error.startswith(
        f"chunkscope: error: {dump}: field 'docstore/data.n1.__data__': the node string does not parse: invalid JSON"
    )


@pytest.mark.parametrize(
    ("score", "shown"), [("10**310", "1000000000"), ("10**5000", "an integer of some 5,000 digits")]
)
def test_a_plugin_score_past_floats_is_one_line(
    tmp_path: Path,
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    score: str,
    shown: str,
) -> None:
    module = f"huge_scores_{len(score)}"  # one module per case: an imported module stays in sys.modules
    write(
        tmp_path / f"{module}.py",
        f"def rank(questions, units):\n    return [{{units[0].id: {score}}} for _ in questions]\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    error = one_line_error(capsys, "eval", *inputs(files), *FAST, "--retriever", f"python:{module}:rank")
    assert f"python:{module}:rank: question 'q1': unit " in error
    assert f"has score {shown}" in error
    assert error.endswith("expected a finite number")


def test_bm25_parameters_that_overflow_are_refused_before_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "alpha" twice in one chunk: tf * (k1 + 1) = 2e308 overflows (with tf 1 every weight stays finite).
    corpus = write(tmp_path / "c.jsonl", jsonl([{"id": "d", "text": "alpha alpha beta"}]))
    question = {"id": "q", "query": "alpha", "evidence": [{"doc": "d", "quote": "beta"}]}
    questions = write(tmp_path / "q.jsonl", jsonl([question]))
    report = tmp_path / "r.json"
    argv = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--retriever", "bm25:k1=1e308"]
    argv += ["--json", str(report)]
    error = one_line_error(capsys, *argv)
    assert error == (
        "chunkscope: error: bm25 with k1=1e+308, b=0.75, epsilon=0.25: the weights overflow (not finite numbers); "
        "give smaller values"
    )
    assert not report.exists()


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the parser: (), ("eval",), ("gold", "check"), ..."""
    found = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*prefix, name))
    return found


@pytest.mark.parametrize("command", _commands(build_parser()), ids=lambda c: " ".join(c) or "chunkscope")
def test_every_help_prints(command: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    # argparse %-formats every help string: a bare "%" in one ends the top-level help in a traceback.
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: chunkscope")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["eval", "--help"]])
def test_help_and_version_on_a_full_disk_are_an_error(argv: list[str]) -> None:
    import subprocess

    from hostile_helpers import CHUNKSCOPE

    with open("/dev/full", "w") as full:
        result = subprocess.run([*CHUNKSCOPE, *argv], stdout=full, stderr=subprocess.PIPE, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr == "chunkscope: error: cannot write to standard output: No space left on device\n"


def test_the_failure_detail_counts_in_the_report_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "😀 ok café 日本語 text here." in code points: "日本語 text" is 10..18. fixed:size=7,overlap=2 has windows
    # [5,12), [10,17), [15,22): none holds the span, cut at 12, 17 and 15. 😀 is 2 UTF-16 units (+1 from there on);
    # in UTF-8 😀 is 4 bytes and é 2 (日 at 10 + 3 + 1 = 14), each CJK character 3: 12 -> 20, 15 -> 25, 17 -> 27,
    # 18 -> 28.
    corpus = tmp_path / "c"
    corpus.mkdir()
    write(corpus / "a.md", "😀 ok café 日本語 text here.")
    questions = write(
        tmp_path / "q.jsonl",
        jsonl([{"id": "q1", "query": "日本語", "evidence": [{"doc": "a.md", "quote": "日本語 text"}]}]),
    )
    details = {}
    for unit in ("codepoint", "utf16", "utf8"):
        report = tmp_path / f"{unit}.json"
        argv = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker", "fixed:size=7,overlap=2"]
        assert main([*argv, "--report-offset-unit", unit, "--json", str(report)]) == 0
        question = json.loads(report.read_text(encoding="utf-8"))["configs"][0]["questions"][0]
        (cut,) = question["cuts"]
        shown = f"a.md {cut['start']}-{cut['end']} cut at {', '.join(map(str, cut['boundaries']))}"
        assert question["failure_detail"] == f"no chunk contains the evidence: {shown}"
        details[unit] = shown
    capsys.readouterr()
    assert details == {
        "codepoint": "a.md 10-18 cut at 12, 15, 17",
        "utf16": "a.md 11-19 cut at 13, 16, 18",
        "utf8": "a.md 14-28 cut at 20, 25, 27",
    }


def test_a_sweep_left_with_one_configuration_says_what_was_skipped(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    error = one_line_error(capsys, "sweep", *inputs(files), "--size", "10,20", "--overlap", "15")
    assert error == (
        "chunkscope: error: a sweep needs at least two distinct configurations "
        "(skipped size 10 with overlap 15 (15 characters >= size))"
    )


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_json_report_is_strict_json(value: float) -> None:
    from chunkscope.errors import ChunkscopeError
    from chunkscope.reports.eval import to_json

    assert to_json({"x": 1.5}) == '{"x": 1.5}\n'
    with pytest.raises(ChunkscopeError, match="not finite"):
        to_json({"summary": {"x": value}})
