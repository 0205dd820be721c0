"""Load an answers file: detect its format from the content (or take the one forced) and read it."""

from __future__ import annotations

from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io import answers_deepeval, answers_plain, answers_promptfoo, answers_ragas
from chunkscope.io.answers_base import FORMATS, AnswerFile, AnswerFormat, parsed_content
from chunkscope.io.sources import SourceFile
from chunkscope.io.text import is_file, read_text

__all__ = ["FORMATS", "AnswerFile", "load_answers"]
_REGISTERED = (answers_plain, answers_ragas, answers_deepeval, answers_promptfoo)
"""Imported for their registration."""


def load_answers(
    path: str | Path, answer_format: str | None = None, metric: str | None = None
) -> tuple[AnswerFile, SourceFile]:
    """The answers of ``path`` in ``answer_format`` (detected from the content when None).

    ``metric`` names the score column or metric to judge by (formats that have several).
    Raises InputError (one line naming the file, row and field) on anything unreadable.
    """
    path = Path(path)
    if answer_format is not None and answer_format not in FORMATS:
        raise InputError(
            str(path), f"unknown answers format {answer_format!r}; choose from {', '.join(sorted(FORMATS))}"
        )
    if not is_file(path):
        raise InputError(str(path), "no such file")
    text, digest = read_text(path)
    content = parsed_content(path, text)
    chosen = FORMATS[answer_format] if answer_format is not None else _detect(path, content)
    records, score_name = chosen.read(str(path), text, content, metric)
    if not records:
        raise InputError(str(path), "the answers file has no answers")
    answers = AnswerFile(str(path), chosen.name, tuple(records), answer_format is None, score_name)
    return answers, SourceFile(str(path), digest)


def _detect(path: Path, content: object) -> AnswerFormat:
    suffix = path.suffix.lower()
    for candidate in sorted(FORMATS.values(), key=lambda f: f.order):
        if candidate.detect(suffix, content):
            return candidate
    raise InputError(
        str(path),
        "cannot tell the answers format: expected plain rows (id or question, answer), a ragas export "
        "(user_input, response), a DeepEval test run (testCases) or a promptfoo results file (results.results); "
        "force one with --answers-format",
    )
