"""Shared inputs and checks of the hostile-input tests.

The standard: bad input gets a clear message naming the file, line and field, exit code 2, never a
traceback; input files are never modified; reports are written atomically (and never over an input).
Option values argparse rejects keep argparse's own format (usage line(s), then ``chunkscope CMD: error:``).

The corpus used throughout (offsets by hand):

    d1: "Alpha beta gamma. Delta epsilon zeta."   37 characters; "Delta" at 18..23, "zeta" at 32..36
    d2: "Kappa lambda mu nu."                      19 characters
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main

D1 = "Alpha beta gamma. Delta epsilon zeta."
D2 = "Kappa lambda mu nu."
GOOD_QUESTION = {"id": "q1", "query": "delta epsilon", "evidence": [{"doc": "d1", "quote": "Delta"}]}
GOOD_CHUNKS = [
    {"id": "c1", "doc": "d1", "start": 0, "end": 18},
    {"id": "c2", "doc": "d1", "start": 18, "end": 37},
    {"id": "c3", "doc": "d2", "start": 0, "end": 19},
]
FAST = ("--chunker", "fixed:size=20")
CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
"""The console script's entry point in a fresh process."""


def jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def inputs(files: dict[str, Path]) -> list[str]:
    return ["--corpus", str(files["corpus"]), "--questions", str(files["questions"])]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI in-process; assert exit 2 and exactly one stderr line; return that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("chunkscope: error: "), err
    return lines[0]


def argparse_error(capsys: pytest.CaptureFixture[str], command: str, *argv: str) -> str:
    """An option value argparse refuses: its standard usage + one error line, exit 2, no traceback."""
    with pytest.raises(SystemExit) as caught:
        main([command, *argv])
    err = capsys.readouterr().err
    assert caught.value.code == 2
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines[0].startswith("usage: chunkscope")
    assert lines[-1].startswith(f"chunkscope {command}: error: argument "), err
    return lines[-1]


# --- records to break ----------------------------------------------------------------------------


def question(**changes: Any) -> dict[str, Any]:
    """The good question with ``changes`` applied."""
    return {**GOOD_QUESTION, **changes}


def evidence(*items: Any) -> dict[str, Any]:
    """The good question with ``items`` as its evidence list."""
    return question(evidence=list(items))


def squad(*qas: dict[str, Any], context: str = "Alpha beta gamma delta.") -> dict[str, Any]:
    """A SQuAD file of one article with one paragraph holding ``qas``."""
    return {"data": [{"title": "T", "paragraphs": [{"context": context, "qas": list(qas)}]}]}


def qa(**changes: Any) -> dict[str, Any]:
    """A good SQuAD question ('gamma' starts at 11 in "Alpha beta gamma delta.") with ``changes`` applied."""
    return {"id": "a1p0q0", "question": "which?", "answers": [{"text": "gamma", "answer_start": 11}], **changes}
