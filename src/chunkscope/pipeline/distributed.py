"""Configuration evaluations as tasks of a Dask cluster: ``--executor dask://HOST:PORT``.

Each configuration is one task. The corpus and the questions are scattered to every worker once
(``Client.scatter(..., broadcast=True)``) and each worker keeps one :class:`Evaluator` over them, so
its lexical caches serve every configuration it evaluates, as a local worker process's does. A task
runs the same code as ``--jobs`` workers (``parallel._evaluate_one``) and sends back the same
compact pickle, so the results, and every report built from them, are those of a local run. A worker
keeps the last dataset it was sent (by content hash): a later command over the same data finds its
documents tokenised already, as a long-running cluster should; every command gets a new evaluator, so
no result is ever taken from an earlier command.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from chunkscope.errors import ChunkscopeError, MissingExtraError
from chunkscope.model import Corpus, Question
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.parallel import (
    Evaluation,
    _evaluate_one,
    _Failure,
    _failure,
    _Outcome,
    dumps,
    loads,
)
from chunkscope.results import Config, ConfigResult

SCHEMES = ("dask",)
CONNECT_TIMEOUT_S = 5
"""Seconds to reach the scheduler before the address counts as unreachable."""

_EVALUATORS: dict[str, Evaluator] = {}
"""On a worker: the evaluator of the current run, by the run's key (a new one per run: no result outlives it)."""
_DATASETS: dict[str, tuple[Corpus, tuple[Question, ...]]] = {}
"""On a worker: the dataset last shipped to it, by its content's SHA-256. A later run over the same data
uses these very objects, so the caches keyed by the corpus (each document tokenised once) stay warm."""


def scheduler_address(executor: str) -> str:
    """The scheduler's ``tcp://HOST:PORT`` from ``dask://HOST:PORT``; ChunkscopeError for anything else."""
    scheme, separator, rest = executor.partition("://")
    if not separator or scheme not in SCHEMES:
        raise ChunkscopeError(f"--executor {executor}: expected dask://HOST:PORT (the Dask scheduler's address)")
    host, colon, port = rest.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in rest:
        raise ChunkscopeError(f"--executor {executor}: expected dask://HOST:PORT with a port from 1 to 65535")
    return f"tcp://{host}:{port}"


def connect(executor: str) -> Any:
    """A Dask client connected to the scheduler of ``executor``: one-line errors when it cannot be."""
    address = scheduler_address(executor)
    try:
        from distributed import Client
    except ImportError:
        raise MissingExtraError("--executor dask://", "dask", "distributed") from None
    try:
        return Client(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ChunkscopeError(f"--executor {executor}: cannot reach the Dask scheduler ({reason})") from None


def evaluate_on_cluster(
    executor: str,
    corpus: Corpus,
    questions: Sequence[Question],
    configs: Sequence[Config],
    alongside: Callable[[], None] | None = None,
    finished: Callable[[int, ConfigResult], None] | None = None,
) -> Evaluation:
    """Evaluate ``configs`` on the cluster; the same Evaluation as ``evaluate_configs`` gives locally.

    ``alongside`` is called once every task is submitted; ``finished`` with each position and result as
    it comes in (in the order the tasks finish).
    """
    from distributed import as_completed

    client = connect(executor)
    try:
        run = uuid.uuid4().hex
        data = (corpus, tuple(questions))
        content = hashlib.sha256(dumps(data)).hexdigest()
        shipped = client.scatter(data, broadcast=True, hash=False)
        futures = {}
        for position, config in enumerate(configs):
            arguments = (shipped, content, run, position, config)
            task = client.submit(_evaluate_task, *arguments, pure=False, key=f"cs-{run}-{position}")
            futures[task] = position
        if alongside is not None:
            alongside()
        outcomes: dict[int, _Outcome] = {}
        for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
            outcome = loads(future.result())
            if isinstance(outcome, _Failure):
                raise outcome.exception()
            position = futures[future]
            outcomes[position] = outcome
            if finished is not None:
                finished(position, outcome.result)
    except (OSError, TimeoutError) as error:
        raise ChunkscopeError(f"--executor {executor}: the cluster failed during the run ({error})") from None
    finally:
        client.close()
    ordered = [outcomes[position] for position in range(len(configs))]
    problems: dict[str, tuple[str, ...]] = {}
    for outcome in ordered:
        problems.setdefault(outcome.result.config.chunker, outcome.problems)
    caught = [note for outcome in ordered for note in outcome.caught]
    return Evaluation(
        tuple(outcome.result for outcome in ordered), tuple(problems.items()), tuple(dict.fromkeys(caught))
    )


def _evaluate_task(
    shipped: tuple[Corpus, tuple[Question, ...]], content: str, run: str, position: int, config: Config
) -> bytes:
    """On a worker: one configuration's _Outcome (or _Failure), pickled as the local workers pickle it."""
    evaluator = _EVALUATORS.get(run)
    if evaluator is None:
        if content not in _DATASETS:
            _DATASETS.clear()  # one dataset at a time
            _DATASETS[content] = shipped
        _EVALUATORS.clear()
        evaluator = _EVALUATORS[run] = Evaluator(*_DATASETS[content])
    try:
        outcome: _Outcome | _Failure = _evaluate_one(evaluator, position, config, _ignore_progress)
    except (ChunkscopeError, ValueError) as exc:
        outcome = _failure(exc)
    return dumps(outcome)


def _ignore_progress(position: int, stage: str, done: int, total: int) -> None:
    return None
