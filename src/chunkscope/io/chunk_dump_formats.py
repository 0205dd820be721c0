"""The chunk dump formats: how each tool's chunk record is recognised and read into a :class:`DumpChunk`.

One signature (why a record is not of the format, or None) and one reader per format of :data:`FORMATS`;
the field layout of each is tabled in :mod:`chunkscope.io.chunk_dumps`, which finds the records in a file
(JSONL, a JSON array, a LlamaIndex docstore), detects the format and resolves documents.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from chunkscope.errors import InputError

FORMATS = ("chunkscope", "langchain", "llamaindex", "chonkie", "haystack")
"""Detected in this order; ``auto`` (the default) detects."""

DEFAULT_DOC_KEYS = {
    "chunkscope": "doc",
    "langchain": "metadata.source",
    "llamaindex": "ref_doc_id",
    "chonkie": None,
    "haystack": "file_path",
}
"""The dotted path of each format's document reference (chonkie: see :data:`CHONKIE_DOC_KEYS`)."""
CHONKIE_DOC_KEYS = ("doc", "source", "document", "doc_id")
"""A chonkie dump of several documents names each chunk's document under the first of these its first chunk has."""


@dataclass(slots=True)  # not frozen: a frozen dataclass costs a setattr call per field, and dumps are large
class DumpChunk:
    """One chunk of a dump, before it is checked against its document.

    Offsets are as the dump gives them, in the dump's offset unit; ``start`` -1 (LangChain's "not
    found") is kept as given.
    """

    line: int | None
    """Line of the chunk in the file (None inside a docstore object)."""
    where: str
    """The chunk's JSON path prefix for field names (``''`` in JSONL, ``[3].`` in an array, ...)."""
    id: str
    """The chunk's id (the dump's own, else its 0-based position in the dump)."""
    doc_ref: str | None
    """The dump's document reference (None: the corpus must have one document)."""
    doc_field: str
    """The field the reference came from (for messages)."""
    text: str | None
    """The chunk's text, when the dump gives it."""
    start: int | None
    """The given start offset, when the dump gives one."""
    end: int | None
    """The given end offset, when the dump gives one."""
    prefix: str = ""
    """chunkscope format only: text indexed before the body."""
    section: str | None = None
    """chunkscope format only: the section path."""
    start_field: str = "start"
    """The field the start offset came from (for messages)."""
    end_field: str = "end"
    """The field the end offset came from (for messages)."""


@dataclass(slots=True)
class DumpItem:
    """One JSON value of a dump with where it was found."""

    value: Any
    line: int | None
    where: str
    position: int
    docstore_ref: str | None = None


# ----------------------------------------------------------------------------- detection


def _chunkscope_signature(record: Mapping[str, Any]) -> str | None:
    missing = [key for key in ("id", "doc") if key not in record]
    return f"no {' or '.join(repr(key) for key in missing)} field" if missing else None


def _langchain_signature(record: Mapping[str, Any]) -> str | None:
    return None if "page_content" in langchain_fields(record) else "no 'page_content' field"


def _llamaindex_signature(record: Mapping[str, Any]) -> str | None:
    if "text" not in record and "text_resource" not in record:
        return "no 'text' field"
    if not any(key in record for key in ("id_", "start_char_idx", "relationships")):
        return "no 'id_', 'start_char_idx' or 'relationships' field"
    return None


def _chonkie_signature(record: Mapping[str, Any]) -> str | None:
    if "text" not in record:
        return "no 'text' field"
    return None if "start_index" in record else "no 'start_index' field"


def _haystack_signature(record: Mapping[str, Any]) -> str | None:
    if "content" not in record:
        return "no 'content' field"
    flat = _haystack_fields(record)
    return None if "split_idx_start" in flat or "source_id" in flat else "no 'split_idx_start' or 'source_id' field"


SIGNATURES: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "chunkscope": _chunkscope_signature,
    "langchain": _langchain_signature,
    "llamaindex": _llamaindex_signature,
    "chonkie": _chonkie_signature,
    "haystack": _haystack_signature,
}


# ----------------------------------------------------------------------------- readers


def _chunkscope_chunk(path: str, item: DumpItem, doc_key: str | None) -> DumpChunk:
    record = item.value
    fields = _Fields(path, item)
    identifier = record.get("id")
    if isinstance(identifier, int) and not isinstance(identifier, bool):  # a vector store's integer id
        chunk_id = str(identifier)
    else:
        chunk_id = fields.string(record, "id", required=True)
    text = fields.string(record, "text") if "text" in record else None
    has_offsets = "start" in record or "end" in record
    if not has_offsets and text is None:
        raise fields.error("missing: give start and end, or text", "start")
    start = fields.offset(record, "start", "missing (give start and end, or text)") if has_offsets else None
    end = fields.offset(record, "end", "missing (give start and end, or text)") if has_offsets else None
    return DumpChunk(
        item.line,
        item.where,
        chunk_id,
        fields.doc_ref(record, doc_key),
        doc_key or "doc",
        text,
        start,
        end,
        prefix=fields.optional_string(record, "prefix") or "",
        section=fields.optional_string(record, "section"),
    )


def _langchain_chunk(path: str, item: DumpItem, doc_key: str | None) -> DumpChunk:
    record = langchain_fields(item.value)
    fields = _Fields(path, item)
    text = fields.string(record, "page_content", required=True)
    metadata = record.get("metadata", {})
    if not isinstance(metadata, dict):
        raise fields.error(f"must be an object, got {json.dumps(metadata)}", "metadata")
    start = fields.offset(metadata, "start_index", None, name="metadata.start_index")
    return DumpChunk(
        item.line,
        item.where,
        _own_id(record.get("id")) or str(item.position),
        fields.doc_ref(record, doc_key),
        doc_key or "",
        text,
        start,
        None,
        start_field="metadata.start_index",
    )


def langchain_fields(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Document's fields: the record itself, or its ``kwargs`` when serialised by ``langchain_core.load.dumpd``."""
    kwargs = record.get("kwargs")
    if record.get("lc") is not None and isinstance(kwargs, dict):
        return kwargs
    return record


def _llamaindex_chunk(path: str, item: DumpItem, doc_key: str | None) -> DumpChunk:
    record = item.value
    fields = _Fields(path, item)
    if "text" in record:
        text = fields.string(record, "text", required=True)
    else:
        resource = record.get("text_resource")
        if not isinstance(resource, dict):
            raise fields.error("must be an object with a 'text' string", "text_resource")
        text = fields.string(resource, "text", required=True, name="text_resource.text")
    view = record
    if doc_key == "ref_doc_id" and "ref_doc_id" not in record:
        view = {**record, "ref_doc_id": _llamaindex_source(record) or item.docstore_ref}
        if view["ref_doc_id"] is None and record.get("class_name") == "Document":
            raise fields.error(
                "is a LlamaIndex Document, not a node: this holds the input documents (an IngestionPipeline's "
                "docstore keeps the documents it was given, to skip them on the next run), not their chunks; "
                "export the nodes instead (the list pipeline.run() returns, one node.to_dict() per line, or the "
                "docstore.json of a persisted index), or take each document whole as one chunk with "
                "--chunks-doc-key metadata.file_name",
                "class_name",
            )
    return DumpChunk(
        item.line,
        item.where,
        _own_id(record.get("id_")) or str(item.position),
        fields.doc_ref(view, doc_key),
        doc_key or "",
        text,
        fields.offset(record, "start_char_idx", None),
        fields.offset(record, "end_char_idx", None),
        start_field="start_char_idx",
        end_field="end_char_idx",
    )


def _llamaindex_source(record: Mapping[str, Any]) -> str | None:
    """The node id of a node's SOURCE relationship (key ``"1"``): the id of the document it came from."""
    relationships = record.get("relationships")
    source = relationships.get("1") if isinstance(relationships, dict) else None
    node_id = source.get("node_id") if isinstance(source, dict) else None
    return node_id if isinstance(node_id, str) else None


def _chonkie_chunk(path: str, item: DumpItem, doc_key: str | None) -> DumpChunk:
    record = item.value
    fields = _Fields(path, item)
    return DumpChunk(
        item.line,
        item.where,
        _own_id(record.get("id")) or str(item.position),
        fields.doc_ref(record, doc_key) if doc_key else None,
        doc_key or "",
        fields.string(record, "text", required=True),
        fields.offset(record, "start_index", None),
        fields.offset(record, "end_index", None),
        start_field="start_index",
        end_field="end_index",
    )


def _haystack_fields(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Haystack Document's fields with its ``meta`` flattened in (as ``to_dict(flatten=True)`` writes them)."""
    meta = record.get("meta")
    if not isinstance(meta, dict):
        return record
    return {**meta, **{key: value for key, value in record.items() if key != "meta"}}


def _haystack_chunk(path: str, item: DumpItem, doc_key: str | None) -> DumpChunk:
    record = _haystack_fields(item.value)
    fields = _Fields(path, item)
    key = doc_key
    if key == "file_path" and "file_path" not in record and "source_id" in record:
        key = "source_id"  # a split of an in-memory Document: its source's id
    nested = isinstance(item.value.get("meta"), dict)
    return DumpChunk(
        item.line,
        item.where,
        _own_id(record.get("id")) or str(item.position),
        fields.doc_ref(record, key),
        f"meta.{key}" if nested and key else key or "",
        fields.string(record, "content", required=True),
        fields.offset(record, "split_idx_start", None, name="meta.split_idx_start" if nested else None),
        None,
        start_field="meta.split_idx_start" if nested else "split_idx_start",
    )


def _own_id(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


READERS: dict[str, Callable[[str, DumpItem, str | None], DumpChunk]] = {
    "chunkscope": _chunkscope_chunk,
    "langchain": _langchain_chunk,
    "llamaindex": _llamaindex_chunk,
    "chonkie": _chonkie_chunk,
    "haystack": _haystack_chunk,
}


class _Fields:
    """Typed field access for one chunk, every failure naming the file, line and field."""

    def __init__(self, path: str, item: DumpItem) -> None:
        self.path = path
        self.item = item

    def error(self, message: str, name: str) -> InputError:
        return InputError(self.path, message, line=self.item.line, field=f"{self.item.where}{name}")

    def string(self, record: Mapping[str, Any], key: str, required: bool = False, name: str | None = None) -> str:
        name = name or key
        if key not in record:
            raise self.error("missing", name)
        value = record[key]
        if not isinstance(value, str) or not value:
            raise self.error(f"must be a non-empty string, got {_shown(value)}", name)
        return value

    def optional_string(self, record: Mapping[str, Any], key: str) -> str | None:
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(f"must be a string, got {_shown(value)}", key)
        return value

    def offset(self, record: Mapping[str, Any], key: str, missing: str | None, name: str | None = None) -> int | None:
        """An integer offset; None when absent or null (unless ``missing`` makes absence an error)."""
        name = name or key
        value = record.get(key)
        if value is None:
            if missing is not None:
                raise self.error(missing, name)
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(f"must be an integer, got {_shown(value)}", name)
        return value

    def doc_ref(self, record: Mapping[str, Any], doc_key: str | None) -> str | None:
        """The value at the dotted ``doc_key`` (None when there is no key: the corpus's only document)."""
        if doc_key is None:
            return None
        value: Any = record.get(doc_key) if "." not in doc_key else None
        if isinstance(value, str) and value:
            return value
        value = record
        for part in doc_key.split("."):
            if not isinstance(value, dict) or part not in value:
                raise self.error("missing (the document key; choose another with --chunks-doc-key)", doc_key)
            value = value[part]
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            raise self.error(f"must be a non-empty string (the document key), got {_shown(value)}", doc_key)
        return value


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"
