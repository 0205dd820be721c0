"""The answer lines beside the evidence: the generated answer, its judgment, the references and, under the
answers' own configuration only, the attribution. Every value is read from the core's values (the judged
answers, :class:`chunkscope.analysis.answers.AnswerRow`); nothing is recomputed here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text

from chunkscope.analysis.answers import AnswerRow, Judgment
from chunkscope.model import Question
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.state.answers import ANSWER_MARKS, ATTRIBUTION_MEANINGS, InspectorAnswers


def judgment_words(judgment: Judgment) -> str:
    """``correct``, ``wrong``, with the score it was judged by: ``wrong (score 0.2)``."""
    verdict = "correct" if judgment.correct else "wrong"
    return verdict if judgment.score is None else f"{verdict} (score {judgment.score:g})"


def references_line(question: Question) -> str:
    """The question set's reference answers, quoted, or that it has none."""
    if not question.references:
        return "no reference answers in the question set"
    return "references " + " · ".join(f"“{' '.join(r.split())}”" for r in question.references)


def answer_text(question: Question, shown: Config, answers: InspectorAnswers, row: AnswerRow | None) -> Text:
    """The answer panel of ``question`` while ``shown`` is on screen.

    ``row``: the question's answer attributed under ``shown`` (given only when ``shown`` is the answers' own
    configuration). Under any other configuration the panel says whose answers they are and attributes nothing.
    """
    text = Text(no_wrap=False)
    judgment = answers.answers.judgments.get(question.id)
    source = Path(answers.answers.source).name
    own = answers.belongs_to(shown)
    if not own:
        text.append(f"answers of {answers.config.label}", style="bold")
        text.append(f" ({answers.rule}): not attributed to the shown configuration\n", style="dim")
    if judgment is None:
        text.append(f"no answer to {question.id} in {source}", style="dim")
        if own:
            text.append(f" · answers of this configuration ({answers.rule})", style="dim")
        text.append(f"\n{references_line(question)}", style="dim")
        return text
    if own and row is not None:
        text.append(f"{ANSWER_MARKS[row.attribution]} {row.attribution}", style="bold")
        text.append(f" · {ATTRIBUTION_MEANINGS[row.attribution]}\n")  # the cause: on the question's line above
    text.append("answer ", style="dim")
    text.append(f"“{' '.join(judgment.answer.split())}”")
    text.append(f" {judgment_words(judgment)}", style="bold")
    # the file's name and row (the path is in the status output of inspect, and in the case file)
    text.append(f"\n{references_line(question)} · from {Path(judgment.where).name}", style="dim")
    return text


def split_answer_line(question: Question, sides: Sequence[tuple[str, ConfigResult]], answers: InspectorAnswers) -> Text:
    """The split view's answer line: the answer under the side that produced it (``A``, ``B``), with its judgment
    and attribution; when neither side did, whose answers they are, attributed to neither."""
    judgment = answers.answers.judgments.get(question.id)
    owner = next(((name, result) for name, result in sides if answers.belongs_to(result.config)), None)
    text = Text(no_wrap=False)
    if owner is None:
        text.append(f"answers of {answers.config.label}, neither A nor B: not attributed here", style="dim")
        if judgment is not None:
            text.append(f" · answer “{' '.join(judgment.answer.split())}” {judgment_words(judgment)}", style="dim")
        return text
    name, result = owner
    if judgment is None:
        text.append(f"{name}'s answers: none to {question.id} in {Path(answers.answers.source).name}", style="dim")
        return text
    text.append(f"{name} answer ", style="bold")
    text.append(f"“{' '.join(judgment.answer.split())}”")
    text.append(f" {judgment_words(judgment)}", style="bold")
    row = answers.row(result, question.id)
    if row is not None:
        text.append(f" · {ANSWER_MARKS[row.attribution]} {row.attribution}", style="bold")
    return text
