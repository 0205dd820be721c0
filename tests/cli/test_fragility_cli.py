"""``chunkscope fragility`` on the hand-worked fixture (states worked out in tests/analysis/test_fragility.py)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from chunkscope.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fragility"
INPUTS = ("--corpus", str(FIXTURE / "corpus"), "--questions", str(FIXTURE / "questions.jsonl"))


def test_json_report_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fragility", *INPUTS, "--chunker", "fixed:size=20", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["summary"]["robust_ok"], report["summary"]["fragile_ok"]) == (1, 2)
    assert [q["mark"] for q in report["questions"]] == [" ", "~", "+", " ", "~"]
    assert len(report["neighbours"]) == 8


def test_csv_and_markdown_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table, text = tmp_path / "f.csv", tmp_path / "f.md"
    argv = ["fragility", *INPUTS, "--chunker", "fixed:size=20", "--csv", str(table), "--markdown", str(text)]
    assert main([*argv, "--most", "1"]) == 0
    rows = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    assert [r["changed"] for r in rows] == ["0", "1", "2", "0", "7"]
    markdown = text.read_text(encoding="utf-8")
    assert "(1 of 3 that change)" in markdown and "| q5 | trombone | fragile OK | 7/8 |" in markdown
    assert "robust OK" in capsys.readouterr().out  # the table goes to the terminal


def test_a_chunker_without_a_size_exits_2_before_loading(capsys: pytest.CaptureFixture[str]) -> None:
    missing = ["--corpus", "/no/such/dir", "--questions", "/no/such.jsonl"]
    assert main(["fragility", *missing, "--chunker", "paragraph"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "chunkscope: error: fragility needs a chunker with a size parameter (fixed, recursive, markdown, ...): "
        "paragraph has none"
    )


def test_imported_chunks_have_no_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "chunks.jsonl"
    dump.write_text(json.dumps({"id": "c1", "doc": "a.txt", "start": 0, "end": 60}) + "\n", encoding="utf-8")
    assert main(["fragility", *INPUTS, "--chunks", str(dump)]) == 2
    assert "needs a chunker with a size parameter" in capsys.readouterr().err


def test_default_configuration_on_the_sample_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fragility", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["chunker"] == "fixed:size=200,overlap=0"
    summary = report["summary"]
    verdicts = ("robust_ok", "fragile_ok", "ok_nearby", "not_ok")
    assert sum(summary[verdict] for verdict in verdicts) == summary["questions"]


def test_the_documented_example_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = docs.split("## `chunkscope fragility`", 1)[1]
    example = re.findall(r"```text\n(.*?)```", section, flags=re.DOTALL)[1]
    assert main(["fragility", "--most", "3", "--markdown", "-"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in example.splitlines() if line] == [
        line for line in printed[printed.index(example.splitlines()[0]) :] if line
    ]
