"""A ragas evaluation result export: ``EvaluationResult.to_pandas()`` written as CSV, JSON records or JSONL.

Columns: ``user_input`` (the question), ``response`` (the generated answer), ``reference`` (the
reference answer), ``retrieved_contexts``, and one column per metric. The judgment is a metric's
score: ``--answer-metric NAME`` names the column, else the first of ``answer_correctness``,
``factual_correctness`` (any ``factual_correctness(...)`` variant), ``answer_accuracy``.
"""

from __future__ import annotations

from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.answers_base import (
    AnswerFormat,
    AnswerRecord,
    Place,
    fail,
    first_rows,
    register,
    row_list,
    score_value,
    text_value,
)

SCORE_COLUMNS = ("answer_correctness", "factual_correctness", "answer_accuracy")
"""Metric columns taken as the judgment by default, in this order (a prefix match for the second)."""


def _detect(suffix: str, content: Any) -> bool:
    rows = first_rows(content)
    return bool(rows) and "user_input" in rows[0] and "response" in rows[0]


def score_column(columns: list[str], wanted: str | None, where: Place) -> str:
    """The metric column to judge by: ``wanted`` when given, else the first default present."""
    if wanted is not None:
        if wanted not in columns:
            raise fail(where, f"no metric column {wanted!r} (columns: {', '.join(columns)})", wanted)
        return wanted
    for name in SCORE_COLUMNS:
        found = next((c for c in columns if c == name or c.startswith(f"{name}(")), None)
        if found is not None:
            return found
    raise InputError(
        where,
        f"no judgment column: expected one of {', '.join(SCORE_COLUMNS)} or --answer-metric NAME "
        f"(columns: {', '.join(columns)})",
    )


def _read(path: str, text: str, content: Any, metric: str | None) -> tuple[list[AnswerRecord], str | None]:
    rows = list(row_list(path, content))
    column = score_column(list(rows[0][1]) if rows else [], metric, Place(path))
    records = []
    for where, row in rows:
        question = text_value(row.get("user_input"), where, "user_input")
        answer = text_value(row.get("response"), where, "response", required=False) or ""
        reference = text_value(row.get("reference"), where, "reference", required=False)
        question_id = text_value(row.get("id"), where, "id", required=False)
        score = score_value(row.get(column), where, column)
        if score is None:
            raise fail(where, "missing score (ragas leaves it empty when the metric failed)", column)
        records.append(
            AnswerRecord(where, question_id, question, answer, None, score, (reference,) if reference else ())
        )
    return records, column


FORMAT = register(AnswerFormat("ragas", _detect, _read, order=10))
