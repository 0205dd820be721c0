"""Evaluate many configurations over one dataset, in worker processes when asked.

``evaluate_configs(corpus, questions, configs, jobs)`` gives the same ConfigResults, in the same
order, whatever ``jobs`` is: each configuration is computed by the same code from the same inputs,
only in another process. With ``jobs == 1`` (or one configuration) everything runs in this process.

Workers are started with the ``fork`` method where the platform has it (they inherit the dataset,
nothing is copied), else ``spawn`` (the dataset is pickled once and sent to each worker by the pool
initializer). Each task sends one Config and gets back its ConfigResult, pickled with
:func:`chunkscope.pipeline.pickling.dumps`, which rebuilds chunkscope's frozen slotted dataclasses through
their constructors (several times faster than their default pickling) and pickles read-only mappings as dicts. What a
configuration's question results are built from (its rankings, above all) comes back as bytes,
unpickled on first use: the summary and the paired tests read only the results' columns.
Chunk texts come back as offsets into the corpus this process holds (:mod:`chunkscope.pipeline.pickling`).
A worker (and this process with ``jobs == 1``) forgets each configuration's result, ranking, index and
chunking once no later configuration needs them: on one huge document they made most of its memory.

Workers ignore SIGINT: Ctrl-C interrupts the parent, which ends the workers and re-raises
KeyboardInterrupt. Workers end with their parent however it ends (SIGKILL included, which no handler
sees): on Linux the kernel sends each one SIGKILL when the parent dies (``PR_SET_PDEATHSIG``), elsewhere a
thread in each worker notices that its parent changed and ends it. Left running, they held the command's
stdout and stderr open, so a caller capturing its output waited for ever.

A ChunkscopeError or ValueError in a worker (a bad spec, a missing extra) is raised again in the parent:
the same exception, or, when it does not pickle, one with the same message.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from chunkscope.errors import ChunkscopeError, ChunkscopeWarning
from chunkscope.io.atomic import remove_temporaries
from chunkscope.model import Corpus, Question
from chunkscope.pipeline.evaluate import Evaluator, LastUses

# What a worker sends back is written and read by these (re-exported: the distributed executor uses them too).
from chunkscope.pipeline.pickling import PickledRecipe as PickledRecipe
from chunkscope.pipeline.pickling import dumps as dumps
from chunkscope.pipeline.pickling import loads as loads
from chunkscope.results import Config, ConfigResult

ConfigProgress = Callable[[int, str, int, int], None]
"""Called with (position of the configuration in ``configs``, stage, done, total)."""

FINISHED = "finished"
"""The stage reported once a configuration's result is in."""

STAGE_INTERVAL = 0.1
"""Seconds between two progress messages of one worker within a stage."""

WORKER_ENDED = "a worker process ended unexpectedly (out of memory?); try fewer --jobs"

PARENT_WATCH_INTERVAL = 0.5
"""Seconds between two looks at the parent, where the kernel cannot signal a worker that its parent died."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The results of ``evaluate_configs`` and what was noticed on the way."""

    results: tuple[ConfigResult, ...]
    """One result per configuration, in the order of the configurations."""
    chunking_problems: tuple[tuple[str, tuple[str, ...]], ...]
    """(chunker spec, its chunking's problems) for each chunking, in the order of the configurations."""
    retriever_warnings: tuple[str, ...]
    """ChunkscopeWarnings raised while evaluating (e.g. a cache not written), each once, in order."""

    @property
    def warnings(self) -> tuple[str, ...]:
        """Chunking problems, then retriever warnings, each once."""
        problems = [problem for _, problems in self.chunking_problems for problem in problems]
        return tuple(dict.fromkeys([*problems, *self.retriever_warnings]))


def evaluate_configs(
    corpus: Corpus,
    questions: Sequence[Question],
    configs: Sequence[Config],
    jobs: int = 1,
    progress: ConfigProgress | None = None,
    evaluator: Evaluator | None = None,
    alongside: Callable[[], None] | None = None,
    finished: Callable[[int, ConfigResult], None] | None = None,
) -> Evaluation:
    """Evaluate ``configs`` with up to ``jobs`` worker processes (1: in this process).

    With ``evaluator`` they are evaluated by it, in this process, so its caches keep them.
    ``alongside`` is called once the evaluation has begun, to start work of its own in this process
    (a thread): with workers, only after they are forked, so that none is forked from a process
    running a thread of its own. ``finished`` is called in this process with each configuration's
    position and result as soon as it is in (in the order they finish).
    """
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    report = progress or _ignore_progress
    begun = alongside or _nothing
    taken = finished or _ignore_result
    workers = min(jobs, len(configs))
    if evaluator is not None or workers <= 1:
        begun()
        own = evaluator is None  # an evaluator given keeps its caches (the inspector's)
        outcomes = _evaluate_here(evaluator or Evaluator(corpus, questions), configs, report, taken, own)
    else:
        outcomes = _evaluate_in_pool(corpus, tuple(questions), configs, workers, report, begun, taken)
    problems: dict[str, tuple[str, ...]] = {}
    for outcome in outcomes:
        problems.setdefault(outcome.result.config.chunker, outcome.problems)
    caught = [note for outcome in outcomes for note in outcome.caught]
    return Evaluation(
        tuple(outcome.result for outcome in outcomes), tuple(problems.items()), tuple(dict.fromkeys(caught))
    )


def _ignore_progress(position: int, stage: str, done: int, total: int) -> None:
    return None


def _nothing() -> None:
    return None


def _ignore_result(position: int, result: ConfigResult) -> None:
    return None


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One configuration's result, its chunking's problems and the warnings raised while computing it."""

    result: ConfigResult
    problems: tuple[str, ...]
    caught: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Failure:
    """An input error raised in a worker: the exception itself when it pickles, else its message."""

    error: Exception | None
    message: str
    value_error: bool

    def exception(self) -> Exception:
        if self.error is not None:
            return self.error
        return ValueError(self.message) if self.value_error else ChunkscopeError(self.message)


def _failure(exc: Exception) -> _Failure:
    """What to send back for ``exc``: the same class and message in the parent when pickle can carry it."""
    try:
        copy = pickle.loads(pickle.dumps(exc))
        error = copy if type(copy) is type(exc) and str(copy) == str(exc) else None
    except Exception:  # any failure to pickle means: send the message
        error = None
    return _Failure(error, str(exc), not isinstance(exc, ChunkscopeError))


def _evaluate_here(
    evaluator: Evaluator,
    configs: Sequence[Config],
    report: ConfigProgress,
    taken: Callable[[int, ConfigResult], None],
    release: bool,
) -> list[_Outcome]:
    outcomes = []
    last_uses = LastUses(configs)
    for position, config in enumerate(configs):
        outcomes.append(_evaluate_one(evaluator, position, config, report))
        if release:
            evaluator.release(config, last_uses.after(position))
        taken(position, outcomes[-1].result)
        report(position, FINISHED, 1, 1)
    return outcomes


def _evaluate_one(evaluator: Evaluator, position: int, config: Config, report: ConfigProgress) -> _Outcome:
    """Evaluate one configuration, collecting its chunking's problems and chunkscope warnings."""
    with _collected_warnings() as caught:
        result = evaluator.evaluate(config, lambda stage, done, total: report(position, stage, done, total))
    problems = evaluator.chunking(config.chunker).chunking.problems
    return _Outcome(result, tuple(problems), tuple(caught))


@contextmanager
def _collected_warnings() -> Iterator[list[str]]:
    """Collect ChunkscopeWarnings raised inside as strings; other warnings are shown as usual."""
    collected: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ChunkscopeWarning)
        yield collected
    for record in caught:
        if issubclass(record.category, ChunkscopeWarning):
            collected.append(str(record.message))
        else:
            warnings.warn_explicit(record.message, record.category, record.filename, record.lineno)


# --- the pool -------------------------------------------------------------------------------------


def start_method() -> str:
    """``fork`` where the platform offers it (the dataset is inherited, not copied), else ``spawn``."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _evaluate_in_pool(
    corpus: Corpus,
    questions: tuple[Question, ...],
    configs: Sequence[Config],
    workers: int,
    report: ConfigProgress,
    begun: Callable[[], None],
    taken: Callable[[int, ConfigResult], None],
) -> list[_Outcome]:
    method = start_method()
    context = multiprocessing.get_context(method)
    messages: Any = context.Queue()
    # A forked worker inherits the dataset; a spawned one unpickles it once, in the initializer.
    dataset: object = (corpus, questions) if method == "fork" else dumps((corpus, questions))
    initargs = (dataset, tuple(configs), messages, os.getpid())
    executor = ProcessPoolExecutor(workers, context, initializer=_start_worker, initargs=initargs)
    try:
        with _sigint_ignored():  # workers start inside (on the first submit) and inherit the ignored SIGINT
            futures = {executor.submit(_work, position, config): position for position, config in enumerate(configs)}
        begun()  # the workers are running: the first submit started every one of them
        processes = _worker_processes(executor)
        ended = lambda: any(p.exitcode is not None for p in processes)  # noqa: E731
        outcomes = _collect(futures, corpus, messages, report, taken, ended)
    except BaseException:
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)
    return outcomes


def _collect(
    futures: dict[Future[bytes], int],
    corpus: Corpus,
    messages: Any,
    report: ConfigProgress,
    taken: Callable[[int, ConfigResult], None],
    ended: Callable[[], bool],
) -> list[_Outcome]:
    """Wait for every task, relaying the workers' progress; the first failure ends the wait, and so does a
    worker that ``ended`` while tasks are pending (workers end only once every task is done)."""
    outcomes: dict[int, _Outcome] = {}
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=STAGE_INTERVAL, return_when=FIRST_COMPLETED)
        _relay(messages, report, outcomes)
        for future in sorted(done, key=futures.__getitem__):
            position = futures[future]
            try:
                payload = loads(future.result(), corpus)
            except BrokenProcessPool:
                raise ChunkscopeError(WORKER_ENDED) from None
            if isinstance(payload, _Failure):
                raise payload.exception()
            outcomes[position] = payload
            taken(position, payload.result)
            report(position, FINISHED, 1, 1)
        if pending and not done and ended():
            # The executor sees a worker end only between two of its messages: one killed while it sent a
            # result (the out-of-memory killer) leaves it reading the rest, and the tasks pending for ever.
            raise ChunkscopeError(WORKER_ENDED)
    return [outcomes[position] for position in sorted(outcomes)]


def _relay(messages: Any, report: ConfigProgress, finished: dict[int, _Outcome]) -> None:
    """Pass on the progress messages waiting in the queue (late ones of finished configurations dropped)."""
    while True:
        try:
            position, stage, done, total = messages.get_nowait()
        except queue.Empty:
            return
        if position not in finished:
            report(position, stage, done, total)


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while worker processes start (only the main thread can change signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    """End the workers at once: queued tasks are cancelled and running ones killed."""
    # The executor offers no public way to end running tasks before Python 3.14 (terminate_workers).
    processes = _worker_processes(executor)
    # Taken before shutdown, which forgets them: a second shutdown(wait=True) would not join the thread.
    manager: threading.Thread | None = getattr(executor, "_executor_manager_thread", None)
    results: Any = getattr(executor, "_result_queue", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()
    # A worker ended while it sent a result (a large one takes a while) leaves the manager thread reading the
    # rest of that message, which no process will write: it waited for ever, and this join with it. With every
    # worker gone, this process holds the last write end of the results pipe; closing it gives the reader end
    # of file, and the manager thread ends as for a broken pool. (It never writes there.)
    if results is not None:
        results._writer.close()
    # Join the executor's manager thread too: left running, interpreter exit wakes it through a pipe that it
    # closes meanwhile in its own thread, which prints an "Exception ignored ... Bad file descriptor" traceback.
    if manager is not None:
        manager.join()


def _worker_processes(executor: ProcessPoolExecutor) -> list[Any]:
    """The executor's worker processes, started by the submits (it keeps them privately)."""
    return list((getattr(executor, "_processes", None) or {}).values())


# --- the worker -----------------------------------------------------------------------------------

_evaluator: Evaluator | None = None
_messages: Any = None
_last_uses: LastUses | None = None


def _start_worker(dataset: object, configs: tuple[Config, ...], messages: Any, parent: int) -> None:
    """Pool initializer: end with ``parent``; hold the dataset in a worker-wide Evaluator (a chunking, index or
    ranking kept while a later configuration of ``configs`` needs it)."""
    global _evaluator, _messages, _last_uses
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent(parent)
    corpus, questions = loads(dataset) if isinstance(dataset, bytes) else dataset  # type: ignore[misc]
    _evaluator = Evaluator(corpus, questions)
    _messages = messages
    _last_uses = LastUses(configs)


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when its parent dies (Linux)."""


def end_with_parent(parent: int) -> None:
    """Make this process end when ``parent`` (its parent now) ends, however it ends.

    On Linux the kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``); elsewhere, or when
    that fails, a daemon thread looks at the parent every PARENT_WATCH_INTERVAL seconds. Either way the
    parent is checked once more afterwards: if it died before, this process is already an orphan.
    """
    if not _kill_me_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), name="chunkscope-parent-watch", daemon=True).start()
    if os.getppid() != parent:
        _end_orphan()


def _kill_me_with_parent() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies; True when it will (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH_INTERVAL)
    _end_orphan()


def _end_orphan() -> None:
    """End this worker at once, its parent gone: no result can reach anyone."""
    remove_temporaries()  # cache shards being written
    os._exit(1)


def _work(position: int, config: Config) -> bytes:
    """Evaluate one configuration in a worker: its _Outcome, or a _Failure, pickled."""
    assert _evaluator is not None and _last_uses is not None, "the pool initializer has not run"
    try:
        outcome: _Outcome | _Failure = _evaluate_one(_evaluator, position, config, _StageSender(_messages))
    except (ChunkscopeError, ValueError) as exc:
        outcome = _failure(exc)
    # Tasks are taken in the order of the configurations: only a later one can come to this worker.
    _evaluator.release(config, _last_uses.after(position))
    return dumps(outcome, _evaluator.corpus)


class _StageSender:
    """Sends (position, stage, done, total) to the parent: each new stage, then at most every STAGE_INTERVAL."""

    def __init__(self, messages: Any) -> None:
        self.messages = messages
        self.last: tuple[int, str] | None = None
        self.sent_at = 0.0

    def __call__(self, position: int, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if (position, stage) == self.last and now - self.sent_at < STAGE_INTERVAL and done < total:
            return
        self.last = (position, stage)
        self.sent_at = now
        self.messages.put((position, stage, done, total))
