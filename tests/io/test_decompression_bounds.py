"""Gzip inputs are decompressed as a stream, within bounds: a gzip bomb is one clear line, never a MemoryError.

A 5.8 MB ``--tydi`` file that decompresses to 6 GB was decompressed whole in memory (MemoryError traceback under a
memory cap). The bombs here are built in the test: zeros (no newline at all: one endless line) and a valid record
repeated. Memory is measured with tracemalloc, which counts every Python allocation (bytes and str included): the
old loader held the decompressed bytes and their decoded text, twice the bomb.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tracemalloc
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import ChunkscopeError, InputError
from chunkscope.io import lines
from chunkscope.io.tydi import load_tydi

MiB = 1024 * 1024
RECORD = {
    "example_id": 1,
    "question_text": "どこ?",
    "language": "japanese",
    "document_title": "T",
    "document_plaintext": "東京は日本の首都。",
    "passage_answer_candidates": [{"plaintext_start_byte": 0, "plaintext_end_byte": 27}],
    "annotations": [
        {
            "passage_answer": {"candidate_index": 0},
            "minimal_answer": {"plaintext_start_byte": 0, "plaintext_end_byte": 6},
        }
    ],
}


def zero_bomb(path: Path, mebibytes: int) -> Path:
    """``mebibytes`` MiB of zero bytes, gzipped (about 1,000 to 1 on disk), written a MiB at a time."""
    zeros = bytes(MiB)
    with gzip.open(path, "wb", compresslevel=9) as handle:
        for _ in range(mebibytes):
            handle.write(zeros)
    return path


def peak_while(action: object) -> tuple[BaseException | None, int]:
    """What ``action`` raised (None if nothing) and the peak of Python allocations while it ran, in bytes."""
    tracemalloc.start()
    raised: BaseException | None = None
    try:
        action()  # type: ignore[operator]
    except Exception as exc:  # the error is the result
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


def test_a_zero_bomb_is_refused_at_the_line_bound_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_MAX_LINE", "1M")
    bomb = zero_bomb(tmp_path / "bomb.jsonl.gz", 64)
    assert bomb.stat().st_size < MiB // 4
    raised, peak = peak_while(lambda: load_tydi(bomb))
    assert peak < 8 * MiB  # the old loader: 128 MiB (the bytes, then their text)
    assert isinstance(raised, InputError)
    assert str(raised) == (
        f"{bomb}:1: a line longer than 1,048,576 bytes, the limit: set CHUNKSCOPE_MAX_LINE=BYTES to raise it"
    )


def test_with_the_default_bounds_a_200_mib_bomb_costs_at_most_about_twice_the_line_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHUNKSCOPE_MAX_LINE", raising=False)
    bomb = zero_bomb(tmp_path / "bomb.jsonl.gz", 200)
    raised, peak = peak_while(lambda: load_tydi(bomb))
    assert peak < 2.5 * lines.DEFAULT_MAX_LINE  # the old loader: 400 MiB
    assert isinstance(raised, InputError) and "a line longer than 67,108,864 bytes" in str(raised)


def test_decompressing_past_the_total_bound_is_one_line_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "repeated.jsonl.gz"
    line = json.dumps(RECORD, ensure_ascii=False).encode() + b"\n"
    with gzip.open(records, "wb") as handle:
        for number in range(5000):
            handle.write(line.replace(b'"example_id": 1', f'"example_id": {number}'.encode()))
    monkeypatch.setenv("CHUNKSCOPE_MAX_DECOMPRESSED", "100K")
    assert main(["eval", "--tydi", str(records), "--chunker", "paragraph"]) == 2
    err = capsys.readouterr().err
    first_over = 100 * 1024 // len(line) + 1  # every line has the same length (ids of 3 and 4 digits aside)
    assert err.startswith(f"chunkscope: error: {records}:")
    assert err.endswith(
        ": decompresses to more than 102,400 bytes, the limit (a gzip bomb?): "
        "set CHUNKSCOPE_MAX_DECOMPRESSED=BYTES to raise it\n"
    )
    reported = int(err.split(f"{records}:")[1].split(":")[0])
    assert abs(reported - first_over) <= 1
    monkeypatch.setenv("CHUNKSCOPE_MAX_DECOMPRESSED", "4M")
    assert len(load_tydi(records).questions.questions) == 5000


def test_a_raised_line_bound_reads_the_long_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = {**RECORD, "question_text": "x" * (2 * MiB)}
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.setenv("CHUNKSCOPE_MAX_LINE", "1M")
    with pytest.raises(InputError, match="a line longer than 1,048,576 bytes"):
        load_tydi(path)
    monkeypatch.setenv("CHUNKSCOPE_MAX_LINE", "3M")
    assert load_tydi(path).questions.questions[0].query == "x" * (2 * MiB)


@pytest.mark.parametrize("value", ["0", "lots", "-5", "1T"])
def test_a_bound_that_is_not_a_size_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CHUNKSCOPE_MAX_LINE", value)
    with pytest.raises(ChunkscopeError, match="CHUNKSCOPE_MAX_LINE must be a positive number of bytes"):
        lines.LineLimits.from_environment()


def test_sizes_read_in_bytes_and_powers_of_1024(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, expected in [("1000", 1000), ("2K", 2048), ("3m", 3 * MiB), ("1G", 1024**3), ("5 MiB", 5 * MiB)]:
        monkeypatch.setenv("CHUNKSCOPE_MAX_DECOMPRESSED", value)
        assert lines.LineLimits.from_environment().decompressed == expected


def test_streamed_reading_keeps_the_file_digest_and_every_record(tmp_path: Path) -> None:
    """Provenance: the SHA-256 of the file as stored; the gzip and plain files load the same."""
    text = "".join(json.dumps({**RECORD, "example_id": n}, ensure_ascii=False) + "\n" for n in range(3))
    plain = tmp_path / "t.jsonl"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        dataset = load_tydi(path)
        assert dataset.sources[0].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert [q.id for q in dataset.questions.questions] == ["0", "1", "2"]


def test_a_truncated_gzip_file_is_one_line(tmp_path: Path) -> None:
    data = gzip.compress(("\n".join(json.dumps({**RECORD, "example_id": n}) for n in range(200)) + "\n").encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"not a valid gzip file: Compressed file ended"):
        load_tydi(path)


def test_invalid_utf8_names_its_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl.gz"
    good = json.dumps(RECORD).encode() + b"\n"
    path.write_bytes(gzip.compress(good + b'{"example_id": "\xff"}\n'))
    with pytest.raises(InputError) as caught:
        load_tydi(path)
    assert str(caught.value) == f"{path}:2: not valid UTF-8 (byte {len(good) + 16})"
