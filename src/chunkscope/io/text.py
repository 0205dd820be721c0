"""Reading input text and JSON: every problem names the file, line and field."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError


def read_text(path: Path, what: str = "") -> tuple[str, str]:
    """Text (newlines kept exactly, so CRLF offsets stay true) and its SHA-256.

    ``what`` names the kind of file in the message when it cannot be read (``chunks file``).
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        kind = f" {what}" if what else ""
        raise InputError(str(path), f"cannot read{kind}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(str(path), f"not valid UTF-8 (byte {exc.start})", line=line) from None
    return text, hashlib.sha256(raw).hexdigest()


def reject_bom(path: str | Path, text: str) -> None:
    """InputError when a JSON/JSONL/run file starts with a byte-order mark (JSON parsers refuse it)."""
    if text.startswith("\ufeff"):
        raise InputError(str(path), "starts with a UTF-8 byte-order mark (BOM): save it as UTF-8 without BOM", line=1)


def parse_json(path: str | Path, text: str, line: int | None = None) -> Any:
    """``json.loads`` with every failure as an InputError naming the file and line.

    JSON escapes can spell lone surrogates (``"\\ud800"``) that no UTF-8 report can hold,
    so they are refused here rather than when a report is written.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(str(path), f"invalid JSON: {exc.msg} (column {exc.colno})", line=where) from None
    except RecursionError:
        raise InputError(str(path), "invalid JSON: nested too deeply", line=line) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                str(path), "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff)", line=line
            ) from None
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def jsonl_records(path: Path, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reject_bom(path, text)
    for number, line in enumerate(text.split("\n"), start=1):
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
