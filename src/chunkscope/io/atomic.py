"""Atomic file writing: readers never see half a file, and no temporary outlives the process.

A file is written to a temporary beside it (``.NAME.XXXX.tmp``) and renamed over
it. Every temporary is registered until it is renamed or removed, so
:func:`remove_temporaries` (called by the command line's SIGTERM handler) can
delete the ones a terminated process leaves behind.
"""

from __future__ import annotations

import os
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

_TEMPORARIES: set[str] = set()
"""Temporary files created and not yet renamed or removed."""


def write_atomic(path: str | Path, content: str) -> None:
    """Write ``content`` (UTF-8) to the regular file ``path`` via a temporary file and a rename.

    A symlink is followed: the file it points to is replaced and the link stays.
    Anything else that is not a regular file (a device, a FIFO, a socket) is never
    replaced: OSError. :func:`chunkscope.io.targets.write_report` writes those directly.
    A file that is replaced keeps its permission bits (a private report stays private)
    and, where this process may set them, its owner and group; a new file gets
    ``0o666`` less the umask, as ``open`` would give it.
    """
    target = Path(os.path.realpath(path))
    existing = _refuse_non_regular(target)

    def fill(handle: IO[bytes]) -> None:
        handle.write(content.encode("utf-8"))

    if existing is None:
        replace_atomically(target, fill, mode=0o666 & ~_umask())
    else:
        replace_atomically(target, fill, mode=stat.S_IMODE(existing.st_mode), owner=existing)


def replace_atomically(
    target: Path, fill: Callable[[IO[bytes]], None], mode: int | None = None, owner: os.stat_result | None = None
) -> None:
    """Create a temporary beside ``target``, let ``fill`` write it, then rename it over ``target``.

    ``mode``: the temporary's permission bits. ``owner``: the status of the file replaced, whose
    owner and group the temporary takes where allowed (root, or a group this process is in).
    On any failure (SIGTERM included, see :func:`remove_temporaries`) the temporary
    is removed and ``target`` is left as it was.
    """
    with temporary_beside(target) as (handle, temporary):
        fill(handle)
        handle.close()
        if owner is not None:
            _take_owner(temporary, owner)
        if mode is not None:
            os.chmod(temporary, mode)  # after chown, which clears set-user/group-id bits
        os.replace(temporary, target)


def _take_owner(temporary: str, owner: os.stat_result) -> None:
    """Give ``temporary`` the owner and group of ``owner`` as far as allowed (the owner needs root)."""
    chown = getattr(os, "chown", None)
    if chown is None:
        return
    current = os.stat(temporary)
    if (current.st_uid, current.st_gid) == (owner.st_uid, owner.st_gid):
        return
    with suppress(OSError):
        chown(temporary, owner.st_uid, owner.st_gid)
        return
    with suppress(OSError):
        chown(temporary, -1, owner.st_gid)  # a group this process is in


@contextmanager
def temporary_beside(target: Path) -> Iterator[tuple[IO[bytes], str]]:
    """An open binary temporary file in ``target``'s directory, removed unless renamed away."""
    directory = target.parent if str(target.parent) else Path(".")
    with _signals_held():
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        _TEMPORARIES.add(temporary)
    handle = os.fdopen(descriptor, "wb")
    try:
        yield handle, temporary
    finally:
        handle.close()
        Path(temporary).unlink(missing_ok=True)  # already renamed when all went well
        _TEMPORARIES.discard(temporary)


def remove_temporaries() -> None:
    """Delete every temporary file not yet renamed: what a terminated process must not leave behind."""
    for temporary in list(_TEMPORARIES):
        with suppress(OSError):
            os.unlink(temporary)
        _TEMPORARIES.discard(temporary)


def _refuse_non_regular(target: Path) -> os.stat_result | None:
    """The status of the regular file at ``target`` (None: nothing there); OSError for anything else."""
    try:
        status = target.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(status.st_mode):
        raise OSError(f"{target} is not a regular file: it would be replaced, not written")
    return status


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGTERM and SIGINT while a temporary is created and registered, so none escapes the registry."""
    held = {signal.SIGTERM, signal.SIGINT}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):  # no pthread_sigmask on this platform
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
