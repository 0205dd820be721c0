"""Standard streams in a real process: a closed pipe, a full disk, a closed descriptor, an ASCII locale.

Reports to files are always written and never end in a traceback; a reader that went away is no error
(the gate still decides the exit code); a stdout that cannot be written is one line and exit 2.
``REFERENCE`` runs (plain stdout) give the report bytes every other run must write.
"""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.io.streams import GuardedStream

CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
EVAL = ["eval", "--chunker", "paragraph"]


def run(argv: list[str], stdout: int | None = subprocess.PIPE, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Exit code and stderr of the console script."""
    result = subprocess.run(
        [*CHUNKSCOPE, *argv],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )
    return result.returncode, result.stderr.decode("utf-8")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The JSON report of ``EVAL`` with an ordinary stdout."""
    path = tmp_path_factory.mktemp("reference") / "r.json"
    code, err = run([*EVAL, "--json", str(path)])
    assert code == 0, err
    return path.read_bytes()


def closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone: every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    return write_end


@pytest.mark.parametrize(("gate", "code"), [([], 0), (["--fail-if", "lost>=0"], 1)], ids=["gate-passes", "gate-fails"])
def test_a_closed_pipe_ends_quietly_and_the_report_is_written(
    tmp_path: Path, reference: bytes, gate: list[str], code: int
) -> None:
    """``chunkscope eval --json r.json | head -1``: the exit code is the gate's."""
    pipe = closed_pipe()
    try:
        exit_code, err = run([*EVAL, "--json", str(tmp_path / "r.json"), *gate], stdout=pipe)
    finally:
        os.close(pipe)
    assert exit_code == code, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert (tmp_path / "r.json").read_bytes() == reference
    if code:
        assert err.splitlines()[-1].startswith("chunkscope: gate failed: ")


@pytest.mark.parametrize("report", [[], ["--json", "-"]], ids=["tables", "json-to-stdout"])
def test_a_full_stdout_is_one_line_and_exit_2(tmp_path: Path, reference: bytes, report: list[str]) -> None:
    """``chunkscope eval > /dev/full``; another report to a file is still written."""
    with open("/dev/full", "wb") as full:
        code, err = run([*EVAL, *report, "--csv", str(tmp_path / "r.csv")], stdout=full.fileno())
    assert code == 2
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "chunkscope: error: cannot write to standard output: No space left on device"
    assert (tmp_path / "r.csv").stat().st_size > 0


def test_a_closed_stdout_still_writes_the_report(tmp_path: Path, reference: bytes) -> None:
    """``chunkscope eval --json r.json >&-``: the tables have nowhere to go, the report does."""
    result = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *CHUNKSCOPE, *EVAL, "--json", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == f"wrote {tmp_path / 'r.json'}\n"
    assert (tmp_path / "r.json").read_bytes() == reference


def test_a_report_to_a_closed_stdout_is_refused_before_any_work() -> None:
    result = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *CHUNKSCOPE, *EVAL, "--json", "-"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == "chunkscope: error: cannot write --json -: standard output is closed\n"


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
    ids=["pythonioencoding-ascii", "c-locale"],
)
def test_a_non_utf8_stdout_gets_utf8_and_the_report(tmp_path: Path, reference: bytes, env: dict[str, str]) -> None:
    result = subprocess.run(
        [*CHUNKSCOPE, *EVAL, "--json", str(tmp_path / "r.json"), "--markdown", "-"],
        capture_output=True,
        env={**os.environ, **env},
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "r.json").read_bytes() == reference
    markdown = result.stdout.decode("utf-8")  # UTF-8 whatever the locale says
    assert "–" in markdown or "✓" in markdown  # characters ASCII cannot hold made it through


# ------------------------------------------------------------------ the guard itself


class FailingStream(io.StringIO):
    """A text stream whose writes fail with one errno."""

    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code

    def write(self, text: str) -> int:
        raise OSError(self.code, os.strerror(self.code))


def test_the_guard_keeps_the_first_failure_and_never_raises() -> None:
    guard = GuardedStream(FailingStream(errno.ENOSPC))
    assert guard.write("table") == len("table")
    guard.write("more")
    guard.flush()
    assert guard.failure is not None and guard.failure.errno == errno.ENOSPC
    assert not guard.reader_gone


def test_the_guard_treats_a_broken_pipe_as_the_reader_leaving() -> None:
    guard = GuardedStream(FailingStream(errno.EPIPE))
    guard.write("table")
    assert guard.reader_gone and guard.failure is None


def test_the_guard_discards_output_of_a_stream_closed_at_start() -> None:
    guard = GuardedStream(None)
    assert guard.write("table") == 5
    assert not guard.isatty() and guard.failure is None


class AsciiOnly(io.StringIO):
    """A stream that cannot be reconfigured and holds only ASCII."""

    encoding = "ascii"

    def write(self, text: str) -> int:
        text.encode("ascii")
        return super().write(text)


def test_the_guard_escapes_what_a_stream_that_stays_ascii_cannot_hold() -> None:
    inner = AsciiOnly()
    guard = GuardedStream(inner)
    guard.write("a · b")
    assert inner.getvalue() == "a \\xb7 b"
    assert guard.failure is None
