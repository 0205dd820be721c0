"""Progress on a stderr that is no terminal: plain lines per stage, at most every few seconds, with an estimate."""

from __future__ import annotations

import io

import pytest

from chunkscope.cli import main, progress
from chunkscope.cli.progress import PlainProgress
from chunkscope.pipeline.parallel import FINISHED


class FakeClock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_run_shorter_than_the_grace_prints_nothing() -> None:
    clock, out = FakeClock(), io.StringIO()
    lines = PlainProgress(["a"], out, clock, grace=2.0, interval=5.0)
    for stage in ("chunking", "indexing", "ranking", "measuring"):
        lines(0, stage, 0, 10)
        clock.now += 0.4
    lines(0, FINISHED, 1, 1)
    assert out.getvalue() == ""


def test_one_line_per_stage_and_at_most_one_per_interval_within_it() -> None:
    clock, out = FakeClock(), io.StringIO()
    lines = PlainProgress(["fixed:size=200/dense"], out, clock, grace=0.0, interval=5.0)
    lines(0, "chunking", 0, 1)
    lines(0, "embedding", 0, 4000)
    for _ in range(40):  # 40 reports one second apart: 100 units each
        clock.now += 1.0
        lines(0, "embedding", lines.seen[0].done + 100, 4000)
    # the stage lines, then one line at +5 s, +10 s, ... +40 s (8 of them), not 40
    assert _lines(out)[:2] == [
        "chunkscope: fixed:size=200/dense: chunking",
        "chunkscope: fixed:size=200/dense: embedding 0/4,000 (0%)",
    ]
    within = _lines(out)[2:]
    assert len(within) == 8
    # 100 units a second, after 5 s: 500 done, 3,500 left -> 35 s
    assert within[0] == "chunkscope: fixed:size=200/dense: embedding 500/4,000 (12%), about 35 s left"
    # at the end of the stage nothing is left to estimate
    assert within[-1] == "chunkscope: fixed:size=200/dense: embedding 4,000/4,000 (100%)"


def test_the_estimate_counts_only_the_stage_it_is_in() -> None:
    clock, out = FakeClock(), io.StringIO()
    lines = PlainProgress(["c"], out, clock, grace=0.0, interval=10.0)
    lines(0, "ranking", 0, 1000)
    clock.now += 10.0
    lines(0, "ranking", 1000, 1000)
    lines(0, "measuring", 0, 600)
    clock.now += 20.0
    lines(0, "measuring", 200, 600)  # 200 in 20 s: 400 left -> 40 s
    assert _lines(out)[-1] == "chunkscope: c: measuring 200/600 (33%), about 40 s left"
    clock.now += 3600.0
    lines(0, "measuring", 201, 600)  # 201 in 3620 s: 399 left -> 7186 s
    assert _lines(out)[-1] == "chunkscope: c: measuring 201/600 (33%), about 1 h 59 min left"


def test_lines_past_the_grace_and_finished_configurations_are_counted() -> None:
    clock, out = FakeClock(), io.StringIO()
    lines = PlainProgress(["a", "b"], out, clock, grace=3.0, interval=5.0)
    lines(0, "ranking", 0, 10)
    lines(1, "ranking", 0, 10)
    clock.now += 1.0
    lines(0, FINISHED, 1, 1)
    clock.now += 2.5  # past the grace: the next report shows where b is
    lines(1, "ranking", 5, 10)
    lines(1, FINISHED, 1, 1)
    assert _lines(out) == [
        "chunkscope: b: ranking 5/10 (50%), about 4 s left",
        "chunkscope: b: done (2 of 2 configurations)",
    ]


@pytest.fixture
def no_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "GRACE", 0.0)


def test_eval_on_a_pipe_prints_plain_stage_lines(no_grace: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "fixed:size=300", "--jobs", "1", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{")
    err = captured.err.splitlines()
    label = "fixed:size=300/bm25"
    for stage in ("chunking", "indexing", "ranking", "measuring"):
        assert any(line.startswith(f"chunkscope: {label}: {stage}") for line in err), stage
    assert not any("\x1b" in line for line in err)  # no terminal codes in a log


def test_quiet_silences_the_progress(no_grace: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "fixed:size=300", "--jobs", "1", "--json", "-", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("{")
    assert not any(": chunking" in line or ": ranking" in line for line in captured.err.splitlines())


def test_fragility_on_a_pipe_prints_plain_lines_and_quiet_silences_them(
    no_grace: None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["fragility", "--chunker", "fixed:size=300", "--json", "-"]
    assert main(argv) == 0
    assert "chunkscope: fixed:size=300/bm25: fragility" in capsys.readouterr().err
    assert main([*argv, "--quiet"]) == 0
    assert ": fragility" not in capsys.readouterr().err


class FakeTerminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_quiet_silences_the_bars_of_a_terminal_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", FakeTerminal())
    with progress.configs_progress(["a"]) as bars:
        assert bars is not None and not isinstance(bars, PlainProgress)  # a terminal gets Rich bars
    with progress.quiet_while(True), progress.configs_progress(["a"]) as silent:
        assert silent is None
    with progress.quiet_while(True), progress.stage_progress("a") as silent_stage:
        assert silent_stage is None
    with progress.stage_progress("a") as plain_or_bars:
        assert plain_or_bars is not None
