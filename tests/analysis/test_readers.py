"""The reader plugin's cache: by configuration, question and delivered text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from chunkscope.analysis.readers import Reader, make_judge, read_answers
from chunkscope.errors import ChunkscopeError
from chunkscope.io.sources import Dataset
from chunkscope.model import EvidenceItem, Question, Span
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.spec.plugins import PluginError


def test_the_reader_is_asked_once_per_configuration_question_and_context(plugins: Path, sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    result = evaluator.evaluate(parse_config("paragraph", "bm25", 3, None, "stop"))
    reader = Reader("python:cs_plugins.answering:first_chunk")
    judge = make_judge("python:cs_plugins.answering:contains_reference", None)
    first = read_answers(reader, result, sample.questions, judge)
    n = len(sample.questions.questions)
    assert reader.calls == n
    again = read_answers(reader, result, sample.questions, judge)
    assert reader.calls == n and again.judgments == first.judgments
    # the same contexts under another configuration are asked again: answers belong to their configuration
    other = replace(result, config=replace(result.config, top_k=4))
    read_answers(reader, other, sample.questions, judge)
    assert reader.calls == 2 * n


def test_cancel_stops_reading(plugins: Path, sample: Dataset) -> None:
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(parse_config("paragraph", "bm25", 3))
    reader = Reader("python:cs_plugins.answering:first_chunk")
    judge = make_judge("python:cs_plugins.answering:contains_reference", None)
    with pytest.raises(ChunkscopeError, match="cancelled"):
        read_answers(reader, result, sample.questions, judge, cancel=lambda: reader.calls >= 2)
    assert reader.calls == 2


def test_built_in_judges_follow_the_question_language() -> None:
    evidence = (EvidenceItem((Span("d", 0, 3),)),)
    japanese = Question("j", "放送局はどこ？", evidence, (), ("NHK",))
    english = Question("e", "Which broadcaster?", evidence, (), ("NHK",))
    _, f1 = make_judge("f1", 0.5)
    # Japanese question: characters [n h k] vs [n h k ' ' x]: 3 common, P = 3/5, R = 1, F1 = 2·(3/5)/(8/5) = 3/4.
    assert f1(japanese, "NHK x") == (True, pytest.approx(0.75))
    # English question: tokens [nhk] vs [nhk x]: P = 1/2, R = 1, F1 = 2/3.
    assert f1(english, "NHK x") == (True, pytest.approx(2 / 3))
    _, em = make_judge("em", None)
    assert em(japanese, "nhk。") == (True, None)  # lowercase, trailing 。 stripped
    assert em(english, "nhk。") == (False, None)  # 。 is not in string.punctuation


def test_threads_give_the_same_answers_and_stop_at_an_error(plugins: Path, sample: Dataset) -> None:
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(parse_config("paragraph", "bm25", 3))
    judge = make_judge("python:cs_plugins.answering:contains_reference", None)
    one = read_answers(Reader("python:cs_plugins.answering:first_chunk"), result, sample.questions, judge)
    four = read_answers(Reader("python:cs_plugins.answering:first_chunk"), result, sample.questions, judge, threads=4)
    assert list(four.judgments.items()) == list(one.judgments.items())  # same answers, same order
    bad = make_judge("python:cs_plugins.answering:raises", None)
    with pytest.raises(PluginError, match="judge broke"):
        read_answers(Reader("python:cs_plugins.answering:first_chunk"), result, sample.questions, bad, threads=4)
