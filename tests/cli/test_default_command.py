"""The bare command: the inspector's options without ``inspect``, and a "did you mean" for a mistyped command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import sample_paths


@pytest.fixture
def app_runs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Starting the inspector records its session instead of taking the terminal."""
    from chunkscope.tui import app

    started: list[Any] = []

    def record(self: Any, *args: object, **kwargs: object) -> None:
        started.append(self)

    monkeypatch.setattr(app.ChunkscopeApp, "run", record)
    return started


def _squad(tmp_path: Path) -> Path:
    path = tmp_path / "tiny-squad.json"
    path.write_text(
        '{"version": "v2", "data": [{"title": "T", "paragraphs": [{"context": "The river floods in spring.", '
        '"qas": [{"id": "q1", "question": "When does it flood?", '
        '"answers": [{"text": "in spring", "answer_start": 17}]}]}]}]}',
        encoding="utf-8",
    )
    return path


def test_squad_option_alone_opens_the_inspector_on_that_file(tmp_path: Path, app_runs: list[Any]) -> None:
    assert main(["--squad", str(_squad(tmp_path))]) == 0
    (app,) = app_runs
    assert [q.id for q in app.session.evaluator.questions] == ["q1"]


def test_corpus_and_questions_alone_open_the_inspector_like_inspect(app_runs: list[Any]) -> None:
    corpus, questions = (str(path) for path in sample_paths())
    options = ["--corpus", corpus, "--questions", questions, "--chunker", "fixed:size=300,overlap=30"]
    assert main(options) == 0
    assert main(["inspect", *options]) == 0
    bare, explicit = app_runs
    assert bare.session.a.requested == explicit.session.a.requested
    assert bare.session.a.requested.chunker == "fixed:size=300,overlap=30"
    assert len(bare.session.evaluator.questions) == len(explicit.session.evaluator.questions) > 0


def test_nothing_at_all_still_opens_the_inspector(app_runs: list[Any]) -> None:
    assert main([]) == 0
    assert len(app_runs) == 1


def test_bad_inspector_option_alone_is_the_inspectors_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], app_runs: list[Any]
) -> None:
    assert main(["--squad", str(tmp_path / "absent.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "absent.json" in err[0]
    assert not app_runs


@pytest.mark.parametrize(("word", "meant"), [("evl", "eval"), ("comapre", "compare"), ("fragilty", "fragility")])
def test_mistyped_command_suggests_the_command(
    word: str, meant: str, capsys: pytest.CaptureFixture[str], app_runs: list[Any]
) -> None:
    assert main([word, "--top-k", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"chunkscope: error: unknown command {word!r}: did you mean {meant}?\n"
    assert captured.out == ""
    assert not app_runs


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gold", "chek"], "unknown gold subcommand 'chek': did you mean check?"),
        (["tokens", "export", "/tmp/x"], "unknown tokens subcommand 'export': did you mean export-tiktoken-cache?"),
        (["tokens", "list"], "unknown tokens subcommand 'list' (valid: export-tiktoken-cache)"),
    ],
)
def test_a_mistyped_subcommand_suggests_the_subcommand(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], app_runs: list[Any]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == f"chunkscope: error: {message}\n"


def test_a_word_like_no_command_lists_the_commands(capsys: pytest.CaptureFixture[str], app_runs: list[Any]) -> None:
    assert main(["data/squad.json"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("chunkscope: error: unknown command 'data/squad.json' (valid: eval, compare,")
    assert not app_runs


def test_help_still_lists_the_commands(capsys: pytest.CaptureFixture[str], app_runs: list[Any]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("eval", "compare", "sweep", "inspect", "gold", "chunks", "explain", "fragility", "whatif"):
        assert f"\n    {command} " in out or f"\n    {command}\n" in out
    assert "chunkscope --squad FILE" in out
    assert not app_runs
