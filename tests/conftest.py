"""Shared fixtures: the bundled sample data and the JSQuAD file from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.squad import load_squad

REPO = Path(__file__).resolve().parents[1]
JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD", REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"))


@pytest.fixture(scope="session")
def jsquad_path() -> Path:
    """Path of JSQuAD valid; skips when absent, except in CI where it must be present."""
    if not JSQUAD.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the JSQuAD tests but {JSQUAD} is missing")
        pytest.skip(f"JSQuAD not found at {JSQUAD} (set CHUNKSCOPE_JSQUAD to its path)")
    return JSQUAD


@pytest.fixture(scope="session")
def jsquad(jsquad_path: Path) -> Dataset:
    """JSQuAD valid, loaded once per session."""
    return load_squad(jsquad_path)


@pytest.fixture(scope="session")
def sample() -> Dataset:
    """The bundled sample data."""
    return load_dataset()
