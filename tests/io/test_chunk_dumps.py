"""Reading chunk dumps: containers, format detection and its failures, each format's fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.chunk_dumps import read_dump


def test_a_dump_of_no_known_format_says_what_was_tried(tmp_path: Path) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_text('\n{"content": "Returns are free.", "offset": 0}\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_dump(str(path))
    assert caught.value.line == 2
    assert str(caught.value) == (
        f"{path}:2: the first chunk matches no chunks format (tried chunkscope: no 'id' or 'doc' field; "
        "langchain: no 'page_content' field; llamaindex: no 'text' field; chonkie: no 'text' field; "
        "haystack: no 'split_idx_start' or 'source_id' field); "
        "or force one with --chunks-format"
    )


def test_a_later_chunk_of_another_shape_names_its_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "dump.json"
    records = [
        {"page_content": "Returns are free.", "metadata": {"source": "guide.md", "start_index": 0}},
        {"text": "x"},
    ]
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    with pytest.raises(InputError, match="missing") as caught:
        read_dump(str(path))
    assert (caught.value.line, caught.value.field) == (9, "[1].page_content")


def test_langchain_serialised_by_dumpd(tmp_path: Path) -> None:
    record = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "document", "Document"],
        "kwargs": {"page_content": "Fees apply.", "metadata": {"source": "a.md", "start_index": 7}, "type": "Document"},
    }
    path = tmp_path / "dump.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    dump = read_dump(str(path))
    (chunk,) = dump.chunks
    assert (dump.format, chunk.id, chunk.doc_ref, chunk.text, chunk.start, chunk.end) == (
        "langchain", "0", "a.md", "Fees apply.", 7, None
    )  # fmt: skip


def test_docstore_with_nodes_stored_as_json_strings(tmp_path: Path) -> None:
    node = {"id_": "n1", "text": "Fees apply.", "start_char_idx": None, "end_char_idx": None, "relationships": {}}
    store = {
        "docstore/data": {"n1": {"__data__": json.dumps(node)}},
        "docstore/metadata": {"n1": {"ref_doc_id": "a.md"}},
    }
    path = tmp_path / "docstore.json"
    path.write_text(json.dumps(store), encoding="utf-8")
    (chunk,) = read_dump(str(path)).chunks
    # no source relationship: the docstore's ref_doc_id names the document
    assert (chunk.id, chunk.doc_ref, chunk.where, chunk.line) == ("n1", "a.md", "docstore/data.n1.__data__.", None)


def test_forcing_another_format_on_a_docstore_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "docstore.json"
    path.write_text(json.dumps({"docstore/data": {}}), encoding="utf-8")
    with pytest.raises(InputError, match="is a LlamaIndex docstore, not a chonkie dump"):
        read_dump(str(path), "chonkie")


def test_a_json_array_names_the_line_each_chunk_starts_on(tmp_path: Path) -> None:
    records = [{"id": f"c{i}", "doc": "a.md", "text": "x"} for i in range(3)]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")
    assert [chunk.line for chunk in read_dump(str(path)).chunks] == [2, 7, 12]
