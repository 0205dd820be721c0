"""Shared fixtures: the bundled sample data, the JSQuAD file from ../shared, and an unprivileged runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.squad import load_squad
from chunkscope.model import Chunk, Question
from chunkscope.retrievers.rerank import scorers

# In CI the property tests draw the same examples on every run (derived from each test's source), so that
# CI passes or fails on the code, not on the draw; locally they draw afresh each run and go on finding cases.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
JSQUAD_BESIDE = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
"""Where the JSQuAD tests look without CHUNKSCOPE_JSQUAD: ../shared/data beside the repository (the project layout)."""
JSQUAD = Path(os.environ.get("CHUNKSCOPE_JSQUAD") or JSQUAD_BESIDE)
PLUGINS = REPO / "tests" / "fixtures" / "plugins"
"""Holds the example plugin package ``cs_plugins`` (python: chunkers and retrievers)."""


def jsquad_missing() -> str | None:
    """Why the JSQuAD tests cannot run (where they looked, and how to point them at the file), or None."""
    if JSQUAD.is_file():
        return None
    if os.environ.get("CHUNKSCOPE_JSQUAD"):
        looked = f"CHUNKSCOPE_JSQUAD={JSQUAD} names no file"
    else:
        looked = f"CHUNKSCOPE_JSQUAD is not set and {JSQUAD_BESIDE} (../shared/data beside the repository) is absent"
    return (
        f"JSQuAD tests skipped: {looked}; run them with CHUNKSCOPE_JSQUAD=/path/to/jsquad-valid-v1.3.json "
        "(JGLUE's JSQuAD valid v1.3)"
    )


def pytest_report_header() -> str:
    """The session header says once whether the JSQuAD tests run, and on which file."""
    return jsquad_missing() or f"JSQuAD tests run on {JSQUAD}"


@pytest.fixture(scope="session")
def jsquad_path() -> Path:
    """Path of JSQuAD valid; skips when absent (saying where it looked), except in CI where it must be present."""
    missing = jsquad_missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the JSQuAD tests but {JSQUAD} is missing ({missing})")
        pytest.skip(missing)
    return JSQUAD


@pytest.fixture(scope="session")
def jsquad(jsquad_path: Path) -> Dataset:
    """JSQuAD valid, loaded once per session."""
    return load_squad(jsquad_path)


@pytest.fixture(scope="session")
def sample() -> Dataset:
    """The bundled sample data."""
    return load_dataset()


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Puts the example plugins on ``sys.path`` (``cs_plugins.chunking:windows`` ...) for one test."""
    monkeypatch.syspath_prepend(str(PLUGINS))
    return PLUGINS


class Unprivileged:
    """Runs Python where permission bits apply: as root they do not, so every capability is dropped first.

    ``run(code, *args)`` runs ``python -c code args``. As root it goes through
    ``setpriv`` with no capabilities (still uid 0, so files it makes are root's,
    but a mode like 0o555 now stops it). ``uid=N`` also switches to that user id
    (one without a passwd entry by default), keeping only the right to read and
    search, so the interpreter stays reachable.
    """

    def run(
        self, code: str, *args: str, uid: int | None = None, env: dict[str, str | None] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", code, *args]
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv: permission bits cannot be made to apply")
            if uid is None:
                command = [setpriv, "--bounding-set=-all", "--inh-caps=-all", *command]
            else:
                user = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
                keep = ["--inh-caps=-all,+dac_read_search", "--ambient-caps=+dac_read_search"]
                command = [setpriv, *user, *keep, *command]
        elif uid is not None and uid != os.getuid():
            pytest.skip("switching user needs root")
        merged = {**os.environ, **(env or {})}
        environment = {key: value for key, value in merged.items() if value is not None}
        return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def unprivileged() -> Unprivileged:
    """An :class:`Unprivileged` runner."""
    return Unprivileged()


@scorers.register("test-count")
@dataclass(frozen=True, slots=True)
class CountScorer:
    """A hand-checkable rerank scorer for tests: how often ``word`` occurs in the unit's text."""

    word: str = "beta"

    def build(self, units: Sequence[Chunk]) -> _CountIndex:
        return _CountIndex(self.word, units)


class _CountIndex:
    def __init__(self, word: str, units: Sequence[Chunk]) -> None:
        self.counts = [unit.text.split().count(word) + unit.text.split().count(word + ".") for unit in units]

    def score(self, question: Question, candidates: Sequence[int]) -> np.ndarray:
        return np.array([float(self.counts[i]) for i in candidates], dtype=np.float64)
