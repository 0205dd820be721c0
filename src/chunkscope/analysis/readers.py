"""Answers for any configuration: a reader plugin generates them, a judge (built-in or plugin) decides them.

A **reader** is ``python:package.module:function`` called as ``function(question, chunks, budget)``
with the question text, the delivered chunks' texts in rank order (a truncated chunk's delivered
part) and the configuration's budget (``None`` without one); it returns the answer text.

A **judge** is built in (``em``: SQuAD/JGLUE exact match against the question's references;
``f1``: their F1, correct at ``score >= threshold``; JGLUE's rule for a question whose text is Japanese,
else each reference's own) or ``python:package.module:function`` called
as ``function(question, answer, references)``, returning a bool, or a number in [0, 1] judged
correct at ``score >= threshold``.

Plugins are named on the command line only, never read from data (the rules of plugin retrievers,
:mod:`chunkscope.spec.plugins`). Reader answers are cached by (configuration, question id,
delivered texts): a configuration evaluated twice, or a question whose context did not change,
asks the reader once.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import Any

from chunkscope.analysis.answers import DEFAULT_THRESHOLD, AnswerSet, Judge, Judgment, delivered_texts
from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.answers import Language, exact_match, f1_score, language_of
from chunkscope.model import Question, QuestionSet
from chunkscope.results import Config, ConfigResult, QuestionResult
from chunkscope.spec.plugins import PluginError, call_plugin, load_function

BUILT_IN_JUDGES = ("em", "f1")
"""Judges that need no plugin: exact match and F1 against the references."""
_PREFIX = "python:"


def plugin_target(text: str, option: str) -> str:
    """``package.module:function`` of ``python:package.module:function`` (ChunkscopeError otherwise)."""
    if not text.startswith(_PREFIX):
        raise ChunkscopeError(f"{option} takes python:package.module:function, got {text!r}")
    return text[len(_PREFIX) :]


def make_judge(spec: str, threshold: float | None) -> tuple[str, Judge]:
    """The judge ``spec`` names: ``em``, ``f1`` or ``python:module:function`` (loaded now, so a bad name fails
    before any work)."""
    cut = DEFAULT_THRESHOLD if threshold is None else threshold
    if spec == "em":
        return spec, _built_in(lambda answer, refs, language: (exact_match(answer, refs, language), None))
    if spec == "f1":

        def f1(answer: str, references: Sequence[str], language: Language | None) -> tuple[bool, float | None]:
            score = f1_score(answer, references, language)
            return score >= cut, score

        return spec, _built_in(f1)
    target = plugin_target(spec, "--judge")
    function = load_function(target)

    def judge(question: Question, answer: str) -> tuple[bool, float | None]:
        value = call_plugin(
            spec, f"question '{question.id}'", function, question.query, answer, list(question.references)
        )
        return _verdict(value, spec, question.id, threshold, cut)

    return spec, judge


def _built_in(decide: Callable[[str, Sequence[str], Language | None], tuple[bool, float | None]]) -> Judge:
    """A judge against the references: JGLUE's rule for a Japanese question (its text), else each reference's own."""

    def judge(question: Question, answer: str) -> tuple[bool, float | None]:
        if not question.references:
            raise ChunkscopeError(
                f"question '{question.id}' has no reference answer for the built-in judge "
                "(references come from SQuAD answers, a reference column or an answers field)"
            )
        language: Language | None = "ja" if language_of(question.query) == "ja" else None
        return decide(answer, question.references, language)

    return judge


def _verdict(value: Any, spec: str, question_id: str, threshold: float | None, cut: float) -> tuple[bool, float | None]:
    if isinstance(value, bool):
        return value, None
    if isinstance(value, (int, float)) and math.isfinite(value):
        score = float(value)
        if threshold is None and not 0.0 <= score <= 1.0:
            raise PluginError(
                f"judge '{spec}' returned {score:g} for question '{question_id}': outside [0, 1], "
                "give --answer-threshold to judge such scores"
            )
        return score >= cut, score
    raise PluginError(
        f"judge '{spec}' returned {type(value).__name__} for question '{question_id}': expected a bool or a number"
    )


class Reader:
    """A reader plugin with its answer cache."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.function = load_function(plugin_target(spec, "--reader"))
        self.cache: dict[tuple[Config, str, tuple[str, ...]], str] = {}
        self.calls = 0
        """How many times the plugin was called (cache misses)."""
        self._lock = threading.Lock()

    def answer(self, config: Config, question: Question, chunks: Sequence[str]) -> str:
        """The reader's answer to ``question`` from ``chunks``, cached."""
        key = (config, question.id, tuple(chunks))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        with self._lock:
            self.calls += 1
        value = call_plugin(
            self.spec, f"question '{question.id}'", self.function, question.query, list(chunks), config.budget
        )
        if not isinstance(value, str):
            raise PluginError(
                f"reader '{self.spec}' returned {type(value).__name__} for question '{question.id}': expected text"
            )
        self.cache[key] = value
        return value


def read_answers(
    reader: Reader,
    result: ConfigResult,
    questions: QuestionSet,
    judge: tuple[str, Judge],
    cancel: Callable[[], bool] | None = None,
    threads: int = 1,
) -> AnswerSet:
    """The reader's answer to every question of ``result``, judged, in question order.

    ``threads`` > 1 asks the reader and the judge for several questions at once (for plugins that wait
    on a model server); the answers are the same. ``cancel`` returning True stops before the next
    question (ChunkscopeError); the first plugin error stops the rest and is raised.
    """
    by_id = {q.id: q for q in questions.questions}

    def judged(question_result: QuestionResult) -> Judgment:
        if cancel is not None and cancel():
            raise ChunkscopeError("cancelled")
        question = by_id[question_result.question_id]
        answer = reader.answer(result.config, question, delivered_texts(question_result))
        correct, score = judge[1](question, answer)
        return Judgment(question.id, answer, correct, score, f"reader {reader.spec}")

    if threads <= 1:
        judgments = [judged(q) for q in result.questions]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = [pool.submit(judged, q) for q in result.questions]
            try:
                judgments = [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    by_question = {j.question_id: j for j in judgments}
    return AnswerSet(f"reader {reader.spec}", "reader", MappingProxyType(by_question), (), f"judge {judge[0]}")
