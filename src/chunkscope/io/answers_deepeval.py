"""A DeepEval test run JSON (``deepeval test run`` / ``evaluate`` results saved as a test run).

The object's ``testCases`` list holds one entry per test case: ``name``, ``input`` (the question),
``actualOutput`` (the answer), ``expectedOutput`` (the reference), ``success`` (every metric
passed) and ``metricsData`` (``name``, ``score``, ``threshold``, ``success`` per metric). The
judgment is the test case's ``success``; ``--answer-metric NAME`` takes that metric's ``score``
instead. The question id is ``additionalMetadata.id`` when present, else the test case ``name``.
"""

from __future__ import annotations

from typing import Any

from chunkscope.io.answers_base import (
    AnswerFormat,
    AnswerRecord,
    Place,
    bool_value,
    fail,
    register,
    row_list,
    score_value,
    text_value,
)


def _detect(suffix: str, content: Any) -> bool:
    return isinstance(content, dict) and "testCases" in content


def _read(path: str, text: str, content: Any, metric: str | None) -> tuple[list[AnswerRecord], str | None]:
    records = []
    for where, case in row_list(path, content, "testCases"):
        metadata = case.get("additionalMetadata")
        question_id = metadata.get("id") if isinstance(metadata, dict) else None
        question_id = text_value(
            question_id if question_id is not None else case.get("name"), where, "name", required=False
        )
        question = text_value(case.get("input"), where, "input")
        answer = text_value(case.get("actualOutput"), where, "actualOutput", required=False) or ""
        reference = text_value(case.get("expectedOutput"), where, "expectedOutput", required=False)
        correct, score = None, None
        if metric is None:
            correct = bool_value(case.get("success"), where, "success")
            if correct is None:
                raise fail(where, "missing (or give --answer-metric NAME)", "success")
        else:
            score = _metric_score(case.get("metricsData"), metric, where)
        records.append(
            AnswerRecord(where, question_id, question, answer, correct, score, (reference,) if reference else ())
        )
    return records, metric


def _metric_score(data: Any, metric: str, where: Place) -> float:
    if not isinstance(data, list):
        raise fail(where, "must be a list", "metricsData")
    names = []
    for i, entry in enumerate(data):
        if isinstance(entry, dict):
            names.append(str(entry.get("name")))
            if entry.get("name") == metric:
                score = score_value(entry.get("score"), where, f"metricsData[{i}].score")
                if score is None:
                    raise fail(where, "missing", f"metricsData[{i}].score")
                return score
    raise fail(where, f"no metric {metric!r} (metrics: {', '.join(names) or 'none'})", "metricsData")


FORMAT = register(AnswerFormat("deepeval", _detect, _read, order=20))
