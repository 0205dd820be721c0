"""The Evaluator shared by the inspector's UI thread and its worker: one chunking per spec, no deadlock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from chunkscope.chunkers import Chunker, Chunking, chunk_corpus
from chunkscope.errors import InputError
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline import evaluate as evaluate_module
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult
from chunkscope.spec.grammar import format_spec

TEXT = "alpha beta gamma delta " * 20
CORPUS = Corpus((Document("d", TEXT),))
QUESTIONS = (Question("q", "gamma", (EvidenceItem((Span("d", 11, 16),)),)),)
WAIT = 10.0
"""Seconds a thread may take before the test calls it stuck."""


class RecordingChunker:
    """Stands in for ``chunk_corpus``: records the calls and how many run at once.

    Each call holds on for ``hold`` seconds (a window for a second caller to come in), or, for
    the specs in ``gated``, until ``release`` is set.
    """

    def __init__(self, hold: float = 0.3, gated: tuple[str, ...] = ()) -> None:
        self.hold = hold
        self.gated = gated
        self.calls: list[str] = []
        self.running = 0
        self.most_running = 0
        self.entered = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, chunker: Chunker, corpus: Corpus) -> Chunking:
        spec = format_spec(chunker)
        with self._lock:
            self.calls.append(spec)
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        self.entered.set()
        if spec in self.gated:
            self.release.wait(WAIT)
        else:
            time.sleep(self.hold)
        with self._lock:
            self.running -= 1
        return chunk_corpus(chunker, corpus)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> RecordingChunker:
    recording = RecordingChunker()
    monkeypatch.setattr(evaluate_module, "chunk_corpus", recording)
    return recording


def started(target: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """A running thread calling ``target``; its result (or exception) lands in the list."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(target())
        except Exception as error:  # handed to the test thread
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_the_ui_thread_waits_for_the_workers_chunking_of_the_same_spec(recorder: RecordingChunker) -> None:
    evaluator = Evaluator(CORPUS, QUESTIONS)
    config = make_config("fixed:size=40")
    worker, outcome = started(lambda: evaluator.evaluate(config))
    assert recorder.entered.wait(WAIT)
    shown = evaluator.chunking(config.chunker)  # the UI thread, while the worker is chunking
    worker.join(WAIT)
    assert not worker.is_alive()
    (result,) = outcome
    assert isinstance(result, ConfigResult)
    assert recorder.calls == [config.chunker]
    assert recorder.most_running == 1
    assert result.chunks is shown.chunking.units


def test_many_threads_asking_for_one_spec_chunk_it_once(recorder: RecordingChunker) -> None:
    evaluator = Evaluator(CORPUS, QUESTIONS)
    spec = make_config("fixed:size=40").chunker
    barrier = threading.Barrier(6)

    def ask() -> object:
        barrier.wait(WAIT)
        return evaluator.chunking(spec)

    threads = [started(ask) for _ in range(6)]
    for thread, _ in threads:
        thread.join(WAIT)
    results = [outcome[0] for _, outcome in threads]
    assert recorder.calls == [spec]
    assert recorder.most_running == 1
    assert all(result is results[0] for result in results)


def test_another_spec_is_chunked_while_an_evaluation_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = RecordingChunker(hold=0.0, gated=(make_config("fixed:size=40").chunker,))
    monkeypatch.setattr(evaluate_module, "chunk_corpus", recorder)
    evaluator = Evaluator(CORPUS, QUESTIONS)
    worker, outcome = started(lambda: evaluator.evaluate(make_config("fixed:size=40")))
    assert recorder.entered.wait(WAIT)
    other = make_config("fixed:size=60").chunker
    ui, shown = started(lambda: evaluator.chunking(other))
    ui.join(WAIT)
    assert not ui.is_alive() and worker.is_alive()  # done while the evaluation still waits
    recorder.release.set()
    worker.join(WAIT)
    assert not worker.is_alive()
    (result,) = outcome
    assert isinstance(result, ConfigResult)
    assert recorder.calls == [make_config("fixed:size=40").chunker, other]
    # 460 characters: ceil(460 / 60) = 8 windows of 60, ceil(460 / 40) = 12 of 40
    assert [len(shown[0].chunking.units), len(result.chunks)] == [8, 12]  # type: ignore[attr-defined]


def test_a_failed_chunking_is_not_cached_and_does_not_block() -> None:
    evaluator = Evaluator(CORPUS, QUESTIONS)
    spec = "imported:path=/nonexistent/chunks.jsonl"
    for _ in range(2):
        thread, outcome = started(lambda: evaluator.chunking(spec))
        thread.join(WAIT)
        assert not thread.is_alive()
        assert isinstance(outcome[0], InputError)
