"""Haystack Document.to_dict() dumps and chonkie dumps of several documents, placed in their documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.chunkers.imported import read_chunks
from chunkscope.io.chunk_dumps import read_dump
from chunkscope.io.corpus import load_corpus

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets" / "dumps"
CORPUS, _ = load_corpus(FIXTURES / "corpus.jsonl")


def _records(path: Path) -> list[dict]:
    text = path.read_text()
    return json.loads(text) if path.suffix == ".json" else [json.loads(line) for line in text.splitlines()]


def _naive_place(text: str, piece: str, claimed: int) -> int:
    """Where the piece is: the claimed offset when it holds, checked character by character."""
    assert all(text[claimed + i] == character for i, character in enumerate(piece))
    return claimed


@pytest.mark.parametrize(
    ("name", "doc_field", "start_field"),
    [
        ("haystack.jsonl", "file_path", "split_idx_start"),
        ("haystack_nested.json", "meta.file_path", "meta.split_idx_start"),
    ],
)
def test_haystack_splits_land_at_their_split_idx_start(name: str, doc_field: str, start_field: str) -> None:
    path = FIXTURES / name
    dump = read_dump(str(path))
    assert dump.format == "haystack"
    assert {(c.doc_field, c.start_field) for c in dump.chunks} == {(doc_field, start_field)}
    chunking = read_chunks(str(path), CORPUS)
    records = _records(path)
    assert len(chunking.units) == len(records)
    for unit, record in zip(
        sorted(chunking.units, key=lambda u: u.id), sorted(records, key=lambda r: r["id"]), strict=True
    ):
        meta = record.get("meta", record)
        text = CORPUS.by_id[meta["file_path"]].text
        start = _naive_place(text, record["content"], meta["split_idx_start"])
        assert (unit.doc, unit.start, unit.end) == (meta["file_path"], start, start + len(record["content"]))
    assert chunking.imported is not None and chunking.imported.exact == len(records)


def test_a_haystack_split_without_a_file_path_names_its_source_id(tmp_path: Path) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text(
        json.dumps({"id": "a", "content": "Fees", "source_id": "guides/fees.md", "split_idx_start": 0}) + "\n"
    )
    (chunk,) = read_dump(str(path)).chunks
    assert (chunk.doc_ref, chunk.doc_field, chunk.start) == ("guides/fees.md", "source_id", 0)


def test_a_chonkie_dump_of_several_documents_reads_each_chunks_doc() -> None:
    path = FIXTURES / "chonkie_docs.jsonl"
    records = _records(path)
    chunking = read_chunks(str(path), CORPUS)
    assert chunking.imported is not None and chunking.imported.doc_key == "doc"
    placed = sorted((u.doc, u.start, u.end) for u in chunking.units)
    expected = sorted(
        (r["doc"], _naive_place(CORPUS.by_id[r["doc"]].text, r["text"], r["start_index"]), r["end_index"])
        for r in records
    )
    assert placed == expected
    assert {doc for doc, _, _ in placed} == {"guides/returns.md", "guides/fees.md"}
