"""BM25 from tantivy, an embedded search engine whose index lives on disk (extra ``chunkscope[engine]``).

For corpora whose postings do not fit in memory: the index is built once per chunking and tokenizer,
kept in the cache directory, and opened (memory-mapped) by every later run and by the inspector.

What is indexed is chunkscope's own tokens: each unit's indexed text goes through the configured
tokenizer (:func:`chunkscope.tokenize.base.get_tokenizer`), the tokens are joined by single spaces
and tantivy's ``whitespace`` tokenizer splits them again, unchanged (no lower-casing, no stemming,
no length filter). A question is an OR (``Should`` clauses) of term queries, one per question token,
repeats kept, built with the query API: nothing goes through tantivy's query parser, so no query
syntax needs escaping. Matching is therefore exactly the ``bm25`` retriever's; the scores are
tantivy's BM25 (Lucene's formula), see :class:`Tantivy`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chunkscope import __version__
from chunkscope.errors import ChunkscopeWarning, MissingExtraError
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import EMPTY_RANKING, Progress, retrievers, tie_break_positions
from chunkscope.retrievers.embedding_cache import cache_root
from chunkscope.retrievers.index_check import description_damage, file_manifest
from chunkscope.tokenize.base import Tokenizer, get_tokenizer
from chunkscope.tokenize.chunks import chunk_token_batches
from chunkscope.tokenize.streams import ChunkTokens

INDEX_FORMAT = 2
"""Version of what an index holds (fields, token escaping, the description's file manifest); part of the cache key."""
FIELD = "body"
UNIT = "unit"
DESCRIPTION = "chunkscope.json"
"""Written into each finished index directory: what it indexes and the size and CRC-32 of each of its files
(checked when the index is opened)."""
WRITER_HEAP_BYTES = 256_000_000
"""tantivy's indexing memory budget; a full buffer is written out as a segment."""
MAX_TOKEN_BYTES = 65_530
"""tantivy drops longer terms (while still counting them in the field length)."""
PROGRESS_EVERY = 4096
"""Units indexed between two progress reports."""
KEY_BATCH = 65_536
"""Units hashed at a time for the cache key (bounds the temporary strings)."""
SEARCH_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Threads searching at once (tantivy searches without the GIL)."""

K1 = 1.2
B = 0.75
"""tantivy's BM25 parameters, fixed in tantivy (``query/bm25.rs``) and not exposed by its Python bindings."""


def tantivy_installed() -> bool:
    """True when the ``tantivy`` package can be imported (without importing it)."""
    try:
        return importlib.util.find_spec("tantivy") is not None
    except (ImportError, ValueError):
        return False


@retrievers.register("tantivy")
@dataclass(frozen=True, slots=True)
class Tantivy:
    """tantivy's BM25, Lucene's formula, over chunkscope's tokens.

    idf(t)      = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
    score(q, d) = Σ over query tokens t (repeats count)
                  idf(t) · (k1 + 1) · tf(t,d) / (tf(t,d) + k1 · (1 − b + b · L(d) / avgdl))

    with k1 = 1.2 and b = 0.75, fixed: tantivy's Python bindings do not expose them. N counts every
    unit; avgdl is the exact mean length in tokens; L(d) is the unit's length quantised to one byte
    (tantivy's field norm: exact up to 40 tokens, then a step that grows with the length, the largest
    value of ``FIELD_NORMS`` not above the length). Arithmetic is in float32. Versus ``bm25``
    (rank_bm25's Okapi): this idf never goes negative (no epsilon floor), the defaults are k1 = 1.2
    rather than 1.5, and lengths above 40 tokens are rounded down to the quantisation step.

    The index lives under ``<cache>/tantivy/<key>/`` (``<cache>``: ``$CHUNKSCOPE_CACHE``, else
    ``$XDG_CACHE_HOME/chunkscope``, else ``~/.cache/chunkscope``), the key a SHA-256 of the units
    (ids, documents, offsets, indexed texts, in order), the tokenizer spec, chunkscope's version and
    the index format. ``cache=false`` builds a temporary index instead, removed afterwards.
    """

    tokenizer: str = "default"
    cache: bool = True

    def __post_init__(self) -> None:
        if not tantivy_installed():
            raise MissingExtraError("the tantivy retriever", "engine", "tantivy")

    def build(self, units: Sequence[Chunk]) -> TantivyIndex:
        return TantivyIndex(self, units)

    def build_over(self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None) -> TantivyIndex:
        """The index over units cut from ``corpus``: a build tokenises the documents, not each unit."""
        return TantivyIndex(self, units, corpus)


def _field_norm_of_byte(byte: int) -> int:
    """tantivy's decoding of a field-norm byte (``fieldnorm/code.rs``): identity below 24, then 3-bit floats."""
    if byte < 24:
        return byte
    code = byte - 24
    bits = code & 0b111
    shift = code >> 3
    return 24 + (bits if shift == 0 else (bits | 8) << (shift - 1))


FIELD_NORMS = tuple(_field_norm_of_byte(byte) for byte in range(256))
"""Field-norm byte -> the length tantivy scores with: 0..40 exactly, then 42, 44, ..., up to 2,013,265,944."""


def quantised_length(length: int) -> int:
    """The length tantivy scores with: the largest field norm not above ``length``."""
    low, high = 0, len(FIELD_NORMS) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if FIELD_NORMS[middle] <= length:
            low = middle
        else:
            high = middle - 1
    return FIELD_NORMS[low]


# --- what is indexed ------------------------------------------------------------------------------

_ESCAPE = "\ue000"
_ESCAPES = {_ESCAPE: "0", " ": "1", "\t": "2", "\n": "3", "\x0c": "4", "\r": "5"}
_OTHER_SEPARATORS = ("\t", "\n", "\x0c", "\r", _ESCAPE)
_SEPARATORS = re.compile("[ \t\n\x0c\r\ue000]")


def escape_token(token: str) -> str:
    """A token tantivy's whitespace tokenizer keeps whole, one to one.

    ASCII whitespace (what splits tokens there) and the escape character become the escape character
    and a digit, the empty token becomes ``\\ue000_``, and a token still longer than tantivy's limit
    becomes ``\\ue000#`` and its SHA-256: distinct tokens stay distinct.
    """
    if not token:
        return _ESCAPE + "_"
    escaped = _SEPARATORS.sub(lambda match: _ESCAPE + _ESCAPES[match.group()], token)
    if len(escaped.encode("utf-8", "surrogatepass")) > MAX_TOKEN_BYTES:
        return _ESCAPE + "#" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
    return escaped


def _plain(tokens: Sequence[str], joined: str) -> bool:
    """True when ``joined`` (the tokens joined by spaces) splits back into exactly these tokens.

    Substring tests rather than a regular expression or a scan of the list: this runs once per unit.
    """
    if not joined or joined.count(" ") != len(tokens) - 1:
        return False  # a space inside a token (or the one token is empty)
    if "  " in joined or joined[0] == " " or joined[-1] == " ":
        return False  # an empty token
    if any(char in joined for char in _OTHER_SEPARATORS):
        return False
    # A character takes at most 4 bytes in UTF-8: most token lists need no encoding to be checked.
    if len(joined) * 4 <= MAX_TOKEN_BYTES or max(map(len, tokens)) * 4 <= MAX_TOKEN_BYTES:
        return True
    return max(map(_utf8_length, tokens)) <= MAX_TOKEN_BYTES


def _utf8_length(token: str) -> int:
    return len(token.encode("utf-8", "surrogatepass"))


def index_text(tokens: Sequence[str]) -> str:
    """The text given to tantivy for these tokens: joined by spaces, each escaped where needed."""
    if not tokens:
        return ""
    joined = " ".join(tokens)
    return joined if _plain(tokens, joined) else " ".join(map(escape_token, tokens))


def query_terms(tokens: Sequence[str]) -> list[str]:
    """The index terms of a question's tokens, in order, repeats kept."""
    if tokens and _plain(tokens, " ".join(tokens)):
        return list(tokens)
    return [escape_token(token) for token in tokens]


def unit_texts(tokens: ChunkTokens) -> list[str]:
    """Each unit's ``index_text``, from its term ids: every term escaped once, the units cut from one join.

    Escaping is token by token (a plain token is its own escape), so escaping the distinct terms
    gives what ``index_text`` gives each unit. All the tokens are joined by spaces at once, in
    UTF-32 code points with numpy, and each unit's text is a slice of the join.
    """
    ids = tokens.ids
    count = int(ids.max()) + 1 if len(ids) else 0
    terms = query_terms(tokens.term_texts(count))
    joined, token_bounds = _join(terms, ids)
    unit_ends = np.cumsum(tokens.lengths)
    starts = token_bounds[unit_ends - tokens.lengths]
    ends = np.maximum(token_bounds[unit_ends] - 1, starts)  # without the space after the last token
    return [joined[start:end] for start, end in zip(starts.tolist(), ends.tolist(), strict=True)]


_SPACE = ord(" ")


def _join(terms: Sequence[str], ids: np.ndarray) -> tuple[str, np.ndarray]:
    """The terms of ``ids`` each followed by a space, and where each token starts in it (then the end).

    Terms are not empty. The first two code points of every token are written in two vectorised
    steps (a one-character term's second is its space); only longer terms (ASCII words) need more.
    Code points are written as UTF-16 code units when they all are one (no surrogates, nothing
    beyond the BMP): decoding UTF-16 is much cheaper than UTF-32.
    """
    term_lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
    points = np.frombuffer("".join(t + " " for t in terms).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    single_units = not len(points) or (points.max() <= 0xFFFF and not ((points >> 11) == 0xD800 >> 11).any())
    unit, encoding = (np.uint16, "utf-16-le") if single_units else (np.uint32, "utf-32-le")
    points = points.astype(unit)
    term_starts = np.cumsum(term_lengths + 1) - (term_lengths + 1)
    lengths = term_lengths[ids]
    bounds = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=bounds[1:])
    starts = bounds[:-1]
    out = np.full(int(bounds[-1]), _SPACE, dtype=unit)
    out[starts] = points[term_starts][ids]
    out[starts + 1] = points[term_starts + 1][ids]
    longer = np.flatnonzero(lengths > 2)
    if len(longer):
        rest = lengths[longer] - 2
        before = np.cumsum(rest) - rest
        steps = np.arange(int(rest.sum()), dtype=np.int64)
        targets = np.repeat(starts[longer] + 2 - before, rest) + steps
        out[targets] = points[np.repeat(term_starts[ids[longer]] + 2 - before, rest) + steps]
    return str(out.data, encoding, "surrogatepass"), bounds


# --- the cache ------------------------------------------------------------------------------------


def index_key(units: Sequence[Chunk], tokenizer: str) -> str:
    """SHA-256 (hex) of what an index holds: the units in order, the tokenizer, the formats.

    Each batch of units adds the lengths of its ids, document ids and indexed texts (int64), their
    offsets, then the three strings concatenated: every unit's fields are delimited by the lengths.
    """
    digest = hashlib.sha256(f"chunkscope {__version__} tantivy-index {INDEX_FORMAT}\0{tokenizer}\0".encode())
    for begin in range(0, len(units), KEY_BATCH):
        batch = units[begin : begin + KEY_BATCH]
        ids = [u.id for u in batch]
        docs = [u.doc for u in batch]
        texts = [u.indexed_text for u in batch]
        numbers = [list(map(len, ids)), list(map(len, docs)), list(map(len, texts))]
        numbers += [[u.start for u in batch], [u.end for u in batch]]
        digest.update(np.array(numbers, dtype=np.int64).tobytes())
        for strings in (ids, docs, texts):
            digest.update("".join(strings).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def index_directory() -> Path:
    """Where cached indexes live: ``<cache root>/tantivy``."""
    return cache_root() / "tantivy"


@dataclass(frozen=True, slots=True)
class OpenedIndex:
    """An open tantivy index and where it came from."""

    index: Any
    """The ``tantivy.Index``."""
    path: Path | None
    """Its directory (None: held in memory)."""
    built: bool
    """True when this run built it, False when it was opened from the cache."""
    temporary: tempfile.TemporaryDirectory[str] | None = None
    """Removes a temporary index's directory when the last reference goes."""


def open_or_build(
    units: Sequence[Chunk],
    tokenizer: Tokenizer,
    params: Tantivy,
    progress: Callable[[int], None],
    corpus: Corpus | None = None,
) -> OpenedIndex:
    """The cached index of these units, built first if needed; a temporary one when the cache fails.

    ``corpus``, the documents the units were cut from, lets a build tokenise documents instead of units.
    """
    source = _Source(units, tokenizer, corpus)
    if not params.cache:
        return _temporary_index(source, progress)
    root = index_directory()
    key = index_key(units, params.tokenizer)
    target = root / key
    opened = _open_cached(target, len(units))
    if opened is not None:
        return opened
    try:
        root.mkdir(parents=True, exist_ok=True)
        _remove_abandoned_builds(root, key)
        staging = Path(tempfile.mkdtemp(prefix=f"{key}.building-{os.getpid()}-", dir=root))
    except OSError as exc:
        _warn_cache_fault(root, exc)
        return _temporary_index(source, progress)
    try:
        index = _write_index(staging, source, params, progress)
        del index  # closed before its directory moves, and before its files are summed up
        _describe(staging, len(units), params)
        _publish(staging, target)
    except (OSError, ValueError) as exc:  # tantivy reports I/O errors as ValueError
        shutil.rmtree(staging, ignore_errors=True)
        _warn_cache_fault(root, exc)
        return _temporary_index(source, progress)
    except BaseException:  # interrupted: leave no half-built index behind
        shutil.rmtree(staging, ignore_errors=True)
        raise
    opened = _open_cached(target, len(units), built=True)
    if opened is None:
        _warn_cache_fault(root, OSError(f"the index written to {target} cannot be opened"))
        return _temporary_index(source, progress)
    return opened


def _remove_abandoned_builds(root: Path, key: str) -> None:
    """Remove staging directories of ``key`` whose building process is gone (killed mid-build)."""
    for staging in root.glob(f"{key}.building-*"):
        owner = staging.name[len(key) + len(".building-") :].split("-", 1)[0]
        if owner.isdigit() and not _process_alive(int(owner)):
            shutil.rmtree(staging, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, owned by someone else
    return True


def _publish(staging: Path, target: Path) -> None:
    """Move a finished index into place; when another process got there first, keep theirs."""
    try:
        os.rename(staging, target)
    except OSError:
        if not (target / DESCRIPTION).is_file():
            raise
        shutil.rmtree(staging, ignore_errors=True)


def _open_cached(target: Path, unit_count: int, built: bool = False) -> OpenedIndex | None:
    """The finished index at ``target``, or None (absent, or damaged: then it is removed, with a warning).

    Every file the description lists must still have its size and CRC-32 (see :mod:`.index_check`):
    tantivy itself reads a damaged file without complaint (a changed field norm only changes scores).
    """
    description = target / DESCRIPTION
    try:
        os.lstat(description)
    except OSError:
        return None  # not built yet, or no cache directory (a fault the build reports)
    import tantivy  # the optional extra, checked when the spec was parsed

    damage = description_damage(target, DESCRIPTION, {"units": unit_count, "format": INDEX_FORMAT})
    if damage is None:
        try:
            index = tantivy.Index.open(str(target))
            if index.searcher().num_docs != unit_count:
                damage = "its unit count differs"
        except (OSError, ValueError) as exc:  # tantivy reports a broken index as ValueError
            damage = f"tantivy cannot open it: {exc}"
    if damage is not None:
        _warn_damaged(target, damage)
        shutil.rmtree(target, ignore_errors=True)  # rebuilt by the caller
        return None
    return OpenedIndex(index, target, built)


def _describe(folder: Path, unit_count: int, params: Tantivy) -> None:
    """Write the description of the finished, closed index in ``folder``, its file manifest included."""
    import tantivy

    description = {
        "units": unit_count,
        "tokenizer": params.tokenizer,
        "format": INDEX_FORMAT,
        "chunkscope": __version__,
        "tantivy": getattr(tantivy, "__version__", "unknown"),
        "files": file_manifest(folder, DESCRIPTION),
    }
    (folder / DESCRIPTION).write_text(json.dumps(description, indent=2) + "\n", encoding="utf-8")


def _warn_damaged(target: Path, damage: str) -> None:
    warnings.warn(
        ChunkscopeWarning(f"the cached tantivy index {target} is damaged ({damage}); building it again"),
        stacklevel=4,
    )


def _temporary_index(source: _Source, progress: Callable[[int], None]) -> OpenedIndex:
    """An index in a temporary directory (removed with the OpenedIndex), or in memory if that fails too."""
    params = Tantivy(cache=False)
    try:
        folder = tempfile.TemporaryDirectory(prefix="chunkscope-tantivy-")
    except OSError:
        return OpenedIndex(_write_index(None, source, params, progress), None, True)
    try:
        index = _write_index(Path(folder.name), source, params, progress)
    except (OSError, ValueError):
        folder.cleanup()
        return OpenedIndex(_write_index(None, source, params, progress), None, True)
    return OpenedIndex(index, Path(folder.name), True, folder)


def _warn_cache_fault(root: Path, exc: Exception) -> None:
    warnings.warn(
        ChunkscopeWarning(
            f"cannot write the tantivy index cache in {root} ({getattr(exc, 'strerror', None) or exc}); "
            "using a temporary index, built again on every run"
        ),
        stacklevel=3,
    )


def schema() -> Any:
    """Two fields: the space-joined tokens (term frequencies, no positions) and the unit's position."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field(FIELD, stored=False, tokenizer_name="whitespace", index_option="freq")
    builder.add_unsigned_field(UNIT, stored=False, indexed=False, fast=True)
    return builder.build()


@dataclass(frozen=True, slots=True)
class _Source:
    """What an index is built from: the units, the tokenizer, and the corpus they were cut from if known."""

    units: Sequence[Chunk]
    tokenizer: Tokenizer
    corpus: Corpus | None


def _text_batches(source: _Source) -> Iterator[list[str]]:
    """Every unit's text for tantivy, in unit order, a run of units at a time."""
    for _, tokens in chunk_token_batches(source.tokenizer, source.units, source.corpus):
        yield unit_texts(tokens)


def _write_index(path: Path | None, source: _Source, params: Tantivy, progress: Callable[[int], None]) -> Any:
    """Index every unit (in ``path``, or in memory for None) and describe it; the open index.

    The next run of units' texts is made on a second thread while tantivy indexes the current one
    (tantivy indexes on threads of its own and releases the GIL while its pipeline is full).
    """
    import tantivy

    index = tantivy.Index(schema(), path=None if path is None else str(path), reuse=False)
    # One indexing thread: the segments, and so the index, are the same on every machine.
    writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
    position = 0
    with ThreadPoolExecutor(1) as ahead:
        batches = _text_batches(source)
        upcoming = ahead.submit(next, batches, None)
        while (texts := upcoming.result()) is not None:
            upcoming = ahead.submit(next, batches, None)
            for text in texts:
                document = tantivy.Document()
                document.add_text(FIELD, text)
                document.add_unsigned(UNIT, position)
                writer.add_document(document)
                if position % PROGRESS_EVERY == 0:
                    progress(position)
                position += 1
            del texts
    writer.commit()
    writer.wait_merging_threads()
    units = source.units
    progress(len(units))
    index.reload()
    return index


# --- ranking --------------------------------------------------------------------------------------


class TantivyIndex:
    """The units' tantivy index (opened or built on the first ranking, with progress) and the ranking."""

    def __init__(self, params: Tantivy, units: Sequence[Chunk], corpus: Corpus | None = None) -> None:
        self.params = params
        self.units = units
        self.corpus = corpus
        """The documents the units were cut from (None: unknown), for the build."""
        self.tie_break = tie_break_positions(units)
        self.tokenizer = get_tokenizer(params.tokenizer)
        self.opened: OpenedIndex | None = None

    def open(self, progress: Callable[[int], None] | None = None) -> OpenedIndex:
        """The index, opened from the cache or built (once per TantivyIndex)."""
        if self.opened is None:
            report = progress or (lambda done: None)
            self.opened = open_or_build(self.units, self.tokenizer, self.params, report, self.corpus)
        return self.opened

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        total = len(self.units) + len(questions)
        report = progress or (lambda done, total: None)
        opened = self.open(lambda done: report(done, total))
        if not len(self.units):
            return [EMPTY_RANKING for _ in questions]
        searcher = opened.index.searcher()
        index_schema = opened.index.schema

        def search(question: Question) -> Ranking:
            return self._top(searcher, _or_query(index_schema, query_terms(self.tokenizer(question.query))), depth)

        rankings = []
        # tantivy releases the GIL while it searches, so a few threads overlap the searches.
        with ThreadPoolExecutor(SEARCH_THREADS) as threads:
            for number, ranking in enumerate(threads.map(search, questions), start=1):
                rankings.append(ranking)
                if number % 256 == 0:
                    report(len(self.units) + number, total)
        report(total, total)
        return rankings

    def _top(self, searcher: Any, query: Any, depth: int) -> Ranking:
        """The ``depth`` best units by score descending, then the tie-break (every tie at the cut fetched)."""
        if query is None:
            return EMPTY_RANKING
        # Room past the depth, so that ties at the cut rarely need a second search (copies of a text tie).
        limit = 4 * depth + 1
        while True:
            hits = searcher.search(query, limit, count=False).hits
            if len(hits) < limit or hits[-1][0] < hits[depth - 1][0]:
                break
            limit *= 4
        if not hits:
            return EMPTY_RANKING
        scores = np.fromiter((score for score, _ in hits), dtype=np.float64, count=len(hits))
        positions = np.asarray(searcher.fast_field_values(UNIT, [address for _, address in hits]), dtype=np.int64)
        keep = scores > 0
        scores, positions = scores[keep], positions[keep]
        order = np.lexsort((self.tie_break[positions], -scores))[:depth]
        return Ranking(tuple(positions[order].tolist()), tuple(scores[order].tolist()))


def _or_query(index_schema: Any, terms: Sequence[str]) -> Any:
    """An OR of one term query per term (repeats kept: each adds its score), or None for no terms."""
    if not terms:
        return None
    import tantivy

    should = tantivy.Occur.Should
    return tantivy.Query.boolean_query([(should, tantivy.Query.term_query(index_schema, FIELD, t)) for t in terms])
