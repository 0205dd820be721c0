"""A document that cannot be extracted is one line naming the file and the cause, skipped and counted."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.documents import base as documents
from chunkscope.io.documents.base import DocumentSkipped
from chunkscope.io.documents.extract import extract_file
from chunkscope.io.documents.html import decode_html
from document_files import write_encrypted_pdf, write_pdf, write_scanned_pdf


def _skip_cause(path: Path) -> str:
    with pytest.raises(DocumentSkipped) as caught:
        extract_file(path)
    return str(caught.value)


def test_an_encrypted_pdf(tmp_path: Path) -> None:
    cause = _skip_cause(write_encrypted_pdf(tmp_path / "locked.pdf", ["secret plans"]))
    assert cause == "encrypted PDF (it needs a password): decrypt it first"


def test_a_scanned_pdf_without_a_text_layer(tmp_path: Path) -> None:
    cause = _skip_cause(write_scanned_pdf(tmp_path / "scan.pdf", 3))
    assert cause == "no text layer on any of its 3 pages (a scan? run OCR first)"


def test_a_damaged_pdf(tmp_path: Path) -> None:
    good = write_pdf(tmp_path / "good.pdf", [["hello"]])
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(good.read_bytes()[:200])
    assert _skip_cause(damaged).startswith("damaged PDF (")
    (tmp_path / "not.pdf").write_bytes(b"this is not a PDF at all")
    assert _skip_cause(tmp_path / "not.pdf").startswith("damaged PDF (")


def test_a_pdf_with_more_pages_than_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_PAGES", 2)
    assert _skip_cause(write_pdf(tmp_path / "big.pdf", [["a"], ["b"], ["c"]])) == "too large: 3 pages, the limit is 2"


def test_a_file_past_the_byte_limit_is_not_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_FILE_BYTES", 10)
    (tmp_path / "a.html").write_text("<p>more than ten bytes</p>", encoding="utf-8")
    assert _skip_cause(tmp_path / "a.html") == "too large: 26 bytes, the limit is 10"


def test_extracted_text_past_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_TEXT_CHARS", 50)
    (tmp_path / "a.html").write_text("<p>" + "word " * 40 + "</p>", encoding="utf-8")
    assert _skip_cause(tmp_path / "a.html") == "too large: the extracted text passes 50 characters"


def test_html_in_a_declared_charset_is_decoded_by_it(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes('<meta charset="windows-1252"><p>Caf\u00e9 \u20ac5</p>'.encode("cp1252"))
    text, _ = extract_file(path)
    assert text == "Caf\u00e9 \u20ac5"
    assert decode_html(b"\xef\xbb\xbf<p>x</p>") == ("<p>x</p>", "utf-8")
    http_equiv = b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>Caf\xe9</p>'
    assert decode_html(http_equiv) == (http_equiv.decode("latin-1"), "iso8859-1")


def test_html_not_utf8_with_no_charset_names_the_first_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes(b"<p>Caf\xe9</p>")
    assert _skip_cause(path) == "not UTF-8 (byte 0xe9 at offset 6) and no <meta charset> names its encoding"
    path.write_bytes(b'<meta charset="klingon"><p>x</p>')
    assert _skip_cause(path) == "unknown charset 'klingon' in its <meta charset>"


def test_a_bomb_of_nested_elements_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.html"
    path.write_text("<div>" * 100_000 + "deep" + "</div>" * 100_000 + "<p>after</p>", encoding="utf-8")
    # libxml2 stops nesting at 256 levels: no recursion error, little memory, and the document is skipped
    assert _skip_cause(path) == "elements nested deeper than libxml2's limit of 256 levels: a bomb of elements?"
    path.write_text("<div>" * 200 + "deep" + "</div>" * 200 + "<p>after</p>", encoding="utf-8")
    assert extract_file(path)[0] == "deep\n\nafter"
    monkeypatch.setattr(documents, "MAX_ELEMENTS", 1000)
    path.write_text("<span>x</span>" * 2000, encoding="utf-8")
    assert _skip_cause(path) == "too many elements (more than 1000): a bomb of elements?"


def test_a_docx_that_is_not_a_zip(tmp_path: Path) -> None:
    (tmp_path / "a.docx").write_text("plain text pretending", encoding="utf-8")
    assert _skip_cause(tmp_path / "a.docx") == "not a DOCX: the file is not a zip archive"


def test_a_zip_that_is_no_docx(tmp_path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "a.docx", "w") as archive:
        archive.writestr("hello.txt", "hi")
    assert _skip_cause(tmp_path / "a.docx").startswith("damaged DOCX (")


def _questions(path: Path, doc: str, quote: str) -> Path:
    path.write_text(json.dumps({"id": "q1", "query": quote, "evidence": [{"doc": doc, "quote": quote}]}) + "\n")
    return path


Writer = Callable[[Path], object]


def test_eval_skips_the_bad_document_with_one_warning_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_pdf(corpus / "good.pdf", [["Refunds are paid within 14 days."]])
    write_encrypted_pdf(corpus / "locked.pdf", ["x"])
    (corpus / "broken.docx").write_text("not a zip", encoding="utf-8")
    questions = _questions(tmp_path / "q.jsonl", "good.pdf", "paid within 14 days")
    code = main(["eval", "--corpus", str(corpus), "--questions", str(questions), "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    warnings_seen = [line for line in captured.err.splitlines() if line.startswith("chunkscope: warning: ")]
    assert warnings_seen == [
        f"chunkscope: warning: {corpus / 'broken.docx'}: skipped: not a DOCX: the file is not a zip archive",
        f"chunkscope: warning: {corpus / 'locked.pdf'}: skipped: encrypted PDF (it needs a password): decrypt it first",
        f"chunkscope: warning: {corpus}: 2 of 3 documents skipped",
    ]


def test_nothing_usable_left_is_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_scanned_pdf(corpus / "scan.pdf", 1)
    questions = _questions(tmp_path / "q.jsonl", "scan.pdf", "x")
    code = main(["eval", "--corpus", str(corpus), "--questions", str(questions), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("chunkscope: error: ")]
    assert errors == [f"chunkscope: error: {corpus}: no usable document: all 1 files were skipped (see the warnings)"]


def test_without_the_documents_extra_such_files_are_skipped_not_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "lxml", None)  # import lxml now fails, as without chunkscope[documents]
    monkeypatch.setitem(sys.modules, "lxml.html", None)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text("Refunds are paid within 14 days.\n", encoding="utf-8")
    (corpus / "page.html").write_text("<p>hello</p>", encoding="utf-8")
    questions = _questions(tmp_path / "q.jsonl", "notes.md", "paid within 14 days")
    code = main(["eval", "--corpus", str(corpus), "--questions", str(questions), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    warnings_seen = [line for line in err.splitlines() if line.startswith("chunkscope: warning: ")]
    assert warnings_seen == [
        f"chunkscope: warning: {corpus / 'page.html'}: skipped: reading .html files needs the optional dependency "
        "'lxml': install it with  pip install 'chunkscope[documents]'",
        f"chunkscope: warning: {corpus}: 1 of 2 documents skipped",
    ]
