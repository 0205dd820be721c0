"""Imported chunks: a production system's chunking, read from a chunk dump (see ``io.chunk_dumps``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from chunkscope.chunkers.base import Chunking, chunkers
from chunkscope.errors import InputError
from chunkscope.io.chunk_dumps import DEFAULT_DOC_KEYS, FORMATS, DocumentResolver, Dump, DumpChunk, read_dump
from chunkscope.io.locate import OrderedPlacement, Piece, Placement, place_in_order
from chunkscope.io.newlines import newline_view
from chunkscope.io.offsets import OFFSET_UNITS, DocumentOffsets, OffsetError, check_unit
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.results import ChunkImport, UnplacedChunk


@chunkers.register("imported")
@dataclass(frozen=True, slots=True)
class ImportedChunker:
    """Chunks listed in a dump: chunkscope JSONL, LangChain Documents, LlamaIndex nodes or chonkie chunks.

    ``format`` is detected from the first chunk unless given; ``doc_key`` is the dotted path of the
    document reference when it is not the format's usual one (``metadata.source`` for LangChain);
    ``offset_unit`` says what the dump's offsets count (``codepoint``, ``utf8`` bytes or ``utf16`` code
    units). Every chunk with a text is checked against its document: a chunk found at its offsets is
    exact; a missing, -1 or wrong offset is relocated by its text in dump order (``io.locate``); a
    chunk whose text is ambiguous or not found is left out, listed, and never guessed. A chunk given
    by offsets only (chunkscope format) is taken as it is. A dump that yields no chunk is an error.

    A spec must name the file; the CLI reads a bare ``imported`` as the file given to ``--chunks``.
    """

    path: str = field(metadata={"missing": "imported needs path=FILE (or the --chunks FILE option)"})
    format: str = "auto"
    """``auto``, or one of ``chunkscope``, ``langchain``, ``llamaindex``, ``chonkie``, ``haystack``."""
    doc_key: str | None = None
    """Dotted path of the document reference; None: the format's default."""
    offset_unit: str = "codepoint"
    """What the dump's offsets count: ``codepoint``, ``utf8`` or ``utf16``."""

    def __post_init__(self) -> None:
        if self.format != "auto" and self.format not in FORMATS:
            raise ValueError(f"imported: format must be auto, {', '.join(FORMATS)}; got {self.format!r}")
        if self.offset_unit not in OFFSET_UNITS:
            raise ValueError(f"imported: offset_unit must be {', '.join(OFFSET_UNITS)}; got {self.offset_unit!r}")
        if self.doc_key is not None and not all(self.doc_key.split(".")):
            raise ValueError(f"imported: doc_key must be a dotted path such as metadata.source, got {self.doc_key!r}")

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        chunking = read_chunks(self.path, corpus, self.format, self.doc_key, self.offset_unit)
        if not chunking.units:
            summary = chunking.imported
            problems = summary.total if summary else 0
            reason = f"none of its {problems} chunks could be located" if problems else "it lists no chunks"
            if summary is not None and summary.rewritten:
                reason += f": {rewritten_explanation(summary.rewritten)}"
            raise InputError(self.path, f"the chunking is empty: {reason}")
        return chunking


def read_chunks(
    path: str,
    corpus: Corpus,
    format: str = "auto",
    doc_key: str | None = None,
    offset_unit: str = "codepoint",
) -> Chunking:
    """Read a dump, check every chunk against ``corpus`` and place the ones whose offsets do not hold."""
    dump = read_dump(path, format, doc_key)
    _check_unique_ids(dump)
    resolver = DocumentResolver(corpus, dump.samples)
    by_doc: dict[str, list[DumpChunk]] = {}
    for chunk in dump.chunks:
        by_doc.setdefault(resolver.resolve(path, chunk), []).append(chunk)
    offsets = DocumentOffsets(check_unit(offset_unit))
    tally = _Tally(path)
    for document in corpus.documents:
        if document.id in by_doc:
            tally.place(document, by_doc[document.id], offsets)
    if tally.newline_docs:
        tally.problems.insert(0, newline_notice(path, tally.newline_docs))
    if tally.rewritten:
        tally.problems.append(f"{path}: {rewritten_explanation(tally.rewritten)}")
    summary = ChunkImport(
        path,
        dump.format,
        tally.counts["exact"],
        tally.counts["relocated"],
        tuple(tally.unplaced),
        tuple(tally.unordered),
        tuple(tally.newline_docs),
        tally.rewritten,
        doc_key or _found_doc_key(dump) or DEFAULT_DOC_KEYS[dump.format],
    )
    uncovered = uncovered_documents(path, corpus, tally.units)
    problems = (*tally.problems, uncovered) if uncovered else tuple(tally.problems)
    return Chunking(tuple(tally.units), None, problems, summary)


def _found_doc_key(dump: Dump) -> str | None:
    """The document key a chonkie or Haystack dump's reader chose from the chunks themselves, if any."""
    if dump.format in ("chonkie", "haystack") and dump.chunks and dump.chunks[0].doc_field:
        return dump.chunks[0].doc_field
    return None


UNCOVERED_SHOWN = 5
"""Documents named in the warning about documents no chunk of a dump covers (the rest are counted)."""


def uncovered_documents(path: str, corpus: Corpus, units: Sequence[Chunk]) -> str | None:
    """A warning naming the corpus documents (with text) that no placed chunk of the dump covers, or None.

    Evidence in such a document can never be retrieved: without the warning its questions would just be lost.
    """
    covered = {unit.doc for unit in units}
    missing = [document.id for document in corpus.documents if document.id not in covered and document.text.strip()]
    if not missing:
        return None
    named = ", ".join(f"'{doc}'" for doc in missing[:UNCOVERED_SHOWN])
    more = f" and {len(missing) - UNCOVERED_SHOWN} more" if len(missing) > UNCOVERED_SHOWN else ""
    return (
        f"{path}: no chunk covers {len(missing)} of the {len(corpus.documents)} corpus documents: {named}{more}; "
        "evidence there cannot be retrieved (its questions count as lost)"
    )


def rewritten_explanation(count: int) -> str:
    """Why chunks found only in the normalised text cannot be placed, and what to export instead."""
    return (
        f"{count} chunk{'s' if count > 1 else ''} not found match{'' if count > 1 else 'es'} the document text "
        "once whitespace and line breaks are normalised and Markdown heading lines dropped: the splitter "
        "rewrote the text (LangChain's MarkdownHeaderTextSplitter strips the headers and joins lines with '  \\n'), "
        "so no position in the document holds them; export chunks whose text is the document's own "
        "(RecursiveCharacterTextSplitter or MarkdownTextSplitter with add_start_index=True), or measure "
        "chunkscope's own markdown chunker, which keeps headers as sections"
    )


def newline_notice(path: str, documents: list[str]) -> str:
    """The one line that says a dump's chunks were placed through the universal-newlines view of its documents."""
    shown = ", ".join(f"'{doc}'" for doc in documents[:5]) + (
        f" and {len(documents) - 5} more" if len(documents) > 5 else ""
    )
    return (
        f"{path}: line endings differ: {shown} {'has' if len(documents) == 1 else 'have'} CRLF line endings, and "
        "the chunks were cut from the text read with universal newlines (CRLF as LF: Python's open(), LangChain's "
        "TextLoader): placed through the universal-newlines view, offsets mapped back to the file's text"
    )


@dataclass(slots=True)
class _Tally:
    """The chunks placed so far, in corpus order, and what was left out."""

    path: str
    units: list[Chunk] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"exact": 0, "relocated": 0})
    unplaced: list[UnplacedChunk] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unordered: list[str] = field(default_factory=list)
    newline_docs: list[str] = field(default_factory=list)
    rewritten: int = 0

    def place(self, document: Document, chunks: list[DumpChunk], offsets: DocumentOffsets) -> None:
        """Place one document's chunks (in dump order) and add them, sorted by position.

        A document holding ``\\r`` whose chunks are not all found is also tried through its universal-newlines
        view (``io.newlines``), the text a text-mode reader cut them from; the view is taken when it places more.
        """
        pieces = [_piece(self.path, chunk, document.text, offsets) for chunk in chunks]
        placed = place_in_order(document.text, pieces)
        to_original = None
        if "\r" in document.text and any(p.status == "not_found" for p in placed.placements):
            view = newline_view(document.text)
            view_pieces = [_piece(self.path, chunk, view.text, offsets) for chunk in chunks]
            view_placed = place_in_order(view.text, view_pieces)
            if _placed_count(view_placed) > _placed_count(placed):
                pieces, placed, to_original = view_pieces, view_placed, view.to_original
                self.newline_docs.append(document.id)
        if placed.order_break is not None:
            self.unordered.append(document.id)
            later, earlier = (chunks[i] for i in placed.order_break)
            self.problems.append(
                f"{self.path}:{_where(later)}: chunks of '{document.id}' are not in document order ({_name(later)} "
                f"cannot follow {_name(earlier)}): placed by their offsets and by texts that occur once"
            )
        if placed.unweighed:
            self.problems.append(
                f"{self.path}: {placed.unweighed} chunks of '{document.id}' each fit at many places in long runs of "
                "repeated text, past the placement budget: left out as ambiguous without weighing them"
            )
        missing = [piece.text for piece, p in zip(pieces, placed.placements, strict=True) if p.status == "not_found"]
        if missing:
            self.rewritten += _found_normalised(document.text, missing[:_NORMALISED_CHECKS])
        units = []
        for chunk, piece, placement in zip(chunks, pieces, placed.placements, strict=True):
            if placement.start is None:
                self.unplaced.append(
                    UnplacedChunk(chunk.id, document.id, chunk.line, placement.status, placement.candidates)
                )
                self.problems.append(_problem(self.path, chunk, document, placement))
                continue
            self.counts[placement.status] += 1
            start, end = placement.start, placement.start + len(piece.text)
            if to_original is not None:
                start, end = to_original(start), to_original(end)
            units.append(
                Chunk(chunk.id, document.id, start, end, document.text[start:end], chunk.prefix, chunk.section)
            )
        units.sort(key=_position)
        self.units.extend(units)


_NORMALISED_CHECKS = 50
"""Chunks of a document checked against its normalised text (each check reads the whole text)."""
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$", re.MULTILINE)


def _found_normalised(text: str, missing: list[str]) -> int:
    """How many of the ``missing`` texts occur in ``text`` once whitespace runs are one space (and, failing that,
    once Markdown heading lines are dropped too): a splitter that rewrote the text rather than cut it."""
    spaced = " ".join(text.split())
    headless = " ".join(_HEADING_LINE.sub("", text).split())
    found = 0
    for needle in missing:
        normalised = " ".join(needle.split())
        found += bool(normalised) and (normalised in spaced or normalised in headless)
    return found


def _placed_count(placed: OrderedPlacement) -> int:
    return sum(1 for placement in placed.placements if placement.placed)


def _position(unit: Chunk) -> tuple[int, int]:
    return unit.start, unit.end


def _check_unique_ids(dump: Dump) -> None:
    seen: dict[str, DumpChunk] = {}
    for chunk in dump.chunks:
        first = seen.setdefault(chunk.id, chunk)
        if first is not chunk:
            raise InputError(
                dump.path,
                f"duplicate chunk id '{chunk.id}' (first {_where_word(first)})",
                line=chunk.line,
                field=f"{chunk.where}id",
            )


def _piece(path: str, chunk: DumpChunk, text: str, offsets: DocumentOffsets) -> Piece:
    """The chunk as a piece to place in ``text``: its text and the start it claims, in code points."""
    converter = offsets.of(text)
    start = _converted(path, chunk, chunk.start, chunk.start_field, converter.to_codepoint, chunk.text is None)
    end = _converted(path, chunk, chunk.end, chunk.end_field, converter.to_codepoint, chunk.text is None)
    if chunk.text is None:  # offsets only: they are the chunk
        assert start is not None and end is not None
        if end <= start:
            raise _error(path, chunk, f"{chunk.end} must be greater than start ({chunk.start})", chunk.end_field)
        return Piece(text[start:end], start, fixed=True)
    # Exact only when the text stands at [start, end): an end the dump gives but that is unusable (-1, past the
    # document) is as wrong as one that disagrees with the text; a dump that gives no end at all claims a start.
    holds = start is not None and (end - start == len(chunk.text) if end is not None else chunk.end is None)
    return Piece(chunk.text, start if holds else None)


def _converted(
    path: str, chunk: DumpChunk, value: int | None, name: str, convert: Callable[[int], int], required: bool
) -> int | None:
    """``value`` in code points; None when it lies outside the document (a wrong offset, relocated by text).

    An offset inside a character is an error, as is any unusable offset of a chunk given by offsets only.
    """
    if value is None or (value == -1 and not required):
        return None
    try:
        return convert(value)
    except OffsetError as exc:
        if exc.inside or required:
            raise _error(path, chunk, str(exc), name) from None
        return None


def _error(path: str, chunk: DumpChunk, message: str, name: str) -> InputError:
    return InputError(path, message, line=chunk.line, field=f"{chunk.where}{name}")


def _problem(path: str, chunk: DumpChunk, document: Document, placement: Placement) -> str:
    if placement.status == "ambiguous":
        shown = ", ".join(map(str, placement.candidates[:10]))
        more = f" and {len(placement.candidates) - 10} more" if len(placement.candidates) > 10 else ""
        what = f"ambiguous in '{document.id}': its text fits at offsets {shown}{more}"
    else:
        what = f"text not found in '{document.id}'"
    return f"{path}:{_where(chunk)}: chunk '{chunk.id}' {what}; left out"


def _where(chunk: DumpChunk) -> str:
    return str(chunk.line) if chunk.line is not None else chunk.where.rstrip(".")


def _where_word(chunk: DumpChunk) -> str:
    return f"on line {chunk.line}" if chunk.line is not None else f"at {chunk.where.rstrip('.')}"


def _name(chunk: DumpChunk) -> str:
    return f"chunk '{chunk.id}' ({_where_word(chunk)})"


def import_summary_line(summary: ChunkImport) -> str:
    """One line for stderr: what the dump held, how its chunks were placed, and (when it is not chunkscope's own
    ``doc``) which field named their documents."""
    viewed = len(summary.newline_view_docs)
    through = f"; {viewed} CRLF document{'s' if viewed > 1 else ''} placed through the universal-newlines view"
    note = summary.document_key_note
    return (
        f"{summary.path} ({summary.format}): {summary.total} chunks: {summary.exact} exact, "
        f"{summary.relocated} relocated, {summary.ambiguous} ambiguous, {summary.not_found} not found"
        + (f"; {note}" if note else "")
    ) + (through if viewed else "")
