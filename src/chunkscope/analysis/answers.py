"""From evidence to answers: judged answers matched to questions, the has-answer proxy, and attribution.

Per configuration with answers, each answered question is one of:

- ``ok``: evidence complete, answer correct;
- ``generation``: complete, answer wrong (the generator's fault);
- ``retrieval``: not complete, answer wrong;
- ``unsupported``: not complete, answer correct (incomplete gold, evidence in pieces, or the model's
  own knowledge).

How well evidence predicts answers: with ``a`` = ok, ``b`` = generation, ``c`` = unsupported and
``d`` = retrieval (``n = a + b + c + d``), agreement ``(a + d) / n`` and phi
``(a·d − b·c) / sqrt((a + b)(c + d)(a + c)(b + d))`` (undefined when a margin is 0). Their 95%
intervals are percentile bootstraps: ``resamples`` tables drawn as ``multinomial(n, (a, b, c, d) / n)``
from ``numpy.random.default_rng(seed)`` (resampling the questions with replacement), each
statistic's quantiles ``Q(0.025)``, ``Q(0.975)`` with numpy's ``linear`` method; resampled tables
whose phi is undefined are left out of phi's interval (and counted).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from chunkscope.analysis.diagnose import FailureCause, failure_causes
from chunkscope.errors import InputError
from chunkscope.io.answers_base import AnswerFile, Place, fail
from chunkscope.metrics.answers import ContextForms, has_answer
from chunkscope.model import Question, QuestionSet
from chunkscope.results import ConfigResult, QuestionResult

ATTRIBUTIONS = ("ok", "generation", "retrieval", "unsupported")
"""The attribution classes, in report order."""
DEFAULT_THRESHOLD = 0.5
"""A score in [0, 1] is judged correct at ``score >= 0.5`` when no threshold is given."""
RESAMPLES = 10_000
"""Bootstrap resamples of the agreement and phi intervals."""

Judge = Callable[[Question, str], tuple[bool, float | None]]
"""``(question, answer) -> (correct, score or None)``."""


@dataclass(frozen=True, slots=True)
class Judgment:
    """One question's generated answer and whether it is correct."""

    question_id: str
    answer: str
    correct: bool
    score: float | None
    """The score it was judged by, when there was one."""
    where: str
    """Where the answer came from (file and row, or the reader)."""


@dataclass(frozen=True, slots=True)
class AnswerSet:
    """Judged answers for one configuration's questions."""

    source: str
    """The answers file, or ``reader NAME``."""
    format: str
    """The answers format (``reader`` for answers a reader plugin generated)."""
    judgments: Mapping[str, Judgment]
    """By question id."""
    unmatched: tuple[str, ...] = ()
    """Where each row that matched no question is."""
    judged_by: str = ""
    """How correctness was decided: ``file``, ``score >= T (column)``, or the judge's name."""
    duplicates: tuple[str, ...] = field(default=())
    """Rows for a question already answered by an earlier row (the first one is kept)."""


def match_answers(
    answers: AnswerFile, questions: QuestionSet, threshold: float | None, judge: tuple[str, Judge] | None = None
) -> AnswerSet:
    """Judge every record of ``answers`` and match it to a question: by id, else by exact question text
    (a text several questions share matches none of them: the row is listed as unmatched, with the reason).

    A record's own ``correct`` is taken as it is; a ``score`` is correct at ``score >= threshold``
    (``DEFAULT_THRESHOLD`` without one, when the score lies in [0, 1]); a record with neither is judged
    by ``judge``. Raises InputError naming the row for a score outside [0, 1] without a threshold, a
    record nothing can judge, and a file none of whose rows matches a question.
    """
    by_id = {q.id: q for q in questions.questions}
    by_text: dict[str, Question | None] = {}
    for known in questions.questions:
        by_text[known.query] = None if known.query in by_text else known  # None: several questions share it
    judgments: dict[str, Judgment] = {}
    unmatched: list[str] = []
    duplicates: list[str] = []
    for record in answers.records:
        question = by_id.get(record.question_id or "") or by_text.get(record.question or "")
        if question is None:
            shared = record.question_id not in by_id and record.question in by_text
            unmatched.append(
                f"{record.where} (its question text is shared by several questions)" if shared else record.where
            )
            continue
        if question.id in judgments:
            duplicates.append(record.where)
            continue
        correct, score = _judged(record.correct, record.score, threshold, record.where, question, record.answer, judge)
        judgments[question.id] = Judgment(question.id, record.answer, correct, score, record.where)
    if not judgments:
        raise InputError(
            answers.path,
            f"no row matches a question of the set by id or exact question text ({len(unmatched)} rows; "
            f"first: {unmatched[0] if unmatched else 'none'})",
        )
    return AnswerSet(
        answers.path,
        answers.format,
        MappingProxyType(judgments),
        tuple(unmatched),
        _judged_by(answers, threshold, judge),
        tuple(duplicates),
    )


def _judged(
    correct: bool | None,
    score: float | None,
    threshold: float | None,
    where: Place,
    question: Question,
    answer: str,
    judge: tuple[str, Judge] | None,
) -> tuple[bool, float | None]:
    if correct is not None:
        return correct, score
    if score is not None:
        if threshold is None and not 0.0 <= score <= 1.0:
            raise fail(where, f"score {score:g} lies outside [0, 1]: give --answer-threshold to judge it")
        return score >= (DEFAULT_THRESHOLD if threshold is None else threshold), score
    if judge is None:
        raise fail(where, "no judgment ('correct' or a score): give one, or --judge to judge the answer")
    return judge[1](question, answer)


def _judged_by(answers: AnswerFile, threshold: float | None, judge: tuple[str, Judge] | None) -> str:
    scored = any(r.correct is None and r.score is not None for r in answers.records)
    parts = []
    if any(r.correct is not None for r in answers.records):
        parts.append("the file's judgment")
    if scored:
        value = DEFAULT_THRESHOLD if threshold is None else threshold
        parts.append(f"{answers.score_name or 'score'} >= {value:g}")
    if judge is not None and any(r.correct is None and r.score is None for r in answers.records):
        parts.append(f"judge {judge[0]}")
    return ", ".join(parts)


def delivered_texts(result: QuestionResult) -> list[str]:
    """The body text of every delivered chunk, in rank order (a truncated chunk's delivered part)."""
    return [d.chunk.text[d.start - d.chunk.start : d.end - d.chunk.start] for d in result.delivered]


def answers_in_context(questions: QuestionSet, result: ConfigResult) -> tuple[bool | None, ...]:
    """``answer_in_context`` of each question result: some reference occurs in a delivered chunk's text
    (:func:`chunkscope.metrics.answers.has_answer`); ``None`` for a question without references."""
    by_id = {q.id: q for q in questions.questions}
    flags: list[bool | None] = []
    forms = ContextForms()
    for question_result in result.questions:
        references = by_id[question_result.question_id].references
        flags.append(has_answer(references, delivered_texts(question_result), forms) if references else None)
    return tuple(flags)


def attribution_class(complete: bool, correct: bool) -> str:
    """``ok``, ``generation``, ``retrieval`` or ``unsupported`` (see the module docstring)."""
    if complete:
        return "ok" if correct else "generation"
    return "unsupported" if correct else "retrieval"


@dataclass(frozen=True, slots=True)
class AnswerRow:
    """One answered question under the configuration that produced the answer."""

    question_id: str
    complete: bool
    correct: bool
    attribution: str
    cause: str
    """The question's failure cause (``OK`` when complete)."""
    judgment: Judgment


@dataclass(frozen=True, slots=True)
class Interval:
    """A statistic with its percentile bootstrap interval."""

    value: float | None
    low: float | None
    high: float | None
    undefined_resamples: int = 0
    """Resampled tables where the statistic was undefined (left out of the interval)."""


@dataclass(frozen=True, slots=True)
class Attribution:
    """Every answered question of one configuration, attributed, with how well evidence predicts answers."""

    result: ConfigResult
    answers: AnswerSet
    rows: tuple[AnswerRow, ...]
    unanswered: tuple[str, ...]
    """Questions of the set without an answer: excluded from the attribution and counted."""
    counts: Mapping[str, int]
    by_cause: Mapping[str, Mapping[str, int]]
    """Failure cause -> attribution class -> count (causes that occur, in the cause order)."""
    agreement: Interval
    phi: Interval

    @property
    def by_question(self) -> Mapping[str, AnswerRow]:
        """The rows by question id."""
        return {row.question_id: row for row in self.rows}

    @property
    def correct(self) -> int:
        """Answered questions judged correct."""
        return sum(row.correct for row in self.rows)


def attribute(result: ConfigResult, answers: AnswerSet, seed: int = 0, resamples: int = RESAMPLES) -> Attribution:
    """Attribute every answered question of ``result`` (see the module docstring)."""
    causes = failure_causes(result.questions, result.config)
    rows, unanswered = [], []
    for question_result, cause in zip(result.questions, causes, strict=True):
        judgment = answers.judgments.get(question_result.question_id)
        if judgment is None:
            unanswered.append(question_result.question_id)
            continue
        complete = question_result.complete
        label = attribution_class(complete, judgment.correct)
        rows.append(AnswerRow(question_result.question_id, complete, judgment.correct, label, str(cause), judgment))
    counts = {label: sum(row.attribution == label for row in rows) for label in ATTRIBUTIONS}
    by_cause: dict[str, dict[str, int]] = {}
    for cause_name in (str(c) for c in FailureCause):
        cells = {label: sum(r.cause == cause_name and r.attribution == label for r in rows) for label in ATTRIBUTIONS}
        if any(cells.values()):
            by_cause[cause_name] = cells
    agreement, phi = agreement_and_phi(
        counts["ok"], counts["generation"], counts["unsupported"], counts["retrieval"], seed, resamples
    )
    return Attribution(
        result,
        answers,
        tuple(rows),
        tuple(unanswered),
        MappingProxyType(counts),
        MappingProxyType({k: MappingProxyType(v) for k, v in by_cause.items()}),
        agreement,
        phi,
    )


def phi_coefficient(a: int, b: int, c: int, d: int) -> float | None:
    """``(a·d − b·c) / sqrt((a + b)(c + d)(a + c)(b + d))``; None when a margin is 0."""
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    if denominator == 0:
        return None
    return (a * d - b * c) / math.sqrt(denominator)


def agreement_and_phi(a: int, b: int, c: int, d: int, seed: int, resamples: int) -> tuple[Interval, Interval]:
    """Agreement and phi of the 2x2 table with their bootstrap intervals (see the module docstring)."""
    n = a + b + c + d
    if n == 0:
        return Interval(None, None, None), Interval(None, None, None)
    rng = np.random.default_rng(seed)
    tables = rng.multinomial(n, np.array([a, b, c, d], dtype=np.float64) / n, size=resamples).astype(np.float64)
    ra, rb, rc, rd = tables.T
    agreements = (ra + rd) / n
    denominator = (ra + rb) * (rc + rd) * (ra + rc) * (rb + rd)
    defined = denominator > 0
    phis = (ra * rd - rb * rc)[defined] / np.sqrt(denominator[defined])
    low, high = np.quantile(agreements, [0.025, 0.975])
    agreement = Interval((a + d) / n, float(low), float(high))
    value = phi_coefficient(a, b, c, d)
    undefined = int(resamples - np.count_nonzero(defined))
    if value is None or not phis.size:
        return agreement, Interval(value, None, None, undefined)
    phi_low, phi_high = np.quantile(phis, [0.025, 0.975])
    return agreement, Interval(value, float(phi_low), float(phi_high), undefined)
