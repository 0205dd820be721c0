"""The published eight swept on the sample data, and the inspector opened on their sweep map."""

from __future__ import annotations

from chunkscope.analysis.compare import compare_all
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import PUBLISHED_CHUNKERS, make_config
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.sweep_map import SweepInput
from chunkscope.tui.session import Session

MAP_SIZE = (100, 30)
CONFIGS = tuple(make_config(spec) for spec in PUBLISHED_CHUNKERS)
"""0 fixed 100, 1 fixed 100/20, 2 fixed 200, 3 fixed 200/40, 4 fixed 400, 5 fixed 400/80, 6 fixed 800/160,
7 paragraph."""


def sweep_app(dataset: Dataset) -> ChunkscopeApp:
    """The app as ``chunkscope sweep --preset published --inspect`` opens it (every result cached, A = the best)."""
    session = Session(dataset, CONFIGS[0])
    results = tuple(session.evaluator.evaluate(config) for config in CONFIGS)
    sweep = SweepInput(compare_all(results, seed=0), results)
    session.request("a", sweep.comparisons.configs[sweep.comparisons.best(sweep.comparisons.metrics[0])])
    return ChunkscopeApp(session, sweep=sweep)
