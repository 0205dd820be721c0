"""How long a configuration's dense embedding will take on this machine, before it starts.

The inspector asks before a computation it estimates at over ASK_OVER_S seconds. The estimate is the characters
the configuration's chunks hold (the corpus, more by the overlap) over the embedder's measured speed on this
machine in characters per second. The speed is measured once per embedding model (a short probe of
PROBE_TEXTS, after the model has loaded) and kept in ``<cache>/inspector/throughput.json`` (``<cache>``:
``$CHUNKSCOPE_CACHE``, else ``$XDG_CACHE_HOME/chunkscope``, else ``~/.cache/chunkscope``). Embeddings already
in the on-disk embedding cache make the run shorter than the estimate, which counts every character.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError
from chunkscope.io.atomic import replace_atomically
from chunkscope.results import Config
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.dense import Dense, load_encoder, model_key
from chunkscope.retrievers.embedding_cache import cache_root
from chunkscope.tui.state.config_steps import OVERLAP_FIELDS, SIZE_FIELDS

ASK_OVER_S = 20.0
"""A computation estimated at more seconds than this is started only once the user says so."""
PROBE_TEXTS = tuple(
    f"Probe passage {number}: the returns centre inspects opened audio items before a refund is approved, "
    "and a faulty item is replaced within thirty days of delivery."
    for number in range(32)
)
"""What the probe embeds to measure an embedder's speed (about 5,000 characters; numbered, so no two are equal)."""


def throughput_path() -> Path:
    """Where the measured speeds are kept."""
    return cache_root() / "inspector" / "throughput.json"


def dense_parts(strategy: object) -> Iterator[Dense]:
    """The dense retrievers in a retriever (itself, or the parts of a fused or reranked one)."""
    if isinstance(strategy, Dense):
        yield strategy
    elif isinstance(strategy, tuple):
        for part in strategy:
            yield from dense_parts(part)
    elif dataclasses.is_dataclass(strategy) and not isinstance(strategy, type):
        for field in dataclasses.fields(strategy):
            yield from dense_parts(getattr(strategy, field.name))


def embedder(config: Config) -> Dense | None:
    """The dense retriever ``config`` embeds with, if any (the first, for a fusion of several)."""
    return next(dense_parts(parse_retriever(config.retriever)), None)


def embedder_key(params: Dense) -> str:
    """What a measured speed is kept under: the model's cache key (name and version)."""
    return model_key(params)[0]


def known_throughput(key: str) -> float | None:
    """The measured speed of embedder ``key`` in characters per second, if it was measured on this machine."""
    try:
        speeds = json.loads(throughput_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = speeds.get(key) if isinstance(speeds, dict) else None
    return float(value) if isinstance(value, int | float) and value > 0 else None


def store_throughput(key: str, chars_per_second: float) -> None:
    """Keep a measured speed (never a reason to fail: a cache that cannot be written is left alone)."""
    path = throughput_path()
    try:
        speeds = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        speeds = {}
    if not isinstance(speeds, dict):
        speeds = {}
    speeds[key] = chars_per_second

    def fill(stream: IO[bytes]) -> None:
        stream.write(json.dumps(speeds, indent=1, sort_keys=True).encode("utf-8"))

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, fill)
    except OSError:
        pass


def measure_throughput(params: Dense) -> float:
    """Embed PROBE_TEXTS with ``params``' model (loaded first, not timed) and keep the speed; characters/second."""
    encoder = load_encoder(params)
    encoder.encode([PROBE_TEXTS[0]], is_query=False)  # loading and the first call's set-up are not the speed
    started = time.perf_counter()
    encoder.encode(list(PROBE_TEXTS), is_query=False)
    elapsed = max(time.perf_counter() - started, 1e-6)
    speed = sum(len(text) for text in PROBE_TEXTS) / elapsed
    store_throughput(embedder_key(params), speed)
    return speed


def embedded_characters(config: Config, corpus_characters: int, query_characters: int) -> int:
    """About how many characters ``config`` embeds: the corpus, times size / (size - overlap) for a chunker
    whose chunks overlap, and the queries."""
    try:
        chunker = parse_chunker(config.chunker)
    except (ChunkscopeError, ValueError):
        return corpus_characters + query_characters
    size = _parameter(chunker, SIZE_FIELDS)
    overlap = _parameter(chunker, OVERLAP_FIELDS)
    factor = size / (size - overlap) if 0 <= overlap < size else 1.0
    return round(corpus_characters * factor) + query_characters


def _parameter(chunker: object, names: tuple[str, ...]) -> int:
    """The first whole-number parameter of ``names`` the chunker has, else 0."""
    values = (getattr(chunker, name, None) for name in names)
    return next((value for value in values if isinstance(value, int) and not isinstance(value, bool)), 0)


def duration_text(seconds: float) -> str:
    """``45 s``, ``3 min``, ``1 h 20 min``."""
    if seconds < 90:
        return f"{round(seconds)} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def estimate_text(config: Config, characters: int, chars_per_second: float) -> str:
    """What the dialog says: the configuration, the work, the estimate and what it rests on."""
    seconds = characters / chars_per_second
    return (
        f"{config.label} embeds about {characters:,} characters with a dense model: about {duration_text(seconds)} "
        f"on this machine (measured {chars_per_second:,.0f} characters a second). Start it?"
    )
