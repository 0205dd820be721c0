"""Report targets: what a report path names, whether it can be written, and writing it.

A report path names one of:

* a **file**: a regular file, or a new one in an existing directory. Written
  atomically (:func:`chunkscope.io.atomic.write_atomic`): a temporary beside it,
  then a rename. A symlink is followed, so the link stays and its file is replaced.
* a **stream**: a character device (``/dev/null``, a terminal), a FIFO or a
  socket. Opened and written directly; never replaced by a regular file.
* a **descriptor**: ``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdout``,
  ``/dev/stderr`` (what a shell's ``>(command)`` passes). The open descriptor is
  written directly, whatever it is (pipe, socket, terminal, file).

Refused before any work starts (:func:`target_problem`): a directory, a path
ending in ``/`` (it names a directory), a block device, a descriptor that is not
open for writing, a missing or unwritable directory, and a relative path when
the working directory no longer exists. A reader that goes away while a stream
is written (broken pipe) ends that report quietly; other write failures raise
OSError.
"""

from __future__ import annotations

import os
import re
import socket
import stat
import sys
import tempfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from chunkscope.io.atomic import write_atomic


class TargetKind(Enum):
    """How a report path is written."""

    FILE = "file"
    """A regular file (existing or new): written atomically."""
    STREAM = "stream"
    """A character device, FIFO or socket: opened and written directly."""
    DESCRIPTOR = "descriptor"
    """An open file descriptor named by path: written directly."""


@dataclass(frozen=True, slots=True)
class Target:
    """A classified report path."""

    path: str
    kind: TargetKind
    descriptor: int | None = None
    """The descriptor number of a DESCRIPTOR target."""
    socket: bool = False
    """A STREAM that is a Unix socket (connected to, not opened)."""


_DESCRIPTOR_PATH = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d{1,9})$")
_NAMED_DESCRIPTORS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
STDOUT = "-"
"""The report path meaning standard output."""


def descriptor_of(path: str) -> int | None:
    """The descriptor ``path`` names (``-`` and ``/dev/stdout`` are 1, ``/dev/fd/3`` is 3), or None."""
    if path == STDOUT:
        return 1
    if not path.startswith("/"):
        return None
    normal = os.path.normpath(path)
    if normal in _NAMED_DESCRIPTORS:
        return _NAMED_DESCRIPTORS[normal]
    match = _DESCRIPTOR_PATH.match(normal)
    return int(match.group(1)) if match else None


def names_stdout(path: str | None) -> bool:
    """True when a report path means standard output: ``-``, ``/dev/stdout``, ``/dev/fd/1``."""
    return path is not None and descriptor_of(path) == 1


def classify(path: str) -> Target:
    """What ``path`` names, for writing (a missing path is a new regular file)."""
    descriptor = descriptor_of(path)
    if descriptor is not None:
        return Target(path, TargetKind.DESCRIPTOR, descriptor)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return Target(path, TargetKind.FILE)
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return Target(path, TargetKind.STREAM)
    if stat.S_ISSOCK(mode):
        return Target(path, TargetKind.STREAM, socket=True)
    return Target(path, TargetKind.FILE)


def target_problem(path: str) -> str | None:
    """Why ``path`` cannot take a report (one phrase, e.g. ``it is a directory``), or None when it can."""
    descriptor = descriptor_of(path)
    if descriptor is not None:
        return _descriptor_problem(descriptor)
    if path.endswith(("/", os.sep)):
        return "a path ending in '/' names a directory; give a file name"
    if not os.path.isabs(path):
        try:
            os.getcwd()
        except FileNotFoundError:
            return "the working directory no longer exists (give an absolute path)"
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        return f"{_first_non_directory(path)} is not a directory"
    except OSError as exc:
        return exc.strerror or str(exc)
    if mode is not None:
        if stat.S_ISDIR(mode):
            return "it is a directory"
        if stat.S_ISBLK(mode):
            return "it is a block device (a disk): refusing to write a report onto it"
        if not stat.S_ISREG(mode):
            return None  # character device, FIFO or socket: written directly
    return _directory_problem(path)


def _descriptor_problem(descriptor: int) -> str | None:
    name = "standard output" if descriptor == 1 else f"descriptor {descriptor}"
    try:
        os.fstat(descriptor)
    except OSError:
        return f"{name} is closed"
    try:
        import fcntl  # POSIX only: elsewhere the access mode is not checked in advance
    except ImportError:
        return None
    if fcntl.fcntl(descriptor, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
        return f"{name} is open for reading only"
    return None


def _directory_problem(path: str) -> str | None:
    """Why no file can be created in the directory a regular-file report goes to, or None."""
    real = Path(os.path.realpath(path))
    shown = Path(path).parent
    directory = real.parent
    if not directory.is_dir():
        return f"directory {shown} does not exist"
    try:
        descriptor, probe = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".probe", dir=directory)
    except OSError as exc:
        return f"directory {shown} is not writable: {exc.strerror or exc}"
    os.close(descriptor)
    os.unlink(probe)
    return None


def _first_non_directory(path: str) -> str:
    """The leading part of ``path`` that exists but is not a directory (why the path cannot exist)."""
    candidate = Path(path)
    for part in [*reversed(candidate.parents), candidate]:
        if part.exists() and not part.is_dir():
            return str(part)
    return str(candidate.parent)


def write_report(path: str, content: str) -> None:
    """Write a report to ``path``: a file atomically, a stream or descriptor directly (UTF-8 either way).

    A reader that went away (broken pipe) ends the report quietly; every other
    failure raises OSError.
    """
    target = classify(path)
    if target.kind is TargetKind.FILE:
        write_atomic(path, content)
        return
    data = content.encode("utf-8")
    try:
        if target.descriptor is not None:
            _write_descriptor(target.descriptor, data)
        elif target.socket:
            _write_socket(path, data)
        else:
            _write_stream(path, data)
    except BrokenPipeError:
        return


def _write_descriptor(descriptor: int, data: bytes) -> None:
    for number, stream in ((1, sys.stdout), (2, sys.stderr)):
        if descriptor == number and stream is not None:
            stream.flush()  # what Python still buffers for that descriptor comes first
    duplicate = os.dup(descriptor)
    with open(duplicate, "wb") as handle:
        handle.write(data)


def _write_stream(path: str, data: bytes) -> None:
    # No O_CREAT: if the device or FIFO vanished since the check, fail rather than create a regular file.
    descriptor = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    with open(descriptor, "wb") as handle:
        handle.write(data)


def _write_socket(path: str, data: bytes) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        connection.sendall(data)
