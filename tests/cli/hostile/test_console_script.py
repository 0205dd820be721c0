"""The console script in a fresh process: exit 2 and an error line, never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hostile_helpers import CHUNKSCOPE


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--chunker", "fixed:size=10,size=20"],
        ["sweep", "--size", "100", "--overlap", "inf"],
        ["eval", "--json", "/nonexistent/dir/r.json"],
    ],
)
def test_console_script_never_prints_a_traceback(argv: list[str]) -> None:
    result = subprocess.run([*CHUNKSCOPE, *argv], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr.splitlines()[-1]
    assert not Path("/nonexistent/dir/r.json").exists()
