"""``chunkscope corpus export``: the texts as chunkscope reads them, and the maps beside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT, write_pdf


def test_export_writes_each_text_and_each_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "web").mkdir(parents=True)
    (corpus / "web" / "plans.html").write_text(HTML_WITH_TABLES, encoding="utf-8")
    (corpus / "notes.md").write_text("plain\r\ntext\n", encoding="utf-8", newline="")
    write_pdf(corpus / "report.pdf", [["first page"], ["second page"]])
    out = tmp_path / "out"
    assert main(["corpus", "export", str(out), "--corpus", str(corpus)]) == 0
    assert capsys.readouterr().err == f"wrote 5 files for 3 documents under {out}\n"
    assert (out / "web" / "plans.html.txt").read_text(encoding="utf-8") == HTML_WITH_TABLES_TEXT
    assert (out / "notes.md.txt").read_bytes() == b"plain\r\ntext\n"  # byte for byte: offsets stay true
    assert not (out / "notes.md.map.json").exists()
    report = json.loads((out / "report.pdf.map.json").read_text(encoding="utf-8"))
    text = (out / "report.pdf.txt").read_text(encoding="utf-8")
    assert report["format"] == "pdf" and report["elements"] == []
    assert [(p["page"], text[p["start"] : p["end"]]) for p in report["pages"]] == [
        (1, "first page"),
        (2, "second page"),
    ]
    plans = json.loads((out / "web" / "plans.html.map.json").read_text(encoding="utf-8"))
    table = next(e for e in plans["elements"] if e["kind"] == "table")
    start, end = table["header"]
    assert HTML_WITH_TABLES_TEXT[start:end] == "| Plan | Price |"


def test_export_into_the_corpus_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    assert main(["corpus", "export", str(tmp_path / "out"), "--corpus", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    inside = f"it lies inside the corpus directory {tmp_path}"
    assert err == f"chunkscope: error: refusing to write into {tmp_path / 'out'}: {inside}\n"
    assert not (tmp_path / "out").exists()
