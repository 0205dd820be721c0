"""What the inspector names from a structure map: page labels, element kinds, page gold, a severed row's place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.analysis.structure import (
    page_gold_labels,
    page_span_label,
    severed_in_document,
    severed_row_place,
    structure_labels,
)
from chunkscope.analysis.tables import SeveredRow
from chunkscope.io.corpus import load_corpus
from chunkscope.io.questions import load_questions
from chunkscope.model import Corpus, Document, EvidenceItem, PageGold, Span
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT, write_pdf

PAGES = [["ACME annual report", "Revenue grew."], ["Page two text here", "more"], ["Third page"]]


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Corpus:
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path / "cache"))
    directory = tmp_path / "corpus"
    directory.mkdir()
    (directory / "plans.html").write_text(HTML_WITH_TABLES, encoding="utf-8")
    write_pdf(directory / "report.pdf", PAGES)
    loaded, _ = load_corpus(directory)
    return loaded


def test_pdf_pages_are_labelled_at_their_starts(corpus: Corpus) -> None:
    report = corpus.by_id["report.pdf"]
    # each page's first line opens it: found in the extracted text by hand, pages joined by a blank line
    starts = [report.text.index(lines[0]) for lines in PAGES]
    assert starts[0] == 0 and all(report.text[s - 2 : s] == "\n\n" for s in starts[1:])
    assert structure_labels(report) == ((starts[0], "p. 1"), (starts[1], "p. 2"), (starts[2], "p. 3"))


def test_html_elements_are_labelled_by_kind_and_paragraphs_are_not(corpus: Corpus) -> None:
    plans = corpus.by_id["plans.html"]
    assert plans.text == HTML_WITH_TABLES_TEXT
    text = HTML_WITH_TABLES_TEXT
    expected = [
        (text.index("# Plans"), "h1"),
        (text.index("- Basic"), "list"),
        (text.index("  - one user"), "list"),
        (text.index("  - email support"), "list"),
        (text.index("- Team"), "list"),
        (text.index("| Plan |"), "table"),
        (text.index("## Cancelling"), "h2"),
    ]
    assert list(structure_labels(plans)) == expected


def test_a_document_without_a_map_has_no_labels() -> None:
    document = Document("notes.md", "# Title\n\ntext")
    assert structure_labels(document) == ()
    assert page_span_label(document, 0, 5) == ""


def test_page_span_labels(corpus: Corpus) -> None:
    report = corpus.by_id["report.pdf"]
    second = report.text.index("Page two")
    third = report.text.index("Third")
    assert page_span_label(report, 0, 5) == "p. 1"
    assert page_span_label(report, second, third + 1) == "pp. 2–3"
    # the blank line between pages 1 and 2 lies on no page
    assert page_span_label(report, second - 2, second) == ""
    assert page_span_label(report, second - 3, second) == "p. 1"


def test_page_gold_labels() -> None:
    whole = EvidenceItem((Span("report.pdf", 34, 57),), pages=(PageGold("report.pdf", 2, 34, 57),))
    plain = EvidenceItem((Span("plans.html", 0, 5),))
    either = EvidenceItem((Span("a.pdf", 0, 4),), pages=(PageGold("a.pdf", 12, 0, 4), PageGold("b.pdf", 3, 0, 9)))
    assert page_gold_labels((whole, plain, either)) == ("p. 2 of report.pdf", "p. 12 of a.pdf or p. 3 of b.pdf")
    assert page_gold_labels((plain,)) == ()


def test_a_severed_row_is_placed_in_its_table(corpus: Corpus) -> None:
    plans = corpus.by_id["plans.html"]
    text = HTML_WITH_TABLES_TEXT
    header = (text.index("| Plan"), text.index(" |\n| ---") + 2)
    last = text.index("| Enterprise")
    row = SeveredRow("plans.html", last, last + len("| Enterprise | call us |"), header, 1)
    assert severed_row_place(plans, row) == (1, 3)
    assert severed_row_place(plans, SeveredRow("plans.html", 0, 5, header, 1)) is None


def test_the_severed_rows_of_one_document_are_the_cores(corpus: Corpus, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    record = {"id": "q1", "query": "Enterprise call us", "evidence": [{"doc": "plans.html", "quote": "call us"}]}
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    question_set, _ = load_questions(questions, corpus)
    (result,) = Evaluator(corpus, question_set.questions).evaluate(Config("fixed:size=40", top_k=1)).questions
    # [160, 200) holds the last row, the header lies in [80, 120): the hand-checked case of test_header_severed
    last = HTML_WITH_TABLES_TEXT.index("| Enterprise")
    (row,) = severed_in_document(result, corpus.by_id["plans.html"])
    assert (row.start, row.end, row.rank) == (last, last + len("| Enterprise | call us |"), 1)
    assert severed_in_document(result, corpus.by_id["report.pdf"]) == ()
    assert severed_in_document(None, corpus.by_id["plans.html"]) == ()
