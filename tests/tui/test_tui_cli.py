"""``chunkscope inspect`` (and bare ``chunkscope``): input checked before the app starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from chunkscope.cli import main
from chunkscope.pipeline.config import make_config
from chunkscope.tui.app import ChunkscopeApp


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[ChunkscopeApp]:
    """Apps that ``run()`` would have started (not started: no terminal in tests)."""
    apps: list[ChunkscopeApp] = []
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


def test_no_arguments_opens_the_sample_data(started: list[ChunkscopeApp]) -> None:
    assert main([]) == 0
    (app,) = started
    assert app.session.dataset.name == "sample data"
    assert app.session.a.requested == make_config("fixed:size=200")
    assert app.session.b is None and not app.open_compare_at_start


def test_options_and_compare(started: list[ChunkscopeApp]) -> None:
    code = main(
        [
            "inspect",
            "--chunker",
            "paragraph",
            "--top-k",
            "3",
            "--budget",
            "900",
            "--compare",
            "fixed:size=400,overlap=80/overlap",
        ]
    )
    assert code == 0
    (app,) = started
    assert app.session.a.requested == make_config("paragraph", top_k=3, budget=900)
    assert app.session.b is not None
    assert app.session.b.requested == make_config("fixed:size=400,overlap=80", "overlap", top_k=3, budget=900)
    assert app.open_compare_at_start


def test_groups_auto_adds_the_computed_groups(started: list[ChunkscopeApp]) -> None:
    assert main(["inspect", "--groups", "auto", "--span-threshold", "1000"]) == 0
    (app,) = started
    tags = app.session.tags_present()
    assert tags["evidence:single"] + tags["evidence:multi"] == len(app.session.questions)
    assert tags["span:short"] == len(app.session.questions)  # no sample gold span is over 1000 characters
    assert "en" in tags  # the questions' own tags stay


def test_without_groups_auto_only_the_own_tags(started: list[ChunkscopeApp]) -> None:
    assert main(["inspect"]) == 0
    (app,) = started
    assert not any(":" in tag for tag in app.session.tags_present())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--corpus", "/nonexistent/corpus", "--questions", "q.jsonl"],
            "/nonexistent/corpus: no such file or directory",
        ),
        (["--compare", "fixed:size=abc"], "'fixed' parameter 'size' must be int, got 'abc'"),
        (["--chunker", "nope"], "unknown chunker 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    arguments: list[str], message: str, started: list[ChunkscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", *arguments]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chunkscope: error: ") and message in err
    assert started == []


def test_headless_commands_do_not_load_textual() -> None:
    code = "import sys; from chunkscope.cli import build_parser; build_parser(); print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize(
    ("argv", "option", "values"),
    [
        (["--retriever", "bm25", "--retriever", "overlap"], "--retriever", "bm25, overlap"),
        (["--chunker", "paragraph", "--chunker", "fixed:size=300"], "--chunker", "paragraph, fixed:size=300"),
        (["--top-k", "3", "--top-k", "5"], "--top-k", "3, 5"),
    ],
)
def test_a_repeated_option_is_refused(
    started: list[ChunkscopeApp], capsys: pytest.CaptureFixture[str], argv: list[str], option: str, values: str
) -> None:
    assert main(["inspect", *argv]) == 2
    assert not started
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert error[0].startswith(f"chunkscope: error: inspect takes {option} once, got 2: {values}")
    assert "--compare" in error[0]
