"""On-disk cache of text embeddings, keyed by model, prefix and the text's SHA-256.

Layout: ``ROOT/embeddings/<model slug>-<digest of model and prefix>/<xx>.npz``,
where ``xx`` is the first byte of the text digest in hex (256 shards). A shard
holds ``keys`` (n x 32 bytes, the SHA-256 of each text) and ``vectors`` (n x dim
float32). Shards are written to a temporary file and renamed, so a reader never
sees half a file; a shard that cannot be read, is not a regular file (a FIFO
or a device there is never opened for reading: it could block or never end),
fails a member's CRC-32 (a zip member's checksum, checked as it is read) or
does not hold consistent arrays counts as empty, and its entries are computed
again and rewritten. A
shard's array headers are checked against the file's size before anything is
allocated, so a header claiming a huge shape is a damaged shard, not a MemoryError.
Concurrent writers may drop each other's new entries, never corrupt a shard.

The cache is an optimisation, never a reason to fail: when it cannot be used at
all (no home directory, the root or the model directory is a file, a directory
that cannot be written, a shard path that is a directory), one
:class:`EmbeddingCacheWarning` names the path and the fault, and embeddings are
computed (and kept in memory) without it for the rest of the run.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import warnings
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import numpy as np
from numpy.lib import format as npy

from chunkscope.errors import ChunkscopeWarning
from chunkscope.io.atomic import replace_atomically
from chunkscope.io.text import open_regular

KEY_BYTES = 32


class EmbeddingCacheWarning(ChunkscopeWarning):
    """The embedding cache cannot be used: embeddings are computed without it."""


def cache_root() -> Path:
    """``$CHUNKSCOPE_CACHE``, else ``$XDG_CACHE_HOME/chunkscope``, else ``~/.cache/chunkscope``.

    OSError when none is set and the home directory cannot be determined.
    """
    explicit = os.environ.get("CHUNKSCOPE_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "chunkscope"
    try:
        home = Path.home()
    except (RuntimeError, KeyError) as exc:  # HOME unset and the user has no passwd entry
        raise OSError(f"no home directory ({exc}); set CHUNKSCOPE_CACHE or XDG_CACHE_HOME") from None
    return home / ".cache" / "chunkscope"


_WARNED: set[str] = set()
"""Cache directories already warned about in this process: one warning each."""


def text_key(text: str) -> bytes:
    """The SHA-256 of the text's UTF-8 bytes: the per-text cache key."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """Embeddings of one model with one prefix.

    ``lookup`` and ``store`` never raise for a fault of the cache itself: the first
    fault warns once (naming the path) and turns the cache off for this object;
    what was computed stays with the caller.
    """

    def __init__(self, model_key: str, prefix: str, root: Path | None = None) -> None:
        digest = hashlib.sha256(f"{model_key}\0{prefix}".encode()).hexdigest()[:16]
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_key)[-60:]
        self.model_key = model_key
        self.prefix = prefix
        self.disabled = False
        """True after a fault: nothing more is read or written."""
        try:
            base = root or cache_root()
        except OSError as exc:
            base = Path("~") / ".cache" / "chunkscope"  # only named in messages
            self._fault(base, exc)
        self.directory = base / "embeddings" / f"{slug}-{digest}"

    def shard_path(self, shard: str) -> Path:
        """The file holding keys whose first byte is ``shard`` (two hex digits)."""
        return self.directory / f"{shard}.npz"

    def lookup(self, keys: Sequence[bytes], dim: int | None = None) -> dict[bytes, np.ndarray]:
        """Cached vectors for those ``keys`` that have one (of dimension ``dim`` when given)."""
        found: dict[bytes, np.ndarray] = {}
        if self.disabled:
            return found
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
        """Add vectors to the cache (merged into their shards, each written atomically).

        A fault (a directory that cannot be made or written, a shard path that is a
        directory) warns once and turns the cache off; ``entries`` are not touched.
        """
        if not entries or self.disabled:
            return
        try:
            self._store(entries)
        except OSError as exc:
            self._fault(_faulty_path(exc, self.directory), exc)

    def _store(self, entries: Mapping[bytes, np.ndarray]) -> None:
        self._make_directory()
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

    def _make_directory(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):  # something that is not a directory is in the way
            path = [*reversed(self.directory.parents), self.directory]
            blocker = next((p for p in path if p.exists() and not p.is_dir()), self.directory)
            raise NotADirectoryError(errno.ENOTDIR, "is not a directory", str(blocker)) from None

    def _read(self, shard: str) -> tuple[np.ndarray, np.ndarray]:
        empty = (np.empty((0, KEY_BYTES), dtype=np.uint8), np.empty((0, 0), dtype=np.float32))
        try:
            # Only a regular file is read: a FIFO there would block for ever, a device never end.
            with open_regular(self.shard_path(shard)) as handle, zipfile.ZipFile(handle) as archive:
                size = os.fstat(handle.fileno()).st_size
                keys = _read_array(archive, "keys.npy", np.dtype(np.uint8), size)
                vectors = _read_array(archive, "vectors.npy", np.dtype(np.float32), size)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return empty  # absent, not a regular file, or damaged (zip members carry a CRC-32, checked on read)
        consistent = keys.shape[1] == KEY_BYTES and len(vectors) == len(keys) and bool(np.isfinite(vectors).all())
        return (keys, vectors) if consistent else empty

    def _write(self, shard: str, keys: np.ndarray, vectors: np.ndarray) -> None:
        def fill(handle: IO[bytes]) -> None:
            np.savez(handle, keys=keys, vectors=vectors)

        replace_atomically(self.shard_path(shard), fill)

    def _write_description(self) -> None:
        """A small JSON file saying which model and prefix the directory holds (for people)."""
        path = self.directory / "cache.json"
        if path.exists():
            return
        text = json.dumps({"model": self.model_key, "prefix": self.prefix}, ensure_ascii=False)

        def fill(handle: IO[bytes]) -> None:
            handle.write(text.encode("utf-8"))

        replace_atomically(path, fill)

    def _fault(self, path: Path, exc: OSError) -> None:
        """Turn the cache off for this object; warn once per directory and process."""
        self.disabled = True
        reason = exc.strerror or str(exc)
        key = str(path)
        if key in _WARNED:
            return
        _WARNED.add(key)
        warnings.warn(
            f"embedding cache {path}: {reason}; embeddings are computed without the cache",
            EmbeddingCacheWarning,
            stacklevel=3,
        )


def _faulty_path(exc: OSError, default: Path) -> Path:
    """The path an OSError is about: a rename's target, and a temporary's directory rather than its own name."""
    named = exc.filename2 or exc.filename
    if not named:
        return default
    path = Path(os.fsdecode(named))
    return path.parent if path.name.endswith(".tmp") else path


def _read_array(archive: zipfile.ZipFile, name: str, dtype: np.dtype, file_size: int) -> np.ndarray:
    """One 2-D array of a shard, its header checked against the member's size before anything is allocated.

    ValueError when the member is compressed, claims more bytes than the file
    holds, or its header's dtype, dimensions or shape do not match its data.
    """
    info = archive.getinfo(name)
    if info.compress_type != zipfile.ZIP_STORED or info.file_size > file_size:
        raise ValueError(f"{name}: not a stored member of plausible size")
    with archive.open(info) as member:
        version = npy.read_magic(member)
        read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, fortran_order, stored_dtype = read_header(member)
        if stored_dtype != dtype or fortran_order or len(shape) != 2:
            raise ValueError(f"{name}: expected a 2-D {dtype} array")
        expected = shape[0] * shape[1] * dtype.itemsize
        if expected != info.file_size - member.tell():
            raise ValueError(f"{name}: header shape {shape} does not match its {info.file_size} bytes")
        data = member.read(expected)
    if len(data) != expected:
        raise ValueError(f"{name}: truncated")
    return np.frombuffer(data, dtype=dtype).reshape(shape)
