"""JSQuAD valid scaled up: the articles, then copies of them with shuffled paragraphs as distractors.

The questions stay those of the original articles (their gold spans are unchanged);
every copy is a near-duplicate document that competes for them. Deterministic for a
given seed. Used by ``bench_scale.py`` and ``bench_bm25_same_tokens.py``.
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from chunkscope.io.dataset import Dataset  # noqa: E402
from chunkscope.io.squad import load_squad  # noqa: E402
from chunkscope.model import Corpus, Document  # noqa: E402

JSQUAD = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
SEED = 13


def load_jsquad() -> Dataset:
    """JSQuAD valid, or exit with a message when the file is absent."""
    if not JSQUAD.exists():
        sys.exit(f"JSQuAD not found at {JSQUAD}; nothing to measure")
    return load_squad(JSQUAD)


def replicated(dataset: Dataset, megabytes: float, seed: int = SEED) -> Dataset:
    """``dataset`` with shuffled-paragraph copies of its documents added until the corpus holds
    ``megabytes`` MB of UTF-8 text (the originals first, so the questions' gold spans stay valid)."""
    rng = random.Random(seed)
    documents = list(dataset.corpus.documents)
    size = sum(len(d.text.encode("utf-8")) for d in documents)
    target = megabytes * 1_000_000
    copy = 0
    while size < target:
        copy += 1
        for document in dataset.corpus.documents:
            paragraphs = [document.text[s:e] for s, e in document.paragraphs or ((0, len(document.text)),)]
            rng.shuffle(paragraphs)
            spans = []
            offset = 0
            for paragraph in paragraphs:
                spans.append((offset, offset + len(paragraph)))
                offset += len(paragraph)
            text = "".join(paragraphs)
            documents.append(
                Document(f"{document.id} (copy {copy})", text, title=document.title, paragraphs=tuple(spans))
            )
            size += len(text.encode("utf-8"))
            if size >= target:
                break
    return replace(dataset, corpus=Corpus(tuple(documents)))


def utf8_megabytes(corpus: Corpus) -> float:
    """Size of the corpus text in MB of UTF-8."""
    return sum(len(d.text.encode("utf-8")) for d in corpus.documents) / 1_000_000
