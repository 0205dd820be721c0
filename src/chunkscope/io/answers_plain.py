"""Plain answers: JSONL, CSV or a JSON list with ``id``/``question``, ``answer``, and ``correct`` or ``score``."""

from __future__ import annotations

from typing import Any

from chunkscope.io.answers_base import (
    AnswerFormat,
    AnswerRecord,
    Place,
    bool_value,
    fail,
    first_rows,
    register,
    row_list,
    score_value,
    text_value,
)

QUESTION_FIELDS = ("question", "query")
"""Columns holding the question text, the first present one taken."""


def _detect(suffix: str, content: Any) -> bool:
    rows = first_rows(content)
    return bool(rows) and "answer" in rows[0] and ("id" in rows[0] or any(f in rows[0] for f in QUESTION_FIELDS))


def _read(path: str, text: str, content: Any, metric: str | None) -> tuple[list[AnswerRecord], str | None]:
    records = []
    score_column = metric or "score"
    for where, row in row_list(path, content):
        question_field = next((f for f in QUESTION_FIELDS if row.get(f) not in (None, "")), None)
        question_id = text_value(row.get("id"), where, "id", required=question_field is None)
        question = text_value(row.get(question_field), where, question_field) if question_field else None
        answer = text_value(row.get("answer"), where, "answer", required=False) or ""
        if "answer" not in row:
            raise fail(where, "missing", "answer")
        references = _references(row.get("reference"), where)
        records.append(
            AnswerRecord(
                where,
                question_id,
                question,
                answer,
                bool_value(row.get("correct"), where, "correct"),
                score_value(row.get(score_column), where, score_column),
                references,
            )
        )
    return records, score_column if any(r.score is not None for r in records) else None


def _references(value: Any, where: Place) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    text = text_value(value, where, "reference", required=False)
    return (text,) if text else ()


FORMAT = register(AnswerFormat("plain", _detect, _read, order=90))
