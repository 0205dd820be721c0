"""``chunkscope chunks``: the export reads back with ``--chunks`` and gives the same evaluation."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import sample_paths


def evaluate(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["eval", *argv, "--json", "-"]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    return config  # type: ignore[no-any-return]


def without_chunker(config: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in config.items() if key not in ("chunker", "chunk_import")}


@pytest.mark.parametrize("spec", ["fixed:size=200,overlap=40", "markdown", "paragraph", "recursive:size=300"])
def test_export_then_import_gives_identical_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    out = tmp_path / "chunks.jsonl"
    assert main(["chunks", spec, "--out", str(out)]) == 0
    capsys.readouterr()
    direct = evaluate(capsys, "--chunker", spec)
    imported = evaluate(capsys, "--chunks", str(out))
    assert without_chunker(imported) == without_chunker(direct)
    summary = imported["chunk_import"]
    assert summary["exact"] == summary["chunks"] == direct["summary"]["index_chunks"]
    assert (summary["relocated"], summary["ambiguous"], summary["not_found"]) == (0, 0, 0)


def test_export_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "chunks.jsonl"
    assert main(["chunks", "markdown", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    corpus, _ = sample_paths()
    first = records[0]
    text = (corpus / first["doc"]).read_text(encoding="utf-8")
    assert list(first) == ["id", "doc", "start", "end", "text", "section"]
    assert text[first["start"] : first["end"]] == first["text"]
    assert "wrote" in capsys.readouterr().err


def test_utf16_export_reads_back_in_utf16(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d", "text": "😀 alpha beta. 😀 gamma delta."}) + "\n", encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "q", "query": "gamma", "evidence": [{"doc": "d", "quote": "gamma"}]}) + "\n", encoding="utf-8"
    )
    out = tmp_path / "chunks.jsonl"
    inputs = ["--corpus", str(corpus), "--questions", str(questions)]
    assert (
        main(["chunks", "fixed:size=8", "--corpus", str(corpus), "--out", str(out), "--report-offset-unit", "utf16"])
        == 0
    )
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[1])
    assert (first["start"], first["end"]) == (9, 18)  # code points 8..16: after one emoji, and 16 after two
    capsys.readouterr()
    direct = evaluate(capsys, *inputs, "--chunker", "fixed:size=8")
    imported = evaluate(capsys, *inputs, "--chunks", str(out), "--chunks-offset-unit", "utf16")
    assert without_chunker(imported) == without_chunker(direct)
    # the same report with its offsets in UTF-16 code units: every offset after the first emoji moves by one
    in_utf16 = evaluate(capsys, *inputs, "--chunker", "fixed:size=8", "--report-offset-unit", "utf16")
    hits = zip(direct["questions"][0]["ranked"], in_utf16["questions"][0]["ranked"], strict=True)
    assert all(b["start"] == a["start"] + (a["start"] > 0) + (a["start"] > 14) for a, b in hits)


def test_refuses_to_overwrite_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chunks = tmp_path / "chunks.jsonl"
    assert main(["chunks", "paragraph", "--out", str(chunks)]) == 0
    before = chunks.read_bytes()
    assert main(["chunks", "imported", "--chunks", str(chunks), "--out", str(chunks)]) == 2
    assert "refusing to write --out" in capsys.readouterr().err
    assert chunks.read_bytes() == before
    _, questions = sample_paths()
    assert main(["chunks", "paragraph", "--out", str(questions)]) == 2


def test_report_offsets_in_utf8_bytes(tmp_path: Path) -> None:
    codepoints, in_bytes = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["eval", "--chunker", "fixed:size=200", "--csv", str(codepoints)]) == 0
    assert main(["eval", "--chunker", "fixed:size=200", "--csv", str(in_bytes), "--report-offset-unit", "utf8"]) == 0
    corpus, _ = sample_paths()
    converted = 0
    rows = zip(csv_rows(codepoints), csv_rows(in_bytes), strict=True)
    for row, row_in_bytes in rows:
        for cut, cut_in_bytes in zip(row["cuts"].split(";"), row_in_bytes["cuts"].split(";"), strict=True):
            if not cut:
                continue
            doc, offsets = cut.split(":")
            text = (corpus / doc).read_text(encoding="utf-8")
            numbers = offsets.replace("@", "-").replace("/", "-").split("-")
            expected = "-".join(str(len(text[: int(n)].encode("utf-8"))) for n in numbers)
            assert cut_in_bytes.split(":")[1].replace("@", "-").replace("/", "-") == expected
            converted += not text.isascii()
    assert converted  # some cuts lie in Japanese documents, where bytes and code points differ


def csv_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_markdown_report_states_the_chunk_import(tmp_path: Path) -> None:
    corpus, _ = sample_paths()
    chunks = corpus.parent / "imported" / "chunks.jsonl"
    out = tmp_path / "report.md"
    assert main(["eval", "--chunks", str(chunks), "--markdown", str(out)]) == 0
    assert (
        f"Imported chunks `{chunks}` (chunkscope): 72 chunks, 69 exact, 3 relocated, 0 ambiguous, 0 not found "
        "(left out)." in out.read_text(encoding="utf-8")
    )


def test_token_sized_export_carries_each_chunks_token_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quicktok = pytest.importorskip("quicktok")
    del quicktok
    from chunkscope.tokenize.counting import token_counter

    out = tmp_path / "chunks.jsonl"
    assert main(["chunks", "fixed:size=64,unit=tokens,tokenizer=cl100k", "--out", str(out)]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    counter = token_counter("cl100k")
    # A chunk without prefix costs the tokens of its text alone, at most the size it was cut to.
    assert all(record["tokens"] == counter.count(record["text"]) <= 64 for record in records if "prefix" not in record)
    # Character-sized chunks carry no token count.
    assert main(["chunks", "fixed:size=200", "--out", str(out)]) == 0
    assert all("tokens" not in json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())


def test_json_writes_the_export_as_every_other_command_names_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    by_json, by_out = tmp_path / "json.jsonl", tmp_path / "out.jsonl"
    assert main(["chunks", "paragraph", "--json", str(by_json)]) == 0
    assert main(["chunks", "paragraph", "--out", str(by_out)]) == 0  # the first name stays an alias
    assert by_json.read_bytes() == by_out.read_bytes()
    assert len(by_json.read_text(encoding="utf-8").splitlines()) > 1
    capsys.readouterr()
    assert main(["chunks", "paragraph", "--json", "-"]) == 0
    assert capsys.readouterr().out.encode() == by_json.read_bytes()


def test_a_refused_export_path_names_the_option_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, questions = sample_paths()
    for option in ("--json", "--out"):
        assert main(["chunks", "paragraph", option, str(questions)]) == 2
        assert f"refusing to write {option} {questions}" in capsys.readouterr().err
