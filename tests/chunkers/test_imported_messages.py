"""Messages a user can act on when a dump cannot be placed: a splitter that rewrote the text, a LlamaIndex docstore
of input documents, document ids that are not corpus ids (issue 22, item 15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.chunkers.imported import ImportedChunker, read_chunks
from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.model import Corpus, Document

FIXTURES = Path(__file__).parents[1] / "fixtures" / "dumps"
GUIDE, _ = load_corpus(FIXTURES / "corpus.jsonl")

MARKDOWN = """# Returns

Returns are free
within 30 days.

- keep the receipt
- keep the box

## Refunds

Refunds take 5 days.

Contact support if they do not arrive.

## Shipping

Shipping takes 3 days.

Express takes 1 day.
"""


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def markdown_header_dump(strip_headers: bool) -> list[dict[str, Any]]:
    splitters = pytest.importorskip("langchain_text_splitters")
    splitter = splitters.MarkdownHeaderTextSplitter(
        [("#", "Header 1"), ("##", "Header 2")], strip_headers=strip_headers
    )
    documents = splitter.split_text(MARKDOWN)
    for document in documents:
        document.metadata["source"] = "help.md"
    return [document.model_dump() for document in documents]


@pytest.mark.parametrize("strip_headers", [True, False])
def test_markdown_header_splitter_output_is_named_as_rewritten_text(tmp_path: Path, strip_headers: bool) -> None:
    records = markdown_header_dump(strip_headers)
    # by hand: every chunk joins lines or paragraphs ("  \n") or keeps its header line, so none stands in the text
    assert all(r["page_content"] not in MARKDOWN for r in records)
    path = write_jsonl(tmp_path / "dump.jsonl", records)
    corpus = Corpus((Document("help.md", MARKDOWN),))
    with pytest.raises(InputError) as caught:
        ImportedChunker(path).chunk_corpus(corpus)
    message = caught.value.message
    assert message.startswith(f"the chunking is empty: none of its {len(records)} chunks could be located: ")
    assert f"{len(records)} chunks not found match the document text once whitespace" in message
    assert "the splitter rewrote the text (LangChain's MarkdownHeaderTextSplitter strips the headers" in message
    assert "add_start_index=True" in message


def test_a_partly_rewritten_dump_says_so_among_its_warnings(tmp_path: Path) -> None:
    records = [
        {"page_content": "Refunds take 5 days.", "metadata": {"source": "help.md"}},  # verbatim
        {"page_content": "Shipping takes 3 days.  \nExpress takes 1 day.", "metadata": {"source": "help.md"}},
        {"page_content": "nowhere in the text", "metadata": {"source": "help.md"}},
    ]
    chunking = read_chunks(write_jsonl(tmp_path / "dump.jsonl", records), Corpus((Document("help.md", MARKDOWN),)))
    summary = chunking.imported
    assert summary is not None and (summary.relocated, summary.not_found, summary.rewritten) == (1, 2, 1)
    assert any("1 chunk not found matches the document text once whitespace" in p for p in chunking.problems)


INGESTION_DOCSTORE = {
    # the shape IngestionPipeline.persist() writes (llama-index-core 0.14): the input Document, no relationships
    "docstore/metadata": {"6a2d4c1e-5b7f-4e2a-9c3d-8f1e0a7b6c5d": {"doc_hash": "a0e5"}},
    "docstore/data": {
        "6a2d4c1e-5b7f-4e2a-9c3d-8f1e0a7b6c5d": {
            "__data__": {
                "id_": "6a2d4c1e-5b7f-4e2a-9c3d-8f1e0a7b6c5d",
                "embedding": None,
                "metadata": {"file_name": "guide.md"},
                "excluded_embed_metadata_keys": [],
                "excluded_llm_metadata_keys": [],
                "relationships": {},
                "text_resource": {"embeddings": None, "text": "Returns are free.", "path": None, "url": None},
                "class_name": "Document",
                "text": "Returns are free.",
            },
            "__type__": "4",
        }
    },
}


def test_an_ingestion_pipeline_docstore_is_named_as_documents_not_nodes(tmp_path: Path) -> None:
    path = tmp_path / "docstore.json"
    path.write_text(json.dumps(INGESTION_DOCSTORE), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_chunks(str(path), GUIDE)
    message = caught.value.message
    assert message.startswith("is a LlamaIndex Document, not a node: this holds the input documents")
    assert "IngestionPipeline" in message and "pipeline.run()" in message
    assert "--chunks-doc-key metadata.file_name" in message
    assert caught.value.field == "docstore/data.6a2d4c1e-5b7f-4e2a-9c3d-8f1e0a7b6c5d.__data__.class_name"
    assert "got null" not in message  # the old message named only the missing ref_doc_id


def test_an_unknown_document_id_suggests_the_field_that_names_a_corpus_document() -> None:
    # the docstore's ref_doc_id is LlamaIndex's own UUID-like id; metadata.file_name is "guide.md", a corpus id
    with pytest.raises(InputError) as caught:
        read_chunks(str(FIXTURES / "llamaindex-docstore.json"), GUIDE)
    assert caught.value.message == (
        "unknown document '3f1c0e2a-doc': no corpus id matches it, but its field metadata.file_name ('guide.md') "
        "names corpus document 'guide.md': use --chunks-doc-key metadata.file_name"
    )


def test_an_unknown_document_id_without_a_fitting_field_names_the_corpus_id_shape(tmp_path: Path) -> None:
    record = {"page_content": "Returns are free.", "metadata": {"source": "7d1e-uuid", "author": "me"}}
    with pytest.raises(InputError) as caught:
        read_chunks(write_jsonl(tmp_path / "dump.jsonl", [record]), GUIDE)
    assert caught.value.message == (
        "unknown document '7d1e-uuid': no corpus id matches it, nor does any other field of the chunk: give "
        "--chunks-doc-key naming a field that holds corpus ids (such as 'guide.md') or their paths"
    )
