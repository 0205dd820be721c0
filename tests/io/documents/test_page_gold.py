"""Page gold: a page alone or with a quote (found within the page first), FinanceBench's 0-indexed pages, page hit."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.financebench import UnlocatedEvidenceWarning, load_financebench
from chunkscope.io.questions import load_questions
from chunkscope.model import Corpus
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from document_files import write_pdf

FIXTURE = Path(__file__).parents[2] / "fixtures" / "financebench" / "financebench_sample.jsonl"

ACME_PAGES = [
    ["ACME Corp annual report 2023", "Table of contents"],
    ["Revenue for fiscal 2023 was 1,234 million dollars.", "Operating income was 210 million dollars."],
    ["Capital expenditure was 77 million dollars.", "Revenue for fiscal 2023 was 1,234 million dollars."],
    ["Risk factors include supply chain disruption.", "Outlook remains stable."],
]
"""The text of each page of the FinanceBench fixture's filing (page 0 first, as FinanceBench counts)."""


@pytest.fixture
def acme(tmp_path: Path) -> Corpus:
    directory = tmp_path / "pdfs"
    directory.mkdir()
    write_pdf(directory / "ACME_2023_10K.pdf", ACME_PAGES)
    corpus, _ = load_corpus(directory)
    return corpus


def _questions(tmp_path: Path, *evidence: dict[str, object]) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q", "query": "revenue?", "evidence": list(evidence)}) + "\n", encoding="utf-8")
    return path


def test_a_page_alone_is_the_page_text_and_its_page(tmp_path: Path, acme: Corpus) -> None:
    document = acme.by_id["ACME_2023_10K.pdf"]
    questions, _ = load_questions(_questions(tmp_path, {"doc": document.id, "page": 3}), acme)
    (item,) = questions.questions[0].evidence
    (span,) = item.alternatives
    assert document.text[span.start : span.end].split("\n") == ACME_PAGES[2]
    assert [(p.page, p.start, p.end) for p in item.pages] == [(3, span.start, span.end)]


def test_page_base_0_names_the_same_page(tmp_path: Path, acme: Corpus) -> None:
    one, _ = load_questions(_questions(tmp_path, {"doc": "ACME_2023_10K.pdf", "page": 3}), acme)
    zero, _ = load_questions(_questions(tmp_path, {"doc": "ACME_2023_10K.pdf", "page": 2, "page_base": 0}), acme)
    assert one.questions[0].evidence == zero.questions[0].evidence
    assert one.questions[0].evidence[0].pages == zero.questions[0].evidence[0].pages


def test_a_quote_is_found_within_its_page_first(tmp_path: Path, acme: Corpus) -> None:
    document = acme.by_id["ACME_2023_10K.pdf"]
    quote = "Revenue for fiscal 2023 was 1,234 million dollars."
    assert document.text.count(quote) == 2  # on pages 2 and 3 (1-based): ambiguous without the page
    for page in (2, 3):
        questions, _ = load_questions(_questions(tmp_path, {"doc": document.id, "page": page, "quote": quote}), acme)
        (span,) = questions.questions[0].gold_spans
        assert document.text[span.start : span.end] == quote
        assert document.structure is not None and document.structure.page_at(span.start) == page


def test_a_quote_not_on_its_page_falls_back_to_the_whole_document(tmp_path: Path, acme: Corpus) -> None:
    document = acme.by_id["ACME_2023_10K.pdf"]
    quote = "Risk factors include supply chain disruption."
    questions, _ = load_questions(_questions(tmp_path, {"doc": document.id, "page": 1, "quote": quote}), acme)
    (span,) = questions.questions[0].gold_spans
    assert document.text[span.start : span.end] == quote
    assert questions.questions[0].evidence[0].pages[0].page == 1  # the page named stays the page gold


@pytest.mark.parametrize(
    ("evidence", "field", "message"),
    [
        ({"page": 5}, "evidence[0].page", "page 5 is outside 'ACME_2023_10K.pdf': it has 4 pages, numbered from 1"),
        ({"page": 0}, "evidence[0].page", "page 0 is outside 'ACME_2023_10K.pdf': it has 4 pages, numbered from 1"),
        ({"page": 4, "page_base": 0}, "evidence[0].page", "page 4 is outside 'ACME_2023_10K.pdf': it has 4 pages, "
         "numbered from 0"),
        ({"page": "2"}, "evidence[0].page", 'must be an integer, got "2"'),
        ({"page": 1, "page_base": 2}, "evidence[0].page_base", "must be 0 or 1, got 2"),
        ({"page": 1, "start": 0, "end": 3}, "evidence[0].start", "a page item takes a quote or nothing else"),
    ],
)  # fmt: skip
def test_a_bad_page_is_named_with_file_line_and_field(
    tmp_path: Path, acme: Corpus, evidence: dict[str, object], field: str, message: str
) -> None:
    path = _questions(tmp_path, {"doc": "ACME_2023_10K.pdf", **evidence})
    with pytest.raises(InputError) as caught:
        load_questions(path, acme)
    assert str(caught.value) == f"{path}:1: field '{field}': {message}"


def test_a_page_of_a_document_without_pages(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("plain text", encoding="utf-8")
    corpus, _ = load_corpus(tmp_path)
    with pytest.raises(InputError, match=r"field 'evidence\[0\].page': document 'a.md' has no pages"):
        load_questions(_questions(tmp_path, {"doc": "a.md", "page": 1}), corpus)


def test_financebench_rows_load_with_0_indexed_pages(acme: Corpus) -> None:
    document = acme.by_id["ACME_2023_10K.pdf"]
    assert document.structure is not None
    with pytest.warns(UnlocatedEvidenceWarning, match="1 evidence texts found nowhere"):
        questions, _ = load_financebench(FIXTURE, acme)
    by_id = {q.id: q for q in questions.questions}
    assert list(by_id) == [f"financebench_id_0000{n}" for n in range(1, 5)]
    first = by_id["financebench_id_00001"]
    (span,) = first.gold_spans
    assert document.text[span.start : span.end] == ACME_PAGES[1][0]
    assert document.structure.page_at(span.start) == 2 and first.evidence[0].pages[0].page == 2
    assert first.references == ("1,234 million dollars",)
    # whitespace differs from the PDF: the normalised rung finds it, within page 2 (0-indexed)
    (capex,) = by_id["financebench_id_00002"].gold_spans
    assert document.text[capex.start : capex.end] == ACME_PAGES[2][0]
    # a paraphrase found nowhere: the item is its page, page 3 (0-indexed) = 4 (1-based)
    (risk,) = by_id["financebench_id_00003"].gold_spans
    assert (risk.start, risk.end) == document.structure.pages[3]
    assert [item.pages[0].page for item in by_id["financebench_id_00004"].evidence] == [1, 4]


def test_a_financebench_page_outside_the_filing_names_row_and_field(tmp_path: Path, acme: Corpus) -> None:
    rows = FIXTURE.read_text(encoding="utf-8").splitlines()
    bad = json.loads(rows[1])
    bad["evidence"][0]["evidence_page_num"] = 4
    path = tmp_path / "fb.jsonl"
    path.write_text("\n".join([rows[0], json.dumps(bad)]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_financebench(path, acme)
    assert str(caught.value) == (
        f"{path}:2: field 'evidence[0].evidence_page_num': page 4 is outside 'ACME_2023_10K.pdf': it has 4 pages, "
        "numbered from 0"
    )


def _brute_force_page_hits(question: object, delivered: list[tuple[str, int, int]]) -> tuple[bool, ...]:
    """Per item naming pages: the set of delivered (doc, character) pairs meets the set of one page's characters."""
    sent = {(doc, position) for doc, start, end in delivered for position in range(start, end)}
    return tuple(
        any((page.doc, position) in sent for page in item.pages for position in range(page.start, page.end))
        for item in question.evidence  # type: ignore[attr-defined]
        if item.pages
    )


def test_page_hit_agrees_with_a_brute_force_oracle(tmp_path: Path) -> None:
    chooser = random.Random(7)
    directory = tmp_path / "pdfs"
    directory.mkdir()
    words = [
        "revenue",
        "income",
        "capital",
        "expenditure",
        "risk",
        "supply",
        "chain",
        "outlook",
        "margin",
        "cash",
        "debt",
        "equity",
    ]
    for number in range(3):
        pages = [[" ".join(chooser.choice(words) for _ in range(12)) for _ in range(4)] for _ in range(5)]
        write_pdf(directory / f"doc{number}.pdf", pages)
    corpus, _ = load_corpus(directory)
    lines = []
    for number in range(30):
        doc = f"doc{chooser.randrange(3)}.pdf"
        evidence: list[dict[str, object]] = [{"doc": doc, "page": chooser.randrange(1, 6)}]
        if number % 3 == 0:
            evidence.append({"doc": f"doc{chooser.randrange(3)}.pdf", "page": chooser.randrange(0, 5), "page_base": 0})
        query = " ".join(chooser.choice(words) for _ in range(3))
        lines.append(json.dumps({"id": f"q{number}", "query": query, "evidence": evidence}))
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    questions, _ = load_questions(path, corpus)
    evaluator = Evaluator(corpus, questions.questions)
    checked = 0
    for config in (Config("fixed:size=120", top_k=1), Config("fixed:size=300,overlap=50", top_k=3),
                   Config("fixed:size=80", top_k=5, budget=200)):  # fmt: skip
        result = evaluator.evaluate(config)
        for question, measured in zip(questions.questions, result.questions, strict=True):
            delivered = [(d.chunk.doc, d.start, d.end) for d in measured.delivered]
            assert measured.page_hits == _brute_force_page_hits(question, delivered), question.id
            checked += sum(measured.page_hits)
        values = result.summary.values
        assert values["page_gold"] == 30
        assert values["page_hit"] == sum(all(q.page_hits) for q in result.questions)
    assert checked > 0  # some hits and (below) some misses: the oracle was exercised both ways
    assert any(not all(q.page_hits) for q in evaluator.evaluate(Config("fixed:size=120", top_k=1)).questions)


def test_eval_with_financebench_reports_page_hit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "pdfs"
    directory.mkdir()
    write_pdf(directory / "ACME_2023_10K.pdf", ACME_PAGES)
    report = tmp_path / "r.json"
    argv = ["eval", "--corpus", str(directory), "--financebench", str(FIXTURE), "--chunker", "fixed:size=200"]
    assert main([*argv, "--quiet", "--json", str(report)]) == 0
    captured = capsys.readouterr()
    assert "1 evidence texts found nowhere" in captured.err
    (config,) = json.loads(report.read_text(encoding="utf-8"))["configs"]
    assert config["summary"]["page_gold"] == 4
    hits = config["summary"]["page_hit"]
    assert hits == sum(all(q["page_hits"]) for q in config["questions"])
    assert f"fixed:size=200/bm25: page hit {hits} of 4 questions with page gold" in " ".join(captured.out.split())


def test_reports_name_pages_of_delivered_chunks_and_cuts(tmp_path: Path) -> None:
    directory = tmp_path / "pdfs"
    directory.mkdir()
    write_pdf(directory / "ACME_2023_10K.pdf", ACME_PAGES)
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    argv = ["eval", "--corpus", str(directory), "--financebench", str(FIXTURE), "--chunker", "fixed:size=50"]
    assert main([*argv, "--quiet", "--json", str(report), "--markdown", str(markdown)]) == 0
    corpus, _ = load_corpus(directory)
    structure = corpus.by_id["ACME_2023_10K.pdf"].structure
    assert structure is not None
    (config,) = json.loads(report.read_text(encoding="utf-8"))["configs"]
    first = config["questions"][0]
    # page 2 is [48, 140): the quote [48, 98) (50 characters) is cut by the window boundary at 50
    assert structure.pages[1] == (48, 140)
    assert first["cuts"] == [{"doc": "ACME_2023_10K.pdf", "start": 48, "end": 98, "boundaries": [50],
                              "pieces": ["ACME_2023_10K.pdf#0", "ACME_2023_10K.pdf#1"], "pages": [2, 2]}]  # fmt: skip
    for delivered in first["delivered"]:
        touched = [n for n, (s, e) in enumerate(structure.pages, 1) if s < delivered["end"] and delivered["start"] < e]
        assert delivered["pages"] == [touched[0], touched[-1]]
    assert [len(q["page_hits"]) for q in config["questions"]] == [1, 1, 1, 2]
    (row,) = [line for line in markdown.read_text(encoding="utf-8").splitlines() if "financebench_id_00001" in line]
    assert row.endswith(" | ACME_2023_10K.pdf 48–98 (p. 2) at 50 |")
