"""``--chunks FILE`` and ``--run FILE`` on the command line: production results end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import sample_paths


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "A", "text": "a" * 10 + "b" * 10 + "c" * 10}) + "\n", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": qid, "query": "q", "evidence": [{"doc": "A", "start": s, "end": e}]}) + "\n"
            for qid, s, e in [("q1", 12, 15), ("q2", 21, 24), ("q3", 0, 4)]
        ),
        encoding="utf-8",
    )
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"id": "c1", "doc": "A", "start": 0, "end": 10},
                {"id": "c2", "doc": "A", "text": "bbbbbbbbbb"},  # located at 10-20
                {"id": "c3", "doc": "A", "start": 20, "end": 30},
                {"id": "c4", "doc": "A", "text": "zzz"},  # not in the document: reported, left out
            ]
        ),
        encoding="utf-8",
    )
    trec = tmp_path / "run.trec"
    # q1 (in c2) at rank 2; q2 (in c3) at rank 1; q3 absent from the run: a miss
    trec.write_text("q1 Q0 c1 1 2.0 prod\nq1 Q0 c2 2 1.0 prod\nq2 Q0 c3 1 5.0 prod\n", encoding="utf-8")
    return {"corpus": str(corpus), "questions": str(questions), "chunks": str(chunks), "run": str(trec)}


def inputs(files: dict[str, str]) -> list[str]:
    return ["--corpus", files["corpus"], "--questions", files["questions"]]


def test_eval_with_chunks_and_run(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", *inputs(files), "--chunks", files["chunks"], "--run", files["run"], "--json", "-"])
    captured = capsys.readouterr()
    assert code == 0
    report = json.loads(captured.out)
    (config,) = report["configs"]
    assert config["chunker"] == f"imported:path={files['chunks']},format=auto,doc_key=none,offset_unit=codepoint"
    assert config["retriever"] == f"run:path={files['run']}"
    summary = config["summary"]
    assert summary["index_chunks"] == 3
    # first correct ranks: q1 2, q2 1, q3 none -> R@5 = R@20 = 2/3; buckets 1 / 2-5 / miss
    assert summary["recall_at_5"] == pytest.approx(2 / 3)
    assert summary["rank_buckets"] == {"1": 1, "2-5": 1, "6-20": 0, "miss": 1}
    assert summary["evidence_exists"] == 3
    assert "chunkscope: warning:" in captured.err and "chunk 'c4' text not found in 'A'" in captured.err


def test_run_with_chunk_ids_from_another_chunking_exits_2(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", *inputs(files), "--chunker", "fixed:size=10", "--run", files["run"]])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "3 chunk ids are not in the chunking: c1, c2, c3" in err and "field 'chunk_id'" in err


def test_bad_chunks_line_exits_2_naming_line_and_field(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "c1", "doc": "A", "start": 0, "end": 10}\n{"id": "c2", "doc": "B", "start": 0, "end": 1}\n')
    code = main(["eval", *inputs(files), "--chunks", str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{bad}:2: field 'doc': unknown document 'B'" in err


def test_chunks_adds_to_the_chunker_list(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", *inputs(files), "--chunker", "paragraph", "--chunks", files["chunks"], "--json", "-"])
    assert code == 0
    chunkers = [c["chunker"] for c in json.loads(capsys.readouterr().out)["configs"]]
    assert chunkers == ["paragraph", f"imported:path={files['chunks']},format=auto,doc_key=none,offset_unit=codepoint"]


def test_compare_understands_bare_imported_and_run(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "compare",
            "imported/run",
            "fixed:size=10/bm25",
            *inputs(files),
            "--chunks",
            files["chunks"],
            "--run",
            files["run"],
            "--permutations",
            "100",
            "--json",
            "-",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert (
        f"imported:path={files['chunks']},format=auto,doc_key=none,offset_unit=codepoint" in out
        and f"run:path={files['run']}" in out
    )


def test_sample_production_files(capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = sample_paths()
    folder = corpus.parent / "imported"
    code = main(["eval", "--chunks", str(folder / "chunks.jsonl"), "--run", str(folder / "run.trec"), "--json", "-"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)["configs"][0]["summary"]
    assert summary["index_chunks"] == 72
    # sample_data/README.md: the run covers 25 of the 40 questions; q04, q17 and q24 have no evidence
    # in it; q01, q07, q12, q19, q21, q23 first reach all evidence at ranks 2-4; the other 16 at rank 1.
    assert summary["rank_buckets"] == {"1": 16, "2-5": 6, "6-20": 0, "miss": 18}
    assert summary["recall_at_5"] == pytest.approx(22 / 40)
