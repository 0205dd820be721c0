"""Fixtures of the hostile-input tests: valid input files to break."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import D1, D2, FAST, GOOD_CHUNKS, GOOD_QUESTION, inputs, jsonl, write

from chunkscope.cli import main


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Valid inputs: corpus, questions, chunks and a run (q1 ranks c2, which holds 'Delta', first)."""
    return {
        "corpus": write(tmp_path / "corpus.jsonl", jsonl([{"id": "d1", "text": D1}, {"id": "d2", "text": D2}])),
        "questions": write(tmp_path / "questions.jsonl", jsonl([GOOD_QUESTION])),
        "chunks": write(tmp_path / "chunks.jsonl", jsonl(GOOD_CHUNKS)),
        "run": write(tmp_path / "run.trec", "q1 Q0 c2 1 3.0 prod\nq1 Q0 c1 2 1.0 prod\n"),
    }


@pytest.fixture
def baseline(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """A real report of the FAST configuration, as parsed JSON."""
    path = tmp_path / "baseline.json"
    assert main(["eval", *inputs(files), *FAST, "--json", str(path)]) == 0
    capsys.readouterr()
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report
