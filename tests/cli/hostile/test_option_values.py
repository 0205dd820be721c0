"""Option values: argparse refusals keep its format; sweep grids that give no valid configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_helpers import argparse_error, inputs, one_line_error


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("eval", ["--top-k", "0"], "argument --top-k: must be at least 1, got 0"),
        ("eval", ["--top-k", "-1"], "argument --top-k: must be at least 1, got -1"),
        ("eval", ["--top-k", "abc"], "argument --top-k: expected a whole number, got 'abc'"),
        ("eval", ["--budget", "-5"], "argument --budget: must not be negative, got -5"),
        ("eval", ["--budget", "1.5"], "argument --budget: expected a whole number, got '1.5'"),
        ("eval", ["--overflow", "bogus"], "argument --overflow: invalid choice: 'bogus'"),
        ("eval", ["--squad-answers", "all"], "argument --squad-answers: invalid choice: 'all'"),
        ("compare", ["a", "b", "--permutations", "0"], "argument --permutations: must be at least 1, got 0"),
        ("compare", ["a", "b", "--alpha", "1"], "argument --alpha: must lie strictly between 0 and 1, got 1"),
        ("compare", ["a", "b", "--seed", "-1"], "argument --seed: must not be negative, got -1"),
        ("sweep", ["--size", "0"], "argument --size: expected comma-separated integers >= 1, got '0'"),
        ("sweep", ["--size", "abc"], "argument --size: expected comma-separated integers, got 'abc'"),
        (
            "sweep",
            ["--size", "100", "--overlap", "-0.2"],
            "argument --overlap: expected comma-separated finite numbers",
        ),
        ("sweep", ["--size", "100", "--overlap", "inf"], "argument --overlap: expected comma-separated finite numbers"),
        ("sweep", ["--size", "100", "--overlap", "nan"], "argument --overlap: expected comma-separated finite numbers"),
        ("sweep", ["--preset", "bogus"], "argument --preset: invalid choice: 'bogus'"),
        ("inspect", ["--top-k", "0"], "argument --top-k: must be at least 1, got 0"),
    ],
)
def test_option_values_argparse_refuses(
    capsys: pytest.CaptureFixture[str], command: str, argv: list[str], message: str
) -> None:
    assert message in argparse_error(capsys, command, *argv)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "100", "--overlap", "1.5"], "--overlap 1.5: values >= 1 are characters and must be whole numbers"),
        # size 10 with overlap 10 or 20 characters: both overlaps reach the size
        (["--size", "10", "--overlap", "10,20"], "every --size/--overlap combination is invalid: skipped size 10"),
        (["--overlap", "0.2"], "--overlap needs --size"),
        (["--size", "100"], "a sweep needs at least two distinct configurations"),
    ],
)
def test_bad_sweep_grid(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in one_line_error(capsys, "sweep", *inputs(files), "--permutations", "10", *argv)
