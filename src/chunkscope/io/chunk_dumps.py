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

The records are found here (the containers) and read by the format's reader in
``io.chunk_dump_formats``. This module only reads; checking the offsets against the documents and
placing the chunks is the imported chunker's job (``chunkers.imported``, with ``io.locate``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.chunk_dump_formats import (
    CHONKIE_DOC_KEYS,
    DEFAULT_DOC_KEYS,
    FORMATS,
    READERS,
    SIGNATURES,
    DumpChunk,
    DumpItem,
    langchain_fields,
)
from chunkscope.io.text import parse_json, read_text, reject_bom
from chunkscope.model import Corpus

__all__ = [
    "CHONKIE_DOC_KEYS",
    "DEFAULT_DOC_KEYS",
    "FORMATS",
    "DocumentResolver",
    "Dump",
    "DumpChunk",
    "read_dump",
]

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True, slots=True)
class Dump:
    """A dump read from a file: its format and its chunks, in file order."""

    path: str
    format: str
    chunks: tuple[DumpChunk, ...]
    samples: Mapping[str | None, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    """For each document reference, the fields of the first chunk naming it (to suggest a document key)."""


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
    reader = READERS[chosen]
    chunks = tuple(reader(path, item, key) for item in items)
    samples: dict[str | None, Mapping[str, Any]] = {}
    for item, chunk in zip(items, chunks, strict=True):
        if chunk.doc_ref not in samples:
            samples[chunk.doc_ref] = langchain_fields(item.value) if chosen == "langchain" else item.value
    return Dump(path, chosen, chunks, samples)


# ----------------------------------------------------------------------------- containers


def _items(path: str, content: str) -> tuple[list[DumpItem], bool]:
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


def _jsonl_items(path: str, content: str) -> list[DumpItem]:
    # The decoder's raw_decode skips json.loads' per-call overhead; anything it does not take whole (invalid
    # JSON, more than one value, a surrogate escape) goes through parse_json, which reports it with its line.
    decode = json.JSONDecoder().raw_decode
    careful = _SURROGATE_ESCAPE.search(content) is not None
    items: list[DumpItem] = []
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
        items.append(DumpItem(value, number, "", len(items)))
    return items


def _array_items(path: str, content: str) -> list[DumpItem]:
    """The elements of a top-level JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    parse_json(path, content)  # the whole file must be valid JSON (and its errors name a line)
    items: list[DumpItem] = []
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
        items.append(DumpItem(value, line, f"[{len(items)}].", len(items)))
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


def _docstore_items(path: str, store: Mapping[str, Any]) -> list[DumpItem]:
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
        items.append(DumpItem(node, None, f"{where}.", position, ref if isinstance(ref, str) else None))
    return items


def _node_string(path: str, text: str, where: str) -> Any:
    """A docstore node stored as a JSON string, parsed; its errors name the field (the file's own line would not)."""
    try:
        return parse_json(path, text)
    except InputError as error:
        raise InputError(path, f"the node string does not parse: {error.message}", field=where) from None


# ----------------------------------------------------------------------------- detection


# ----------------------------------------------------------------------------- detection


def _choose_format(path: str, first: DumpItem, format: str) -> str:
    if format != "auto":
        return format
    reasons = {name: SIGNATURES[name](first.value) for name in FORMATS}
    for name in FORMATS:
        if reasons[name] is None:
            return name
    tried = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
    raise InputError(
        path,
        f"the first chunk matches no chunks format (tried {tried}); or force one with --chunks-format",
        line=first.line,
    )


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
