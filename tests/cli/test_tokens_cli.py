"""``chunkscope tokens export-tiktoken-cache``: tiktoken then runs without network, with chunkscope's own token ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.tokenize.counting import token_counter
from chunkscope.tokenize.tiktoken_cache import TIKTOKEN_FILES

TEXT = "Returns within 30 days. 返品は30日以内です。 def f(x): return x ** 2  🙂\n\n  indented\ttabs"

OFFLINE = """
import json, sys
import tiktoken.load

def no_network(blobpath):
    raise OSError(f"network used for {blobpath}")

tiktoken.load.read_file = no_network  # a cache miss would be a download: fail instead
import tiktoken
result = {}
for name in sys.argv[2:]:
    result[name] = tiktoken.get_encoding(name).encode_ordinary(sys.argv[1])
print(json.dumps(result))
"""


def _offline_env(cache: Path) -> dict[str, str]:
    """No proxy that works and no other cache: tiktoken can only read ``cache``."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k != "DATA_GYM_CACHE_DIR"}
    dead = "http://127.0.0.1:9"  # the discard port: any download attempt fails at once
    env.update(TIKTOKEN_CACHE_DIR=str(cache), HTTPS_PROXY=dead, HTTP_PROXY=dead, https_proxy=dead, http_proxy=dead)
    return env


def _tiktoken_ids(cache: Path, *encodings: str) -> dict[str, list[int]]:
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE, TEXT, *encodings],
        env=_offline_env(cache),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    ids: dict[str, list[int]] = json.loads(result.stdout)
    return ids


def _chunkscope_ids(name: str) -> list[int]:
    """chunkscope's own token ids of TEXT (quicktok, as its token units count them)."""
    from chunkscope.tokenize.counting import _encoding

    token_counter(name)  # the registered counter: fails without the tokens extra
    (ids,) = _encoding(TIKTOKEN_FILES[name].encoding).encode_many([TEXT])
    return [int(i) for i in ids]


def test_tiktoken_loads_the_exported_cache_offline_and_agrees_with_chunkscope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "tiktoken-cache"
    assert main(["tokens", "export-tiktoken-cache", str(cache)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"export TIKTOKEN_CACHE_DIR={cache.resolve()}\n"
    assert captured.err.count("wrote ") == 2
    ids = _tiktoken_ids(cache, "cl100k_base", "o200k_base")
    assert ids["cl100k_base"] == _chunkscope_ids("cl100k")
    assert ids["o200k_base"] == _chunkscope_ids("o200k")
    assert len(ids["cl100k_base"]) > 20 and ids["cl100k_base"] != ids["o200k_base"]
    # tiktoken removes a cached file whose hash it does not expect: both are still there
    assert sorted(p.name for p in cache.iterdir()) == sorted(f.cache_name for f in TIKTOKEN_FILES.values())


def test_without_the_cache_tiktoken_cannot_load_offline(tmp_path: Path) -> None:
    """The check above is not vacuous: with an empty cache directory the same offline load fails."""
    (tmp_path / "empty").mkdir()
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE, TEXT, "cl100k_base"],
        env=_offline_env(tmp_path / "empty"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0 and "network used for" in result.stderr


def test_cache_names_and_hashes_are_tiktokens_own() -> None:
    """The URLs (whose SHA-1 names the files) and SHA-256 sums are the ones in tiktoken's openai_public."""
    from tiktoken_ext import openai_public

    source = Path(openai_public.__file__).read_text(encoding="utf-8")
    for file in TIKTOKEN_FILES.values():
        assert f'"{file.url}"' in source
        assert f'expected_hash="{file.sha256}"' in source.split(f'"{file.url}"', 1)[1][:200]


def test_one_encoding_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tokens", "export-tiktoken-cache", str(tmp_path), "--encoding", "o200k"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == [TIKTOKEN_FILES["o200k"].cache_name]


def test_a_file_in_place_of_the_directory_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    occupied = tmp_path / "cache"
    occupied.write_text("mine", encoding="utf-8")
    assert main(["tokens", "export-tiktoken-cache", str(occupied)]) == 2
    assert capsys.readouterr().err == f"chunkscope: error: {occupied}: not a directory\n"
    assert occupied.read_text(encoding="utf-8") == "mine"
