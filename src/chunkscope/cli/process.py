"""Process-level safety for the headless commands: guarded standard streams and a SIGTERM that cleans up.

* stdout and stderr are replaced by :class:`~chunkscope.io.streams.GuardedStream`
  for the duration of a command, so tables and messages can never raise: a closed
  pipe ends them quietly, a full disk is reported once at the end, and a non-UTF-8
  locale gets UTF-8 anyway.
* chunkscope's warnings (an embedding cache that cannot be used) print as one
  ``chunkscope: warning:`` line.
* SIGTERM removes the temporary files of reports and cache shards being written
  (:func:`chunkscope.io.atomic.remove_temporaries`), then terminates the process
  by the same signal, so the parent still sees exit status 143 (128 + 15).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from chunkscope.errors import ChunkscopeWarning
from chunkscope.io.atomic import remove_temporaries
from chunkscope.io.streams import GuardedStream


@contextmanager
def guarded_streams() -> Iterator[tuple[GuardedStream, GuardedStream]]:
    """Replace sys.stdout and sys.stderr by guarded streams; restore them (flushed) afterwards."""
    saved = sys.stdout, sys.stderr
    stdout, stderr = GuardedStream(saved[0]), GuardedStream(saved[1])
    sys.stdout, sys.stderr = stdout, stderr
    try:
        yield stdout, stderr
    finally:
        stdout.flush()
        stderr.flush()
        sys.stdout, sys.stderr = saved


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Show chunkscope's own warnings as ``chunkscope: warning: ...`` on stderr, each once."""
    with warnings.catch_warnings():
        original = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
            if issubclass(category, ChunkscopeWarning):
                print(f"chunkscope: warning: {message}", file=sys.stderr)
            else:
                original(message, category, *args, **kwargs)  # type: ignore[arg-type]

        warnings.showwarning = show
        warnings.simplefilter("default", ChunkscopeWarning)
        yield


def _terminate(signum: int, frame: FrameType | None) -> None:
    """Remove unfinished temporaries, then die of the same signal with its default action."""
    remove_temporaries()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextmanager
def cleanup_on_sigterm() -> Iterator[None]:
    """Install the SIGTERM handler for the duration (only possible in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
