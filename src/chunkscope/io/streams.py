"""Standard streams that never raise: UTF-8 whatever the locale, quiet when the reader goes away.

The command line's tables, messages and ``-`` reports go through these, so a
closed pipe (``| head -1``), a full disk (``> /dev/full``), a closed descriptor
(``>&-``) or an ASCII locale can neither turn into a traceback nor stop the
reports written to files.
"""

from __future__ import annotations

import contextlib
import io
import os
from typing import Any, TextIO


class GuardedStream(io.TextIOBase):
    """A text stream over another that keeps going whatever happens to it.

    * Text is written as UTF-8 whatever the stream's encoding (:func:`utf8_stream`);
      characters it cannot hold are written as backslash escapes.
    * When the reader has gone away (EPIPE), output ends quietly: ``reader_gone``.
    * Any other failure (ENOSPC, EIO, EBADF) ends output too and is kept in
      ``failure`` for the caller to report once.
    * ``None`` (the descriptor was closed when the process started) discards everything.

    After either failure the descriptor is pointed at ``/dev/null``, so the
    interpreter's own final flush cannot fail again.
    """

    def __init__(self, inner: TextIO | None) -> None:
        super().__init__()
        self.inner = utf8_stream(inner) if inner is not None else None
        self.reader_gone = False
        self.failure: OSError | None = None

    @property
    def stopped(self) -> bool:
        """True when nothing more is written (closed at start, reader gone, or failed)."""
        return self.inner is None or self.reader_gone or self.failure is not None

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self.stopped:
            self._guard(lambda inner: _write_escaped(inner, text))
        return len(text)

    def flush(self) -> None:
        if not self.stopped:
            self._guard(lambda inner: inner.flush())

    def isatty(self) -> bool:
        if self.stopped:
            return False
        try:
            return bool(self.inner.isatty())  # type: ignore[union-attr]
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.inner is None:
            raise io.UnsupportedOperation("the stream was closed when the process started")
        return self.inner.fileno()

    def _guard(self, action: Any) -> None:
        try:
            action(self.inner)
        except BrokenPipeError:
            self.reader_gone = True
            self._silence()
        except OSError as exc:
            self.failure = exc
            self._silence()
        except ValueError:  # the stream was closed under us
            self.failure = OSError("the stream is closed")

    def _silence(self) -> None:
        """Point the descriptor at /dev/null so bytes still buffered can be flushed at exit without failing."""
        try:
            descriptor = self.inner.fileno()  # type: ignore[union-attr]
        except (OSError, ValueError, AttributeError):
            return
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, descriptor)
        finally:
            os.close(null)


def _write_escaped(stream: TextIO, text: str) -> None:
    """Write ``text``; what a stream that could not become UTF-8 cannot encode goes as backslash escapes."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def utf8_stream(stream: TextIO) -> TextIO:
    """``stream`` re-encoded as UTF-8 (backslash escapes for what UTF-8 cannot hold, i.e. lone surrogates).

    A stream that cannot be reconfigured (not a ``TextIOWrapper``) is returned as it is.
    """
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return stream
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    errors = getattr(stream, "errors", None)
    if encoding in ("utf-8", "utf8") and errors == "backslashreplace":
        return stream
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        reconfigure(encoding="utf-8", errors="backslashreplace")
    return stream
