"""Generated answers with their judgments, read from the files evaluation tools write.

Each format is one module (``answers_plain``, ``answers_ragas``, ``answers_deepeval``,
``answers_promptfoo``) that registers an :class:`AnswerFormat` here: a content test and a
reader. :func:`chunkscope.io.answers.load_answers` detects the format from the content (or takes
the one forced) and returns an :class:`AnswerFile` of :class:`AnswerRecord` values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.chroma import csv_rows
from chunkscope.io.text import jsonl_records, parse_json, reject_bom


class Place(str):
    """Where a row is, as text (``FILE:LINE``, or ``FILE field results[3]`` in a JSON file), with its parts."""

    path: str
    line: int | None
    prefix: str

    def __new__(cls, path: str, line: int | None = None, prefix: str = "") -> Place:
        text = f"{path}:{line}" if line is not None else f"{path} field {prefix.rstrip('.')}" if prefix else path
        place = super().__new__(cls, text)
        place.path, place.line, place.prefix = path, line, prefix
        return place


def fail(place: Place, message: str, field: str | None = None) -> InputError:
    """The InputError of ``place``: its file, line and the field within the row."""
    name = f"{place.prefix}{field}" if field else place.prefix.rstrip(".") or None
    return InputError(place.path, message, line=place.line, field=name)


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """One generated answer from an answers file."""

    where: Place
    """Where it is, for messages: ``FILE:LINE`` or ``FILE field results[i]``."""
    question_id: str | None
    """The question id, when the file gives one."""
    question: str | None
    """The question text, when the file gives it (matched exactly when the id is absent or unknown)."""
    answer: str
    """The generated answer text."""
    correct: bool | None = None
    """The file's judgment, when it gives a yes/no one."""
    score: float | None = None
    """The file's score, when it gives one (judged with the answer threshold)."""
    references: tuple[str, ...] = ()
    """Reference answers the file carries (ragas ``reference``, DeepEval ``expectedOutput``)."""


@dataclass(frozen=True, slots=True)
class AnswerFile:
    """Every record of one answers file, with its format and provenance."""

    path: str
    """The file read."""
    format: str
    """The format it was read as."""
    records: tuple[AnswerRecord, ...]
    """Its answers, in file order."""
    detected: bool
    """True when the format was detected from the content, False when it was forced."""
    score_name: str | None = None
    """The column or metric the scores come from (e.g. ``answer_correctness``), when scores were read."""


Detect = Callable[[str, Any], bool]
"""``(suffix, parsed content) -> True`` when the content has this format's shape."""
Read = Callable[[str, str, Any, str | None], tuple[list[AnswerRecord], str | None]]
"""``(path, text, parsed content, metric) -> (records, score column used)``."""


@dataclass(frozen=True, slots=True)
class AnswerFormat:
    """One answers format: its name, content test and reader, and what to say when detected."""

    name: str
    detect: Detect
    read: Read
    order: int
    """Detection order: lower is tried first (specific shapes before the plain one)."""


FORMATS: dict[str, AnswerFormat] = {}
"""Registered formats by name."""


def register(answer_format: AnswerFormat) -> AnswerFormat:
    """Add a format (ValueError when its name is taken)."""
    if answer_format.name in FORMATS:
        raise ValueError(f"answers format {answer_format.name!r} is already registered")
    FORMATS[answer_format.name] = answer_format
    return answer_format


def parsed_content(path: Path, text: str) -> Any:
    """The content by suffix: a list of rows (CSV, JSONL) with their lines, or the parsed JSON value."""
    suffix = path.suffix.lower()
    reject_bom(path, text)
    if suffix == ".csv":
        return [(line, dict(row)) for line, _, row in csv_rows(path, text, ())]
    if suffix == ".jsonl":
        return list(jsonl_records(path, text))
    if suffix == ".json":
        return parse_json(path, text)
    raise InputError(str(path), "an answers file must be .json, .jsonl or .csv")


def row_list(path: str, content: Any, key: str | None = None) -> Iterator[tuple[Place, dict[str, Any]]]:
    """``(where, row)`` for a list of rows: CSV/JSONL lines, a JSON array, or the JSON object's ``key`` list."""
    if isinstance(content, list) and all(isinstance(item, tuple) for item in content):
        for line, row in content:
            yield Place(path, line), row
        return
    rows = content.get(key) if isinstance(content, dict) and key else content
    if not isinstance(rows, list):
        raise InputError(path, "expected a list of rows", field=key)
    for index, row in enumerate(rows):
        name = f"{key}[{index}]" if key else f"[{index}]"
        if not isinstance(row, dict):
            raise InputError(path, "each row must be an object", field=name)
        yield Place(path, None, f"{name}."), row


def first_rows(content: Any) -> list[dict[str, Any]]:
    """The first rows of a row list (for detection), empty when the content is not one."""
    if isinstance(content, list):
        rows = [item[1] if isinstance(item, tuple) else item for item in content[:5]]
        return [row for row in rows if isinstance(row, dict)]
    return []


def text_value(value: Any, where: Place, name: str, *, required: bool = True) -> str | None:
    """A string cell (a number is taken as its text); InputError naming ``where`` and ``name`` otherwise."""
    if value is None or value == "":
        if required:
            raise fail(where, "missing", name)
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise fail(where, f"must be text, got {type(value).__name__}", name)
    return str(value)


_TRUE = {"true", "1", "yes", "y", "correct", "pass", "passed"}
_FALSE = {"false", "0", "no", "n", "wrong", "incorrect", "fail", "failed"}


def bool_value(value: Any, where: Place, name: str) -> bool | None:
    """A yes/no cell: a JSON boolean or 0/1, or in CSV one of true/false, yes/no, 1/0, pass/fail (any case)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise fail(where, f"must be true or false, got {value!r}", name)


def score_value(value: Any, where: Place, name: str) -> float | None:
    """A finite number (or numeric CSV text); None when empty; InputError otherwise."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise fail(where, f"must be a number, got {value!r}", name) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise fail(where, f"must be a finite number, got {value!r}", name)
    return float(value)
