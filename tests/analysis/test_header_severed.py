"""Table rows delivered without their header row (cut kind ``header-severed``), on a hand-checked HTML table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.analysis.tables import SeveredRow, severed_rows
from chunkscope.cli import main
from chunkscope.io.corpus import load_corpus
from chunkscope.io.questions import load_questions
from chunkscope.model import Corpus
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT

HEADER = (101, 117)
"""``| Plan | Price |`` in :data:`HTML_WITH_TABLES_TEXT` (counted by hand, checked below)."""
ROWS = ((132, 146), (147, 160), (161, 185))
"""``| Basic | 10 |``, ``| Team | 25 |``, ``| Enterprise | call us |``."""


@pytest.fixture
def plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Corpus, Path]:
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path / "cache"))
    directory = tmp_path / "corpus"
    directory.mkdir()
    (directory / "plans.html").write_text(HTML_WITH_TABLES, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    quote = {"doc": "plans.html", "quote": "Enterprise | call us"}
    questions.write_text(json.dumps({"id": "q1", "query": "Enterprise call us", "evidence": [quote]}) + "\n")
    corpus, _ = load_corpus(directory)
    return corpus, questions


def test_the_hand_counted_offsets_hold() -> None:
    assert HTML_WITH_TABLES_TEXT[HEADER[0] : HEADER[1]] == "| Plan | Price |"
    assert [HTML_WITH_TABLES_TEXT[s:e] for s, e in ROWS] == [
        "| Basic | 10 |",
        "| Team | 25 |",
        "| Enterprise | call us |",
    ]


def _severed(corpus: Corpus, questions: Path, config: Config) -> tuple[SeveredRow, ...]:
    question_set, _ = load_questions(questions, corpus)
    (result,) = Evaluator(corpus, question_set.questions).evaluate(config).questions
    return severed_rows(result, corpus)


def test_fixed_windows_sever_exactly_the_last_row(plans: tuple[Corpus, Path]) -> None:
    # fixed:size=40 cuts at 120 and 160: the chunk [160, 200) holds the last row, the header lies in [80, 120)
    corpus, questions = plans
    assert _severed(corpus, questions, Config("fixed:size=40", top_k=1)) == (
        SeveredRow("plans.html", *ROWS[2], HEADER, 1),
    )


def test_a_chunk_holding_the_header_whole_in_the_context_unsevers(plans: tuple[Corpus, Path]) -> None:
    corpus, questions = plans
    record = json.loads(questions.read_text())
    questions.write_text(json.dumps(record | {"query": "Enterprise call us plan price"}) + "\n")
    # both [160, 200) and [80, 120), which holds the header whole, are delivered
    question_set, _ = load_questions(questions, corpus)
    (result,) = Evaluator(corpus, question_set.questions).evaluate(Config("fixed:size=40", top_k=2)).questions
    assert sorted((d.start, d.end) for d in result.delivered) == [(80, 120), (160, 200)]
    assert severed_rows(result, corpus) == ()


def test_the_markdown_chunker_keeps_tables_whole_or_repeats_the_header(plans: tuple[Corpus, Path]) -> None:
    corpus, questions = plans
    # the table (84 characters) fits: it is one block, kept whole
    assert _severed(corpus, questions, Config("markdown:max_chars=120", top_k=1)) == ()
    # it does not fit: split between rows, each later piece carries the header row as its prefix
    question_set, _ = load_questions(questions, corpus)
    (result,) = Evaluator(corpus, question_set.questions).evaluate(Config("markdown:max_chars=40", top_k=1)).questions
    (sent,) = result.delivered
    assert sent.start <= ROWS[2][0] < sent.end and sent.start > HEADER[1]  # the row, not the header line
    assert sent.chunk.prefix.startswith("| Plan | Price |\n")
    assert severed_rows(result, corpus) == ()
    # the same size as fixed windows severs a row
    assert _severed(corpus, questions, Config("fixed:size=40", top_k=1))


def test_eval_reports_name_the_severed_rows(plans: tuple[Corpus, Path], tmp_path: Path) -> None:
    _, questions = plans
    missed = {"doc": "plans.html", "quote": "Basic | 10"}  # in [120, 160): not delivered at top-1
    with questions.open("a") as handle:
        handle.write(json.dumps({"id": "q2", "query": "Enterprise call us", "evidence": [missed]}) + "\n")
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    argv = ["eval", "--corpus", str(tmp_path / "corpus"), "--questions", str(questions), "--chunker", "fixed:size=40"]
    assert main([*argv, "--top-k", "1", "--quiet", "--json", str(report), "--markdown", str(markdown)]) == 0
    severed = {"kind": "header-severed", "doc": "plans.html", "start": 161, "end": 185, "header_start": 101,
               "header_end": 117, "rank": 1}  # fmt: skip
    questions_out = json.loads(report.read_text(encoding="utf-8"))["configs"][0]["questions"]
    assert [q["header_severed"] for q in questions_out] == [[severed], [severed]]
    detail = "; header-severed: table rows delivered without their header row: plans.html 161-185 (#1)"
    assert all(q["failure_detail"].endswith(detail) for q in questions_out)
    (row,) = [line for line in markdown.read_text(encoding="utf-8").splitlines() if line.startswith("| q2 |")]
    assert row.endswith(" | header-severed plans.html 161–185 (#1) |")


def test_a_corpus_without_tables_has_no_header_severed_key(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    assert main(["eval", "--quiet", "--chunker", "fixed:size=200", "--json", str(report)]) == 0
    questions_out = json.loads(report.read_text(encoding="utf-8"))["configs"][0]["questions"]
    assert questions_out and all("header_severed" not in q for q in questions_out)


def test_the_case_file_names_the_severed_rows(plans: tuple[Corpus, Path]) -> None:
    from chunkscope.reports.casefile import case_file

    corpus, questions = plans
    question_set, _ = load_questions(questions, corpus)
    result = Evaluator(corpus, question_set.questions).evaluate(Config("fixed:size=40", top_k=1))
    text = case_file(question_set.questions[0], corpus, [result], "plans")
    (cause,) = [line for line in text.splitlines() if line.startswith("- Cause: ")]
    assert cause.endswith("; header-severed: table rows delivered without their header row: plans.html 161-185 (#1)")
