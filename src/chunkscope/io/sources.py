"""Input provenance: which files were read, with their SHA-256, and the dataset they make."""

from __future__ import annotations

from dataclasses import dataclass

from chunkscope.io.gold_units import Suspicion
from chunkscope.model import Corpus, QuestionSet


@dataclass(frozen=True, slots=True)
class SourceFile:
    """An input file (or directory) and the SHA-256 of its content."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Dataset:
    """A corpus with its questions, ready to evaluate."""

    corpus: Corpus
    questions: QuestionSet
    sources: tuple[SourceFile, ...]
    name: str
    notices: tuple[str, ...] = ()
    """One line each on how an input was read, when it could mean two things (printed by the commands)."""
    suspicions: tuple[Suspicion, ...] = ()
    """Question files whose offsets-only spans read clearly better another way (each also a notice)."""
