"""PDF, HTML and DOCX files written by other libraries (or by hand) extract to known text with known offsets."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkscope.io.corpus import load_corpus
from chunkscope.io.documents.extract import extract_file
from chunkscope.model import Document
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT, write_docx, write_pdf


def _normalised(text: str) -> str:
    """The stated normalisation for PDF text: every whitespace run one space, none at either end."""
    return re.sub(r"\s+", " ", text).strip()


SOURCE_PAGES = [
    [f"Page {page} line {line}: revenue grew {page * line} percent in region {line}." for line in range(1, 8)]
    for page in range(1, 6)
]


def test_a_multi_page_pdf_matches_its_source_text_page_by_page(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "report.pdf", SOURCE_PAGES)
    text, structure = extract_file(path)
    assert structure.source_format == "pdf"
    assert len(structure.pages) == len(SOURCE_PAGES)
    for number, (lines, (start, end)) in enumerate(zip(SOURCE_PAGES, structure.pages, strict=True), start=1):
        assert _normalised(text[start:end]) == _normalised(" ".join(lines)), number
        assert structure.page_at(start) == number and structure.page_at(end - 1) == number
    assert _normalised(text) == _normalised(" ".join(" ".join(lines) for lines in SOURCE_PAGES))
    # the blank line between pages belongs to no page
    assert text[structure.pages[0][1] : structure.pages[1][0]] == "\n\n"
    assert structure.page_at(structure.pages[0][1]) is None


def test_html_with_tables_and_nested_lists_extracts_to_the_hand_written_text(tmp_path: Path) -> None:
    path = tmp_path / "plans.html"
    path.write_text(HTML_WITH_TABLES, encoding="utf-8")
    text, structure = extract_file(path)
    assert text == HTML_WITH_TABLES_TEXT
    kinds = [(element.kind, text[element.start : element.end], element.level) for element in structure.elements]
    assert kinds[:6] == [
        ("heading", "# Plans and prices", 1),
        ("paragraph", "Every plan is billed monthly.", 0),
        ("list-item", "- Basic", 0),
        ("list-item", "  - one user", 1),
        ("list-item", "  - email support", 1),
        ("list-item", "- Team", 0),
    ]
    (table,) = structure.tables
    assert table.header is not None and text[table.header[0] : table.header[1]] == "| Plan | Price |"
    assert [text[s:e] for s, e in table.rows] == ["| Basic | 10 |", "| Team | 25 |", "| Enterprise | call us |"]
    assert kinds[7:] == [("heading", "## Cancelling", 2), ("paragraph", "Cancel any time from the account page.", 0)]


def test_a_docx_with_headings_a_list_and_a_table(tmp_path: Path) -> None:
    text, structure = extract_file(write_docx(tmp_path / "handbook.docx"))
    assert text == (
        "# Refund handbook\n\nRefunds are paid within 14 days.\n\n## Fees\n\n"
        "- Return shipping costs 5 euros.\n\n- Opened software is not refunded.\n\n"
        "| Item | Fee |\n| --- | --- |\n| Shirt | 5 |\n| Laptop | 20 |\n\nQuestions go to the help desk."
    )
    assert [e.kind for e in structure.elements] == [
        "heading", "paragraph", "heading", "list-item", "list-item", "table", "paragraph"
    ]  # fmt: skip
    (table,) = structure.tables
    assert table.header is not None and text[table.header[0] : table.header[1]] == "| Item | Fee |"
    assert [text[s:e] for s, e in table.rows] == ["| Shirt | 5 |", "| Laptop | 20 |"]


def test_cells_with_a_bar_and_ragged_rows_stay_one_markdown_row_each(tmp_path: Path) -> None:
    path = tmp_path / "t.html"
    path.write_text("<table><tr><td>a|b</td><td>c</td></tr><tr><td>1\n2</td></tr></table>", encoding="utf-8")
    text, structure = extract_file(path)
    assert text == "| a\\|b | c |\n| --- | --- |\n| 1 2 |  |"
    assert [text[s:e] for s, e in structure.tables[0].rows] == ["| 1 2 |  |"]


def test_a_corpus_directory_mixes_text_files_and_extracted_documents(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nplain text\n", encoding="utf-8")
    (tmp_path / "plans.html").write_text(HTML_WITH_TABLES, encoding="utf-8")
    write_pdf(tmp_path / "report.pdf", SOURCE_PAGES[:2])
    write_docx(tmp_path / "handbook.docx")
    corpus, _ = load_corpus(tmp_path)
    assert [d.id for d in corpus.documents] == ["handbook.docx", "notes.md", "plans.html", "report.pdf"]
    notes = corpus.by_id["notes.md"]
    assert notes == Document("notes.md", "# Notes\n\nplain text\n", title="notes.md") and notes.structure is None
    assert corpus.by_id["plans.html"].text == HTML_WITH_TABLES_TEXT
    report = corpus.by_id["report.pdf"].structure
    assert report is not None and len(report.pages) == 2


def test_the_structure_takes_no_part_in_equality() -> None:
    from chunkscope.model import DocumentMap

    assert Document("a", "x", structure=DocumentMap("pdf", ((0, 1),))) == Document("a", "x")
    assert hash(Document("a", "x", structure=DocumentMap("html"))) == hash(Document("a", "x"))


@pytest.mark.parametrize("suffix", [".pdf", ".html", ".docx"])
def test_every_offset_of_the_map_lies_in_the_text(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"doc{suffix}"
    if suffix == ".pdf":
        write_pdf(path, SOURCE_PAGES)
    elif suffix == ".docx":
        write_docx(path)
    else:
        path.write_text(HTML_WITH_TABLES, encoding="utf-8")
    text, structure = extract_file(path)
    ranges = [*structure.pages, *((e.start, e.end) for e in structure.elements)]
    ranges += [r for e in structure.elements for r in (*e.rows, *([e.header] if e.header else []))]
    assert ranges and all(0 <= start <= end <= len(text) for start, end in ranges)
    # no range is empty or ends in whitespace (a nested list item starts with its indentation)
    assert all(text[s:e] and text[s:e].rstrip() == text[s:e] for s, e in ranges)


def test_a_line_break_inside_a_paragraph_keeps_the_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "br.html"
    path.write_text("<p>line one<br>line two</p><p>next</p>", encoding="utf-8")
    text, structure = extract_file(path)
    assert text == "line one line two\n\nnext"
    assert [e.kind for e in structure.elements] == ["paragraph", "paragraph"]
