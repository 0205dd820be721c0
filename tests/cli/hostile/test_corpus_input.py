"""Corpus files and directories, and input paths that cannot be read: one line naming file and line, exit 2."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_helpers import D1, D2, FAST, inputs, jsonl, one_line_error, write


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
    assert error == f"chunkscope: error: {empty}: no .md, .txt, .pdf, .html, .htm or .docx files in this directory"


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
