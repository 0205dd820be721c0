"""The document view's kept render states: bounded in number and in the characters they span."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chunkscope.tui.widgets import document_view


def state_over(characters: int) -> Any:
    """A stand-in render state over a document of ``characters`` characters (all the cache looks at)."""
    return SimpleNamespace(layer=SimpleNamespace(document=SimpleNamespace(text="x" * characters)))


def test_states_beyond_the_characters_kept_go_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_view, "STATE_CHARACTERS_KEPT", 100)
    kept = document_view._KeptStates()
    for key, size in (("a", 40), ("b", 40), ("c", 10)):
        kept.set(key, state_over(size))
    assert len(kept) == 3  # 90 characters
    assert kept.get("a") is not None  # used again: the newest now
    kept.set("d", state_over(30))  # 120: b, the oldest, goes
    assert kept.get("b") is None
    assert [key for key in ("a", "c", "d") if kept.get(key) is not None] == ["a", "c", "d"]
    kept.set("huge", state_over(500))  # over the bound alone: kept, the others go
    assert len(kept) == 1 and kept.get("huge") is not None


def test_states_beyond_the_number_kept_go_oldest_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(document_view, "STATES_KEPT", 2)
    kept = document_view._KeptStates()
    for key in ("a", "b", "c"):
        kept.set(key, state_over(1))
    assert kept.get("a") is None and kept.get("b") is not None and kept.get("c") is not None
    kept.set("c", state_over(5))  # set again: replaced, not counted twice
    assert len(kept) == 2
