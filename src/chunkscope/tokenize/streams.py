"""The default tokenizer over whole documents at once, in numpy, and the tokens of chunks taken from it.

A sweep indexes the same documents under many chunkings. Tokenising each document
once and deriving every chunk's tokens from the document's token stream is what
keeps indexing linear in the corpus size, whatever the number of chunkings.

Coordinates. The documents are laid end to end, each followed by one line break,
so an offset ``i`` of document ``d`` becomes the *global* position
``base[d] + i``. NFKC + lower-casing is computed character by character, which is
exact except where a character joins the one before it (see
``joins_previous``): such a character is normalised together with the run of
characters it joins (a *cluster*). Each original character, or cluster, becomes a
known number of normalised characters, so a global position maps to a normalised
position by adding a running shift, kept only where it changes.

Chunk tokens. A chunk covers the normalised range ``[ns, ne)`` of its document.
Tokenising the chunk's text alone gives exactly: the document tokens lying inside
that range, plus at most one token at each edge where a token run is cut (the
cut-off part of an ASCII word, or a CJK run cut down to one character, which
becomes a unigram). A chunk edge inside a cluster (between a character and the
combining mark that joins it) has no such correspondence: that chunk is
tokenised from its text directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from chunkscope.tokenize.char_table import (
    ASCII_VIEW,
    CHAR_RANKS,
    CJK_CHARS,
    WORD_CHAR,
    CharTable,
    char_table,
    encode_utf32,
    joins_previous,
    normalise,
)
from chunkscope.tokenize.term_codes import (
    RANK_BITS,
    RANK_MASK,
    WORD_BASE,
    WordIds,
    code_length,
    codes_of,
    dense_ids,
    ids_of_codes,
    position_dtype,
    token_of,
    tokens_of,
)

BATCH_CHARS = 1 << 20


"""Documents are encoded in batches of about this many characters, bounding temporary memory."""


assert len(CJK_CHARS) <= RANK_MASK


@dataclass(slots=True)
class _Batch:
    codes: np.ndarray
    """Term code of every token (int64)."""
    starts: np.ndarray
    """Global normalised position of every token's first character."""
    ascii_view: bytes
    """The batch's normalised text with every character outside an ASCII word as a space."""
    shift_at: np.ndarray
    shift: np.ndarray
    cluster_starts: np.ndarray
    cluster_ends: np.ndarray
    normalised_length: int


def _encode_batch(joined: str, doc_starts: set[int], origin: int, normalised_origin: int, words: WordIds) -> _Batch:
    """Tokens of a stretch of the laid-out corpus (``_Piece.joined``) whose first character has global position
    ``origin``; ``doc_starts`` are the positions in it where a document begins."""
    table = char_table()
    points = encode_utf32(joined)
    table.learn(points)
    count = len(points)
    normal = table.single[points]
    irregular = np.flatnonzero(table.irregular[points])
    no_shift = np.zeros(0, dtype=np.int64)
    if not len(irregular):
        codes, starts, ascii_view = _tokens(normal, words)
        return _Batch(codes, starts + normalised_origin, ascii_view, no_shift, no_shift, no_shift, no_shift, count)
    forms = {int(p): table.form(int(points[p])) for p in irregular}
    clusters = _clusters(irregular[table.status[points[irregular]] == CharTable.JOINING], doc_starts)
    for start, end in clusters:
        for position in range(start, end):
            forms[position] = _EMPTY_FORM
        forms[start] = encode_utf32(normalise(joined[start:end]))
    changed = np.array(sorted(forms), dtype=np.int64)
    form_list = [forms[int(p)] for p in changed]
    form_lengths = np.fromiter(map(len, form_list), dtype=np.int64, count=len(form_list))
    kept = np.ones(count, dtype=np.bool_)
    kept[changed] = False
    normal = np.insert(
        normal[kept], np.repeat(changed - np.arange(len(changed)), form_lengths), np.concatenate(form_list)
    )
    shift = np.cumsum(form_lengths - 1) + (normalised_origin - origin)
    codes, starts, ascii_view = _tokens(normal, words)
    cluster_array = np.array(clusters, dtype=np.int64).reshape(-1, 2) + origin
    return _Batch(
        codes,
        starts + normalised_origin,
        ascii_view,
        changed + 1 + origin,
        shift,
        cluster_array[:, 0].copy(),
        cluster_array[:, 1].copy(),
        len(normal),
    )


_EMPTY_FORM = np.zeros(0, dtype=np.uint32)


def _clusters(joining: np.ndarray, doc_starts: set[int]) -> list[tuple[int, int]]:
    """Spans of the characters that join their predecessors, each with the character they join.

    A document's first character starts a cluster whatever it is (nothing precedes it).
    """
    if not len(joining):
        return []
    clusters: list[tuple[int, int]] = []
    for position in joining.tolist():
        if position in doc_starts:
            continue
        if clusters and clusters[-1][1] == position:
            clusters[-1] = (clusters[-1][0], position + 1)
        else:
            clusters.append((position - 1, position + 1))
    return clusters


def _tokens(normal: np.ndarray, words: WordIds) -> tuple[np.ndarray, np.ndarray, bytes]:
    """Term codes and start positions of the tokens of normalised code points (ending with a separator).

    A token starts at every run start (an ASCII word, or a CJK run) and at every
    CJK character followed by another (a bigram); a CJK run start not followed by
    a CJK character is a unigram.
    """
    ranks = CHAR_RANKS[normal]
    cjk = ranks >= 0
    word = ranks == WORD_CHAR
    starts_token = np.zeros(len(ranks), dtype=np.bool_)
    np.logical_and(cjk[:-1], cjk[1:], out=starts_token[:-1])
    bigram_at = starts_token.copy()
    starts_token[0] |= cjk[0] | word[0]
    starts_token[1:] |= (cjk[1:] & ~cjk[:-1]) | (word[1:] & ~word[:-1])
    starts = np.flatnonzero(starts_token)
    codes = ranks[starts].astype(np.int64)
    # The last character is a separator, so a token start is never the last position.
    pairs = ((codes + 1) << RANK_BITS) | ranks[starts + 1]
    codes = np.where(bigram_at[starts], pairs, codes)
    ascii_view = ASCII_VIEW[normal].tobytes()
    is_word = word[starts]
    if is_word.any():
        found = ascii_view.decode("ascii").split()
        numbers = np.fromiter(map(words.__getitem__, found), dtype=np.int64, count=len(found))
        codes[is_word] = WORD_BASE + numbers
    return codes, starts, ascii_view


@dataclass(frozen=True, slots=True)
class _Piece:
    """A stretch of the laid-out corpus encoded at once: whole documents, or part of a long one."""

    joined: str
    """The stretch's text: each document (part) followed by its line break where the document ends there."""
    doc_starts: set[int]
    """Positions in ``joined`` where a document begins."""


def _pieces(texts: Sequence[str], batch_chars: int = BATCH_CHARS) -> Iterator[_Piece]:
    """The laid-out corpus in stretches of about ``batch_chars`` characters, in order.

    Short documents are grouped; a document longer than ``batch_chars`` is cut into parts, so one huge
    document never makes per-character arrays of its whole length. A part ends just after an ASCII space or
    line break followed by a character NFKC never joins to its predecessor (``_safe_cut``): no token, CJK
    bigram or NFKC cluster crosses such a cut, and the part ends with a separator as a batch must, so the
    tokens, positions and shifts are those of the whole document.
    """
    group: list[str] = []
    starts: set[int] = set()
    size = 0
    for text in texts:
        starts.add(size)
        start = 0
        while len(text) - start > batch_chars:
            cut = _safe_cut(text, start + batch_chars - size)
            if cut < 0:
                break
            group.append(text[start:cut])
            yield _Piece("".join(group), starts)
            group, starts, size, start = [], set(), 0, cut
        group += (text[start:] if start else text, "\n")
        size += len(text) - start + 1
        if size >= batch_chars:
            yield _Piece("".join(group), starts)
            group, starts, size = [], set(), 0
    if group:
        yield _Piece("".join(group), starts)


def _safe_cut(text: str, at: int) -> int:
    """The first position after ``at`` that follows an ASCII space or line break and holds a character NFKC
    never joins to its predecessor (-1 when there is none before the text's end): cutting there changes no
    token, position or normalisation."""
    while True:
        spaces = [found for found in (text.find(" ", at), text.find("\n", at)) if found >= 0]
        if not spaces:
            return -1
        cut = min(spaces) + 1
        if cut >= len(text):
            return -1
        if text[cut].isascii() or not joins_previous(text[cut]):
            return cut
        at = cut


class _CorpusVocabulary:
    """Corpus term ids, numbered in order of discovery, batch by batch."""

    def __init__(self) -> None:
        self.codes = np.zeros(0, dtype=np.int64)
        """Term code of each id."""
        self.sorted_codes = np.zeros(0, dtype=np.int64)
        self.sorted_ids = np.zeros(0, dtype=np.int64)

    def ids(self, codes: np.ndarray) -> np.ndarray:
        """Term ids (int32) of a batch's token codes, numbering the codes not seen before."""
        distinct, local = dense_ids(codes)
        known = ids_of_codes(self.sorted_codes, self.sorted_ids, distinct)
        new = known < 0
        known[new] = len(self.codes) + np.arange(int(new.sum()))
        self.codes = np.concatenate((self.codes, distinct[new]))
        merged = np.concatenate((self.sorted_codes, distinct[new]))
        order = np.argsort(merged, kind="stable")  # two sorted runs: a linear merge
        self.sorted_codes = merged[order]
        self.sorted_ids = np.concatenate((self.sorted_ids, known[new]))[order]
        ids: np.ndarray = known.astype(np.int32)[local]
        return ids


def encode_documents(texts: Sequence[str], batch_chars: int = BATCH_CHARS) -> DocumentTokens:
    """The default tokenizer's tokens of every text, with positions (see the module docstring); the texts are
    encoded about ``batch_chars`` characters at a time."""
    words = WordIds()
    vocabulary = _CorpusVocabulary()
    origin = normalised_origin = 0
    # Tokens never outnumber normalised characters, which rarely outnumber the original ones.
    capacity = sum(len(t) + 1 for t in texts)
    dtype = position_dtype(capacity)
    term_ids = np.empty(capacity, dtype=np.int32)
    starts = np.empty(capacity, dtype=dtype)
    count = 0
    batches: list[_Batch] = []
    for piece in _pieces(texts, batch_chars):
        batch = _encode_batch(piece.joined, piece.doc_starts, origin, normalised_origin, words)
        origin += len(piece.joined)
        normalised_origin += batch.normalised_length
        if count + len(batch.codes) > len(term_ids) or normalised_origin >= np.iinfo(dtype).max:
            dtype = position_dtype(2 * normalised_origin)
            capacity = 2 * (count + len(batch.codes))
            term_ids = np.concatenate((term_ids[:count], np.empty(capacity - count, dtype=np.int32)))
            starts = np.concatenate((starts[:count].astype(dtype), np.empty(capacity - count, dtype=dtype)))
        term_ids[count : count + len(batch.codes)] = vocabulary.ids(batch.codes)
        starts[count : count + len(batch.codes)] = batch.starts
        count += len(batch.codes)
        batch.codes = batch.starts = _NO_POSITIONS
        batches.append(batch)
    term_ids.resize(count, refcheck=False)
    starts.resize(count, refcheck=False)
    bases = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum([len(t) + 1 for t in texts[:-1]], out=bases[1:])
    word_list = list(words)
    word_lengths = np.fromiter(map(len, word_list), dtype=np.int64, count=len(word_list))
    return DocumentTokens(
        term_ids=term_ids,
        token_starts=starts,
        codes=vocabulary.codes,
        sorted_codes=vocabulary.sorted_codes,
        sorted_ids=vocabulary.sorted_ids,
        code_lengths=code_length(vocabulary.codes, word_lengths),
        words=words,
        word_list=word_list,
        ascii_view=b"".join(b.ascii_view for b in batches),
        bases=bases,
        shift_at=np.concatenate([b.shift_at for b in batches] or [_NO_POSITIONS]),
        shift=np.concatenate([b.shift for b in batches] or [_NO_POSITIONS]),
        cluster_starts=np.concatenate([b.cluster_starts for b in batches] or [_NO_POSITIONS]),
        cluster_ends=np.concatenate([b.cluster_ends for b in batches] or [_NO_POSITIONS]),
    )


_NO_POSITIONS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class ChunkSpans:
    """Where the chunks lie: document number, start and end offsets, and indexed prefix of each."""

    documents: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    prefixes: Sequence[str]
    texts: Sequence[str]
    """Each chunk's indexed text (prefix + body), tokenised directly when its tokens cannot be derived."""


@dataclass(frozen=True, slots=True)
class ChunkTokens:
    """Every chunk's term ids, concatenated in chunk order, and how to find a token's id."""

    ids: np.ndarray
    """int32 term ids, chunk after chunk, each chunk's in text order."""
    lengths: np.ndarray
    """Tokens per chunk (int64)."""
    lookup: Callable[[Sequence[str]], np.ndarray]
    """Ids of token texts (int64), -1 for a token no chunk has."""
    term_text: Callable[[int], str]
    """Token text of an id (inverse of ``term_id``)."""
    term_texts: Callable[[int], list[str]]
    """Token texts of the ids below a count, in id order (``term_text`` of each, at once)."""


class TermSpace:
    """Term ids of one chunking: the corpus vocabulary's ids, then new ids for tokens it lacks."""

    def __init__(self, document_tokens: DocumentTokens) -> None:
        self.tokens = document_tokens
        self.extra: dict[str, int] = {}
        self.extra_texts: list[str] = []

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of many tokens at once (int64), -1 for unknown ones."""
        ids = self.tokens.corpus_ids(tokens)
        found = ids >= 0
        if self.extra:
            for index in np.flatnonzero(~found).tolist():
                ids[index] = self.extra.get(tokens[index], -1)
        return ids

    def add_new(self, token: str) -> int:
        """Id of a token the corpus vocabulary lacks, numbered on first sight."""
        number = self.extra.get(token)
        if number is None:
            number = self.extra[token] = len(self.tokens.codes) + len(self.extra_texts)
            self.extra_texts.append(token)
        return number

    def text(self, term_id: int) -> str:
        """Token text of an id."""
        vocabulary = len(self.tokens.codes)
        if term_id < vocabulary:
            return token_of(int(self.tokens.codes[term_id]), self.tokens.word_list)
        return self.extra_texts[term_id - vocabulary]

    def texts(self, count: int) -> list[str]:
        """Token texts of the ids below ``count``."""
        vocabulary = len(self.tokens.codes)
        texts = tokens_of(self.tokens.codes[:count], self.tokens.word_list)
        return texts + self.extra_texts[: max(0, count - vocabulary)]


@dataclass(frozen=True, slots=True)
class DocumentTokens:
    """The tokens of a whole corpus with their normalised positions (see the module docstring)."""

    term_ids: np.ndarray
    """Corpus term id of every token (int32), documents in order."""
    token_starts: np.ndarray
    """Global normalised position of every token's first character (ascending)."""
    codes: np.ndarray
    """Term code of each corpus term id (int64)."""
    sorted_codes: np.ndarray
    sorted_ids: np.ndarray
    """The codes ascending, and the id of each, to find ids by code."""
    code_lengths: np.ndarray
    """Token length, in normalised characters, of each corpus term id."""
    words: dict[str, int]
    word_list: list[str]
    ascii_view: bytes
    """The normalised corpus with every character outside an ASCII word as a space."""
    bases: np.ndarray
    """Global position of each document's first character."""
    shift_at: np.ndarray
    shift: np.ndarray
    """From global position ``shift_at[k]`` on, normalised position = position + ``shift[k]``."""
    cluster_starts: np.ndarray
    cluster_ends: np.ndarray
    """Global spans of the clusters of more than one character (see ``joins_previous``)."""
    found: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    """Corpus term ids of the token texts looked up so far (-1: not in the corpus): every chunking of
    the corpus looks up the same questions' tokens."""

    def corpus_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Corpus term ids of token texts (int64), -1 for a text no document has."""
        found = self.found
        ids = np.fromiter(map(found.get, tokens, repeat(-2)), dtype=np.int64, count=len(tokens))
        missing = np.flatnonzero(ids == -2)
        if len(missing):
            new = [tokens[i] for i in missing.tolist()]
            looked_up = ids_of_codes(self.sorted_codes, self.sorted_ids, codes_of(new, self.words))
            ids[missing] = looked_up
            found.update(zip(new, looked_up.tolist(), strict=True))
        return ids

    def token_ends(self, index: np.ndarray) -> np.ndarray:
        """End positions of the tokens at ``index`` (an index past the last token gives 0)."""
        count = len(self.token_starts)
        if not count:
            return np.zeros(len(index), dtype=np.int64)
        safe = np.clip(index, 0, count - 1)
        ends = self.token_starts[safe].astype(np.int64) + self.code_lengths[self.term_ids[safe]]
        return np.where((index >= 0) & (index < count), ends, 0)

    def token_starts_at(self, index: np.ndarray) -> np.ndarray:
        """Start positions of the tokens at ``index`` (an index past the last token gives -1)."""
        count = len(self.token_starts)
        if not count:
            return np.full(len(index), -1, dtype=np.int64)
        starts = self.token_starts[np.clip(index, 0, count - 1)].astype(np.int64)
        return np.where((index >= 0) & (index < count), starts, -1)

    def token_codes(self, index: np.ndarray) -> np.ndarray:
        """Term codes of the tokens at ``index`` (an index past the last token gives 0)."""
        count = len(self.token_starts)
        if not count:
            return np.zeros(len(index), dtype=np.int64)
        codes = self.codes[self.term_ids[np.clip(index, 0, count - 1)]]
        return np.where((index >= 0) & (index < count), codes, 0)

    def normalised(self, positions: np.ndarray) -> np.ndarray:
        """Normalised global positions of (sorted or unsorted) global positions."""
        if not len(self.shift_at):
            return positions.astype(np.int64)
        index = np.searchsorted(self.shift_at, positions, side="right") - 1
        return positions + np.where(index >= 0, self.shift[np.maximum(index, 0)], 0)

    def inside_cluster(self, positions: np.ndarray) -> np.ndarray:
        """True where a global position falls strictly inside a multi-character cluster."""
        if not len(self.cluster_starts):
            return np.zeros(len(positions), dtype=np.bool_)
        index = np.searchsorted(self.cluster_starts, positions, side="right") - 1
        safe = np.maximum(index, 0)
        return (index >= 0) & (positions > self.cluster_starts[safe]) & (positions < self.cluster_ends[safe])

    def chunk_tokens(self, spans: ChunkSpans, tokenizer: Callable[[str], list[str]]) -> ChunkTokens:
        """Every chunk's tokens, equal to ``tokenizer(chunk text)`` (see the module docstring)."""
        space = TermSpace(self)
        first = self.bases[spans.documents] + spans.starts
        last = self.bases[spans.documents] + spans.ends
        direct = self.inside_cluster(first) | self.inside_cluster(last)
        low = self.normalised(first)
        high = self.normalised(last)
        inner_first = np.searchsorted(self.token_starts, low, side="left")
        # Tokens starting before ``high`` lie inside but for at most one that crosses it (runs are disjoint,
        # and one bigram of a run crosses a given position).
        inner_end = np.searchsorted(self.token_starts, high, side="left")
        inner_end -= (inner_end > 0) & (self.token_ends(inner_end - 1) > high)
        inner_end = np.maximum(inner_end, inner_first)
        edges = _Edges(self, low, high, inner_first, inner_end)
        term_ids = self.term_ids
        parts = [term_ids[a:b] for a, b in zip(inner_first.tolist(), inner_end.tolist(), strict=True)]
        prefixed = np.fromiter(map(bool, spans.prefixes), dtype=np.bool_, count=len(low))
        special = np.flatnonzero(direct | prefixed | edges.left_extra | edges.right_extra).tolist()
        # The special units' own tokens as texts first, then every text's id in one lookup.
        heads: list[list[str]] = []
        tails: list[list[str]] = []
        prefix_tokens: dict[str, list[str]] = {}
        for unit in special:
            prefix = spans.prefixes[unit]
            if direct[unit] or (prefix and prefix[-1] not in _SAFE_PREFIX_ENDS):
                heads.append(tokenizer(spans.texts[unit]))
                tails.append([])
                parts[unit] = term_ids[:0]
                continue
            if prefix and prefix not in prefix_tokens:
                prefix_tokens[prefix] = tokenizer(prefix)
            left = edges.left_token(unit)
            right = edges.right_token(unit)
            heads.append(prefix_tokens.get(prefix, []) + ([] if left is None else [left]))
            tails.append([] if right is None else [right])
        texts = [t for head, tail in zip(heads, tails, strict=True) for t in (*head, *tail)]
        found = space.lookup(texts)
        for index in np.flatnonzero(found < 0).tolist():
            found[index] = space.add_new(texts[index])
        found32 = found.astype(np.int32)
        at = 0
        for unit, head, tail in zip(special, heads, tails, strict=True):
            middle = at + len(head)
            parts[unit] = np.concatenate((found32[at:middle], parts[unit], found32[middle : middle + len(tail)]))
            at = middle + len(tail)
        counts = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
        return ChunkTokens(ids, counts, space.lookup, space.text, space.texts)


_SAFE_PREFIX_ENDS = frozenset(" \t\n\r\f\v")


"""A prefix ending in ASCII whitespace tokenises apart from the body: nothing composes with
whitespace and it separates tokens, so prefix + body tokens = prefix tokens + body tokens."""


class _Edges:
    """The tokens a chunk has at its edges that its document does not: cut ASCII words and CJK unigrams."""

    def __init__(
        self, tokens: DocumentTokens, low: np.ndarray, high: np.ndarray, inner_first: np.ndarray, inner_end: np.ndarray
    ) -> None:
        self.tokens = tokens
        self.low = low
        self.high = high
        count = len(tokens.token_starts)
        nonempty = high > low
        # Left edge: the token before the first inner one crosses ``low`` when it ends after it.
        before = inner_first - 1
        self.left_end = tokens.token_ends(before)
        self.left = nonempty & (before >= 0) & (self.left_end > low)
        self.left_code = tokens.token_codes(before)
        # Right edge: the first token after the inner ones crosses ``high`` when it starts before it.
        self.right_start = tokens.token_starts_at(inner_end)
        self.right = nonempty & (inner_end < count) & (self.right_start < high)
        self.right_code = tokens.token_codes(inner_end)
        self.same_token = self.left & self.right & (before == inner_end)
        has_inner = inner_end > inner_first
        # A cut CJK run keeps bigrams when two of its characters lie inside; one character is a unigram.
        first_starts_at_low = has_inner & (tokens.token_starts_at(inner_first) == low)
        last = inner_end - 1
        last_is_bigram_to_high = (
            has_inner & (tokens.token_starts_at(last) == high - 2) & (tokens.token_ends(last) == high)
        )
        self.left_unigram = self.left & (self.left_code < WORD_BASE) & ~first_starts_at_low
        self.right_unigram = self.right & (self.right_code < WORD_BASE) & ~last_is_bigram_to_high
        # One character between two cut bigrams is a single unigram, found from the left.
        self.right_unigram &= ~(self.left_unigram & (high - low == 1))
        self.left_extra = self.left & ((self.left_code >= WORD_BASE) | self.left_unigram)
        """Units with a token at their left edge that the document does not have."""
        self.right_extra = self.right & ~self.same_token & ((self.right_code >= WORD_BASE) | self.right_unigram)

    def left_token(self, unit: int) -> str | None:
        if not self.left[unit]:
            return None
        code = int(self.left_code[unit])
        if code >= WORD_BASE:
            end = min(int(self.left_end[unit]), int(self.high[unit]))
            return self.tokens.ascii_view[int(self.low[unit]) : end].decode("ascii")
        return chr(CJK_CHARS[code & RANK_MASK]) if self.left_unigram[unit] else None

    def right_token(self, unit: int) -> str | None:
        if not self.right[unit] or self.same_token[unit]:
            return None
        code = int(self.right_code[unit])
        if code >= WORD_BASE:
            start = max(int(self.right_start[unit]), int(self.low[unit]))
            return self.tokens.ascii_view[start : int(self.high[unit])].decode("ascii")
        return chr(CJK_CHARS[(code >> RANK_BITS) - 1]) if self.right_unigram[unit] else None
