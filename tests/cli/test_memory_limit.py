"""A corpus that would need more memory than the limit is refused up front, in one line naming the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import ChunkscopeError
from chunkscope.io.footprint import MEMORY_LIMIT_VARIABLE, check_memory, corpus_bytes, parse_size

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "chunkscope" / "sample_data"
INPUTS = ("--corpus", str(SAMPLE / "corpus"), "--questions", str(SAMPLE / "questions.jsonl"))


@pytest.mark.parametrize("command", [["eval"], ["gold", "check"]])
def test_a_corpus_over_the_limit_is_refused_in_one_line(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "1M")
    assert main([*command, *INPUTS]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "more than the limit of 1.0 MB" in err and f"{MEMORY_LIMIT_VARIABLE}=" in err and "Traceback" not in err


def test_under_the_limit_or_without_one_the_command_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for limit in ("64G", "none"):
        monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, limit)
        assert main(["gold", "check", *INPUTS]) in (0, 1)
        assert "limit" not in capsys.readouterr().err


def test_the_estimate_grows_with_the_corpus() -> None:
    # 300 MiB of baseline plus the command's factor times the corpus, per evaluating process: by hand,
    # 100 MB for eval (35x) is 3.8 GB in one process, 7.6 GB in two.
    check_memory("eval", 100_000_000, 1, {MEMORY_LIMIT_VARIABLE: "4G"})
    with pytest.raises(ChunkscopeError, match=r"about 7\.6 GB .*70x.*limit of 4\.3 GB"):
        check_memory("eval", 100_000_000, 2, {MEMORY_LIMIT_VARIABLE: "4G"})
    check_memory("gold", 100_000_000, 2, {MEMORY_LIMIT_VARIABLE: "3G"})  # gold check: one process, 20x, 2.3 GB


def test_sizes_parse_and_bad_ones_are_named() -> None:
    assert parse_size("8G") == 8 * 2**30
    assert parse_size("512m") == 512 * 2**20
    assert parse_size("1.5GiB") == 3 * 2**29
    assert parse_size("2000000000") == 2_000_000_000
    assert parse_size("none") is None
    with pytest.raises(ChunkscopeError, match=MEMORY_LIMIT_VARIABLE):
        parse_size("lots")


def test_corpus_size_is_the_documents_on_disk(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x" * 100, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("y" * 50, encoding="utf-8")
    (tmp_path / "ignored.json").write_text("z" * 1000, encoding="utf-8")
    assert corpus_bytes(tmp_path) == 150
    assert corpus_bytes(tmp_path / "a.md") == 100
