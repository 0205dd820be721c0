"""Report paths: never over an input, never a partial file, a missing directory refused before work."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import D1, FAST, digest, evidence, inputs, jsonl, one_line_error, qa, squad, write

from chunkscope.cli import main


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
