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
    # By hand, 100 MB of corpus: in one process 100 MiB + 28 x 100 MB = 2.9 GB; with 8 workers, 9 x 100 MiB
    # for the main process and the workers + (6 + 8 x 11) x 100 MB = 10.3 GB; gold check 100 MiB + 20 x 100 MB.
    check_memory("eval", 100_000_000, 1, {MEMORY_LIMIT_VARIABLE: "2800M"})  # 2.94 GB: 2.90 needed
    with pytest.raises(ChunkscopeError, match=r"about 2\.9 GB .*\(28x its size\).*limit of 2\.8 GB"):
        check_memory("eval", 100_000_000, 1, {MEMORY_LIMIT_VARIABLE: "2700M"})
    with pytest.raises(ChunkscopeError, match=r"about 10\.3 GB .*\(94x its size\).*limit of 9\.7 GB"):
        check_memory("eval", 100_000_000, 8, {MEMORY_LIMIT_VARIABLE: "9G"})
    check_memory("eval", 100_000_000, 8, {MEMORY_LIMIT_VARIABLE: "9900M"})  # 10.38 GB: 10.34 needed
    check_memory("gold", 100_000_000, 8, {MEMORY_LIMIT_VARIABLE: "2100M"})  # gold check: one process, 2.1 GB


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
