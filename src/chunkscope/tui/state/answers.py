"""Generated answers in the inspector: the answers of one configuration, and their attribution under it.

Answers belong to the configuration that produced them (``--answers-config``, else the imported production
pipeline, else the first configuration: the rule of :func:`chunkscope.cli.answer_options.answers_config`). The
inspector attributes them (:func:`chunkscope.analysis.answers.attribute`) under that configuration only: while
another configuration is shown, it says whose answers they are and attributes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from chunkscope.analysis.answers import ATTRIBUTIONS, AnswerRow, AnswerSet, Attribution, attribute
from chunkscope.reports.answers import AnswerOutcome, interval_text
from chunkscope.results import Config, ConfigResult

ANSWER_MARKS: dict[str, str] = {"ok": "o", "generation": "g", "retrieval": "r", "unsupported": "u"}
"""The question list's one-cell mark of each attribution class (a question without an answer: a space)."""

ANSWER_FILTERS: tuple[str, ...] = tuple(f"answers {name}" for name in ATTRIBUTIONS)
"""Single-view filters on the attribution class, while the answers' own configuration is shown."""

ATTRIBUTION_MEANINGS: dict[str, str] = {
    "ok": "evidence complete, answer correct",
    "generation": "evidence complete, answer wrong: the generator's fault",
    "retrieval": "evidence not complete, answer wrong",
    "unsupported": "evidence not complete, answer correct",
}
"""What each attribution class says, in words (see docs/metrics.md#answers)."""


def filter_class(state: str) -> str | None:
    """The attribution class an answer filter lists (``answers retrieval`` -> ``retrieval``); None for others."""
    return state.removeprefix("answers ") if state in ANSWER_FILTERS else None


@dataclass
class InspectorAnswers:
    """One answers file, matched to the questions and judged, and the configuration it belongs to."""

    answers: AnswerSet
    config: Config
    """The configuration that produced the answers: the only one they are attributed under."""
    rule: str
    """Why they belong to it (stated in the detail and the case file)."""
    _attributed: tuple[Attribution, Mapping[str, AnswerRow]] | None = field(default=None, repr=False)
    """The attribution and its rows by question, set in one assignment: the evaluation worker attributes a new
    result while the screen may read the previous one."""

    def belongs_to(self, config: Config) -> bool:
        """True when ``config`` produced the answers."""
        return config == self.config

    def attribution(self, result: ConfigResult | None) -> Attribution | None:
        """The core's attribution of the answers under ``result``, when ``result`` is their configuration's
        (computed once); None under any other configuration."""
        if result is None or not self.belongs_to(result.config):
            return None
        attributed = self._attributed
        if attributed is None or attributed[0].result is not result:
            attribution = attribute(result, self.answers)
            attributed = self._attributed = (attribution, attribution.by_question)
        return attributed[0]

    def row(self, result: ConfigResult, question_id: str) -> AnswerRow | None:
        """One question's attributed answer under ``result`` (None: another configuration's, or not answered)."""
        if self.attribution(result) is None:
            return None
        attributed = self._attributed
        return attributed[1].get(question_id) if attributed is not None and attributed[0].result is result else None

    def outcome(self, results: Sequence[ConfigResult]) -> AnswerOutcome:
        """What the reports' case file adds for ``results`` (the results on screen): the attribution under the
        answers' configuration when one of them is its result; nothing is attributed to any other."""
        for result in results:
            attribution = self.attribution(result)
            if attribution is not None:
                return AnswerOutcome(attributions={self.config: attribution}, rule={self.config: self.rule})
        return AnswerOutcome()

    def summary_note(self, results: Sequence[tuple[str, ConfigResult]]) -> str:
        """The summary's answers line for the results on screen (``(name, result)``: ``("A", ...)``): the counts of
        each class, the unanswered questions and how well evidence predicts answers (agreement, phi, with their
        bootstrap intervals) under the answers' configuration; that they are not attributed when it is not shown."""
        for name, result in results:
            attribution = self.attribution(result)
            if attribution is not None:
                counts = " · ".join(f"{label} {attribution.counts[label]}" for label in ATTRIBUTIONS)
                return (
                    f"{name + ' ' if name else ''}answers ({self.rule}): {counts} · unanswered "
                    f"{len(attribution.unanswered)} · agreement {interval_text(attribution.agreement)} · phi "
                    f"{interval_text(attribution.phi)}"
                )
        return f"answers of {self.config.label} ({self.rule}): not attributed to the shown configuration"
