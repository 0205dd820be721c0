"""Asking before long work: a configuration whose dense embedding is estimated at over ``ASK_OVER_S`` seconds
starts only once the user says so (once per configuration); esc in the dialog leaves the configuration as it was.

The app hands each configuration request to :meth:`LongWorkGate.holds` first. Without a measured speed for the
model, the gate measures it (once per model and machine, in a thread) and then asks, if it must.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.screen import Screen

from chunkscope.results import Config
from chunkscope.retrievers.dense import Dense
from chunkscope.tui import messages
from chunkscope.tui.screens.confirm import ConfirmLongWork
from chunkscope.tui.state import estimate
from chunkscope.tui.state.session import Session
from chunkscope.tui.state.slots import Side

ScreenOpener = Callable[[Screen[Any], Callable[[Any], None]], None]
"""How the gate opens its dialog: the app's ``open_screen`` (which opens nothing once the app is quitting)."""


class LongWorkGate:
    """Holds back the configuration requests whose computation would take long until the user agrees."""

    def __init__(self, app: App[Any], session: Session, open_screen: ScreenOpener) -> None:
        # The app's parts, not the app class: tui.app imports this module.
        self.app = app
        self.session = session
        self.open_screen = open_screen
        self.agreed: set[Config] = set()
        """Configurations the user agreed to compute (not asked again)."""
        self.measuring: set[str] = set()
        """Embedders whose speed is being measured."""

    def holds(self, side: Side, config: Config) -> bool:
        """True when the request for ``config`` waits (for a measurement or an answer); False: go on with it."""
        session = self.session
        evaluator = session.evaluator
        if config in self.agreed or evaluator.cached(config) is not None:
            return False
        if (config.chunker, config.retriever) in evaluator.held_indexes:
            return False  # the embeddings are in memory: nothing is embedded again
        params = estimate.embedder(config)
        if params is None:
            return False
        key = estimate.embedder_key(params)
        speed = estimate.known_throughput(key)
        if speed is None:
            if key not in self.measuring:
                self.measuring.add(key)
                self.app.notify(
                    f"Measuring the speed of {params.model} on this machine (once), to estimate {config.label}…",
                    title="Estimate",
                    markup=False,
                )
                self.app.run_worker(
                    lambda: self._measure(side, config, params, key),
                    thread=True,
                    exit_on_error=False,
                    group="estimate",
                    description="measure the embedder",
                )
            return True
        corpus = sum(len(document.text) for document in session.dataset.corpus.documents)
        queries = sum(len(question.query) for question in session.questions)
        characters = estimate.embedded_characters(config, corpus, queries)
        if characters / speed <= estimate.ASK_OVER_S:
            return False

        def answered(start: bool | None) -> None:
            if start:
                self.agreed.add(config)
                self.app.post_message(messages.ConfigRequested(side, config))
            else:
                session.decline(side)
                self.app.notify(f"Not started: {config.label}.", title="Estimate", markup=False)

        self.open_screen(
            ConfirmLongWork("Long computation", estimate.estimate_text(config, characters, speed)), answered
        )
        return True

    def _measure(self, side: Side, config: Config, params: Dense, key: str) -> None:
        """Measure the embedder's speed (in a thread), then let the request come again."""
        try:
            estimate.measure_throughput(params)
        finally:
            self.measuring.discard(key)
        self.app.post_message(messages.ConfigRequested(side, config))
