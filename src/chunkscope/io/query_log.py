"""Query logs without gold: JSONL with a ``query`` field, or plain text with one query a line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io.text import parse_json, read_text, reject_bom


@dataclass(frozen=True, slots=True)
class QueryLog:
    """The queries of a log, each with its line number, and how the file was read."""

    path: str
    lines: tuple[int, ...]
    queries: tuple[str, ...]
    sha256: str
    format: str
    """``jsonl`` or ``text``."""


def read_query_log(path: str | Path) -> QueryLog:
    """The queries of ``path``, in order; blank lines are skipped.

    The file is JSONL when its first non-blank line is a JSON object: every non-blank line must then
    be an object with a non-empty string ``query``. Otherwise every non-blank line is one query, taken
    as written (trailing line break and carriage return removed). An empty log is an error.
    """
    name = str(path)
    text, digest = read_text(Path(path), "query log")
    reject_bom(name, text)
    raw_lines = text.split("\n")
    first = next((line for line in raw_lines if line.strip()), None)
    if first is None:
        raise InputError(name, "the query log holds no query")
    jsonl = _is_object(first)
    numbers: list[int] = []
    queries: list[str] = []
    for number, raw in enumerate(raw_lines, start=1):
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        if jsonl:
            record = parse_json(name, line, number)
            if not isinstance(record, dict):
                raise InputError(name, "expected a JSON object (the log is JSONL: its first line is one)", line=number)
            query = record.get("query")
            if not isinstance(query, str) or not query.strip():
                raise InputError(name, "must be a non-empty string", line=number, field="query")
        else:
            query = line
        numbers.append(number)
        queries.append(query)
    return QueryLog(name, tuple(numbers), tuple(queries), digest, "jsonl" if jsonl else "text")


def _is_object(line: str) -> bool:
    """True when ``line`` is a JSON object (a plain-text query rarely is)."""
    if not line.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
