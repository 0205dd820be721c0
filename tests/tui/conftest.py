"""Fixtures every inspector test gets."""

from __future__ import annotations

import pytest

from chunkscope.tui.state import estimate


@pytest.fixture(autouse=True)
def fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedder's speed as if measured at a billion characters a second: no test depends on this machine's
    speed (a slow machine would ask before every dense evaluation) or measures it into the user's cache. The tests
    of the estimate set their own speed."""
    monkeypatch.setattr(estimate, "known_throughput", lambda key: 1e9)
