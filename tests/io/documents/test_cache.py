"""Extraction results are kept by file hash; a damaged entry is extracted again, a non-regular one never read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkscope.io.documents import cache
from chunkscope.io.documents.cache import extract_cached, extraction_cache_dir, file_sha256
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT


def _page(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "plans.html"
    path.write_text(HTML_WITH_TABLES, encoding="utf-8")
    return path, file_sha256(path)


def _entry(digest: str) -> Path:
    directory = extraction_cache_dir()
    assert directory is not None
    return directory / digest[:2] / f"{digest}.json"


def _refuse_extraction(path: Path) -> tuple[str, object]:
    raise AssertionError(f"{path} extracted again")


def test_a_second_load_reads_the_entry_without_extracting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, digest = _page(tmp_path)
    first = extract_cached(path, digest)
    assert _entry(digest).is_file()
    monkeypatch.setattr(cache, "extract_file", _refuse_extraction)
    assert extract_cached(path, digest) == first
    assert first[0] == HTML_WITH_TABLES_TEXT


@pytest.mark.parametrize(
    "damage",
    ["{not json", '{"text": 5}', '{"format": "html", "text": "ab", "pages": [[0, 9]], "elements": []}', "\xff"],
    ids=["not-json", "wrong-type", "offset-outside-text", "not-utf8"],
)
def test_a_damaged_entry_is_extracted_again_and_replaced(tmp_path: Path, damage: str) -> None:
    path, digest = _page(tmp_path)
    extract_cached(path, digest)
    _entry(digest).write_bytes(damage.encode("utf-8", "surrogateescape") if damage != "\xff" else b"\xff")
    text, structure = extract_cached(path, digest)
    assert text == HTML_WITH_TABLES_TEXT and len(structure.tables) == 1
    assert b"Plans and prices" in _entry(digest).read_bytes()


def test_a_fifo_in_place_of_an_entry_is_neither_read_nor_replaced(tmp_path: Path) -> None:
    path, digest = _page(tmp_path)
    entry = _entry(digest)
    entry.parent.mkdir(parents=True)
    os.mkfifo(entry)
    with pytest.warns(cache.ExtractionCacheWarning, match="not a regular file"):
        text, _ = extract_cached(path, digest)
    assert text == HTML_WITH_TABLES_TEXT
    assert not entry.is_file()


def test_the_key_is_the_content_not_the_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, digest = _page(tmp_path)
    extract_cached(path, digest)
    copy = tmp_path / "renamed.htm"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(cache, "extract_file", _refuse_extraction)
    assert extract_cached(copy, file_sha256(copy))[0] == HTML_WITH_TABLES_TEXT
