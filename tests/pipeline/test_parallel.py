"""Configurations evaluated in worker processes: the same results as in this process, errors and progress kept."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import struct
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from types import MappingProxyType
from typing import NoReturn

import pytest

from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline import parallel
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.parallel import FINISHED, ConfigProgress, Evaluation, dumps, evaluate_configs, loads
from chunkscope.results import Config, QuestionResults
from chunkscope.retrievers import dense

SPECS = (
    ("fixed:size=200", "bm25"),
    ("paragraph", "bm25"),
    ("parent:child=fixed:size=120,parent=markdown", "bm25"),
    ("fixed:size=300,overlap=60", "rrf:bm25+overlap"),
    ("markdown", "overlap"),
)


def sample_configs() -> list[Config]:
    return [make_config(chunker, retriever, top_k=3, budget=700, overflow="skip") for chunker, retriever in SPECS]


def evaluate(dataset: Dataset, configs: list[Config], jobs: int) -> Evaluation:
    return evaluate_configs(dataset.corpus, dataset.questions.questions, configs, jobs)


def test_worker_results_equal_in_process_results(sample: Dataset) -> None:
    configs = sample_configs()
    here = evaluate(sample, configs, 1)
    pooled = evaluate(sample, configs, 2)
    assert [r.config for r in pooled.results] == configs
    assert pooled.results == here.results
    for mine, theirs in zip(here.results, pooled.results, strict=True):
        assert mine.chunks == theirs.chunks  # compare=False fields, checked on their own
        assert [q.units for q in mine.questions] == [q.units for q in theirs.questions]
        assert [q.parents for q in mine.questions] == [q.parents for q in theirs.questions]
        assert mine.config.label == theirs.config.label
    assert pooled.warnings == here.warnings


def test_more_jobs_than_configurations(sample: Dataset) -> None:
    configs = sample_configs()[:2]
    assert evaluate(sample, configs, 8).results == evaluate(sample, configs, 1).results


def test_results_pickle_through_their_constructors(sample: Dataset) -> None:
    results = evaluate(sample, sample_configs(), 1).results
    for result in results:
        copy = loads(dumps(result))
        assert copy == result
        assert copy.config.label == result.config.label
        assert isinstance(copy.summary.values, MappingProxyType)
        assert list(copy.summary.values.items()) == list(result.summary.values.items())
        assert [q.ranking.parts for q in copy.questions] == [q.ranking.parts for q in result.questions]
        assert copy.questions[0].units == copy.chunks == result.chunks


def test_question_results_are_unpickled_only_when_read(sample: Dataset) -> None:
    # Without a budget the evaluator measures the single-span questions in a batch (QuestionResults).
    configs = [make_config("fixed:size=200", "bm25"), make_config("paragraph", "bm25")]
    batched = [r for r in evaluate(sample, configs, 1).results if isinstance(r.questions, QuestionResults)]
    assert len(batched) == 2
    for result in batched:
        copy = loads(dumps(result))
        assert isinstance(copy.questions, QuestionResults)
        recipe = copy.questions._recipe
        assert isinstance(recipe, parallel.PickledRecipe)
        assert recipe._recipe is None  # the summary and the columns came back; the rankings are still bytes
        assert copy.summary == result.summary
        assert copy.questions.columns.question_ids == result.questions.columns.question_ids
        assert list(copy.questions) == list(result.questions)
        assert recipe._recipe is not None
        again = loads(dumps(copy))  # a result from a worker pickles again (its recipe as the same bytes)
        assert list(again.questions) == list(result.questions)


def test_dataset_pickles_for_spawned_workers(sample: Dataset) -> None:
    corpus, questions = loads(dumps((sample.corpus, sample.questions.questions)))
    assert corpus == sample.corpus
    assert dict(corpus.by_id) == dict(sample.corpus.by_id)
    assert questions == sample.questions.questions


def test_plain_pickle_cannot_carry_read_only_mappings(sample: Dataset) -> None:
    """Why dumps exists: the default pickler refuses a Summary's MappingProxyType."""
    result = evaluate(sample, sample_configs()[:1], 1).results[0]
    with pytest.raises(TypeError):
        pickle.dumps(result.summary.values)


def test_spawn_start_method_gives_the_same_results(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    configs = sample_configs()[:2]
    assert evaluate(sample, configs, 2).results == evaluate(sample, configs, 1).results


def test_progress_reports_each_configuration_once(sample: Dataset) -> None:
    configs = sample_configs()
    for jobs in (1, 2):
        stages: dict[int, list[str]] = defaultdict(list)

        def record(position: int, stage: str, done: int, total: int, stages: dict[int, list[str]] = stages) -> None:
            assert 0 <= done <= total
            stages[position].append(stage)

        evaluate_configs(sample.corpus, sample.questions.questions, configs, jobs, record)
        assert sorted(stages) == list(range(len(configs)))
        for position in stages:
            assert stages[position].count(FINISHED) == 1
            assert stages[position][-1] == FINISHED


def worker_error(sample: Dataset, config: Config, jobs: int) -> tuple[type[BaseException], str]:
    with pytest.raises((ChunkscopeError, ValueError)) as caught:
        evaluate(sample, [make_config("paragraph"), config], jobs)
    return caught.type, str(caught.value)


def test_bad_spec_in_a_worker_is_the_same_error(sample: Dataset) -> None:
    bad = Config(chunker="fixed:size=0")  # made directly, so only the evaluation parses it
    kind, message = worker_error(sample, bad, 2)
    assert (kind, message) == worker_error(sample, bad, 1)
    assert "size" in message
    assert "\n" not in message


def test_missing_extra_in_a_worker_is_the_same_error(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense, "module_available", lambda name: False)
    config = Config(chunker="paragraph", retriever="dense")
    kind, message = worker_error(sample, config, 2)
    assert (kind, message) == worker_error(sample, config, 1)
    assert issubclass(kind, ChunkscopeError)
    assert "pip install 'chunkscope[dense]'" in message


@pytest.mark.parametrize("jobs", [1, 2])
def test_work_alongside_starts_once_after_the_workers(sample: Dataset, jobs: int) -> None:
    configs = sample_configs()[:2]
    workers_then: list[int] = []

    def alongside() -> None:
        workers_then.append(len(multiprocessing.active_children()))

    evaluation = evaluate_configs(sample.corpus, sample.questions.questions, configs, jobs, alongside=alongside)
    assert evaluation.results == evaluate(sample, configs, 1).results
    # Once; with workers, when they are running already (none is forked from a process with a thread of its own).
    assert len(workers_then) == 1
    assert (workers_then[0] >= 2) if jobs == 2 else (workers_then[0] == 0)


def test_jobs_must_be_positive(sample: Dataset) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        evaluate(sample, sample_configs(), 0)


def test_chunking_problems_are_reported_once_in_configuration_order(sample: Dataset, tmp_path: Path) -> None:
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        '{"id": "a", "doc": "en/order-api.md", "start": 0, "end": 250}\n'
        '{"id": "b", "doc": "en/order-api.md", "text": "no such passage"}\n'
        '{"id": "c", "doc": "en/order-api.md", "text": "nor this one"}\n',
        encoding="utf-8",
    )
    imported = f"imported:path={chunks}"
    configs = [make_config(spec, retriever) for spec, retriever in [(imported, "bm25"), ("paragraph", "bm25")]]
    configs.append(make_config(imported, "overlap"))
    here = evaluate(sample, configs, 1).warnings
    # One per unlocated chunk (and the documents the dump leaves uncovered), once although two configurations
    # use the chunking.
    assert here[:2] == (
        f"{chunks}:2: chunk 'b' text not found in 'en/order-api.md'; left out",
        f"{chunks}:3: chunk 'c' text not found in 'en/order-api.md'; left out",
    )
    assert len(here) == 3 and here[2].startswith(f"{chunks}: no chunk covers 9 of the 10 corpus documents: ")
    assert evaluate(sample, configs, 2).warnings == here


class Stopped(Exception):
    """Raised by the progress callback below: what Ctrl-C is to a command."""


def _half_a_result(position: int) -> None:
    """In the first worker: write the start of a 1,000-byte message on the results pipe (10 bytes of it) and
    tell the parent through the progress queue, as a worker ended while it sends its result leaves it."""
    if position != 0:
        return
    frame = sys._getframe()
    while frame.f_code.co_name != "_process_worker":  # the executor's worker loop, which holds the pipe
        assert frame.f_back is not None
        frame = frame.f_back
    results = frame.f_locals["result_queue"]
    os.write(results._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    parallel._messages.put((position, "sending", 0, 1))


def _wait_to_be_ended() -> NoReturn:
    time.sleep(60)  # until the parent ends the worker
    raise AssertionError("the worker was not ended")


def _send_half_a_result_then_wait(position: int, config: Config) -> bytes:
    _half_a_result(position)
    _wait_to_be_ended()


def _send_half_a_result_then_die(position: int, config: Config) -> bytes:
    _half_a_result(position)
    if position == 0:
        os._exit(1)  # as the out-of-memory killer ends a worker
    _wait_to_be_ended()


def evaluation_within(seconds: float, sample: Dataset, report: ConfigProgress | None = None) -> list[BaseException]:
    """Evaluate two configurations with two workers in a thread (so that a wait for ever fails the test instead of
    holding it); what they raised, an empty list when they returned, or a TimeoutError when they still run."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            evaluate_configs(sample.corpus, sample.questions.questions, sample_configs()[:2], 2, progress=report)
        except BaseException as error:  # reported to the test
            raised.append(error)

    evaluation = threading.Thread(target=run, daemon=True)
    evaluation.start()
    evaluation.join(seconds)
    return [TimeoutError(f"still running after {seconds} s")] if evaluation.is_alive() else raised


fork_only = pytest.mark.skipif(parallel.start_method() != "fork", reason="the workers must inherit the test's task")


@fork_only
def test_stopping_while_a_worker_sends_its_result_ends(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C in `sweep --jobs 2` sometimes never ended the command, and an error in one configuration sometimes
    # never ended the evaluation: a worker ended while it sent its result left the executor's manager thread
    # waiting for the rest of the message, and the stop joined that thread.
    monkeypatch.setattr(parallel, "_work", _send_half_a_result_then_wait)

    def report(position: int, stage: str, done: int, total: int) -> None:
        if stage == "sending":
            raise Stopped

    (raised,) = evaluation_within(30, sample, report)
    assert isinstance(raised, Stopped)
    assert multiprocessing.active_children() == []


@fork_only
def test_a_worker_killed_while_it_sends_its_result_is_an_error(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The executor notices a worker's end only between two messages: this one ended in the middle of one, and
    # the evaluation waited for its task for ever instead of saying that a worker ended.
    monkeypatch.setattr(parallel, "_work", _send_half_a_result_then_die)
    (raised,) = evaluation_within(30, sample)
    assert isinstance(raised, ChunkscopeError) and str(raised) == parallel.WORKER_ENDED
    assert multiprocessing.active_children() == []
