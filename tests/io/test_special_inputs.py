"""Every input option names a special file for what it is: a FIFO, a device or a directory is never "no such file".

``--tydi`` on a FIFO or a device said "no such file" (so did ``--testset`` and ``--chroma``), which sent users
looking for a typo. The FIFO has no writer: a loader that opened it to read would wait for ever, so each run is
bounded by a timeout in a thread.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from chunkscope.cli import main

CORPUS = [{"id": "d1", "text": "Alpha beta gamma. Delta epsilon zeta."}]
QUESTION = {"id": "q1", "query": "delta", "evidence": [{"doc": "d1", "quote": "Delta"}]}
OPTIONS = ("--corpus", "--questions", "--squad", "--chroma", "--tydi", "--testset", "--chunks", "--run", "--baseline")


def argv_for(option: str, special: str, tmp_path: Path) -> list[str]:
    """eval with ``special`` given to ``option`` and valid files for the rest."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps(CORPUS[0]) + "\n", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps(QUESTION) + "\n", encoding="utf-8")
    both = ["--corpus", str(corpus), "--questions", str(questions), "--chunker", "paragraph"]
    return {
        "--corpus": ["--corpus", special, "--questions", str(questions)],
        "--questions": ["--corpus", str(corpus), "--questions", special],
        "--squad": ["--squad", special],
        "--chroma": ["--chroma", special, "--corpus", str(tmp_path)],
        "--tydi": ["--tydi", special],
        "--testset": ["--corpus", str(corpus), "--testset", special],
        "--chunks": [*both[:4], "--chunks", special],
        "--run": [*both, "--run", special],
        "--baseline": [*both, "--baseline", special, "--fail-if-worse", "lost"],
    }[option]


def error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one error line of ``eval argv`` (exit 2), run in a thread that must end within 30 s."""
    codes: list[int] = []
    runner = threading.Thread(target=lambda: codes.append(main(["eval", *argv])), daemon=True)
    runner.start()
    runner.join(30)
    assert not runner.is_alive(), "the command waited for a writer that never comes"
    err = capsys.readouterr().err
    assert codes == [2], err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("option", OPTIONS)
def test_a_fifo_is_named_a_fifo_for_every_input_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    error = error_line(capsys, argv_for(option, str(fifo), tmp_path))
    assert error.startswith(f"chunkscope: error: {fifo}: cannot read")
    assert error.endswith(": it is a FIFO (pipe), not a regular file")


@pytest.mark.parametrize("option", OPTIONS)
def test_a_device_is_named_a_device_for_every_input_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    error = error_line(capsys, argv_for(option, "/dev/null", tmp_path))
    assert error.startswith("chunkscope: error: /dev/null: cannot read")
    assert error.endswith(": it is a character device, not a regular file")


@pytest.mark.parametrize("option", ["--tydi", "--testset", "--chroma"])
def test_a_directory_is_named_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    error = error_line(capsys, argv_for(option, str(folder), tmp_path))
    assert error == f"chunkscope: error: {folder}: cannot read: Is a directory"  # as --questions DIR says it


def test_a_missing_file_is_still_no_such_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.jsonl.gz"
    assert error_line(capsys, ["--tydi", str(missing)]) == f"chunkscope: error: {missing}: no such file"


def test_a_chroma_corpus_file_that_is_a_fifo_is_named_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It was "no corpus file corpora/wiki.md": the file is there, but it is a pipe.
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    os.mkfifo(corpora / "wiki.md")
    questions = tmp_path / "questions_df.csv"
    questions.write_text(
        "question,references,corpus_id\n"
        '"What?","[{""content"": ""Alpha"", ""start_index"": 0, ""end_index"": 5}]",wiki\n',
        encoding="utf-8",
    )
    error = error_line(capsys, ["--chroma", str(questions), "--corpus", str(corpora)])
    assert error == f"chunkscope: error: {corpora / 'wiki.md'}: cannot read: it is a FIFO (pipe), not a regular file"


def test_a_chroma_corpora_directory_that_is_a_fifo_is_named_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = tmp_path / "questions_df.csv"
    questions.write_text("question,references,corpus_id\n", encoding="utf-8")
    fifo = tmp_path / "corpora"
    os.mkfifo(fifo)
    error = error_line(capsys, ["--chroma", str(questions), "--corpus", str(fifo)])
    assert error == (
        f"chunkscope: error: {fifo}: no corpora directory: it is a FIFO (pipe) "
        "(give --corpus DIR holding <corpus_id>.md files)"
    )
