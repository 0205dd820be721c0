"""What an evaluating process holds (issue 22, item 8): parts no later configuration needs are forgotten, and
results travel back with their chunks' texts as offsets into the corpus both processes hold."""

from __future__ import annotations

import dataclasses
import os

import pytest

from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Corpus
from chunkscope.pipeline import parallel
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, LastUses
from chunkscope.pipeline.parallel import dumps, evaluate_configs, loads
from chunkscope.results import Config, QuestionResults


def _configs() -> list[Config]:
    # Two configurations share a chunking and an index (top-k 3 and 5 rank to the same depth), one does not.
    return [
        make_config("fixed:size=200", "bm25", top_k=3),
        make_config("fixed:size=200", "bm25", top_k=5),
        make_config("paragraph", "bm25"),
    ]


def test_release_keeps_only_what_a_later_configuration_needs(sample: Dataset) -> None:
    configs = _configs()
    assert configs[0].depth == configs[1].depth
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    last_uses = LastUses(configs)
    first = evaluator.evaluate(configs[0])
    evaluator.release(configs[0], last_uses.after(0))
    assert evaluator.cached(configs[0]) is None
    chunker, retriever = configs[0].chunker, configs[0].retriever  # canonical specs
    assert set(evaluator._chunkings) == {chunker}  # the second configuration needs them
    assert evaluator.held_indexes == ((chunker, retriever),)
    assert set(evaluator._rankings) == {(chunker, retriever, configs[0].depth)}
    evaluator.evaluate(configs[1])
    evaluator.release(configs[1], last_uses.after(1))
    assert not evaluator._chunkings and not evaluator.held_indexes and not evaluator._rankings
    # Forgotten parts are computed again, the same.
    assert evaluator.evaluate(configs[0]) == first
    assert evaluator.evaluate(configs[0]).chunks == first.chunks


def test_a_worker_holds_no_finished_configuration(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    configs = _configs()
    monkeypatch.setattr(parallel, "end_with_parent", lambda parent: None)  # this test process is the worker
    for name in ("_evaluator", "_messages", "_last_uses"):
        monkeypatch.setattr(parallel, name, None)
    sent: list[object] = []

    class Messages:
        def put(self, message: object) -> None:
            sent.append(message)

    parallel._start_worker((sample.corpus, sample.questions.questions), tuple(configs), Messages(), os.getppid())
    evaluator = parallel._evaluator
    assert evaluator is not None
    outcomes = []
    for position, config in enumerate(configs):
        outcomes.append(loads(parallel._work(position, config), sample.corpus))
        assert evaluator.cached(config) is None
    assert not evaluator._chunkings and not evaluator.held_indexes and not evaluator._rankings
    here = evaluate_configs(sample.corpus, sample.questions.questions, configs, 1).results
    assert tuple(outcome.result for outcome in outcomes) == here
    assert sent  # progress went to the parent's queue


def test_chunk_texts_travel_as_offsets_into_the_corpus(sample: Dataset) -> None:
    results = evaluate_configs(sample.corpus, sample.questions.questions, _configs(), 1).results
    for result in results:
        plain, compact = dumps(result), dumps(result, sample.corpus)
        longest = max(result.chunks, key=lambda chunk: chunk.length).text.encode("utf-8")
        assert longest in plain and longest not in compact
        assert len(compact) < len(plain) / 2
        copy = loads(compact, sample.corpus)
        assert copy == result and copy.chunks == result.chunks
        assert list(copy.questions) == list(result.questions)  # the recipe's units too
        assert [q.units for q in copy.questions] == [q.units for q in result.questions]


def test_a_chunk_not_at_its_offsets_travels_whole(sample: Dataset) -> None:
    document = sample.corpus.documents[0]
    at_offsets = Chunk("a", document.id, 0, 10, document.text[:10])
    elsewhere = Chunk("b", document.id, 0, 10, "not there!")
    unknown = Chunk("c", "no-such-document", 0, 3, "abc")
    chunks = (at_offsets, elsewhere, unknown, dataclasses.replace(at_offsets, prefix="# Title\n"))
    assert loads(dumps(chunks, sample.corpus), sample.corpus) == chunks
    # Read against another corpus, offsets give that corpus's text: the pickle holds no text for them.
    other = Corpus(tuple(dataclasses.replace(d, text="x" * len(d.text)) for d in sample.corpus.documents))
    back = loads(dumps(chunks, sample.corpus), other)
    assert back[0].text == "x" * 10 and back[1:3] == chunks[1:3]


def test_a_result_and_its_recipe_share_one_copy_of_the_chunks(sample: Dataset) -> None:
    # The recipe of the question results refers to the result's chunks: read back, they are one tuple, not a
    # second copy of every chunk made when a report first reads the question results.
    configs = [make_config("fixed:size=200", "bm25"), make_config("paragraph", "bm25")]
    for result in evaluate_configs(sample.corpus, sample.questions.questions, configs, 1).results:
        copy = loads(dumps(result, sample.corpus), sample.corpus)
        assert isinstance(copy.questions, QuestionResults)
        assert list(copy.questions) == list(result.questions)
        assert all(question.units is copy.chunks for question in copy.questions)
        again = loads(dumps(copy))  # pickled again without the corpus: whole, and equal
        assert list(again.questions) == list(result.questions) and again.chunks == result.chunks
