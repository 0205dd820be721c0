"""Embedding cache faults: every one falls back to computing without the cache, with one warning naming the path.

The encoder embeds a text as its counts of 'a' and 'b', so rankings are known by hand; it records what it
was asked to embed, so a lost embedding (embedded twice) shows. Shards are stored after every text
(``STORE_EVERY = 1``), so a fault on the first store would lose every later embedding if it were not handled.
The oracle is the same ranking with ``cache=false``, and each distinct text embedded exactly once.
"""

from __future__ import annotations

import io
import json
import os
import struct
import threading
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from numpy.lib import format as npy

from chunkscope.cli import main
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import dense, embedding_cache
from chunkscope.retrievers.dense import Dense
from chunkscope.retrievers.embedding_cache import EmbeddingCache, text_key

if TYPE_CHECKING:
    from conftest import Unprivileged

TEXTS = ("ab", "aa", "bb", "aab", "ab")
UNITS = tuple(Chunk(f"u{i}", "d", i * 10, i * 10 + len(t), t) for i, t in enumerate(TEXTS))
QUESTIONS = [Question(f"q{i}", text, (EvidenceItem((Span("d", 0, 1),)),)) for i, text in enumerate(("a", "b"))]
# cosines with query "a" = (1, 0): aa 1, aab 2/sqrt(5), ab 1/sqrt(2) (twice: u0 before u4), bb 0 (not ranked)
# with query "b" = (0, 1): bb 1, ab 1/sqrt(2) (u0, u4), aab 1/sqrt(5), aa 0
EXPECTED = [[1, 3, 0, 4], [2, 0, 4, 3]]
DISTINCT = ["ab", "aa", "bb", "aab", "a", "b"]
"""What the encoder must be asked, in order: each passage text once, then the queries."""


class LetterEncoder:
    query_prefix = ""
    passage_prefix = ""

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        self.encoded.extend(texts)
        return dense.normalize(np.array([[t.count("a"), t.count("b")] for t in texts], dtype=np.float32))


@dataclass
class Outcome:
    rankings: list[list[int]]
    encoded: list[str]
    warnings: list[str]


def rank_with_letters(cache: bool = True) -> Outcome:
    """Rank QUESTIONS over UNITS with the letter encoder (in this process; restores what it patches)."""
    encoder = LetterEncoder()
    saved = dense.module_available, dense.load_encoder, dense.STORE_EVERY
    dense.module_available = lambda name: True
    dense.load_encoder = lambda params: encoder
    dense.STORE_EVERY = 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rankings = Dense(model="letters", batch=1, cache=cache).build(UNITS).rank(QUESTIONS, 5)
    finally:
        dense.module_available, dense.load_encoder, dense.STORE_EVERY = saved
    return Outcome([list(r.indices) for r in rankings], encoder.encoded, [str(w.message) for w in caught])


CHILD = (
    "import dataclasses, json, sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from test_embedding_cache_faults import rank_with_letters\n"
    "print(json.dumps(dataclasses.asdict(rank_with_letters())))\n"
)
"""rank_with_letters in a fresh (unprivileged) process."""


def in_child(unprivileged: Unprivileged, env: dict[str, str | None], uid: int | None = None) -> Outcome:
    result = unprivileged.run(CHILD, str(Path(__file__).parent), uid=uid, env=env)
    assert result.returncode == 0, result.stderr
    return Outcome(**json.loads(result.stdout))


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache warns once per path and process; each test starts afresh."""
    monkeypatch.setattr(embedding_cache, "_WARNED", set())


def cache_env(root: Path | None = None, **extra: str | None) -> dict[str, str | None]:
    return {"CHUNKSCOPE_CACHE": str(root) if root else None, "XDG_CACHE_HOME": None, **extra}


Environment = Callable[[dict[str, "str | None"]], None]


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> Environment:
    """Set (or, for None, remove) environment variables for the test."""

    def apply(values: dict[str, str | None]) -> None:
        for key, value in values.items():
            if value is None:
                monkeypatch.delenv(key, raising=False)
            else:
                monkeypatch.setenv(key, value)

    return apply


def assert_fell_back(outcome: Outcome, path: Path | str, reason: str) -> None:
    assert outcome.rankings == EXPECTED
    assert outcome.encoded == DISTINCT  # nothing embedded twice: no finished embedding was lost
    assert outcome.warnings == [f"embedding cache {path}: {reason}; embeddings are computed without the cache"]


def passage_cache(root: Path) -> EmbeddingCache:
    """The cache the passages of ``rank_with_letters`` use under ``root``."""
    saved = dense.module_available
    dense.module_available = lambda name: True
    try:
        key, _, passage_prefix = dense.model_key(Dense(model="letters"))
    finally:
        dense.module_available = saved
    return EmbeddingCache(key, passage_prefix, root=root)


# ------------------------------------------------------------------ faults in this process


def test_the_oracle_without_cache() -> None:
    outcome = rank_with_letters(cache=False)
    assert (outcome.rankings, outcome.encoded, outcome.warnings) == (EXPECTED, DISTINCT, [])


def test_xdg_cache_home_pointing_at_a_file(tmp_path: Path, environment: Environment) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("", encoding="utf-8")
    environment(cache_env(XDG_CACHE_HOME=str(blocker)))
    assert_fell_back(rank_with_letters(), blocker, "is not a directory")


def test_the_model_cache_directory_is_a_file(tmp_path: Path, environment: Environment) -> None:
    environment(cache_env(tmp_path))
    directory = passage_cache(tmp_path).directory
    directory.parent.mkdir(parents=True)
    directory.write_text("", encoding="utf-8")
    assert_fell_back(rank_with_letters(), directory, "is not a directory")


def test_a_shard_path_that_is_a_directory(tmp_path: Path, environment: Environment) -> None:
    environment(cache_env(tmp_path))
    cache = passage_cache(tmp_path)
    shard = cache.shard_path(text_key("ab")[:1].hex())
    shard.mkdir(parents=True)
    assert_fell_back(rank_with_letters(), shard, "Is a directory")


def npy_bytes(shape: tuple[int, int], dtype: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    npy.write_array_header_1_0(
        buffer, {"descr": npy.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": shape}
    )
    return buffer.getvalue() + data


def test_a_shard_header_claiming_a_huge_shape_is_a_damaged_shard(tmp_path: Path, environment: Environment) -> None:
    """keys.npy claims (312500000000, 32) uint8 (10 TB); the file holds 64 bytes: recomputed, never allocated."""
    environment(cache_env(tmp_path))
    key = text_key("ab")
    shard = passage_cache(tmp_path).shard_path(key[:1].hex())
    shard.parent.mkdir(parents=True)
    with zipfile.ZipFile(shard, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("keys.npy", npy_bytes((312_500_000_000, 32), "u1", key * 2))
        archive.writestr("vectors.npy", npy_bytes((2, 2), "<f4", np.ones((2, 2), np.float32).tobytes()))
    outcome = rank_with_letters()
    assert (outcome.rankings, outcome.encoded, outcome.warnings) == (EXPECTED, DISTINCT, [])
    again = rank_with_letters()
    assert again.encoded == []  # the damaged shard was rewritten whole


def test_a_shard_that_is_a_fifo_is_never_opened(tmp_path: Path, environment: Environment) -> None:
    # A FIFO in place of a shard hung the run for ever: the shard was opened to read, waiting for a writer.
    environment(cache_env(tmp_path))
    shard = passage_cache(tmp_path).shard_path(text_key("ab")[:1].hex())
    shard.parent.mkdir(parents=True)
    os.mkfifo(shard)
    outcomes: list[Outcome] = []
    ranking = threading.Thread(target=lambda: outcomes.append(rank_with_letters()), daemon=True)
    ranking.start()
    ranking.join(30)
    assert not ranking.is_alive(), "the run waits for a writer of the FIFO shard"
    (outcome,) = outcomes
    assert (outcome.rankings, outcome.encoded, outcome.warnings) == (EXPECTED, DISTINCT, [])
    assert shard.is_file()  # replaced by the shard computed again
    assert rank_with_letters().encoded == []


def test_a_shard_whose_vectors_changed_on_disk_is_recomputed(tmp_path: Path, environment: Environment) -> None:
    """One byte of a stored vector flipped, the file's size kept: the zip member's CRC-32 no longer matches."""
    environment(cache_env(tmp_path))
    assert rank_with_letters().encoded == DISTINCT
    shard = passage_cache(tmp_path).shard_path(text_key("ab")[:1].hex())
    data = bytearray(shard.read_bytes())
    with zipfile.ZipFile(shard) as archive:
        info = archive.getinfo("vectors.npy")
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)  # the local file header's
    member = info.header_offset + 30 + name_length + extra_length
    last = member + info.file_size - 4  # the last float32 of the vectors
    before = np.frombuffer(bytes(data[last : last + 4]), dtype=np.float32)[0]
    data[last] ^= 0x01  # its lowest mantissa bit: still finite, a different vector
    assert np.isfinite(np.frombuffer(bytes(data[last : last + 4]), dtype=np.float32)[0]) and before > 0
    shard.write_bytes(bytes(data))
    outcome = rank_with_letters()
    assert (outcome.rankings, outcome.warnings) == (EXPECTED, [])
    assert "ab" in outcome.encoded  # the damaged shard's text embedded again


def test_the_command_line_prints_one_warning_line(
    tmp_path: Path, environment: Environment, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("", encoding="utf-8")
    environment(cache_env(XDG_CACHE_HOME=str(blocker)))
    monkeypatch.setattr(dense, "module_available", lambda name: True)
    monkeypatch.setattr(dense, "load_encoder", lambda params: LetterEncoder())
    assert main(["eval", "--chunker", "paragraph", "--retriever", "dense:model=letters"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warned == [
        f"chunkscope: warning: embedding cache {blocker}: is not a directory; embeddings are computed without the cache"
    ]


# ------------------------------------------------------------------ faults that need permission bits


def test_a_read_only_cache_directory(tmp_path: Path, unprivileged: Unprivileged) -> None:
    root = tmp_path / "cache"
    directory = passage_cache(root).directory
    directory.mkdir(parents=True)
    directory.chmod(0o555)
    outcome = in_child(unprivileged, cache_env(root))
    assert_fell_back(outcome, directory, "Permission denied")


def test_a_cache_root_that_cannot_be_created(tmp_path: Path, unprivileged: Unprivileged) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    outcome = in_child(unprivileged, cache_env(locked / "cache"))
    assert_fell_back(outcome, locked / "cache", "Permission denied")


def test_home_unset_for_a_user_without_a_passwd_entry(unprivileged: Unprivileged) -> None:
    uid = 54321
    if os.geteuid() != 0:
        pytest.skip("needs root to run as a user without a passwd entry")
    outcome = in_child(unprivileged, cache_env(HOME=None), uid=uid)
    (warning,) = outcome.warnings
    assert warning.startswith("embedding cache ~/.cache/chunkscope: no home directory (")
    assert warning.endswith("); set CHUNKSCOPE_CACHE or XDG_CACHE_HOME; embeddings are computed without the cache")
    assert (outcome.rankings, outcome.encoded) == (EXPECTED, DISTINCT)
