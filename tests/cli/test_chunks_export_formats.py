"""``chunkscope chunks --format langchain|llamaindex --ids uuid|int``: rows that load into those libraries' objects
with their id, offsets and document kept, ids a vector store accepts, and every export read back exactly."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import sample_paths

SPEC = "markdown"


def export(tmp_path: Path, *options: str) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path / f"chunks{len(list(tmp_path.iterdir()))}.jsonl"
    assert main(["chunks", SPEC, "--out", str(out), *options]) == 0
    return out, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def corpus_text(doc: str) -> str:
    corpus, _ = sample_paths()
    return (corpus / doc).read_text(encoding="utf-8")


def evaluate(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["eval", *argv, "--json", "-"]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    return config  # type: ignore[no-any-return]


def test_langchain_rows_load_into_documents_with_id_offsets_and_source(tmp_path: Path) -> None:
    documents = pytest.importorskip("langchain_core.documents")
    _, own = export(tmp_path)
    _, rows = export(tmp_path, "--format", "langchain")
    assert len(rows) == len(own)
    for row, chunk in zip(rows, own, strict=True):
        document = documents.Document(**row)
        assert document.id == chunk["id"]
        assert document.metadata["source"] == chunk["doc"]
        start, end = document.metadata["start_index"], document.metadata["end_index"]
        assert (start, end) == (chunk["start"], chunk["end"])
        assert document.page_content == corpus_text(chunk["doc"])[start:end]
        assert document.model_dump() == {**row, "type": "Document"}  # nothing dropped on the way in


# TextNode's published fields (llama_index.core.schema, 0.10 to 0.14): the row must use these names, since
# TextNode(**row) ignores any other key; checked against llama-index-core 0.14.25 by the reference test below.
TEXT_NODE_FIELDS = {
    "id_", "embedding", "metadata", "excluded_embed_metadata_keys", "excluded_llm_metadata_keys", "relationships",
    "metadata_template", "metadata_separator", "text", "mimetype", "start_char_idx", "end_char_idx",
    "text_template", "class_name",
}  # fmt: skip
SOURCE = "1"  # NodeRelationship.SOURCE
DOCUMENT = "4"  # ObjectType.DOCUMENT


def test_llamaindex_rows_use_text_node_fields(tmp_path: Path) -> None:
    _, own = export(tmp_path)
    _, rows = export(tmp_path, "--format", "llamaindex")
    for row, chunk in zip(rows, own, strict=True):
        assert set(row) <= TEXT_NODE_FIELDS
        assert row["id_"] == chunk["id"] and row["class_name"] == "TextNode"
        assert (row["start_char_idx"], row["end_char_idx"]) == (chunk["start"], chunk["end"])
        assert row["text"] == corpus_text(chunk["doc"])[chunk["start"] : chunk["end"]]
        assert row["relationships"][SOURCE]["node_id"] == chunk["doc"]  # what TextNode.ref_doc_id reads
        assert row["relationships"][SOURCE]["node_type"] == DOCUMENT
        # metadata is prepended to the embedded and the LLM text unless excluded: all of it is excluded
        assert (
            set(row["excluded_embed_metadata_keys"]) == set(row["excluded_llm_metadata_keys"]) == set(row["metadata"])
        )


@pytest.mark.reference
def test_llamaindex_rows_load_into_text_nodes(tmp_path: Path) -> None:
    schema = pytest.importorskip("llama_index.core.schema")
    _, rows = export(tmp_path, "--format", "llamaindex", "--ids", "uuid")
    for row in rows:
        for node in (schema.TextNode(**row), schema.TextNode.from_dict(row)):
            assert node.node_id == row["id_"] and node.ref_doc_id == row["metadata"]["doc"]
            assert (node.start_char_idx, node.end_char_idx) == (row["start_char_idx"], row["end_char_idx"])
            assert node.get_content(schema.MetadataMode.EMBED) == row["text"]


@pytest.mark.parametrize("format", ["chunkscope", "langchain", "llamaindex"])
@pytest.mark.parametrize("ids", ["chunk", "uuid", "int"])
def test_every_export_reads_back_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], format: str, ids: str
) -> None:
    out, _ = export(tmp_path, "--format", format, "--ids", ids)
    direct = evaluate(capsys, "--chunker", SPEC)
    imported = evaluate(capsys, "--chunks", str(out))
    summary = imported["chunk_import"]
    assert summary["format"] == format
    assert summary["exact"] == summary["chunks"] == direct["summary"]["index_chunks"]
    assert imported["summary"] == direct["summary"]


def test_ids_for_vector_stores(tmp_path: Path) -> None:
    _, own = export(tmp_path)
    _, by_uuid = export(tmp_path, "--ids", "uuid")
    _, again = export(tmp_path, "--format", "langchain", "--ids", "uuid")
    _, by_int = export(tmp_path, "--ids", "int")
    chunk_ids = [row["id"] for row in own]
    # deterministic: uuid5 of the chunk id in the documented namespace, the same in every format and run
    expected = [str(uuid.uuid5(uuid.NAMESPACE_URL, "chunkscope:" + chunk_id)) for chunk_id in chunk_ids]
    assert [row["id"] for row in by_uuid] == expected == [row["id"] for row in again]
    assert all(uuid.UUID(row["id"]).version == 5 for row in by_uuid)
    assert len(set(expected)) == len(expected)
    assert [row["id"] for row in by_int] == list(range(len(own)))  # JSON integers, as Qdrant takes them
    # the chunk id is kept beside the new id
    assert [row["chunk_id"] for row in by_uuid] == chunk_ids == [row["metadata"]["chunk_id"] for row in again]


def test_a_run_with_vector_store_ids_is_read_against_the_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # an engine that indexed the uuid export returns uuids: read back with the same export, they match
    out, rows = export(tmp_path, "--ids", "uuid")
    _, questions = sample_paths()
    first = json.loads(questions.read_text(encoding="utf-8").splitlines()[0])["id"]
    run = tmp_path / "run.trec"
    run.write_text(
        "".join(f"{first} Q0 {row['id']} {rank} {100 - rank} engine\n" for rank, row in enumerate(rows[:5], 1))
    )
    config = evaluate(capsys, "--chunks", str(out), "--run", str(run))
    ranked = next(q for q in config["questions"] if q["id"] == first)["ranked"]
    assert [hit["id"] for hit in ranked[:5]] == [row["id"] for row in rows[:5]]
