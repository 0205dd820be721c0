"""Corpus loaders: a JSONL file or a directory of .md/.txt documents (and .pdf/.html/.htm/.docx, extracted)."""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

from chunkscope.errors import ChunkscopeWarning, InputError, MissingExtraError
from chunkscope.io.documents.base import DOCUMENT_SUFFIXES, DocumentSkipped, document_format
from chunkscope.io.documents.cache import extract_cached, file_sha256
from chunkscope.io.sources import SourceFile
from chunkscope.io.text import exists, field_value, is_dir, jsonl_records, non_regular_kind, read_text, record_id
from chunkscope.model import Corpus, Document

TEXT_SUFFIXES = (".md", ".txt")
"""Files read as they are."""
CORPUS_SUFFIXES = (*TEXT_SUFFIXES, *DOCUMENT_SUFFIXES)
"""Every file a corpus directory's loader reads: text files, and PDF, HTML and DOCX files it extracts."""


class DocumentSkippedWarning(ChunkscopeWarning):
    """A PDF, HTML or DOCX file of a corpus directory could not be extracted and was left out."""


def load_corpus(path: str | Path) -> tuple[Corpus, SourceFile]:
    """Load a corpus from a JSONL file or a directory of ``.md``/``.txt`` files."""
    path = Path(path)
    if is_dir(path):
        return _load_corpus_dir(path)
    if not exists(path):
        raise InputError(str(path), "no such file or directory")
    text, digest = read_text(path)
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    for number, record in jsonl_records(path, text):
        where = (str(path), number)
        doc_id = record_id(record, where)
        body = field_value(record, "text", str, where)
        title = field_value(record, "title", str, where) if record.get("title") is not None else None
        metadata = field_value(record, "metadata", dict, where) if record.get("metadata") is not None else {}
        if doc_id in first_line:
            raise InputError(
                str(path),
                f"duplicate document id '{doc_id}' (first on line {first_line[doc_id]})",
                line=number,
                field="id",
            )
        first_line[doc_id] = number
        documents.append(Document(doc_id, body, title=title, metadata=metadata))
    if not documents:
        raise InputError(str(path), "the corpus is empty")
    return Corpus(tuple(documents)), SourceFile(str(path), digest)


def _load_corpus_dir(root: Path) -> tuple[Corpus, SourceFile]:
    files = corpus_files(root)
    if not files:
        raise InputError(
            str(root), f"no {', '.join(CORPUS_SUFFIXES[:-1])} or {CORPUS_SUFFIXES[-1]} files in this directory"
        )
    combined = hashlib.sha256()
    documents = []
    skipped = 0
    for file in files:
        doc_id = file.relative_to(root).as_posix()
        if not _is_utf8(doc_id):
            raise InputError(
                printable_path(file), "the file name is not valid UTF-8: rename it (it is the document id)"
            )
        if document_format(file) is not None:
            try:
                document, digest = _extracted_document(file, doc_id)
            except DocumentSkipped as exc:
                skipped += 1
                warnings.warn(f"{printable_path(file)}: skipped: {exc}", DocumentSkippedWarning, stacklevel=2)
                continue
        else:
            text, digest = read_text(file)
            document = Document(doc_id, text, title=doc_id)
        combined.update(f"{doc_id}\0{digest}\n".encode())
        documents.append(document)
    if skipped:
        if not documents:
            raise InputError(str(root), f"no usable document: all {skipped} files were skipped (see the warnings)")
        warnings.warn(
            f"{printable_path(root)}: {skipped} of {len(files)} documents skipped", DocumentSkippedWarning, stacklevel=2
        )
    return Corpus(tuple(documents)), SourceFile(str(root), combined.hexdigest())


def _extracted_document(file: Path, doc_id: str) -> tuple[Document, str]:
    """The document extracted from a PDF, HTML or DOCX file (cached by hash), and the file's SHA-256."""
    try:
        digest = file_sha256(file)
    except OSError as exc:
        raise DocumentSkipped(f"cannot read: {exc.strerror or exc}") from None
    try:
        text, structure = extract_cached(file, digest)
    except MissingExtraError as exc:
        # A folder of .md files with a stray .html read fine before PDF/HTML/DOCX support: it still does.
        raise DocumentSkipped(str(exc)) from None
    return Document(doc_id, text, title=doc_id, structure=structure), digest


def corpus_files(root: Path) -> list[Path]:
    """The corpus files (:data:`CORPUS_SUFFIXES`) under ``root``, sorted; symlinked files followed, directories not.

    InputError for a subdirectory that cannot be listed (it would silently drop
    documents) and for a ``.md``/``.txt`` entry that is not a regular file (a FIFO
    or device could be endless).
    """

    def unreadable(exc: OSError) -> None:
        where = printable_path(Path(exc.filename)) if exc.filename else printable_path(root)
        raise InputError(where, f"cannot read directory: {exc.strerror or exc}")

    files: list[Path] = []
    for directory, _, names in os.walk(root, onerror=unreadable):
        for name in names:
            path = Path(directory) / name
            if path.suffix.lower() not in CORPUS_SUFFIXES:
                continue
            try:
                mode = path.stat().st_mode
            except OSError:
                continue  # a dangling symlink is no document
            kind = non_regular_kind(mode)
            if kind is not None:
                raise InputError(printable_path(path), f"cannot read: it is {kind}, not a regular file")
            files.append(path)
    return sorted(files)


def printable_path(path: Path) -> str:
    """``path`` as text that any UTF-8 output can hold (undecodable bytes as ``\\xNN``)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
