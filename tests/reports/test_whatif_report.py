"""What-if reports: the same facts in JSON, CSV and Markdown."""

from __future__ import annotations

import csv
import io
import json

from chunkscope.analysis.whatif import whatif
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.reports.eval import to_json
from chunkscope.reports.whatif import CSV_COLUMNS, whatif_csv, whatif_markdown, whatif_report


def small_case() -> tuple[Corpus, list[Question]]:
    """Windows of 10 over 30 characters: q1's [8,13) is cut at 10, q2's [2,5) is whole, q3's [0,25) is cut twice."""
    corpus = Corpus((Document(id="d", text="abcdefghijklmnopqrstuvwxyz0123"),))
    questions = [
        Question(id="q1", query="?", evidence=(EvidenceItem((Span("d", 8, 13),)),)),
        Question(id="q2", query="?", evidence=(EvidenceItem((Span("d", 2, 5),)),)),
        Question(id="q3", query="?", evidence=(EvidenceItem((Span("d", 0, 25),)),)),
    ]
    return corpus, questions


def test_json_report_holds_every_span_option_and_candidate() -> None:
    corpus, questions = small_case()
    report = json.loads(to_json(whatif_report(whatif("fixed:size=10", corpus, questions))))["whatif"]
    assert report["chunker"] == "fixed:size=10,overlap=0" and report["questions"] == 3
    assert report["lost"] == ["q1", "q3"]
    assert report["index"] == {"chunks": 3, "indexed_chars": 30}
    first, second = report["spans"]
    assert (first["question"], first["start"], first["end"], first["boundaries"]) == ("q1", 8, 13, [[0, 10], [10, 20]])
    assert [o["parameter"] for o in first["options"]] == ["size", "overlap", "shift"]
    # q3's 25 characters fit no window of 10: only a size (25) holds it.
    assert [(o["parameter"], o["value"]) for o in second["options"]] == [("size", 25)]
    # size 25: [0,25) [25,30) hold both q1 and q3 with 2 chunks; no other candidate recovers both.
    assert report["recommendation"]["spec"] == "fixed:size=25,overlap=0"
    assert report["recommendation"]["recovered"] == ["q1", "q3"]
    assert report["recommendation"]["chunk_growth"] == -1
    assert {c["spec"] for c in report["candidates"]} == {
        "fixed:size=13,overlap=0",
        "fixed:size=10,overlap=2",
        "fixed:size=10,overlap=0,shift=3",
        "fixed:size=25,overlap=0",
    }


def test_csv_has_one_row_per_option_with_the_setting_evaluated() -> None:
    corpus, questions = small_case()
    rows = list(csv.DictReader(io.StringIO(whatif_csv(whatif("fixed:size=10", corpus, questions)))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(r["question"], r["parameter"], r["value"]) for r in rows] == [
        ("q1", "size", "13"),
        ("q1", "overlap", "2"),
        ("q1", "shift", "3"),
        ("q3", "size", "25"),
    ]
    recommended = [r for r in rows if r["recommended"] == "True"]
    assert [(r["spec"], r["recovers_questions"], r["chunk_growth"]) for r in recommended] == [
        ("fixed:size=25,overlap=0", "2", "-1")
    ]


def test_markdown_names_the_recommendation_and_each_option() -> None:
    corpus, questions = small_case()
    text = whatif_markdown(whatif("fixed:size=10", corpus, questions))
    assert "2 of 3 questions lost" in text
    assert "**Recommended:** `fixed:size=25,overlap=0` recovers 2 of 2 lost questions" in text
    assert "| q1 | 0 | `d` [8, 13) | [0, 10) [10, 20) | size 10 → 13; overlap 0 → 2; shift 0 → 3 |" in text


def test_nothing_lost_is_said_plainly() -> None:
    corpus, questions = small_case()
    result = whatif("fixed:size=30", corpus, questions)
    assert "No recommendation: no question is lost." in whatif_markdown(result)
    assert whatif_report(result)["whatif"]["recommendation"] is None
    assert whatif_csv(result).splitlines() == [",".join(CSV_COLUMNS)]
