"""Contextual chunks: a short context per chunk, indexed and embedded with it, never part of its span."""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from chunkscope.chunkers.base import Chunking, chunk_corpus, chunkers
from chunkscope.errors import InputError
from chunkscope.io.lines import JsonlLines
from chunkscope.io.text import parse_json
from chunkscope.model import Chunk, Corpus
from chunkscope.spec.grammar import StrategyKind

TEMPLATE_FIELDS = ("doc", "title", "section")
"""Placeholders a ``template`` may use: document id, document title (its id when untitled), section path."""

UNMATCHED = ("error", "warn")
LISTED = 5
"""Entries named in the message about context entries that match no chunk."""

ChunkKey = tuple[str, int, int]
"""(document id, body start, body end) of a chunk."""


@chunkers.register("contextual")
@dataclass(frozen=True, slots=True)
class ContextualChunker:
    """The ``base`` chunking with a context before each chunk: from a file, a template, or both.

    Each chunk's context is the template's text (if any) and the file's context for the chunk (if
    any), joined by a line break, then a line break before the chunk. With ``send=true`` (default)
    the context is part of the chunk's prefix: indexed, embedded, delivered and counted in a budget.
    With ``send=false`` it is only indexed and embedded. Either way it lies outside the chunk's span:
    gold is held by the body only. File entries that match no chunk stop the run (``unmatched=error``)
    or are reported as chunking problems (``unmatched=warn``); both count them and list the first few.
    """

    base: Annotated[Any, StrategyKind(chunkers)] = field(
        metadata={"missing": "contextual needs base=CHUNKER, e.g. contextual:base=paragraph,context=FILE"}
    )
    context: str | None = field(default=None, metadata={"input_path": True})
    """JSONL file of contexts (``docs/strategies.md``): keyed by document and offsets, or by the body's SHA-256."""
    template: str | None = None
    """Context from the document and chunk: ``{title}``, ``{section}``, ``{doc}``; e.g. ``"{title} > {section}"``."""
    send: bool = True
    """Whether the context is delivered (and counted in the budget) or only indexed."""
    unmatched: str = "error"

    def __post_init__(self) -> None:
        if self.context is None and self.template is None:
            raise ValueError("contextual needs context=FILE, template=TEXT or both")
        if isinstance(self.base, ContextualChunker):
            raise ValueError("contextual: the base chunker cannot itself be contextual")
        if self.unmatched not in UNMATCHED:
            raise ValueError(f"contextual: unmatched must be {' or '.join(UNMATCHED)}, got {self.unmatched!r}")
        if self.template is not None:
            check_template(self.template)

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        chunking = chunk_corpus(self.base, corpus)
        contexts = read_contexts(self.context) if self.context is not None else ContextFile("", {}, {})
        placed = contexts.place(chunking.units)
        problems = list(chunking.problems)
        if placed.unmatched:
            message = contexts.unmatched_message(placed.unmatched)
            if self.unmatched == "error":
                raise InputError(contexts.path, message)
            problems.append(f"{contexts.path}: {message}")
        units = tuple(
            self.with_context(corpus, unit, placed.texts.get(number)) for number, unit in enumerate(chunking.units)
        )
        return Chunking(units, chunking.parents, tuple(problems), chunking.imported)

    def with_context(self, corpus: Corpus, unit: Chunk, from_file: str | None) -> Chunk:
        """``unit`` with its context before its prefix (``send``) or as its unsent context."""
        pieces = []
        if self.template is not None:
            pieces.append(render_template(self.template, corpus, unit))
        if from_file:
            pieces.append(from_file)
        text = "\n".join(piece for piece in pieces if piece)
        if not text:
            return unit
        if self.send:
            return replace(unit, prefix=text + "\n" + unit.prefix)
        return replace(unit, context=text + "\n" + unit.context)


def check_template(template: str) -> None:
    """ValueError when ``template`` uses a placeholder other than :data:`TEMPLATE_FIELDS` or is malformed."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise ValueError(f"contextual: template {template!r} is malformed: {error}") from None
    for name in names:
        if name not in TEMPLATE_FIELDS:
            valid = ", ".join("{" + field_name + "}" for field_name in TEMPLATE_FIELDS)
            raise ValueError(f"contextual: template placeholder {{{name}}} is unknown (valid: {valid})")


def render_template(template: str, corpus: Corpus, unit: Chunk) -> str:
    """The template filled for ``unit``; a line left empty (no section, say) is dropped."""
    document = corpus.by_id[unit.doc]
    values = {"doc": unit.doc, "title": document.title or unit.doc, "section": unit.section or ""}
    lines = template.format_map(values).split("\n")
    return "\n".join(line for line in lines if line.strip(" >|/-:"))


def body_sha256(text: str) -> str:
    """The key of a chunk in a context file keyed by text: SHA-256 of the body's UTF-8, hexadecimal."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Placement:
    """Which chunks a context file gives a context, and which of its entries name no chunk."""

    texts: Mapping[int, str]
    """Context by position of the chunk in the chunking."""
    unmatched: tuple[int, ...]
    """Line numbers of the entries that match no chunk."""


@dataclass(frozen=True, slots=True)
class ContextFile:
    """The entries of a context file: by (document, start, end) and by body SHA-256, with their line numbers."""

    path: str
    by_offsets: Mapping[ChunkKey, tuple[int, str]]
    by_hash: Mapping[str, tuple[int, str]]

    def place(self, units: Sequence[Chunk]) -> Placement:
        """Each chunk's context (offsets first, then its body's hash) and the entries no chunk matched."""
        texts: dict[int, str] = {}
        used: set[int] = set()
        hashes = bool(self.by_hash)
        for number, unit in enumerate(units):
            entry = self.by_offsets.get((unit.doc, unit.start, unit.end))
            if entry is None and hashes:
                entry = self.by_hash.get(body_sha256(unit.text))
            if entry is not None:
                used.add(entry[0])
                texts[number] = entry[1]
        lines = [line for line, _ in (*self.by_offsets.values(), *self.by_hash.values())]
        return Placement(texts, tuple(sorted(line for line in lines if line not in used)))

    def unmatched_message(self, lines: Sequence[int]) -> str:
        """One line: how many entries name no chunk, and the first few of them."""
        names = {line: f"{doc} {start}-{end}" for (doc, start, end), (line, _) in self.by_offsets.items()}
        names.update({line: f"sha256 {digest[:12]}…" for digest, (line, _) in self.by_hash.items()})
        listed = ", ".join(f"line {line} ({names[line]})" for line in lines[:LISTED])
        more = f" and {len(lines) - LISTED} more" if len(lines) > LISTED else ""
        total = len(self.by_offsets) + len(self.by_hash)
        return (
            f"{len(lines)} of {total} contexts name no chunk of this chunking: {listed}{more} "
            "(was the file written for another chunker? unmatched=warn goes on without them)"
        )


def read_contexts(path: str) -> ContextFile:
    """A context file: JSONL, one object a line with ``context`` and either ``doc``/``start``/``end`` or ``sha256``."""
    by_offsets: dict[ChunkKey, tuple[int, str]] = {}
    by_hash: dict[str, tuple[int, str]] = {}
    for line, raw in JsonlLines(Path(path)):
        if not raw.strip():
            continue
        record = parse_json(path, raw, line)
        if not isinstance(record, dict):
            raise InputError(path, "expected a JSON object", line=line)
        text = record.get("context")
        if not isinstance(text, str):
            raise InputError(path, "must be a string", line=line, field="context")
        table: dict[Any, tuple[int, str]]
        if "sha256" in record:
            key: Any = _digest(path, line, record["sha256"])
            table = by_hash
        else:
            key = _offsets(path, line, record)
            table = by_offsets
        earlier = table.get(key)
        if earlier is not None:
            raise InputError(path, f"a second context for the chunk of line {earlier[0]}", line=line)
        table[key] = (line, text)
    return ContextFile(path, by_offsets, by_hash)


def _digest(path: str, line: int, value: object) -> str:
    if not (isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value.lower())):
        raise InputError(path, "must be 64 hexadecimal digits (SHA-256 of the chunk body)", line=line, field="sha256")
    return value.lower()


def _offsets(path: str, line: int, record: Mapping[str, object]) -> ChunkKey:
    doc = record.get("doc")
    if not isinstance(doc, str):
        raise InputError(path, "must be a document id (or give sha256 instead)", line=line, field="doc")
    numbers = []
    for name in ("start", "end"):
        value = record.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(path, "must be a non-negative integer (a code point offset)", line=line, field=name)
        numbers.append(value)
    if numbers[1] < numbers[0]:
        raise InputError(path, "must not be before start", line=line, field="end")
    return doc, numbers[0], numbers[1]
