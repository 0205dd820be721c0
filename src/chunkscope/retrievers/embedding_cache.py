"""On-disk cache of text embeddings, keyed by model, prefix and the text's SHA-256.

Layout: ``ROOT/embeddings/<model slug>-<digest of model and prefix>/<xx>.npz``,
where ``xx`` is the first byte of the text digest in hex (256 shards). A shard
holds ``keys`` (n x 32 bytes, the SHA-256 of each text) and ``vectors`` (n x dim
float32). Shards are written to a temporary file and renamed, so a reader never
sees half a file; a shard that cannot be read or does not hold consistent
arrays counts as empty, and its entries are computed again and rewritten.
Concurrent writers may drop each other's new entries, never corrupt a shard.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

KEY_BYTES = 32


def cache_root() -> Path:
    """``$CHUNKSCOPE_CACHE``, else ``$XDG_CACHE_HOME/chunkscope``, else ``~/.cache/chunkscope``."""
    explicit = os.environ.get("CHUNKSCOPE_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "chunkscope"


def text_key(text: str) -> bytes:
    """The SHA-256 of the text's UTF-8 bytes: the per-text cache key."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Embeddings of one model with one prefix."""

    def __init__(self, model_key: str, prefix: str, root: Path | None = None) -> None:
        digest = hashlib.sha256(f"{model_key}\0{prefix}".encode()).hexdigest()[:16]
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_key)[-60:]
        self.directory = (root or cache_root()) / "embeddings" / f"{slug}-{digest}"
        self.model_key = model_key
        self.prefix = prefix

    def shard_path(self, shard: str) -> Path:
        """The file holding keys whose first byte is ``shard`` (two hex digits)."""
        return self.directory / f"{shard}.npz"

    def lookup(self, keys: Sequence[bytes], dim: int | None = None) -> dict[bytes, np.ndarray]:
        """Cached vectors for those ``keys`` that have one (of dimension ``dim`` when given)."""
        found: dict[bytes, np.ndarray] = {}
        wanted: dict[str, set[bytes]] = {}
        for key in keys:
            wanted.setdefault(key[:1].hex(), set()).add(key)
        for shard, shard_keys in wanted.items():
            stored_keys, vectors = self._read(shard)
            if dim is not None and vectors.shape[1] != dim:
                continue
            for row, stored in enumerate(stored_keys):
                key = stored.tobytes()
                if key in shard_keys:
                    found[key] = vectors[row]
        return found

    def store(self, entries: Mapping[bytes, np.ndarray]) -> None:
        """Add vectors to the cache (merged into their shards, each written atomically)."""
        if not entries:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        self._write_description()
        by_shard: dict[str, dict[bytes, np.ndarray]] = {}
        for key, vector in entries.items():
            by_shard.setdefault(key[:1].hex(), {})[key] = vector
        for shard, new in by_shard.items():
            dim = len(next(iter(new.values())))
            stored_keys, vectors = self._read(shard)
            merged: dict[bytes, np.ndarray] = {}
            if vectors.shape[1] == dim:
                merged = {stored.tobytes(): vectors[row] for row, stored in enumerate(stored_keys)}
            merged.update(new)
            keys = np.frombuffer(b"".join(merged), dtype=np.uint8).reshape(len(merged), KEY_BYTES)
            matrix = np.asarray(list(merged.values()), dtype=np.float32).reshape(len(merged), dim)
            self._write(shard, keys, matrix)

    def _read(self, shard: str) -> tuple[np.ndarray, np.ndarray]:
        empty = (np.empty((0, KEY_BYTES), dtype=np.uint8), np.empty((0, 0), dtype=np.float32))
        path = self.shard_path(shard)
        if not path.exists():
            return empty
        try:
            with np.load(path, allow_pickle=False) as data:
                keys = data["keys"]
                vectors = data["vectors"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return empty
        consistent = (
            keys.dtype == np.uint8
            and keys.ndim == 2
            and keys.shape[1] == KEY_BYTES
            and vectors.dtype == np.float32
            and vectors.ndim == 2
            and len(vectors) == len(keys)
            and bool(np.isfinite(vectors).all())
        )
        return (keys, vectors) if consistent else empty

    def _write(self, shard: str, keys: np.ndarray, vectors: np.ndarray) -> None:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{shard}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                np.savez(handle, keys=keys, vectors=vectors)
            os.replace(temporary, self.shard_path(shard))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _write_description(self) -> None:
        """A small JSON file saying which model and prefix the directory holds (for people)."""
        path = self.directory / "cache.json"
        if path.exists():
            return
        descriptor, temporary = tempfile.mkstemp(prefix=".cache.", suffix=".tmp", dir=self.directory)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump({"model": self.model_key, "prefix": self.prefix}, handle, ensure_ascii=False)
        os.replace(temporary, path)
