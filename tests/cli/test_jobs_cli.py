"""``--jobs``: reports byte-identical whatever the number of worker processes; errors and Ctrl-C stay clean."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunkscope.cli import main

CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]

RUNS = {
    "eval": [
        "eval",
        *("--chunker", "fixed:size=200", "--chunker", "paragraph", "--chunker", "markdown"),
        "--budget",
        "800",
    ],
    "compare": ["compare", "fixed:size=200/bm25", "paragraph/rrf:bm25+overlap", "--permutations", "300"],
    "sweep": ["sweep", "--size", "100,200,400", "--overlap", "0,0.2", "--permutations", "300", "--by-tag"],
}


def reports(tmp_path: Path, argv: list[str], jobs: int) -> dict[str, bytes]:
    """Every report format written by one run, as bytes."""
    folder = tmp_path / f"jobs-{jobs}"
    folder.mkdir()
    paths = {kind: folder / f"report.{kind}" for kind in ("json", "csv", "markdown")}
    options = [item for kind, path in paths.items() for item in (f"--{kind}", str(path))]
    assert main([*argv, *options, "--jobs", str(jobs)]) == 0
    return {kind: path.read_bytes() for kind, path in paths.items()}


@pytest.mark.parametrize("command", sorted(RUNS))
def test_reports_identical_for_one_and_two_jobs(command: str, tmp_path: Path) -> None:
    one = reports(tmp_path, RUNS[command], 1)
    two = reports(tmp_path, RUNS[command], 2)
    assert one["json"].startswith(b"{")
    assert one == two


def test_terminal_output_identical_for_one_and_two_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    for jobs in ("1", "2"):
        assert main([*RUNS["eval"], "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr())
    assert outputs[0].out and outputs[0] == outputs[1]


def test_an_input_error_in_a_worker_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Imported chunks are read while chunking, so with --jobs 2 the error is raised in a worker."""
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text('{"id": "x", "doc": "en/order-api.md", "text": "not in the document"}\n', encoding="utf-8")
    errors = []
    for jobs in ("1", "2"):
        assert main(["eval", "--chunker", "paragraph", "--chunks", str(chunks), "--jobs", jobs]) == 2
        captured = capsys.readouterr()
        errors.append(captured.err)
    assert errors[0] == errors[1]
    assert errors[1].count("\n") == 1 and "Traceback" not in errors[1]
    assert errors[1].startswith(f"chunkscope: error: {chunks}: the chunking is empty")


def test_jobs_must_be_at_least_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["eval", "--jobs", "0"])
    assert exited.value.code == 2
    assert "--jobs: must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.jsquad
def test_jsquad_sweep_reports_identical_for_one_and_two_jobs(jsquad_path: Path, tmp_path: Path) -> None:
    argv = ["sweep", "--squad", str(jsquad_path), "--permutations", "200"]
    one = reports(tmp_path, argv, 1)
    two = reports(tmp_path, argv, 2)
    assert b'"fixed:size=800,overlap=160"' in one["json"]
    assert one == two


@pytest.mark.jsquad
def test_ctrl_c_ends_parent_and_workers_without_a_traceback(jsquad_path: Path) -> None:
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    process = subprocess.Popen(
        [*CHUNKSCOPE, "sweep", "--squad", str(jsquad_path), "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    group = process.pid
    deadline = time.monotonic() + 60
    while len(children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(children(process.pid)) >= 2, "the workers never started"
    time.sleep(0.5)
    os.killpg(group, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert b"Traceback" not in err, err.decode(errors="replace")
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)  # no process of the group is left


def children(pid: int) -> list[int]:
    """Ids of the live child processes of ``pid`` (Linux /proc)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(item) for item in path.read_text().split()] if path.exists() else []
