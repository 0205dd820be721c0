"""Reading input text and JSON: every problem names the file, line and field."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError


def path_mode(path: Path) -> int | None:
    """``path``'s file mode (links followed), None when nothing is there.

    A name the system refuses to look up (too long, no permission to a folder on the way) is an
    InputError naming it: ``Path.exists()`` and ``is_file()`` raise OSError for those.
    """
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link that points back at itself leads nowhere
            return None
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None


def is_file(path: Path) -> bool:
    """True when ``path`` is a regular file (:func:`path_mode`'s InputError otherwise possible)."""
    mode = path_mode(path)
    return mode is not None and stat.S_ISREG(mode)


def is_dir(path: Path) -> bool:
    """True when ``path`` is a directory (:func:`path_mode`'s InputError otherwise possible)."""
    mode = path_mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def exists(path: Path) -> bool:
    """True when something is at ``path`` (:func:`path_mode`'s InputError otherwise possible)."""
    return path_mode(path) is not None


def require_regular_file(path: Path) -> None:
    """InputError unless ``path`` is a regular file, naming what is there instead.

    ``no such file`` only when nothing is there; a directory, FIFO, device or socket is named for
    what it is (``cannot read: it is a FIFO (pipe), not a regular file``).
    """
    mode = path_mode(path)
    if mode is None:
        raise InputError(str(path), "no such file")
    if stat.S_ISDIR(mode):
        raise InputError(str(path), f"cannot read: {os.strerror(errno.EISDIR)}")  # as read_text says it
    kind = non_regular_kind(mode)
    if kind is not None:
        raise InputError(str(path), f"cannot read: it is {kind}, not a regular file")


def read_text(path: Path, what: str = "") -> tuple[str, str]:
    """Text (newlines kept exactly, so CRLF offsets stay true) and its SHA-256.

    ``what`` names the kind of file in the message when it cannot be read (``chunks file``).
    Only regular files are read: a device, FIFO or socket (``/dev/zero``, ``<(command)``)
    could be endless, so it is refused before a byte is read.
    """
    kind = f" {what}" if what else ""
    try:
        with open_regular(path) as handle:
            raw = handle.read()
    except OSError as exc:
        raise InputError(str(path), f"cannot read{kind}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(str(path), f"not valid UTF-8 (byte {exc.start})", line=line) from None
    return text, hashlib.sha256(raw).hexdigest()


_NO_WAIT = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
"""Open flags so that a FIFO without a writer (or a terminal) cannot block or take over."""


def open_regular(path: str | Path) -> io.BufferedReader:
    """``path`` opened for binary reading when it is a regular file (links followed); OSError otherwise.

    For caches and other files a program wrote itself: a FIFO, device or socket in their place is
    never read (it could block or never end), and the open cannot wait for a FIFO's writer.
    """
    # Non-blocking, so that opening a FIFO without a writer does not hang before it can be refused.
    descriptor = os.open(path, os.O_RDONLY | _NO_WAIT)
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        kind = non_regular_kind(mode)
        if kind is not None:
            raise OSError(errno.EINVAL, f"it is {kind}, not a regular file", str(path))
        return open(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def non_regular_kind(mode: int) -> str | None:
    """``a character device``, ``a FIFO (pipe)``... for what is not a regular file; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kinds = (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (pipe)"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def reject_bom(path: str | Path, text: str) -> None:
    """InputError when a JSON/JSONL/run file starts with a byte-order mark (JSON parsers refuse it)."""
    if text.startswith("\ufeff"):
        raise InputError(str(path), "starts with a UTF-8 byte-order mark (BOM): save it as UTF-8 without BOM", line=1)


def parse_json(path: str | Path, text: str, line: int | None = None) -> Any:
    """``json.loads`` with every failure as an InputError naming the file and line.

    JSON escapes can spell lone surrogates (``"\\ud800"``) that no UTF-8 report can hold,
    so they are refused here rather than when a report is written. An integer longer
    than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits) is refused
    naming its field.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", line=where) from None
    except RecursionError:
        raise InputError(str(path), "invalid JSON: nested too deeply", line=line) from None
    except ValueError as exc:  # an integer beyond the digit limit; json names no position, so parse again
        raise _huge_number_error(path, text, line, exc) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                str(path), "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)", line=line
            ) from None
    return value


def _huge_number_error(path: str | Path, text: str, line: int | None, error: ValueError) -> InputError:
    """The InputError for the first integer literal too long to convert, naming its field."""
    huge: list[int] = []
    value = json.loads(text, parse_int=lambda digits: _parse_int(digits, huge))
    if not huge:  # some other conversion failed
        return InputError(str(path), f"invalid JSON: {error}", line=line)
    limit = sys.get_int_max_str_digits()
    return InputError(
        str(path),
        f"a number of {huge[0]:,} digits (at most {limit:,} are read)",
        line=line,
        field=_huge_number_field(value),
    )


class _HugeNumber:
    """Stands in for an integer literal too long to convert, so its field can be named."""


def _parse_int(digits: str, huge: list[int]) -> int | _HugeNumber:
    count = len(digits) - digits.startswith("-")
    if count > sys.get_int_max_str_digits():
        huge.append(count)
        return _HugeNumber()
    return int(digits)


def _huge_number_field(value: Any) -> str | None:
    """The JSON path (``evidence[0].start``) of the first too-long integer, None at the top level."""
    pending: list[tuple[Any, str]] = [(value, "")]
    while pending:
        item, where = pending.pop()
        if isinstance(item, _HugeNumber):
            return where or None
        if isinstance(item, dict):
            children = [(child, f"{where}.{key}" if where else str(key)) for key, child in item.items()]
        elif isinstance(item, list):
            children = [(child, f"{where}[{i}]") for i, child in enumerate(item)]
        else:
            continue
        pending.extend(reversed(children))
    return None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def jsonl_records(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON object of each non-blank line of ``text``, with its line number."""
    return object_lines(path, enumerate(text.split("\n"), start=1))


def object_lines(path: Path, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON object of each non-blank numbered line (a BOM on line 1 and anything but an object refused)."""
    for number, line in lines:
        if number == 1:
            reject_bom(path, line)
        if not line.strip():
            continue
        record = parse_json(path, line, number)
        if not isinstance(record, dict):
            raise InputError(str(path), "each line must be a JSON object", line=number)
        yield number, record


def field_value(record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: tuple[str, int]) -> Any:
    path, line = where
    if name not in record:
        raise InputError(path, "missing", line=line, field=name)
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(path, f"must be {_article(expected)}, got {type(value).__name__}", line=line, field=name)
    return value


def record_id(record: Mapping[str, Any], where: tuple[str, int]) -> str:
    value: str = field_value(record, "id", str, where)
    if not value.strip():
        raise InputError(where[0], "must not be empty", line=where[1], field="id")
    return value


def _article(word: str) -> str:
    return {"str": "a string", "int": "an integer", "list": "a list", "dict": "an object"}.get(word, word)


def times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def shorten(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
