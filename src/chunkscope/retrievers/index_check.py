"""The integrity of an index a program wrote to disk: each file's size and CRC-32, listed and checked.

tantivy reads a damaged index file without complaint (random bytes in a field-norm file only change the
lengths it scores with), so the tantivy retriever lists every file of a finished index with its size and
CRC-32 in its description and opens a cached index only when every listed file still matches.

CRC-32 rather than a cryptographic hash: it guards against accidental damage, which it detects but for one
chance in 2**32, and it runs at several hundred MB/s on one core. Sizes are compared before any file is read.
Only regular files are read (never a FIFO, a device or a link).
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from pathlib import Path

from chunkscope.io.text import non_regular_kind, open_regular

DESCRIPTION_LIMIT = 16 * 1024 * 1024
"""Bytes at most in a description read back (it lists a few files per segment): a larger one is damage."""
CHECK_READ = 1024 * 1024
"""Bytes read at a time when a file's CRC-32 is computed."""


def description_damage(target: Path, name: str, expected: dict[str, object]) -> str | None:
    """What is wrong with the index at ``target`` by its description ``name``, None when nothing is.

    The description must be a regular file holding a JSON object with the ``expected`` values and a
    ``files`` manifest (:func:`file_manifest`) that every file still matches.
    """
    try:
        with open_regular(target / name) as handle:
            raw = handle.read(DESCRIPTION_LIMIT + 1)
    except OSError as exc:
        return f"{name}: {exc.strerror or exc}"
    if len(raw) > DESCRIPTION_LIMIT:
        return f"{name} is larger than {DESCRIPTION_LIMIT:,} bytes"
    try:
        described = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return f"{name} is not valid JSON"
    if not isinstance(described, dict):
        return f"{name} is not a JSON object"
    if any(described.get(key) != value for key, value in expected.items()):
        return f"{name} describes another index"
    files = described.get("files")
    if not isinstance(files, dict) or not files or not all(_is_size_and_crc(value) for value in files.values()):
        return f"{name} lists no files"
    return file_damage(target, files, name)


def _is_size_and_crc(value: object) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(number, int) and not isinstance(number, bool) and number >= 0 for number in value)
    )


def file_damage(target: Path, files: dict[str, list[int]], description: str) -> str | None:
    """The first listed file that is missing, not a regular file, or of another size or CRC-32; None when none.

    Sizes are all checked before any file is read: most damage (a truncated or replaced file) costs no reading.
    Files the manifest leaves out (lock files) must be regular files too: tantivy opens them, and a FIFO
    there would block it for ever.
    """
    stray = _special_entry(target)
    if stray is not None:
        return stray
    for name, (size, _) in files.items():
        path = target / name
        if Path(name).name != name or name in ("", ".", ".."):
            return f"{description} lists {name!r}, which is not a file name"
        try:
            status = os.lstat(path)
        except OSError as exc:
            return f"{name}: {exc.strerror or exc}"
        kind = "a symbolic link" if stat.S_ISLNK(status.st_mode) else non_regular_kind(status.st_mode)
        if kind is not None:
            return f"{name} is {kind}, not a regular file"
        if status.st_size != size:
            return f"{name} holds {status.st_size:,} bytes, not {size:,}"
    for name, (size, crc) in files.items():
        try:
            found = _size_and_crc(target / name)
        except OSError as exc:
            return f"{name}: {exc.strerror or exc}"
        if found != (size, crc):
            return f"{name} changed since the index was built (CRC-32 {found[1]:08x}, not {crc:08x})"
    return None


def _special_entry(target: Path) -> str | None:
    """The first entry of ``target`` that is not a regular file (a link, a FIFO, a directory...), None if none."""
    try:
        entries = sorted(os.scandir(target), key=lambda entry: entry.name)
    except OSError as exc:
        return f"{target}: {exc.strerror or exc}"
    for entry in entries:
        if entry.is_file(follow_symlinks=False):
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError as exc:
            return f"{entry.name}: {exc.strerror or exc}"
        if stat.S_ISLNK(mode):
            return f"{entry.name} is a symbolic link, not a regular file"
        return f"{entry.name} is {'a directory' if stat.S_ISDIR(mode) else non_regular_kind(mode)}, not a regular file"
    return None


def file_manifest(folder: Path, description: str) -> dict[str, list[int]]:
    """``[size, CRC-32]`` of every file of a finished index, by name.

    Lock files are left out (tantivy may create them again when it opens an index), and so is the description.
    """
    manifest = {}
    for path in sorted(folder.iterdir()):
        if path.name != description and not path.name.endswith(".lock"):
            manifest[path.name] = list(_size_and_crc(path))
    return manifest


def _size_and_crc(path: Path) -> tuple[int, int]:
    """The size and CRC-32 of a regular file's content (OSError for anything else)."""
    size = crc = 0
    buffer = memoryview(bytearray(CHECK_READ))
    with open_regular(path) as handle:
        while count := handle.readinto(buffer):
            crc = zlib.crc32(buffer[:count], crc)
            size += count
    return size, crc
