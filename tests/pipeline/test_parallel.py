"""Configurations evaluated in worker processes: the same results as in this process, errors and progress kept."""

from __future__ import annotations

import multiprocessing
import pickle
from collections import defaultdict
from pathlib import Path
from types import MappingProxyType

import pytest

from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline import parallel
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.parallel import FINISHED, Evaluation, dumps, evaluate_configs, loads
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
    # One per unlocated chunk, once although two configurations use the chunking.
    assert here == (
        f"{chunks}:2: chunk 'b' text not found in 'en/order-api.md'; left out",
        f"{chunks}:3: chunk 'c' text not found in 'en/order-api.md'; left out",
    )
    assert evaluate(sample, configs, 2).warnings == here
