"""Corpus loaders: a JSONL file or a directory of .md/.txt documents."""

from __future__ import annotations

import hashlib
from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io.sources import SourceFile
from chunkscope.io.text import field_value, jsonl_records, read_text, record_id
from chunkscope.model import Corpus, Document

CORPUS_SUFFIXES = (".md", ".txt")


def load_corpus(path: str | Path) -> tuple[Corpus, SourceFile]:
    """Load a corpus from a JSONL file or a directory of ``.md``/``.txt`` files."""
    path = Path(path)
    if path.is_dir():
        return _load_corpus_dir(path)
    if not path.exists():
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
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES)
    if not files:
        raise InputError(str(root), f"no {' or '.join(CORPUS_SUFFIXES)} files in this directory")
    combined = hashlib.sha256()
    documents = []
    for file in files:
        doc_id = file.relative_to(root).as_posix()
        text, digest = read_text(file)
        combined.update(f"{doc_id}\0{digest}\n".encode())
        documents.append(Document(doc_id, text, title=doc_id))
    return Corpus(tuple(documents)), SourceFile(str(root), combined.hexdigest())
