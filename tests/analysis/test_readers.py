"""The reader plugin's cache: by configuration, question and delivered text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from chunkscope.analysis.readers import Reader, make_judge, read_answers
from chunkscope.errors import ChunkscopeError
from chunkscope.io.sources import Dataset
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator


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
