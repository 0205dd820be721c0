"""The inspector in a real pseudo-terminal: every key of one read is handled, and a signal restores the terminal.

These run ``chunkscope`` (the inspector on the sample data) as a subprocess whose standard streams are a pty,
write keys to the pty's master side as a terminal would, and read everything the app writes back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pty = pytest.importorskip("pty", reason="needs a POSIX pseudo-terminal")
fcntl = pytest.importorskip("fcntl", reason="needs a POSIX pseudo-terminal")
termios = pytest.importorskip("termios", reason="needs a POSIX pseudo-terminal")

SRC = Path(__file__).resolve().parents[2] / "src"
STARTED = b"q01"
"""Text the first screen shows once the app runs: the sample data's first question id."""
START_TIMEOUT_S = 90.0
EXIT_TIMEOUT_S = 30.0

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
SHOW_CURSOR = b"\x1b[?25h"
MOUSE_OFF = b"\x1b[?1000l"


class Terminal:
    """A running inspector on a pty, with everything it wrote so far."""

    def __init__(self) -> None:
        try:
            master, slave = pty.openpty()
        except OSError as exc:  # pragma: no cover - containers without /dev/ptmx
            pytest.skip(f"no pseudo-terminal available: {exc}")
        fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x00\x28\x00\x78\x00\x00\x00\x00")  # 40 rows, 120 columns
        environment = {**os.environ, "PYTHONPATH": str(SRC), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        environment.pop("TEXTUAL_DRIVER", None)
        self.master = master
        self.process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main([]))"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
        )
        os.close(slave)
        self.output = bytearray()
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every slave side closed (the app ended)
                return
            if not data:
                return
            with self.lock:
                self.output += data

    def written(self) -> bytes:
        """Everything the app wrote so far."""
        with self.lock:
            return bytes(self.output)

    def wait_for(self, text: bytes, timeout: float = START_TIMEOUT_S) -> None:
        """Wait until the app wrote ``text`` (fail with the tail of the output otherwise)."""
        deadline = time.monotonic() + timeout
        while text not in self.written():
            if self.process.poll() is not None:
                pytest.fail(f"the inspector ended ({self.process.returncode}): {self.written()[-2000:]!r}")
            if time.monotonic() > deadline:
                pytest.fail(f"{text!r} not shown after {timeout} s: {self.written()[-2000:]!r}")
            time.sleep(0.05)
        time.sleep(0.5)  # the first frame is drawn; let the app settle into reading keys

    def send(self, keys: bytes) -> None:
        """Write ``keys`` to the terminal in one write (one read for the app)."""
        os.write(self.master, keys)

    def ended(self, timeout: float = EXIT_TIMEOUT_S) -> int | None:
        """The app's exit code once it ended within ``timeout``, None when it still runs."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        """End the app if it still runs, and free the pty."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.reader.join(5)
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    running = Terminal()
    try:
        running.wait_for(STARTED)
        yield running
    finally:
        running.close()


def test_every_key_of_one_read_is_handled(terminal: Terminal) -> None:
    # s opens the summary, Esc closes it, ? opens the help, Esc closes it, q quits: all in one read.
    # Read as Esc-prefixed (Alt) keys, the dialogs stayed open and q was Alt+q: the app never ended.
    terminal.send(b"s\x1b?\x1bq")
    assert terminal.ended() == 0, terminal.written()[-2000:]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_app_and_restores_the_terminal(terminal: Terminal, signum: int) -> None:
    started = len(terminal.written())
    terminal.process.send_signal(signum)
    assert terminal.ended() == 128 + signum
    terminal.reader.join(10)
    after = terminal.written()[started:]
    for restore in (LEAVE_ALTERNATE_SCREEN, SHOW_CURSOR, MOUSE_OFF):
        assert restore in after, (restore, after[-2000:])


def keys_of(*reads: str) -> list[str]:
    """The keys ``KeyParser`` reports for the given reads, then for the end of input."""
    from textual import events

    from chunkscope.tui.terminal import KeyParser

    parser = KeyParser()
    messages = [message for data in (*reads, "") for message in parser.feed(data)]
    return [message.key for message in messages if isinstance(message, events.Key)]


@pytest.mark.parametrize(
    ("reads", "keys"),
    [
        (["s\x1b?\x1bq"], ["s", "escape", "question_mark", "escape", "q"]),
        (["\x1b", "x"], ["escape", "x"]),  # ESC at the end of one read, the key in the next
        (["\x1b\x1b"], ["escape", "escape"]),
        (["a\x1b[Ab"], ["a", "up", "b"]),  # CSI sequences stay keys
        (["\x1bOP"], ["f1"]),  # SS3 too
        (["\x1b[1;5C\x1bq"], ["ctrl+right", "escape", "q"]),
    ],
)
def test_keys_of_one_read(reads: list[str], keys: list[str]) -> None:
    assert keys_of(*reads) == keys


def test_a_bracketed_paste_is_one_paste() -> None:
    from textual import events

    from chunkscope.tui.terminal import KeyParser

    parser = KeyParser()
    messages = list(parser.feed("\x1b[200~hello world\x1b[201~q"))
    assert [m.text for m in messages if isinstance(m, events.Paste)] == ["hello world"]
    assert [m.key for m in messages if isinstance(m, events.Key)] == ["q"]
