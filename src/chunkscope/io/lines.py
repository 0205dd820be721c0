"""Reading a JSONL file line by line, gzip recognised by content, with bounds on what it may decompress to.

A gzip file is decompressed as a stream, one line at a time: the text as a whole is never held, so a
small file that decompresses to gigabytes (a gzip bomb, or zeros without a newline) cannot exhaust
memory. Two bounds, each a one-line error naming the file, the line and how to raise it:

* a line may not be longer than ``CHUNKSCOPE_MAX_LINE`` bytes (default 64 MiB; a TyDi record holds one
  Wikipedia article with its passage offsets, and the longest articles are a few MB of text);
* a gzip file may not decompress to more than ``CHUNKSCOPE_MAX_DECOMPRESSED`` bytes (default 4 GiB).

Both take a number of bytes, optionally with ``K``, ``M`` or ``G`` (powers of 1024): ``CHUNKSCOPE_MAX_LINE=256M``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.errors import ChunkscopeError, InputError
from chunkscope.io.text import open_regular

MAX_LINE_VARIABLE = "CHUNKSCOPE_MAX_LINE"
MAX_DECOMPRESSED_VARIABLE = "CHUNKSCOPE_MAX_DECOMPRESSED"
DEFAULT_MAX_LINE = 64 * 1024**2
DEFAULT_MAX_DECOMPRESSED = 4 * 1024**3
READ_SIZE = 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
_SIZE = re.compile(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LineLimits:
    """How long a line and how much decompressed text a file may hold, in bytes."""

    line: int = DEFAULT_MAX_LINE
    decompressed: int = DEFAULT_MAX_DECOMPRESSED

    @classmethod
    def from_environment(cls) -> LineLimits:
        """The limits ``CHUNKSCOPE_MAX_LINE`` and ``CHUNKSCOPE_MAX_DECOMPRESSED`` set, else the defaults."""
        return cls(
            _size_variable(MAX_LINE_VARIABLE, DEFAULT_MAX_LINE),
            _size_variable(MAX_DECOMPRESSED_VARIABLE, DEFAULT_MAX_DECOMPRESSED),
        )


def _size_variable(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    match = _SIZE.fullmatch(value)
    if match is None or int(match.group(1)) == 0:
        raise ChunkscopeError(f"{name} must be a positive number of bytes such as 268435456 or 256M, got {value!r}")
    power = " KMG".index(match.group(2).upper() or " ")
    return int(match.group(1)) * int(1024**power)


class _Hashing(io.RawIOBase):
    """Reads another binary file, adding every byte read to a SHA-256."""

    def __init__(self, inner: io.BufferedReader) -> None:
        super().__init__()
        self.inner = inner
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.inner.readinto(buffer)
        self.digest.update(memoryview(buffer)[:count])
        return count

    def rest(self) -> str:
        """Hash what is left unread; the SHA-256 of the whole file (hex)."""
        while chunk := self.inner.read(READ_SIZE):
            self.digest.update(chunk)
        return self.digest.hexdigest()


class JsonlLines:
    """The text lines of a (possibly gzipped) UTF-8 file, numbered from 1, then ``sha256``: the file's as stored.

    Iterate once; ``sha256`` is set when the iteration has ended. Each line is yielded without its ``\\n``.
    """

    def __init__(self, path: Path, limits: LineLimits | None = None) -> None:
        self.path = path
        self.limits = limits or LineLimits.from_environment()
        self.sha256 = ""

    def _fail(self, message: str, line: int | None = None) -> InputError:
        return InputError(str(self.path), message, line=line)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        try:
            raw = open_regular(self.path)
        except OSError as exc:
            raise self._fail(f"cannot read: {exc.strerror or exc}") from None
        with raw:
            source = _Hashing(raw)
            buffered = io.BufferedReader(source, READ_SIZE)
            compressed = buffered.peek(2)[:2] == GZIP_MAGIC
            stream: Any = gzip.GzipFile(fileobj=buffered, mode="rb") if compressed else buffered
            try:
                yield from self._lines(stream, compressed)
            except (OSError, EOFError, zlib.error) as exc:
                if not compressed:
                    raise self._fail(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
                raise self._fail(f"not a valid gzip file: {exc}") from None
            self.sha256 = source.rest()

    def _lines(self, stream: Any, compressed: bool) -> Iterator[tuple[int, str]]:
        limit = self.limits.line
        total = 0
        number = 0
        while line := stream.readline(limit + 1):
            number += 1
            if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
                raise self._fail(
                    f"a line longer than {limit:,} bytes, the limit: set {MAX_LINE_VARIABLE}=BYTES to raise it", number
                )
            total += len(line)
            if compressed and total > self.limits.decompressed:
                raise self._fail(
                    f"decompresses to more than {self.limits.decompressed:,} bytes, the limit (a gzip bomb?): "
                    f"set {MAX_DECOMPRESSED_VARIABLE}=BYTES to raise it",
                    number,
                )
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise self._fail(f"not valid UTF-8 (byte {total - len(line) + exc.start})", number) from None
            yield number, text.removesuffix("\n")
