"""Report targets: regular files are replaced atomically, everything else is written directly and never replaced.

Every target is checked before any work starts. The inputs are two tiny documents and one question;
``EXPECTED`` is the JSON report written to a regular file, which every other target must receive byte for byte.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from chunkscope.cli import common, main
from chunkscope.io.atomic import write_atomic
from chunkscope.io.targets import TargetKind, classify, target_problem, write_report

if TYPE_CHECKING:
    from conftest import Unprivileged

CORPUS = [{"id": "d1", "text": "Alpha beta gamma. Delta epsilon zeta."}, {"id": "d2", "text": "Kappa lambda mu nu."}]
QUESTION = {"id": "q1", "query": "delta epsilon", "evidence": [{"doc": "d1", "quote": "Delta"}]}


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    """eval on the tiny inputs with a fast chunker."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in CORPUS), encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps(QUESTION) + "\n", encoding="utf-8")
    return ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker", "fixed:size=20"]


@pytest.fixture
def expected(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> bytes:
    """The JSON report as written to a regular file."""
    path = tmp_path / "reference.json"
    assert main([*argv, "--json", str(path)]) == 0
    capsys.readouterr()
    return path.read_bytes()


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Evaluating fails the test: a refused target must be refused before any work."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("evaluation started before the report target was refused")

    monkeypatch.setattr(common, "evaluate_all", refuse)


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err.strip()


@pytest.fixture
def reader() -> Iterator[Callable[[Callable[[], bytes]], Callable[[], bytes]]]:
    """Run a blocking read in a thread; the returned function joins it and gives the bytes."""
    threads: list[threading.Thread] = []

    def start(read: Callable[[], bytes]) -> Callable[[], bytes]:
        received: list[bytes] = []
        thread = threading.Thread(target=lambda: received.append(read()), daemon=True)
        thread.start()
        threads.append(thread)

        def result() -> bytes:
            thread.join(timeout=30)
            assert not thread.is_alive(), "the reader never got end of file"
            return received[0]

        return result

    yield start


# ------------------------------------------------------------------ devices, FIFOs, descriptors, sockets


def test_dev_null_is_written_and_stays_a_device(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    before = os.stat("/dev/null")
    assert main([*argv, "--json", "/dev/null"]) == 0
    assert "wrote /dev/null" in capsys.readouterr().err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_dev_full_is_a_one_line_error_and_stays_a_device(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    error = one_line_error(capsys, *argv, "--json", "/dev/full")
    assert error == "chunkscope: error: cannot write --json /dev/full: No space left on device"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_dev_stdout_means_stdout_and_stays_a_symlink(
    argv: list[str], expected: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    link = os.readlink("/dev/stdout")
    assert main([*argv, "--json", "/dev/stdout"]) == 0
    out, err = capsys.readouterr()
    assert out.encode("utf-8") == expected  # the report alone: the tables went to stderr
    assert "R@5" in err
    assert os.path.islink("/dev/stdout") and os.readlink("/dev/stdout") == link


def test_a_fifo_is_written_and_stays_a_fifo(
    argv: list[str],
    expected: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reader: Callable[[Callable[[], bytes]], Callable[[], bytes]],
) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)

    def read() -> bytes:
        with open(fifo, "rb") as handle:
            return handle.read()

    received = reader(read)
    try:
        assert main([*argv, "--json", str(fifo)]) == 0
    finally:
        with contextlib.suppress(OSError):  # ENXIO once the reader is done; else it releases the reader
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert received() == expected
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    capsys.readouterr()


def test_a_descriptor_path_from_a_pipe_is_written(
    argv: list[str],
    expected: bytes,
    capsys: pytest.CaptureFixture[str],
    reader: Callable[[Callable[[], bytes]], Callable[[], bytes]],
) -> None:
    """What ``--json >(jq .)`` passes: /dev/fd/N, the write end of a pipe."""
    read_end, write_end = os.pipe()

    def read() -> bytes:
        with open(read_end, "rb") as handle:
            return handle.read()

    received = reader(read)
    try:
        assert main([*argv, "--json", f"/dev/fd/{write_end}"]) == 0
    finally:
        os.close(write_end)
    assert received() == expected
    capsys.readouterr()


def test_a_unix_socket_is_connected_to_and_written(
    argv: list[str],
    expected: bytes,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reader: Callable[[Callable[[], bytes]], Callable[[], bytes]],
) -> None:
    path = tmp_path / "r.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(30)

    def read() -> bytes:
        connection, _ = server.accept()
        with connection:
            chunks = iter(lambda: connection.recv(65536), b"")
            return b"".join(chunks)

    received = reader(read)
    try:
        assert main([*argv, "--json", str(path)]) == 0
        assert received() == expected
    finally:
        server.close()
    assert stat.S_ISSOCK(os.stat(path).st_mode)
    capsys.readouterr()


def test_a_symlink_to_a_file_stays_a_link_and_its_file_is_replaced(
    argv: list[str], expected: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.json"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert main([*argv, "--json", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == expected
    capsys.readouterr()


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444], ids=["600", "640", "444"])
def test_a_replaced_report_keeps_its_mode(
    argv: list[str], expected: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    # A private report (600) became 644 when it was written again: the new file took the umask's mode.
    report = tmp_path / "private.json"
    report.write_text("old", encoding="utf-8")
    report.chmod(mode)
    link = tmp_path / "link.json"
    link.symlink_to(report)
    for path in (report, link):
        assert main([*argv, "--json", str(path)]) == 0
        assert stat.S_IMODE(report.stat().st_mode) == mode
        assert report.read_bytes() == expected
    capsys.readouterr()


def test_a_new_report_gets_the_umask_mode(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    previous = os.umask(0o027)
    try:
        assert main([*argv, "--json", str(tmp_path / "new.json")]) == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640
    capsys.readouterr()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_a_replaced_report_keeps_its_owner(tmp_path: Path) -> None:
    report = tmp_path / "theirs.json"
    report.write_text("old", encoding="utf-8")
    os.chown(report, 54321, 54322)
    report.chmod(0o600)
    write_atomic(report, "new")
    status = report.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (54321, 54322, 0o600)
    assert report.read_text(encoding="utf-8") == "new"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: f"{tmp}/newdir/", "a path ending in '/' names a directory; give a file name"),
        (lambda tmp: f"{tmp}/", "a path ending in '/' names a directory; give a file name"),
        (lambda tmp: "/dev/fd/987", "descriptor 987 is closed"),
        (lambda tmp: f"{tmp}/corpus.jsonl/r.json", "{tmp}/corpus.jsonl is not a directory"),
    ],
    ids=["trailing-slash-new", "trailing-slash-existing", "closed-descriptor", "file-as-directory"],
)
def test_refused_before_any_work(
    argv: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_work: None,
    make: Callable[[Path], str],
    message: str,
) -> None:
    target = make(tmp_path)
    error = one_line_error(capsys, *argv, "--json", target)
    assert error == f"chunkscope: error: cannot write --json {target}: {message.format(tmp=tmp_path)}"
    assert not (tmp_path / "newdir").exists()


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_corpus_document_reached_through_a_link_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None, link: str
) -> None:
    # corpus/policy.md -> notes/policy.md: `--markdown notes/policy.md` replaced the corpus document.
    notes = tmp_path / "notes"
    notes.mkdir()
    document = notes / "policy.md"
    document.write_text("Refunds take fourteen days.\n", encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    if link == "symlink":
        (corpus / "policy.md").symlink_to(document)
    else:
        os.link(document, corpus / "policy.md")
    questions = tmp_path / "questions.jsonl"
    question = {"id": "q1", "query": "refunds", "evidence": [{"doc": "policy.md", "quote": "Refunds"}]}
    questions.write_text(json.dumps(question) + "\n", encoding="utf-8")
    argv = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker", "paragraph"]
    error = one_line_error(capsys, *argv, "--markdown", str(document))
    assert error == (
        f"chunkscope: error: refusing to write --markdown {document}: it is the document {corpus / 'policy.md'} "
        f"of the corpus directory {corpus} (through a link)"
    )
    assert document.read_text(encoding="utf-8") == "Refunds take fourteen days.\n"


def test_a_descriptor_open_for_reading_only_is_refused(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], no_work: None
) -> None:
    descriptor = os.open(tmp_path / "corpus.jsonl", os.O_RDONLY)
    try:
        error = one_line_error(capsys, *argv, "--json", f"/dev/fd/{descriptor}")
    finally:
        os.close(descriptor)
    assert error.endswith(f"descriptor {descriptor} is open for reading only")


def test_a_block_device_is_refused(tmp_path: Path) -> None:
    node = tmp_path / "disk"
    try:
        os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    except PermissionError:
        pytest.skip("creating a block device node needs CAP_MKNOD")
    assert target_problem(str(node)) == "it is a block device (a disk): refusing to write a report onto it"


def test_a_deleted_working_directory_with_a_relative_path(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_work: None
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    error = one_line_error(capsys, *argv, "--json", "r.json")
    assert error == (
        "chunkscope: error: cannot write --json r.json: the working directory no longer exists (give an absolute path)"
    )


def test_a_read_only_report_directory_is_refused_before_any_work(unprivileged: Unprivileged, tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    reports.chmod(0o555)
    code = (
        "import sys\n"
        "from chunkscope.cli import common, main\n"
        "def refuse(*a, **k): raise SystemExit('evaluation started')\n"
        "common.evaluate_all = refuse\n"
        "sys.exit(main(['eval', '--json', sys.argv[1]]))\n"
    )
    result = unprivileged.run(code, str(reports / "r.json"))
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"chunkscope: error: cannot write --json {reports / 'r.json'}: "
        f"directory {reports} is not writable: Permission denied\n"
    )
    assert list(reports.iterdir()) == []


# ------------------------------------------------------------------ the mechanism, directly


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/dev/null", TargetKind.STREAM),
        ("/dev/stdout", TargetKind.DESCRIPTOR),
        ("/dev/fd/3", TargetKind.DESCRIPTOR),
        ("/proc/self/fd/7", TargetKind.DESCRIPTOR),
        ("-", TargetKind.DESCRIPTOR),
        ("/nonexistent-dir/r.json", TargetKind.FILE),
    ],
)
def test_classification(path: str, kind: TargetKind) -> None:
    assert classify(path).kind is kind


def test_write_atomic_never_replaces_a_device_or_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    for target in (Path("/dev/null"), fifo):
        with pytest.raises(OSError, match="not a regular file"):
            write_atomic(target, "report")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_a_reader_that_goes_away_ends_a_stream_report_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        write_report(f"/dev/fd/{write_end}", "x" * 200_000)  # EPIPE on the first write: no exception
    finally:
        os.close(write_end)


# ------------------------------------------------------------------ SIGTERM


def test_sigterm_while_a_report_is_renamed_leaves_no_temporary(tmp_path: Path) -> None:
    """The rename is held until the signal arrives; the handler removes the temporary and dies of SIGTERM."""
    out = tmp_path / "out"
    out.mkdir()
    marker = tmp_path / "renaming"
    code = (
        "import os, sys, time\n"
        "from chunkscope.cli import main\n"
        "def held(source, target):\n"
        "    open(sys.argv[2], 'w').close()\n"
        "    time.sleep(60)\n"
        "os.replace = held\n"
        "sys.exit(main(['eval', '--chunker', 'paragraph', '--json', sys.argv[1]]))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(out / "r.json"), str(marker)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), process.stderr.read() if process.stderr else ""
    (temporary,) = out.iterdir()
    assert temporary.name.startswith(".r.json.")  # the report's temporary, mid-rename
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGTERM  # exit status 143 in a shell
    assert list(out.iterdir()) == []
