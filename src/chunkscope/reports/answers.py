"""Answers in the reports: answer_in_context beside complete, and the attribution of the answered configuration.

Reports carry these only when answers or the proxy were asked for (``--answers``, ``--reader``,
``--answer-in-context``); without them every report keeps its bytes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkscope.analysis.answer_compare import ANSWER_TRANSITIONS, EVIDENCE_TRANSITIONS, AnswerTransitions
from chunkscope.analysis.answers import ATTRIBUTIONS, AnswerRow, AnswerSet, Attribution, Interval
from chunkscope.metrics.answers import ANSWER_METRICS
from chunkscope.model import Question
from chunkscope.results import Config, ConfigResult

CSV_COLUMNS = ("answer_in_context", "answer_correct", "answer_score", "answer_attribution")
"""Columns added at the end of every eval CSV row when answers are reported."""


@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    """Everything answers add to one command's reports."""

    in_context: Mapping[Config, tuple[bool | None, ...]] = field(default_factory=dict)
    """answer_in_context of each question result, per configuration (absent: not computed)."""
    attributions: Mapping[Config, Attribution] = field(default_factory=dict)
    """The configurations with answers, attributed."""
    rule: Mapping[Config, str] = field(default_factory=dict)
    """Why the answers belong to each configuration (stated in every report)."""
    transitions: AnswerTransitions | None = None
    """Answers under A and B (compare with answers for both)."""
    notes: tuple[str, ...] = ()
    """What was asked for but could not be computed, and why (printed, and in the JSON report)."""

    @property
    def empty(self) -> bool:
        """Nothing to report: the reports stay as they were."""
        return not self.in_context and not self.attributions


def interval_dict(interval: Interval) -> dict[str, Any]:
    """A statistic and its 95% bootstrap interval (``null`` where undefined)."""
    return {
        "value": interval.value,
        "low": interval.low,
        "high": interval.high,
        "undefined_resamples": interval.undefined_resamples,
    }


def answer_set_dict(answers: AnswerSet) -> dict[str, Any]:
    """Where the answers came from and how they were judged."""
    return {
        "source": answers.source,
        "format": answers.format,
        "judged_by": answers.judged_by,
        "matched": len(answers.judgments),
        "unmatched_rows": list(answers.unmatched),
        "duplicate_rows": list(answers.duplicates),
    }


def attribution_dict(attribution: Attribution, rule: str) -> dict[str, Any]:
    """One configuration's attribution as plain JSON values."""
    return {
        "configuration": attribution.result.config.label,
        "why_this_configuration": rule,
        **answer_set_dict(attribution.answers),
        "answered": len(attribution.rows),
        "unanswered": len(attribution.unanswered),
        "correct": attribution.correct,
        "correct_rate": ANSWER_METRICS["answer_correct_rate"].summarize([row.correct for row in attribution.rows]),
        "attribution": dict(attribution.counts),
        "by_cause": {cause: dict(row) for cause, row in attribution.by_cause.items()},
        "agreement": interval_dict(attribution.agreement),
        "phi": interval_dict(attribution.phi),
    }


def in_context_summary(flags: Sequence[bool | None]) -> dict[str, Any]:
    """``answer_in_context`` (count and rate) over the questions with references, and how many have them."""
    names = ("answer_in_context", "answer_in_context_rate", "questions_with_references")
    return {name: ANSWER_METRICS[name].summarize(flags) for name in names}


def add_to_eval_report(report: dict[str, Any], results: Sequence[ConfigResult], outcome: AnswerOutcome) -> None:
    """Add each configuration's ``answers`` block and the per-question answer fields to an eval report."""
    if outcome.empty:
        return
    for entry, result in zip(report["configs"], results, strict=True):
        block: dict[str, Any] = {}
        flags = outcome.in_context.get(result.config)
        if flags is not None:
            block |= in_context_summary(flags)
        attribution = outcome.attributions.get(result.config)
        rows = attribution.by_question if attribution is not None else None
        if attribution is not None:
            block["answers"] = attribution_dict(attribution, outcome.rule[result.config])
        if block:
            entry["answers"] = block
        for i, question in enumerate(entry.get("questions", [])):
            flag = flags[i] if flags is not None else None
            question |= question_answer_fields(result.questions[i].question_id, flags is not None, flag, rows)
    report["answers_configurations"] = [
        {"configuration": config.label, "why": outcome.rule[config]} for config in outcome.attributions
    ]


def question_answer_fields(
    question_id: str, with_flag: bool, flag: bool | None, rows: Mapping[str, AnswerRow] | None
) -> dict[str, Any]:
    """One question's answer fields: its answer_in_context (``with_flag``) and its answer (``rows`` given)."""
    fields: dict[str, Any] = {}
    if with_flag:
        fields["answer_in_context"] = flag
    if rows is not None:
        row = rows.get(question_id)
        if row is None:
            fields |= {"answer": None, "answer_correct": None, "answer_score": None, "answer_attribution": None}
        else:
            fields |= {
                "answer": row.judgment.answer,
                "answer_correct": row.correct,
                "answer_score": row.judgment.score,
                "answer_attribution": row.attribution,
            }
    return fields


def add_to_csv(text: str, results: Sequence[ConfigResult], outcome: AnswerOutcome) -> str:
    """The eval CSV with the answer columns appended to every row (in the order the CSV writes them)."""
    if outcome.empty:
        return text
    rows = list(csv.reader(io.StringIO(text)))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*rows[0], *CSV_COLUMNS])
    position = 1
    for result in results:
        cells = _answer_cells(result, outcome)
        for question in result.questions:
            writer.writerow([*rows[position], *cells[question.question_id]])
            position += 1
    return buffer.getvalue()


def interval_text(interval: Interval) -> str:
    """``0.812 [0.790, 0.833]``, the value alone without an interval, ``undefined`` without a value."""
    if interval.value is None:
        return "undefined"
    if interval.low is None or interval.high is None:
        return f"{interval.value:.3f}"
    return f"{interval.value:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def answers_markdown(results: Sequence[ConfigResult], outcome: AnswerOutcome) -> str:
    """The ``## Answers`` section: answer_in_context per configuration, then each attribution."""
    if outcome.empty:
        return ""
    lines = ["", "## Answers", ""]
    if outcome.in_context:
        lines += [
            "| configuration | complete | answer in context | questions with references |",
            "|---|---:|---:|---:|",
        ]
        for result in results:
            flags = outcome.in_context.get(result.config)
            if flags is not None:
                summary = in_context_summary(flags)
                lines.append(
                    f"| {result.config.label} | {result.summary.count('complete')} | {summary['answer_in_context']} "
                    f"| {summary['questions_with_references']} |"
                )
        lines.append("")
    for config, attribution in outcome.attributions.items():
        lines += attribution_markdown(attribution, outcome.rule[config])
    if outcome.transitions is not None:
        lines += transitions_markdown(outcome.transitions)
    return "\n".join(lines) + "\n"


def attribution_markdown(attribution: Attribution, rule: str) -> list[str]:
    """One configuration's attribution as Markdown lines."""
    answers = attribution.answers
    lines = [
        f"### Answers of {attribution.result.config.label}",
        "",
        f"Answers from {answers.source} ({answers.format}), judged by {answers.judged_by}; they belong to "
        f"this configuration: {rule}. Answered {len(attribution.rows)}, correct {attribution.correct}, "
        f"unanswered {len(attribution.unanswered)} (left out), unmatched rows {len(answers.unmatched)}.",
        "",
        "| cause | " + " | ".join(ATTRIBUTIONS) + " |",
        "|---|" + "---:|" * len(ATTRIBUTIONS),
    ]
    for cause, row in attribution.by_cause.items():
        lines.append(f"| {cause} | " + " | ".join(str(row[a]) for a in ATTRIBUTIONS) + " |")
    lines.append("| **all** | " + " | ".join(str(attribution.counts[a]) for a in ATTRIBUTIONS) + " |")
    lines += [
        "",
        f"Evidence complete vs answer correct: agreement {interval_text(attribution.agreement)}, "
        f"phi {interval_text(attribution.phi)} (95% bootstrap intervals).",
        "",
    ]
    return lines


def transitions_markdown(transitions: AnswerTransitions) -> list[str]:
    """Evidence transitions crossed with answer transitions, and the paired answer test."""
    lines = [
        f"### Answers: {transitions.b.result.config.label} vs {transitions.a.result.config.label}",
        "",
        transitions.sentence() + ".",
        "",
        "| evidence | " + " | ".join(ANSWER_TRANSITIONS) + " |",
        "|---|" + "---:|" * len(ANSWER_TRANSITIONS),
    ]
    for evidence in EVIDENCE_TRANSITIONS:
        row = transitions.crossed[evidence]
        lines.append(f"| {evidence} | " + " | ".join(str(row[a]) for a in ANSWER_TRANSITIONS) + " |")
    if transitions.equivalence is not None:
        test = transitions.equivalence
        lines += ["", f"Answer rate TOST within ±{test.margin:g}: p {test.p_value:.4g}, {test.verdict_text}."]
    return [*lines, ""]


def transitions_dict(transitions: AnswerTransitions) -> dict[str, Any]:
    """Answers under A and B as plain JSON values."""
    test = transitions.answer_test
    entry: dict[str, Any] = {
        "questions": len(transitions.questions),
        "transitions": {e: dict(row) for e, row in transitions.crossed.items()},
        "answer_rate_a": test.mean_a,
        "answer_rate_b": test.mean_b,
        "delta": test.mean_difference,
        "p_value": test.p_value,
        "exact": test.exact,
        "evidence_p_value": transitions.evidence_test.p_value,
        "summary": transitions.sentence(),
    }
    if transitions.equivalence is not None:
        eq = transitions.equivalence
        entry["equivalence"] = {
            "margin": eq.margin,
            "p_lower": eq.p_lower,
            "p_upper": eq.p_upper,
            "p_value": eq.p_value,
            "verdict": eq.verdict,
        }
    return entry


def question_answer_view(question: Question, result: ConfigResult, outcome: AnswerOutcome) -> dict[str, Any]:
    """One question's references, answer_in_context, and its answer and judgment under ``result``'s configuration."""
    index = next(i for i, q in enumerate(result.questions) if q.question_id == question.id)
    flags = outcome.in_context.get(result.config)
    attribution = outcome.attributions.get(result.config)
    view: dict[str, Any] = {"question": question.id, "references": list(question.references)}
    view |= question_answer_fields(
        question.id,
        flags is not None,
        flags[index] if flags is not None else None,
        attribution.by_question if attribution is not None else None,
    )
    if attribution is not None:
        row = attribution.by_question.get(question.id)
        view["answers_from"] = attribution.answers.source
        view["why_this_configuration"] = outcome.rule[result.config]
        view["failure_cause"] = row.cause if row is not None else None
    return view


def question_answer_markdown(view: Mapping[str, Any]) -> list[str]:
    """The answer lines of one question (explain, case files)."""
    lines = [f"### Answer to {view['question']}", ""]
    references = view["references"]
    lines.append(f"- References: {', '.join(f'“{r}”' for r in references) if references else 'none'}")
    if "answer_in_context" in view:
        flag = view["answer_in_context"]
        lines.append(f"- Answer in context: {'–' if flag is None else 'yes' if flag else 'no'}")
    if "answer" in view:
        if view["answer"] is None:
            lines.append(f"- Answer: none in {view['answers_from']}")
        else:
            score = "" if view["answer_score"] is None else f" (score {view['answer_score']:g})"
            verdict = "correct" if view["answer_correct"] else "wrong"
            lines += [
                f"- Answer: “{view['answer']}”: {verdict}{score}",
                f"- Attribution: {view['answer_attribution']} (cause {view['failure_cause']})",
                f"- From {view['answers_from']}; {view['why_this_configuration']}",
            ]
    return [*lines, ""]


COMPARE_CSV_COLUMNS = tuple(f"{column}_{side}" for side in "ab" for column in CSV_COLUMNS)
"""Columns added at the end of every compare CSV row when answers are reported: A's, then B's."""


def add_to_compare_csv(text: str, results: Sequence[ConfigResult], outcome: AnswerOutcome) -> str:
    """The compare CSV with A's and B's answer columns appended to every row (rows keyed by their question id)."""
    if outcome.empty:
        return text
    sides = [_answer_cells(result, outcome) for result in results]
    rows = list(csv.reader(io.StringIO(text)))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*rows[0], *COMPARE_CSV_COLUMNS])
    for row in rows[1:]:
        writer.writerow([*row, *(cell for side in sides for cell in side[row[0]])])
    return buffer.getvalue()


def _answer_cells(result: ConfigResult, outcome: AnswerOutcome) -> dict[str, list[Any]]:
    """Each question's CSV answer cells under ``result``'s configuration (empty cells where nothing applies)."""
    flags = outcome.in_context.get(result.config)
    attribution = outcome.attributions.get(result.config)
    by_id = attribution.by_question if attribution is not None else {}
    cells: dict[str, list[Any]] = {}
    for index, question in enumerate(result.questions):
        row = by_id.get(question.question_id)
        flag = flags[index] if flags is not None else None
        cells[question.question_id] = [
            "" if flag is None else int(flag),
            "" if row is None else int(row.correct),
            "" if row is None or row.judgment.score is None else row.judgment.score,
            "" if row is None else row.attribution,
        ]
    return cells
