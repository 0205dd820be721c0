"""The inspector refuses bad input before the app starts, with the same one-line message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_helpers import inputs, jsonl, one_line_error, write


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
