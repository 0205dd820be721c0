"""Chroma's chunking benchmark (``chunking_evaluation``): ``questions_df.csv`` and its corpora.

Each CSV row is a question with ``references``, a JSON list of
``{content, start_index, end_index}`` into the corpus named by ``corpus_id``
(``corpora/<corpus_id>.md`` beside the CSV, or ``<DIR>/<corpus_id>.md`` with
``--corpus DIR``). Every reference is a required span.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import DatasetFormat, LoadOptions, Probe, register
from chunkscope.io.gold import BadGold, count_reason
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import (
    exists,
    is_dir,
    non_regular_kind,
    parse_json,
    path_mode,
    read_text,
    reject_bom,
    require_regular_file,
)
from chunkscope.model import Corpus, Document, EvidenceItem, GoldIssue, Question, QuestionSet, Span, SpanMatch

COLUMNS = ("question", "references", "corpus_id")
CORPUS_SUFFIXES = (".md", ".txt")


def load_chroma(
    path: str | Path,
    corpus_dir: str | Path | None = None,
    policy: MatchPolicy = DEFAULT_POLICY,
    skip_bad_gold: bool = False,
    lenient: bool = False,
) -> Dataset:
    """Load a Chroma ``questions_df.csv`` with the corpora it names.

    A reference's ``content`` must agree with the corpus text at its offsets
    (by the ladder of ``policy``); however often the content occurs elsewhere, the
    offsets pick the occurrence. A question with a reference that does not agree is
    excluded, counted and listed in ``QuestionSet.issues``. ``skip_bad_gold``: a question with a
    reference out of its document's range is excluded and counted too, instead of refusing the file.
    ``lenient`` (``gold check``): every reference of a question is looked at, and one out of range is also
    listed in ``QuestionSet.issues``.
    """
    path = Path(path)
    require_regular_file(path)
    text, digest = read_text(path)
    reject_bom(path, text)
    root = corpora_directory(path, corpus_dir)
    if not is_dir(root):
        mode = path_mode(root)
        found = "" if mode is None else f": it is {non_regular_kind(mode) or 'a regular file'}"
        raise InputError(str(root), f"no corpora directory{found} (give --corpus DIR holding <corpus_id>.md files)")
    builder = _ChromaBuilder(str(path), root, QuoteFinder(policy), skip_bad_gold, lenient)
    for line, index, row in csv_rows(path, text, COLUMNS):
        builder.add_row(line, index, row)
    if not builder.questions and not builder.excluded and not builder.skipped:
        raise InputError(str(path), "the question set is empty: nothing to evaluate")
    excluded = {"reference not at its offsets": builder.excluded} if builder.excluded else {}
    excluded |= builder.skipped
    total = sum(excluded.values())
    questions = QuestionSet(tuple(builder.questions), total, excluded, tuple(builder.issues))
    sources = (SourceFile(str(path), digest), *builder.sources)
    return Dataset(Corpus(tuple(builder.documents.values())), questions, sources, path.stem)


def corpora_directory(path: str | Path, corpus_dir: str | Path | None = None) -> Path:
    """Where the corpora of the CSV at ``path`` are read from: ``corpus_dir``, else ``corpora`` beside the CSV."""
    return Path(corpus_dir) if corpus_dir is not None else Path(path).parent / "corpora"


def csv_rows(path: Path, text: str, required: tuple[str, ...]) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(line of the row's start, 0-based row index, row) for every data row; required columns checked."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError(str(path), "empty CSV: expected a header row", line=1) from None
    except csv.Error as exc:
        raise InputError(str(path), f"invalid CSV: {exc}", line=1) from None
    for column in required:
        if column not in header:
            raise InputError(
                str(path), f"missing column (header has {', '.join(header) or 'none'})", line=1, field=column
            )
    index = 0
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(str(path), f"invalid CSV: {exc}", line=start) from None
        if any(cell.strip() for cell in cells):
            yield start, index, dict(zip(header, cells, strict=False))
            index += 1
        start = reader.line_num + 1


class _ChromaBuilder:
    def __init__(
        self, path: str, root: Path, finder: QuoteFinder, skip_bad_gold: bool = False, lenient: bool = False
    ) -> None:
        self.skip_bad_gold = skip_bad_gold
        self.lenient = lenient
        self.skipped: dict[str, int] = {}
        self.path = path
        self.root = root
        self.finder = finder
        self.documents: dict[str, Document] = {}
        self.sources: list[SourceFile] = []
        self.questions: list[Question] = []
        self.issues: list[GoldIssue] = []
        self.excluded = 0
        self.ids: set[str] = set()

    def fail(self, line: int, name: str, message: str) -> InputError:
        return InputError(self.path, message, line=line, field=name)

    def add_row(self, line: int, index: int, row: dict[str, str]) -> None:
        query = row.get("question") or ""
        if not query.strip():
            raise self.fail(line, "question", "must not be empty")
        corpus_id = (row.get("corpus_id") or "").strip()
        if not corpus_id:
            raise self.fail(line, "corpus_id", "must not be empty")
        document = self.document(corpus_id, line)
        question_id = (row.get("id") or "").strip() or f"{corpus_id}-{index}"
        if question_id in self.ids:
            raise self.fail(line, "id", f"duplicate question id '{question_id}'")
        self.ids.add(question_id)
        try:
            references = parse_json(self.path, row.get("references") or "", line)
        except InputError as exc:
            raise self.fail(line, "references", f"{exc.message} (expected a JSON list of references)") from None
        if not isinstance(references, list) or not references:
            raise self.fail(line, "references", "must be a non-empty JSON list of {content, start_index, end_index}")
        evidence = []
        bad: list[BadGold] = []
        unresolved = False
        for i, reference in enumerate(references):
            try:
                span = self.reference(reference, document, line, f"references[{i}]", question_id)
            except BadGold as failed:
                if not (self.skip_bad_gold or self.lenient):
                    raise
                bad.append(failed)
                if not self.lenient:
                    break
                continue
            if span is None:
                unresolved = True
                if not self.lenient:
                    break
                continue
            evidence.append(span)
        if bad:
            count_reason(self.skipped, bad[0].reason)
            if self.lenient:
                self.issues.extend(issue for failed in bad for issue in failed.as_issues(question_id))
            return
        if unresolved:
            self.excluded += 1
            return
        self.questions.append(
            Question(
                question_id,
                query,
                tuple(EvidenceItem((span,), (match,) if match.approximate else ()) for span, match in evidence),
                (corpus_id,),
            )
        )

    def reference(
        self, reference: Any, document: Document, line: int, name: str, question_id: str
    ) -> tuple[Span, SpanMatch] | None:
        if not isinstance(reference, dict):
            raise self.fail(line, name, "must be an object {content, start_index, end_index}")
        content = reference.get("content")
        if not isinstance(content, str) or not content:
            raise self.fail(line, f"{name}.content", "must be a non-empty string")
        offsets = []
        for key in ("start_index", "end_index"):
            value = reference.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(line, f"{name}.{key}", "must be an integer")
            offsets.append(value)
        start, end = offsets
        if not 0 <= start < end <= len(document.text):
            problem = (
                "is empty" if start >= end else f"is out of range ({document.id} has {len(document.text)} characters)"
            )
            raise BadGold(
                self.path,
                f"span [{start}, {end}) {problem}",
                line=line,
                field=f"{name}.start_index",
                reason="reference out of range or empty",
                kind="out_of_range",
                doc=document.id,
                quote=content,
            )
        match = self.finder.agrees(document.text, content, start, end)
        if match is not None:
            return Span(document.id, start, end), match
        hits = self.finder.find(document.id, document.text, content)
        self.issues.append(
            GoldIssue(
                "mismatch",
                question_id,
                f"{self.path}:{line} field '{name}'",
                document.id,
                content,
                tuple((document.id, s, e) for s, e in hits.places),
                f"[{start}, {end}) does not hold the reference's content"
                + (f" (found at {', '.join(f'[{s}, {e})' for s, e in hits.places[:5])})" if hits.places else ""),
            )
        )
        return None

    def document(self, corpus_id: str, line: int) -> Document:
        root = self.root.resolve()
        if Path(corpus_id).is_absolute() or not (root / corpus_id).resolve().is_relative_to(root):
            raise self.fail(line, "corpus_id", f"{corpus_id!r} names a file outside the corpora directory {self.root}")
        for suffix in CORPUS_SUFFIXES:
            doc_id = corpus_id + suffix
            if doc_id in self.documents:
                return self.documents[doc_id]
            file = self.root / doc_id
            if exists(file):  # a FIFO or device there is refused by read_text, named for what it is
                text, digest = read_text(file)
                self.documents[doc_id] = Document(doc_id, text, title=corpus_id)
                self.sources.append(SourceFile(str(file), digest))
                return self.documents[doc_id]
        raise self.fail(line, "corpus_id", f"no corpus file {self.root / (corpus_id + '.md')}")


def _sniff_chroma(probe: Probe) -> bool:
    return probe.layout == "csv" and probe.has(*COLUMNS)


def _load_chroma(path: Path, options: LoadOptions) -> Dataset:
    return load_chroma(path, options.corpus, options.gold_match, options.skip_bad_gold, options.lenient)


register(
    DatasetFormat(
        "chroma",
        "CSV with question, references, corpus_id (corpora/ beside it or --corpus)",
        _sniff_chroma,
        _load_chroma,
        10,
    )
)
