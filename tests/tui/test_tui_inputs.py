"""The inspector's inputs: --chunks/--run specs as the CLI writes them, and exports guarded like reports."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.cli.common import check_outputs
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import load_dataset, sample_paths
from chunkscope.pipeline.config import make_config
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.session import Session


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[ChunkscopeApp]:
    """Apps that ``run()`` would have started (not started: no terminal in tests)."""
    apps: list[ChunkscopeApp] = []
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


def test_inspect_with_chunks_and_run_fills_bare_specs_in_compare(started: list[ChunkscopeApp]) -> None:
    corpus, _ = sample_paths()
    chunks, run = corpus.parent / "imported" / "chunks.jsonl", corpus.parent / "imported" / "run.trec"
    assert main(["inspect", "--chunks", str(chunks), "--run", str(run), "--compare", "imported/bm25"]) == 0
    (app,) = started
    assert app.session.a.requested == make_config(f"imported:path={chunks}", f"run:path={run}")
    assert app.session.b is not None
    assert app.session.b.requested == make_config(f"imported:path={chunks}", "bm25")
    # the lazily read files were read before the app started: the chunking is cached
    assert len(app.session.evaluator.chunking(app.session.a.requested.chunker).chunking.units) == 72


def test_inspect_with_a_langchain_dump(
    started: list[ChunkscopeApp], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, _ = sample_paths()
    text = (corpus / "en" / "refunds.md").read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    documents = [
        {"page_content": p, "metadata": {"file": "/srv/docs/en/refunds.md", "start_index": -1}} for p in paragraphs
    ]
    dump = tmp_path / "langchain.json"
    dump.write_text(json.dumps(documents), encoding="utf-8")
    argv = ["inspect", "--chunks", str(dump), "--chunks-doc-key", "metadata.file", "--chunks-format", "langchain"]
    assert main(argv) == 0
    (app,) = started
    assert app.session.a.requested.chunker == (
        f"imported:path={dump},format=langchain,doc_key=metadata.file,offset_unit=codepoint"
    )
    units = app.session.evaluator.chunking(app.session.a.requested.chunker).chunking.units
    assert [u.text for u in units] == paragraphs and all(text[u.start : u.end] == u.text for u in units)
    err = capsys.readouterr().err
    assert (
        f"chunkscope: chunks {dump} (langchain): {len(paragraphs)} chunks: 0 exact, {len(paragraphs)} relocated" in err
    )


def test_inspector_exports_and_cli_reports_refuse_the_same_targets(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("Alpha beta.", encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "query": "alpha", "evidence": [{"doc": "a.md", "quote": "Alpha"}]}))
    session = Session(load_dataset(corpus, questions), make_config("paragraph"))
    targets = {
        questions: True,  # an input file
        corpus / "a.md": True,  # a corpus document
        corpus / "new.md": True,  # would become one
        corpus / "NOTES.TXT": True,  # suffixes in any case
        corpus / "report.json": False,  # the corpus loader does not read it
        tmp_path / "case.md": False,
    }
    for target, refused in targets.items():
        args = argparse.Namespace(corpus=str(corpus), questions=str(questions), squad=None, json=str(target))
        try:
            check_outputs(args)
        except ChunkscopeError as error:
            cli_refuses = "refusing to write" in str(error)
        else:
            cli_refuses = False
        assert (session.is_input_path(target), cli_refuses) == (refused, refused), target
