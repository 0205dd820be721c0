"""Chunk dumps of other tools, read into one record shape: LangChain, LlamaIndex, chonkie, Haystack, chunkscope's own.

A dump is JSONL (one chunk per line), a JSON array of chunks, or a LlamaIndex docstore (one JSON
object whose ``docstore/data`` maps node ids to nodes). The format is detected from the first
chunk, or forced; then every chunk must be of that format. What each format gives:

==============  ==================================  ==============================  =====================
format          text                                offsets                         document (default)
==============  ==================================  ==============================  =====================
``chunkscope``  ``text``                            ``start``, ``end``              ``doc``
``langchain``   ``page_content``                    ``metadata.start_index``        ``metadata.source``
``llamaindex``  ``text`` (or ``text_resource``)     ``start_char_idx``,             ``ref_doc_id`` (the
                                                    ``end_char_idx``                source relationship)
``chonkie``     ``text``                            ``start_index``, ``end_index``  ``doc`` (``source``,
                                                                                    ``document``, ``doc_id``)
                                                                                    when the first chunk
                                                                                    has one, else the
                                                                                    corpus's only document
``haystack``    ``content``                         ``split_idx_start`` (in         ``file_path``, else
                                                    ``meta`` or flattened)          ``source_id``
==============  ==================================  ==============================  =====================

A Haystack dump is ``Document.to_dict()`` per chunk, its ``meta`` nested or flattened into the record
(``to_dict(flatten=True)``, the default), as ``DocumentSplitter`` writes it.

This module only reads; checking the offsets against the documents and placing the chunks is the
imported chunker's job (``chunkers.imported``, with ``io.locate``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.text import parse_json, read_text, reject_bom
from chunkscope.model import Corpus

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

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


@dataclass(frozen=True, slots=True)
class Dump:
    """A dump read from a file: its format and its chunks, in file order."""

    path: str
    format: str
    chunks: tuple[DumpChunk, ...]
    samples: Mapping[str | None, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    """For each document reference, the fields of the first chunk naming it (to suggest a document key)."""


@dataclass(slots=True)
class _Item:
    """One JSON value of a dump with where it was found."""

    value: Any
    line: int | None
    where: str
    position: int
    docstore_ref: str | None = None


def read_dump(path: str, format: str = "auto", doc_key: str | None = None) -> Dump:
    """Read a chunk dump; ``format`` forces one of :data:`FORMATS`, ``doc_key`` overrides the document key."""
    if format != "auto" and format not in FORMATS:
        raise InputError(path, f"unknown chunks format {format!r}: use auto, {', '.join(FORMATS)}")
    content, _ = read_text(Path(path), "chunks file")
    reject_bom(path, content)
    items, docstore = _items(path, content)
    if docstore:
        if format not in ("auto", "llamaindex"):
            raise InputError(path, f"is a LlamaIndex docstore, not a {format} dump (--chunks-format)")
        chosen = "llamaindex"
    elif not items:
        return Dump(path, format if format != "auto" else "chunkscope", ())
    else:
        chosen = _choose_format(path, items[0], format)
    key = doc_key if doc_key else DEFAULT_DOC_KEYS[chosen]
    if key is None and chosen == "chonkie" and isinstance(items[0].value, dict):
        key = next((name for name in CHONKIE_DOC_KEYS if name in items[0].value), None)
    reader = _READERS[chosen]
    chunks = tuple(reader(path, item, key) for item in items)
    samples: dict[str | None, Mapping[str, Any]] = {}
    for item, chunk in zip(items, chunks, strict=True):
        if chunk.doc_ref not in samples:
            samples[chunk.doc_ref] = _langchain_fields(item.value) if chosen == "langchain" else item.value
    return Dump(path, chosen, chunks, samples)


# ----------------------------------------------------------------------------- containers


def _items(path: str, content: str) -> tuple[list[_Item], bool]:
    """The dump's chunk values and whether they came from a docstore."""
    stripped = content.lstrip()
    if stripped.startswith("["):
        return _array_items(path, content), False
    whole = _one_value(path, content) if stripped.startswith("{") else None
    if isinstance(whole, dict) and "docstore/data" in whole:
        if _SURROGATE_ESCAPE.search(content):
            parse_json(path, content)  # refuses a lone surrogate escape
        return _docstore_items(path, whole), True
    return _jsonl_items(path, content), False


def _one_value(path: str, content: str) -> Any:
    """The file as a single JSON value (a docstore, or a one-line JSONL), or None when it is not one.

    An integer too long to read is refused here, naming its field (:func:`parse_json`).
    """
    try:
        return json.loads(content)
    except (json.JSONDecodeError, RecursionError):
        return None
    except ValueError:  # an integer beyond Python's digit limit: refused naming its field, if the file is one value
        try:
            return parse_json(path, content)
        except json.JSONDecodeError:
            return None  # more values than one (JSONL): read line by line, each error naming its line


def _jsonl_items(path: str, content: str) -> list[_Item]:
    # The decoder's raw_decode skips json.loads' per-call overhead; anything it does not take whole (invalid
    # JSON, more than one value, a surrogate escape) goes through parse_json, which reports it with its line.
    decode = json.JSONDecoder().raw_decode
    careful = _SURROGATE_ESCAPE.search(content) is not None
    items: list[_Item] = []
    for number, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        stripped = line.strip(" \t\r")  # JSON's own whitespace
        value: Any = None
        try:
            value, end = decode(stripped)
        except (ValueError, RecursionError):  # parse_json says what is wrong, with the line (and field)
            end = -1
        if careful or end != len(stripped):
            value = parse_json(path, line, number)
        if not isinstance(value, dict):
            raise InputError(path, "each line must be a JSON object", line=number)
        items.append(_Item(value, number, "", len(items)))
    return items


def _array_items(path: str, content: str) -> list[_Item]:
    """The elements of a top-level JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    parse_json(path, content)  # the whole file must be valid JSON (and its errors name a line)
    items: list[_Item] = []
    index = content.index("[") + 1
    line = content.count("\n", 0, index) + 1
    while True:
        index, line = _skip_space(content, index, line)
        if content[index] == "]":
            return items
        value, end = decoder.raw_decode(content, index)
        if not isinstance(value, dict):
            raise InputError(
                path, "each element of the array must be a JSON object", line=line, field=f"[{len(items)}]"
            )
        items.append(_Item(value, line, f"[{len(items)}].", len(items)))
        line += content.count("\n", index, end)
        index, line = _skip_space(content, end, line)
        if content[index] == ",":
            index += 1


def _skip_space(content: str, index: int, line: int) -> tuple[int, int]:
    while content[index] in " \t\r\n":
        if content[index] == "\n":
            line += 1
        index += 1
    return index, line


def _docstore_items(path: str, store: Mapping[str, Any]) -> list[_Item]:
    """The nodes of a LlamaIndex docstore (``docstore/data``, each ``{"__data__": node}``), in stored order."""
    data = store["docstore/data"]
    if not isinstance(data, dict):
        raise InputError(path, "must be an object mapping node ids to nodes", field="docstore/data")
    metadata = store.get("docstore/metadata")
    refs = metadata if isinstance(metadata, dict) else {}
    items = []
    for position, (node_id, entry) in enumerate(data.items()):
        where = f"docstore/data.{node_id}.__data__"
        node = entry.get("__data__") if isinstance(entry, dict) else None
        if isinstance(node, str):  # older LlamaIndex versions store the node as a JSON string
            node = _node_string(path, node, where)
        if not isinstance(node, dict):
            raise InputError(path, "must be a node object", field=where)
        ref = refs.get(node_id, {}).get("ref_doc_id") if isinstance(refs.get(node_id), dict) else None
        items.append(_Item(node, None, f"{where}.", position, ref if isinstance(ref, str) else None))
    return items


def _node_string(path: str, text: str, where: str) -> Any:
    """A docstore node stored as a JSON string, parsed; its errors name the field (the file's own line would not)."""
    try:
        return parse_json(path, text)
    except InputError as error:
        raise InputError(path, f"the node string does not parse: {error.message}", field=where) from None


# ----------------------------------------------------------------------------- detection


def _choose_format(path: str, first: _Item, format: str) -> str:
    if format != "auto":
        return format
    reasons = {name: _SIGNATURES[name](first.value) for name in FORMATS}
    for name in FORMATS:
        if reasons[name] is None:
            return name
    tried = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    raise InputError(
        path,
        f"the first chunk matches no chunks format (tried {tried}); or force one with --chunks-format",
        line=first.line,
    )


def _chunkscope_signature(record: Mapping[str, Any]) -> str | None:
    missing = [key for key in ("id", "doc") if key not in record]
    return f"no {' or '.join(repr(key) for key in missing)} field" if missing else None


def _langchain_signature(record: Mapping[str, Any]) -> str | None:
    return None if "page_content" in _langchain_fields(record) else "no 'page_content' field"


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


_SIGNATURES: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "chunkscope": _chunkscope_signature,
    "langchain": _langchain_signature,
    "llamaindex": _llamaindex_signature,
    "chonkie": _chonkie_signature,
    "haystack": _haystack_signature,
}


# ----------------------------------------------------------------------------- readers


def _chunkscope_chunk(path: str, item: _Item, doc_key: str | None) -> DumpChunk:
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


def _langchain_chunk(path: str, item: _Item, doc_key: str | None) -> DumpChunk:
    record = _langchain_fields(item.value)
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


def _langchain_fields(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """A Document's fields: the record itself, or its ``kwargs`` when serialised by ``langchain_core.load.dumpd``."""
    kwargs = record.get("kwargs")
    if record.get("lc") is not None and isinstance(kwargs, dict):
        return kwargs
    return record


def _llamaindex_chunk(path: str, item: _Item, doc_key: str | None) -> DumpChunk:
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


def _chonkie_chunk(path: str, item: _Item, doc_key: str | None) -> DumpChunk:
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


def _haystack_chunk(path: str, item: _Item, doc_key: str | None) -> DumpChunk:
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


_READERS: dict[str, Callable[[str, _Item, str | None], DumpChunk]] = {
    "chunkscope": _chunkscope_chunk,
    "langchain": _langchain_chunk,
    "llamaindex": _llamaindex_chunk,
    "chonkie": _chonkie_chunk,
    "haystack": _haystack_chunk,
}


class _Fields:
    """Typed field access for one chunk, every failure naming the file, line and field."""

    def __init__(self, path: str, item: _Item) -> None:
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


# ----------------------------------------------------------------------------- documents


class DocumentResolver:
    """Maps a dump's document references to corpus ids.

    A reference is the id itself, or a path whose trailing components are a corpus id
    (``/data/docs/en/refunds.md`` for ``en/refunds.md``), or trailing components of exactly one id
    (``refunds.md`` for ``en/refunds.md``). Backslashes count as ``/``. A reference that matches several
    documents, or none, is an error: nothing is guessed.
    """

    def __init__(self, corpus: Corpus, samples: Mapping[str | None, Mapping[str, Any]] | None = None) -> None:
        self.corpus = corpus
        self.samples = samples or {}
        self._by_name: dict[str, list[str]] = {}
        for document in corpus.documents:
            self._by_name.setdefault(_parts(document.id)[-1], []).append(document.id)
        self._cache: dict[str, str | list[str]] = {}

    def resolve(self, path: str, chunk: DumpChunk) -> str:
        """The corpus id ``chunk`` belongs to; InputError naming the chunk's line and field otherwise."""
        if chunk.doc_ref is None:
            if len(self.corpus.documents) == 1:
                return self.corpus.documents[0].id
            raise InputError(
                path,
                f"the dump names no document and the corpus has {len(self.corpus.documents)}: "
                "give --chunks-doc-key (or doc_key=) naming a field that holds the document id",
                line=chunk.line,
            )
        found = self._cache.get(chunk.doc_ref)
        if found is None:
            found = self._cache[chunk.doc_ref] = self._matches(chunk.doc_ref)
        if isinstance(found, str):
            return found
        field = f"{chunk.where}{chunk.doc_field}"
        if not found:
            raise InputError(
                path,
                f"unknown document {chunk.doc_ref!r}: {self._suggestion(chunk)}",
                line=chunk.line,
                field=field,
            )
        shown = ", ".join(repr(doc) for doc in found[:5])
        raise InputError(
            path,
            f"document {chunk.doc_ref!r} matches {len(found)} corpus documents by path ({shown}): "
            "use ids that name one document",
            line=chunk.line,
            field=field,
        )

    def _suggestion(self, chunk: DumpChunk) -> str:
        """What to pass instead: the fields of the chunk whose value names one corpus document, else the id shape."""
        fitting = [
            (key, value, match)
            for key, value in _string_fields(self.samples.get(chunk.doc_ref, {}))
            if key != chunk.doc_field and isinstance(match := self._matches(value), str)
        ]
        if fitting:
            key, value, match = fitting[0]
            others = ", ".join(other for other, _, _ in fitting[1:4])
            return (
                f"no corpus id matches it, but its field {key} ({value!r}) names corpus document {match!r}: "
                f"use --chunks-doc-key {key}" + (f" (also fitting: {others})" if others else "")
            )
        example = self.corpus.documents[0].id if self.corpus.documents else "?"
        return (
            f"no corpus id matches it, nor does any other field of the chunk: give --chunks-doc-key naming a field "
            f"that holds corpus ids (such as {example!r}) or their paths"
        )

    def _matches(self, reference: str) -> str | list[str]:
        if reference in self.corpus.by_id:
            return reference
        wanted = _parts(reference)
        if not wanted:
            return []
        matches = [
            doc
            for doc in self._by_name.get(wanted[-1], [])
            if _is_suffix(_parts(doc), wanted) or _is_suffix(wanted, _parts(doc))
        ]
        return matches[0] if len(matches) == 1 else matches


_SKIPPED_FIELDS = frozenset({"text", "page_content", "text_resource", "embedding", "relationships", "kwargs"})


def _string_fields(record: Mapping[str, Any], prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """The dotted paths and values of a chunk's short string fields (not its text), metadata first."""
    found: list[tuple[str, str]] = []
    for key, value in sorted(record.items(), key=lambda item: item[0] != "metadata"):
        if not isinstance(key, str) or key in _SKIPPED_FIELDS or "." in key:
            continue
        if isinstance(value, str) and 0 < len(value) <= 1000:
            found.append((prefix + key, value))
        elif isinstance(value, dict) and depth < 2:
            found.extend(_string_fields(value, f"{prefix}{key}.", depth + 1))
    return found


def _parts(reference: str) -> tuple[str, ...]:
    return tuple(part for part in PurePosixPath(reference.replace("\\", "/")).parts if part not in ("/", "."))


def _is_suffix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return len(short) <= len(long) and long[len(long) - len(short) :] == short
