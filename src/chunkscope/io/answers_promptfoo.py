"""A promptfoo results JSON (``promptfoo eval --output results.json``, results version 3 and later).

``results.results`` holds one entry per test and prompt: ``vars`` (the test variables),
``response.output`` (the answer), ``success`` and ``score`` (the assertions' verdict and score) and
``namedScores``. The question is the first of the variables ``question``, ``query``, ``input``,
``user_input``; the id the variable ``id``. The judgment is ``success``; ``--answer-metric NAME``
takes ``namedScores[NAME]`` instead.
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

QUESTION_VARS = ("question", "query", "input", "user_input")


def _detect(suffix: str, content: Any) -> bool:
    results = content.get("results") if isinstance(content, dict) else None
    return isinstance(results, dict) and "results" in results


def _read(path: str, text: str, content: Any, metric: str | None) -> tuple[list[AnswerRecord], str | None]:
    records = []
    for where, entry in row_list(path, content["results"], "results"):
        where = Place(where.path, where.line, f"results.{where.prefix}")
        variables = entry.get("vars")
        if not isinstance(variables, dict):
            raise fail(where, "must be an object", "vars")
        name = next((v for v in QUESTION_VARS if v in variables), None)
        question_id = text_value(variables.get("id"), where, "vars.id", required=name is None)
        question = text_value(variables.get(name), where, f"vars.{name}") if name else None
        response = entry.get("response")
        output = response.get("output") if isinstance(response, dict) else None
        if output is not None and not isinstance(output, str):
            raise fail(where, f"must be text, got {type(output).__name__}", "response.output")
        correct, score = None, None
        if metric is None:
            correct = bool_value(entry.get("success"), where, "success")
            if correct is None:
                raise fail(where, "missing (or give --answer-metric NAME)", "success")
        else:
            named = entry.get("namedScores")
            if not isinstance(named, dict) or metric not in named:
                known = ", ".join(named) if isinstance(named, dict) else "none"
                raise fail(where, f"no named score {metric!r} (named scores: {known})", "namedScores")
            score = score_value(named[metric], where, f"namedScores.{metric}")
        records.append(AnswerRecord(where, question_id, question, output or "", correct, score))
    return records, metric


FORMAT = register(AnswerFormat("promptfoo", _detect, _read, order=30))
