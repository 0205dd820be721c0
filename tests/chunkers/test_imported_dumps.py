"""Chunk dumps of other tools: LlamaIndex nodes and docstores, chonkie, units, document keys, detection failures.

The fixtures in tests/fixtures/dumps are hand-written in each tool's shape over one document,
``guide.md``, whose two "Contact support." passages sit at 19 and 61 (the second dumped with the
first one's offset, as a ``find`` from the start gives), and whose last chunk holds an emoji.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.imported import read_chunks
from chunkscope.errors import InputError, SpecError
from chunkscope.io.corpus import load_corpus
from chunkscope.model import Corpus, Document

FIXTURES = Path(__file__).parents[1] / "fixtures" / "dumps"
GUIDE, _ = load_corpus(FIXTURES / "corpus.jsonl")
TEXT = GUIDE.documents[0].text
# by hand: the five passages and where they start
TRUTH = [("Returns are free.", 0), ("Contact support.", 19), ("Shipping takes 3 days.", 37),
         ("Contact support.", 61), ("Refunds take 5 days 😀.", 79)]  # fmt: skip


def spans(chunking: object) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunking.units]  # type: ignore[attr-defined]


def truth_spans() -> list[tuple[int, int]]:
    return [(start, start + len(text)) for text, start in TRUTH]


def test_the_fixture_truth_holds() -> None:
    assert all(TEXT[start:end] == text for (text, _), (start, end) in zip(TRUTH, truth_spans(), strict=True))


def test_llamaindex_nodes_first_occurrence_offset_is_corrected() -> None:
    chunking = read_chunks(str(FIXTURES / "llamaindex-nodes.jsonl"), GUIDE)
    assert spans(chunking) == truth_spans()
    assert [c.id for c in chunking.units] == [f"node-{i}" for i in range(5)]
    summary = chunking.imported
    assert summary is not None
    # node-3 claims 19 (the first occurrence), node-4 has no offsets: both relocated by order
    assert (summary.format, summary.exact, summary.relocated, summary.unplaced) == ("llamaindex", 3, 2, ())


def test_llamaindex_docstore_with_a_document_key() -> None:
    path = str(FIXTURES / "llamaindex-docstore.json")
    # its ref_doc_id is LlamaIndex's own id, not a corpus id
    with pytest.raises(InputError, match="unknown document '3f1c0e2a-doc'") as caught:
        read_chunks(path, GUIDE)
    assert caught.value.field == "docstore/data.node-0.__data__.ref_doc_id"
    chunking = read_chunks(path, GUIDE, doc_key="metadata.file_name")
    assert spans(chunking) == truth_spans()
    assert chunking.imported is not None and chunking.imported.format == "llamaindex"


def test_chonkie_export_with_the_corpus_only_document() -> None:
    chunking = read_chunks(str(FIXTURES / "chonkie.jsonl"), GUIDE)
    assert spans(chunking) == truth_spans()
    assert chunking.imported is not None
    assert (chunking.imported.format, chunking.imported.exact, chunking.imported.relocated) == ("chonkie", 4, 1)
    two = Corpus((*GUIDE.documents, Document("other.md", "x")))
    with pytest.raises(InputError, match="the dump names no document and the corpus has 2"):
        read_chunks(str(FIXTURES / "chonkie.jsonl"), two)


def test_utf16_offsets_are_converted() -> None:
    path = str(FIXTURES / "utf16.jsonl")
    chunking = read_chunks(path, GUIDE, offset_unit="utf16")
    assert spans(chunking) == truth_spans()
    assert chunking.units[-1].text.endswith("😀.")
    # read as code points, the last end (102 UTF-16 units) takes one character too many
    assert read_chunks(path, GUIDE).units[-1].text == "Refunds take 5 days 😀.\n"


@pytest.mark.parametrize(
    ("unit", "end", "message"),
    [
        ("utf16", 100, r"offset 100 \(utf16\) falls between the halves of the surrogate pair of '😀' \(U\+1F600"),
        (
            "utf8",
            101,
            r"offset 101 \(utf8\) falls inside the multi-byte character '😀' \(U\+1F600, UTF-8 bytes 99..103\)",
        ),
    ],
)
def test_an_offset_inside_a_character_is_an_error(tmp_path: Path, unit: str, end: int, message: str) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "c", "doc": "guide.md", "start": 79, "end": end}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_chunks(str(path), GUIDE, offset_unit=unit)
    assert (caught.value.line, caught.value.field) == (1, "end")


def test_forced_format_and_spec_parameters(tmp_path: Path) -> None:
    chunker = parse_chunker(f"imported:path={FIXTURES / 'chonkie.jsonl'},format=chonkie")
    assert spans(chunk_corpus(chunker, GUIDE)) == truth_spans()
    with pytest.raises(SpecError, match="format must be auto, chunkscope, langchain, llamaindex, chonkie, haystack"):
        parse_chunker("imported:path=x,format=unstructured")
    with pytest.raises(SpecError, match="offset_unit must be codepoint, utf8, utf16"):
        parse_chunker("imported:path=x,offset_unit=bytes")
    # forcing a format the chunks are not in names the first chunk and field that does not fit
    with pytest.raises(InputError, match="page_content") as caught:
        read_chunks(str(FIXTURES / "chonkie.jsonl"), GUIDE, format="langchain")
    assert caught.value.line == 1


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("en/guide.md", "en/guide.md"),
        ("/srv/corpus/en/guide.md", "en/guide.md"),
        ("C:\\corpus\\en\\guide.md", "en/guide.md"),
        ("faq.md", "ja/faq.md"),
    ],
)
def test_document_references_match_by_path(tmp_path: Path, reference: str, expected: str) -> None:
    corpus = Corpus((Document("en/guide.md", "alpha"), Document("ja/guide.md", "alpha"), Document("ja/faq.md", "beta")))
    text = corpus.by_id[expected].text
    path = tmp_path / "dump.jsonl"
    path.write_text(json.dumps({"page_content": text, "metadata": {"source": reference}}) + "\n", encoding="utf-8")
    (unit,) = read_chunks(str(path), corpus).units
    assert unit.doc == expected


def test_an_ambiguous_document_reference_is_an_error(tmp_path: Path) -> None:
    corpus = Corpus((Document("en/guide.md", "alpha"), Document("ja/guide.md", "alpha")))
    path = tmp_path / "dump.jsonl"
    path.write_text(json.dumps({"page_content": "alpha", "metadata": {"source": "guide.md"}}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"document 'guide\.md' matches 2 corpus documents") as caught:
        read_chunks(str(path), corpus)
    assert (caught.value.line, caught.value.field) == (1, "metadata.source")


def _langchain_dump(tmp_path: Path) -> Path:
    documents = [
        {"page_content": text, "metadata": {"source": "guide.md", "start_index": start}} for text, start in TRUTH
    ]
    path = tmp_path / "langchain.json"
    path.write_text(json.dumps(documents), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("dump", "doc_key", "used", "note"),
    [
        ("LANGCHAIN", None, "metadata.source", "documents by metadata.source"),
        ("llamaindex-nodes.jsonl", None, "ref_doc_id", "documents by ref_doc_id"),
        ("llamaindex-docstore.json", "metadata.file_name", "metadata.file_name", "documents by metadata.file_name"),
        ("chonkie.jsonl", None, None, "documents: the corpus's only one"),
    ],
)
def test_the_summary_says_which_document_key_was_used(
    tmp_path: Path, dump: str, doc_key: str | None, used: str | None, note: str
) -> None:
    from chunkscope.chunkers.imported import import_summary_line
    from chunkscope.reports.offsets import chunk_import_dict, chunk_import_line

    path = _langchain_dump(tmp_path) if dump == "LANGCHAIN" else FIXTURES / dump
    summary = read_chunks(str(path), GUIDE, doc_key=doc_key).imported
    assert summary is not None
    assert summary.doc_key == used  # the spec's doc_key=none means the format's usual key: this one
    assert import_summary_line(summary).endswith(f" not found; {note}")
    assert chunk_import_dict(summary)["doc_key"] == used
    assert chunk_import_line(summary).endswith(f"(left out). {note[0].upper()}{note[1:]}.")


def test_chunkscope_dumps_keep_their_summary_line(tmp_path: Path) -> None:
    from chunkscope.chunkers.imported import import_summary_line
    from chunkscope.reports.offsets import chunk_import_line

    path = tmp_path / "chunks.jsonl"
    path.write_text(json.dumps({"id": "a", "doc": "guide.md", "start": 0, "end": 17}) + "\n", encoding="utf-8")
    summary = read_chunks(str(path), GUIDE).imported
    assert summary is not None and summary.doc_key == "doc"
    assert import_summary_line(summary).endswith("0 relocated, 0 ambiguous, 0 not found")
    assert chunk_import_line(summary).endswith("0 not found (left out).")
