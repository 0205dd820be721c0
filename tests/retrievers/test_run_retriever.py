"""TREC run files as a retriever: ordering, repeats, absent questions, and every error."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.errors import InputError, SpecError
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.run import RunFile, read_run

UNITS = tuple(Chunk(f"u{i}", "d", i * 10, i * 10 + 10, "x" * 10) for i in range(8))


def question(qid: str) -> Question:
    return Question(qid, "q", (EvidenceItem((Span("d", 0, 1),)),))


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "run.trec"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_orders_by_rank_then_score_and_keeps_the_first_of_a_repeated_id(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "q1 Q0 u3 2 5.0 t\n"
        "q1 Q0 u1 1 1.0 t\n"
        "q1 Q0 u2 2 7.5 t\n"  # rank 2 tie: u2 (7.5) before u3 (5.0)
        "\n"
        "q1 Q0 u1 4 9.0 t\n"  # repeated: keeps rank 1
        "q1\tQ0\tu5\t10\t-3\tt\n",  # tabs, a gap in ranks, a negative score: still retrieved
    )
    (ranking,) = RunFile(path).build(UNITS).rank([question("q1")], depth=20)
    assert ranking.indices == (1, 2, 3, 5)
    assert ranking.scores == (1.0, 7.5, 5.0, -3.0)


def test_depth_cuts_and_absent_questions_are_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "q1 Q0 u0 1 3 t\nq1 Q0 u1 2 2 t\nq1 Q0 u2 3 1 t\nother Q0 u4 1 1 t\n")
    first, absent = RunFile(path).build(UNITS).rank([question("q1"), question("q2")], depth=2)
    assert first.indices == (0, 1)
    assert absent.indices == () and absent.scores == ()


def test_unknown_chunk_ids_are_listed(tmp_path: Path) -> None:
    lines = "".join(f"q1 Q0 missing{i} {i + 1} 1 t\n" for i in range(7))
    path = write(tmp_path, "q1 Q0 u0 1 1 t\n" + lines)
    with pytest.raises(InputError) as caught:
        RunFile(path).build(UNITS)
    message = str(caught.value)
    assert "7 chunk ids are not in the chunking: missing0, missing1, missing2, missing3, missing4 and 2 more" in message
    assert (caught.value.line, caught.value.field) == (2, "chunk_id")


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("q1 Q0 u0 1 t", None, "expected 6 whitespace-separated fields"),
        ("q1 Q0 u0 first 1.0 t", "rank", "must be an integer, got 'first'"),
        ("q1 Q0 u0 1 high t", "score", "must be a number, got 'high'"),
        ("q1 Q0 u0 1 1.0 t extra", None, "got 7"),
    ],
)
def test_malformed_lines_name_line_and_field(tmp_path: Path, line: str, field: str | None, message: str) -> None:
    path = write(tmp_path, f"q1 Q0 u0 1 1 t\n{line}\n")
    with pytest.raises(InputError, match=message) as caught:
        read_run(path)
    assert (caught.value.line, caught.value.field) == (2, field)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read run file"):
        read_run(str(tmp_path / "absent.trec"))


def test_bare_run_needs_a_path() -> None:
    with pytest.raises(SpecError, match="run needs path=FILE"):
        parse_retriever("run")
