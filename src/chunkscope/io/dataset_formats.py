"""The dataset formats ``--dataset PATH`` reads, by name, each recognised by its content.

Every format is one module of ``chunkscope.io`` that registers itself here with :func:`register`: a
name, one line saying what its files hold (listed when a file matches no format), a ``sniff`` that
looks at a :class:`Probe` of the file (its first record, or the whole JSON value) and a ``load``. The
formats are tried in ``order`` (the most specific first), and the first whose ``sniff`` says yes
reads the file; ``--dataset-format NAME`` skips the sniffing.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from chunkscope.errors import InputError
from chunkscope.io.gold_units import Newlines
from chunkscope.io.offsets import OffsetUnit
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, QuoteFinder
from chunkscope.io.sources import Dataset
from chunkscope.io.text import exists, is_dir, parse_json, read_text
from chunkscope.model import Document, EvidenceItem, Span, SpanMatch

Layout = Literal["object", "array", "jsonl", "csv", "directory", "other"]
"""How the file holds its records: one JSON object, a JSON list, JSON lines, CSV, a directory, or else."""

PROBE_LINE_LIMIT = 64 << 20
"""A gzip file's first line is read up to this many bytes to recognise it."""


@dataclass(frozen=True, slots=True)
class Probe:
    """What the sniffers see of a file."""

    path: Path
    layout: Layout
    value: Any = None
    """The whole JSON value (``object`` and ``array`` layouts), else None."""
    record: Mapping[str, Any] | None = None
    """The first record: the first element of a list, the first JSON line, the CSV header as a mapping
    from each column to its first value, or the object itself; None when there is none."""

    def has(self, *keys: str) -> bool:
        """True when the first record holds every key."""
        return self.record is not None and all(key in self.record for key in keys)


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """Everything a loader may need besides the file: the options of the command line."""

    corpus: str | Path | None = None
    """``--corpus``: the documents, for formats that do not carry their own."""
    answers: str = "first"
    """``--squad-answers``."""
    language: str | None = None
    """``--tydi-language``."""
    gold_match: MatchPolicy = DEFAULT_POLICY
    offset_unit: OffsetUnit = "codepoint"
    skip_bad_gold: bool = False
    lenient: bool = False
    newlines: Newlines = "as-is"


@dataclass(frozen=True, slots=True)
class DatasetFormat:
    """One format ``--dataset`` reads."""

    name: str
    """The ``--dataset-format`` value."""
    expects: str
    """What its files hold, in a few words (the error for a file no format matches lists these)."""
    sniff: Callable[[Probe], bool]
    load: Callable[[Path, LoadOptions], Dataset]
    order: int = 50
    """Formats are tried in ascending order: the most specific shapes first."""


FORMATS: dict[str, DatasetFormat] = {}
"""Every registered format by name."""


def register(dataset_format: DatasetFormat) -> DatasetFormat:
    """Add a format (its module calls this when imported)."""
    FORMATS[dataset_format.name] = dataset_format
    return dataset_format


def formats_in_order() -> list[DatasetFormat]:
    """The registered formats in the order they are tried."""
    return sorted(FORMATS.values(), key=lambda known: (known.order, known.name))


def load_by_format(path: str | Path, name: str | None, options: LoadOptions) -> Dataset:
    """Read ``path`` as format ``name``, or as the first format whose sniff recognises it.

    The dataset carries a notice saying which format was taken and why.
    """
    path = Path(path)
    if name is not None:
        chosen = FORMATS.get(name)
        if chosen is None:
            raise InputError(str(path), f"unknown --dataset-format {name!r}; known: {', '.join(sorted(FORMATS))}")
        how = "as --dataset-format says"
    else:
        chosen = detect(path)
        how = "recognised by its content"
    dataset = chosen.load(path, options)
    notices = [f"{path}: read as {chosen.name} ({chosen.expects}), {how}", *dataset.notices]
    if not any(" located: " in notice for notice in notices):
        notices.append(match_rate(dataset).line(path, "gold spans"))
    if not any(": questions left out: " in notice for notice in notices):
        notices.append(left_out_line(path, dataset.questions.excluded_reasons))
    return Dataset(dataset.corpus, dataset.questions, dataset.sources, dataset.name, tuple(notices), dataset.suspicions)


def match_rate(dataset: Dataset) -> MatchTally:
    """How the loaded gold was located, for a loader that does not count it itself: each required item by its
    first alternative's match (offsets and exact quotes count as exact), each unresolved reference not found."""
    tally = MatchTally()
    for question in dataset.questions.questions:
        for item in question.evidence:
            tally.add(item.match_of(0).kind if item.alternatives else None)
    tally.not_found += len(dataset.questions.issues)
    return tally


def detect(path: Path) -> DatasetFormat:
    """The first format, in order, whose sniff recognises ``path``; else one line naming every format tried."""
    probe = probe_file(path)
    if probe.layout == "directory":
        raise InputError(
            str(path), "is a directory: --dataset takes a dataset file (give a corpus directory to --corpus)"
        )
    for known in formats_in_order():
        if known.sniff(probe):
            return known
    tried = "; ".join(f"{known.name}: {known.expects}" for known in formats_in_order())
    raise InputError(
        str(path),
        f"matches no known dataset format; tried {tried}; give --dataset-format NAME to read it as one",
        field=None,
    )


def probe_file(path: Path) -> Probe:
    """Read enough of ``path`` to recognise its format (the whole file for JSON)."""
    if not exists(path):
        raise InputError(str(path), "no such file")
    if is_dir(path):
        return Probe(path, "directory")
    if path.name.lower().endswith(".gz"):
        return _gzip_probe(path)
    text, _ = read_text(path)
    return probe_text(path, text)


def probe_text(path: Path, text: str) -> Probe:
    """The probe of a file's text: by its suffix for CSV, else by its first character."""
    if path.suffix.lower() == ".csv":
        return _csv_probe(path, text)
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        value = parse_json(path, text.lstrip("\ufeff"))
        first = value[0] if isinstance(value, list) and value and isinstance(value[0], Mapping) else None
        return Probe(path, "array", value, first)
    if stripped.startswith("{"):
        first_line = stripped.split("\n", 1)[0]
        try:
            record = json.loads(first_line)
        except ValueError:
            record = None
        several = first_line.strip() != stripped.strip()
        if isinstance(record, dict) and (several or path.suffix.lower() == ".jsonl"):
            return Probe(path, "jsonl", None, record)  # one object per line
        value = parse_json(path, text.lstrip("\ufeff"))
        return Probe(path, "object", value, value if isinstance(value, Mapping) else None)
    return Probe(path, "other")


def _csv_probe(path: Path, text: str) -> Probe:
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    try:
        header = next(reader, [])
        first = next(reader, [])
    except csv.Error:
        return Probe(path, "csv")
    return Probe(path, "csv", None, dict(zip(header, first + [""] * (len(header) - len(first)), strict=False)))


def _gzip_probe(path: Path) -> Probe:
    try:
        with gzip.open(path, "rb") as handle:
            line = handle.readline(PROBE_LINE_LIMIT)
        record = json.loads(line.decode("utf-8"))
    except (OSError, EOFError, ValueError, UnicodeDecodeError):
        return Probe(path, "other")
    return Probe(path, "jsonl", None, record if isinstance(record, dict) else None)


def records_of(probe: Probe, key: str | None = None) -> list[Any] | None:
    """The list of records of a JSON value: the value itself when a list, else ``value[key]`` when a list."""
    value = probe.value
    if isinstance(value, list):
        return value
    if key is not None and isinstance(value, Mapping) and isinstance(value.get(key), list):
        return list(value[key])
    return None


def need_corpus(path: Path, options: LoadOptions, name: str) -> Path:
    """``--corpus``, which format ``name`` needs: its files hold no documents."""
    if options.corpus is None:
        raise InputError(str(path), f"a {name} file holds no documents: give --corpus too")
    return Path(options.corpus)


def refuse_corpus(path: Path, options: LoadOptions, name: str) -> None:
    """A format that carries its documents takes no ``--corpus``."""
    if options.corpus is not None:
        raise InputError(str(path), f"a {name} file holds its own documents: give it without --corpus")


@dataclass(slots=True)
class MatchTally:
    """How a loader's strings were located: exactly, normalised, fuzzy, or not at all."""

    exact: int = 0
    normalized: int = 0
    fuzzy: int = 0
    not_found: int = 0

    def add(self, kind: str | None) -> None:
        """Count one string located by ``kind`` (``exact``, ``normalized``, ``fuzzy``; None: not found)."""
        if kind is None:
            self.not_found += 1
        else:
            setattr(self, kind, getattr(self, kind) + 1)

    def line(self, path: str | Path, what: str) -> str:
        """The one-line match rate: ``PATH: 12 facts located: 10 exactly, 1 normalised, 0 fuzzy, 1 not found``."""
        total = self.exact + self.normalized + self.fuzzy + self.not_found
        return (
            f"{path}: {total} {what} located: {self.exact} exactly, {self.normalized} normalised, "
            f"{self.fuzzy} fuzzy, {self.not_found} not found"
        )


def left_out_line(path: str | Path, reasons: Mapping[str, int]) -> str:
    """One line naming what a loader left out, by reason (``nothing`` when it left nothing out)."""
    listed = "; ".join(f"{count} {reason}" for reason, count in reasons.items()) or "nothing"
    return f"{path}: questions left out: {listed}"


def quote_item(finder: QuoteFinder, tally: MatchTally, document: Document, quote: str) -> EvidenceItem | None:
    """The item of ``quote`` in ``document`` by the ladder (every occurrence an alternative), counted in
    ``tally``; None when not found."""
    hits = finder.find(document.id, document.text, quote)
    tally.add(hits.match.kind if hits.match is not None else None)
    if hits.match is None:
        return None
    spans = tuple(Span(document.id, start, end) for start, end in hits.places)
    matches: tuple[SpanMatch, ...] = (hits.match,) * len(spans) if hits.match.approximate else ()
    return EvidenceItem(spans, matches)


def empty_question_set(path: str | Path, reasons: Mapping[str, int]) -> InputError:
    """The error for a file none of whose questions can be used: what was left out, by reason."""
    listed = "; ".join(f"{count} {reason}" for reason, count in reasons.items()) or "the file has none"
    return InputError(str(path), f"the question set is empty: no usable question ({listed})")
