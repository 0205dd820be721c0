"""--jobs workers end when the main process ends, however it ends (Linux /proc is read to find them).

A supervisor or ``subprocess`` ends a command by signalling its main process only. The workers then kept
running for ever, holding the command's stdout and stderr: a caller capturing its output
(``subprocess.run(capture_output=True)``, CI runners) never got end of file. Here the caller is this test:
``communicate`` is what ``subprocess.run(capture_output=True)`` waits in, bounded by a timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chunkscope.pipeline import parallel

CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
SWEEP = ["sweep", "--size", "100,200,400", "--overlap", "0,0.2", "--permutations", "300", "--jobs", "2"]

linux_only = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the workers through /proc")


def children(pid: int) -> list[int]:
    """Ids of the child processes of ``pid``'s main thread (Linux /proc), none once it is gone."""
    try:
        return [int(item) for item in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, ended but not yet reaped by whoever adopted it, does not)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


@linux_only
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_end_when_the_main_process_is_signalled(tmp_path: Path, signum: signal.Signals) -> None:
    environment = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "CHUNKSCOPE_CACHE": str(tmp_path / "cache"),
    }
    process = subprocess.Popen([*CHUNKSCOPE, *SWEEP], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers := children(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(workers) == 2, "the workers never started"
        os.kill(process.pid, signum)  # the main process only, as a supervisor does
        started = time.monotonic()
        try:
            process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the captured output never ended: workers {[w for w in workers if alive(w)]} hold it")
        assert process.returncode == -signum
        while any(alive(worker) for worker in workers) and time.monotonic() < started + 20:
            time.sleep(0.05)
        assert [worker for worker in workers if alive(worker)] == []
    finally:
        for pid in [process.pid, *workers]:  # only what this test started, by id
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        process.wait(timeout=10)


def test_a_worker_whose_parent_already_died_ends_at_once() -> None:
    """The parent's death before the kernel was asked to signal it is caught by looking at the parent after."""
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; from chunkscope.pipeline import parallel; "
            "parallel.end_with_parent(os.getppid() + 1 if os.getppid() != 1 else 2); print('survived')",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )
    assert (child.returncode, child.stdout) == (1, "")


def test_the_watch_ends_a_worker_whose_parent_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel cannot signal (not Linux), the watching thread ends the worker once its parent changed."""
    ended: list[str] = []
    parents = iter([41, 41, 1])
    monkeypatch.setattr(parallel.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(parallel, "PARENT_WATCH_INTERVAL", 0.0)
    monkeypatch.setattr(parallel, "_end_orphan", lambda: ended.append("ended"))
    parallel._watch_parent(41)
    assert ended == ["ended"]
