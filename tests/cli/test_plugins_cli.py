"""``python:`` plugins and library chunkers through ``eval``, ``compare`` and ``sweep``; errors as one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

CHUNKER = "python:cs_plugins.chunking:windows,size=200"
RETRIEVER = "python:cs_plugins.ranking:shared_words"
FAST = ["--permutations", "300"]


def error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI in-process; assert exit 2 and one stderr line, no traceback; return that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


def test_eval_reports_what_the_core_computes(
    plugins: Path, capsys: pytest.CaptureFixture[str], sample: Dataset
) -> None:
    assert main(["eval", "--chunker", CHUNKER, "--retriever", RETRIEVER, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    (result,) = report["configs"]
    assert result["chunker"] == CHUNKER and result["retriever"] == RETRIEVER
    core = Evaluator(sample.corpus, sample.questions.questions).evaluate(make_config(CHUNKER, RETRIEVER))
    assert result["summary"]["recall_at_5"] == core.summary["recall_at_5"]
    # The plugin's windows are fixed windows, so every number equals fixed:size=200's with the same retriever.
    fixed = Evaluator(sample.corpus, sample.questions.questions).evaluate(make_config("fixed:size=200", RETRIEVER))
    assert core.summary.values == fixed.summary.values


def test_compare_two_plugin_configurations(plugins: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b = "python:cs_plugins.chunking:windows,size=200,overlap=40"
    assert main(["compare", CHUNKER, b, "--retriever", RETRIEVER, *FAST, "--json", "-"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    # Canonical form: the plugin's parameters sorted by name.
    assert comparison["a"]["chunker"] == CHUNKER
    assert comparison["b"]["chunker"] == "python:cs_plugins.chunking:windows,overlap=40,size=200"
    assert comparison["a"]["retriever"] == RETRIEVER


def test_sweep_over_plugin_and_library_chunkers(plugins: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("langchain_text_splitters")
    chunkers = [CHUNKER, "python:cs_plugins.chunking:lines", "langchain:chunk_size=300,chunk_overlap=60"]
    argv = ["sweep", *FAST, "--retriever", RETRIEVER, "--json", "-"]
    for spec in chunkers:
        argv += ["--chunker", spec]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["chunker"] for r in report["configs"]] == [
        CHUNKER,
        "python:cs_plugins.chunking:lines",
        "langchain:RecursiveCharacterTextSplitter,chunk_size=300,chunk_overlap=60",
    ]


def test_plugin_exceptions_are_one_line_with_file_and_line(plugins: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plugins / "cs_plugins" / "chunking.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), start=1) if "// divisor" in text)
    error = error_line(capsys, "eval", "--chunker", "python:cs_plugins.chunking:explode")
    assert error.startswith(f"chunkscope: error: {path}:{line}: plugin 'python:cs_plugins.chunking:explode' raised")
    error = error_line(capsys, "compare", "paragraph", "paragraph/python:cs_plugins.ranking:crash", *FAST)
    assert "ranking.py:" in error and "raised KeyError" in error
    error = error_line(capsys, "sweep", *FAST, "--chunker", "paragraph", "--chunker", "python:cs_plugins.nothing:f")
    assert error == (
        "chunkscope: error: cannot import plugin module 'cs_plugins.nothing': No module named 'cs_plugins.nothing' "
        "(is its directory on PYTHONPATH?)"
    )
    error = error_line(
        capsys, "eval", "--chunker", "paragraph", "--retriever", "python:cs_plugins.ranking:unknown_unit"
    )
    assert error == (
        "chunkscope: error: python:cs_plugins.ranking:unknown_unit: question 'q01': unknown unit id 'no-such-unit#0'"
    )


def test_a_missing_extra_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "semchunk", None)
    error = error_line(capsys, "eval", "--chunker", "semchunk:size=200")
    assert error.endswith("install it with  pip install 'chunkscope[semchunk]'")


def test_the_console_script_with_pythonpath(plugins: Path) -> None:
    """As a user runs it: the plugin's directory on PYTHONPATH, exit 2 and the file:line for a failing plugin."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), os.environ.get("PYTHONPATH", "")])}
    command = [
        sys.executable,
        "-c",
        "import sys; from chunkscope.cli import main; sys.exit(main())",
        "eval",
        "--chunker",
    ]
    done = subprocess.run(
        [*command, CHUNKER], env=environment, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    failed = subprocess.run(
        [*command, "python:cs_plugins.chunking:explode"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert failed.returncode == 2 and "chunking.py:" in failed.stderr and "Traceback" not in failed.stderr
