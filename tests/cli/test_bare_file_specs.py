"""A bare ``imported`` / ``run`` means the --chunks / --run file of that command only: every spec names its file.

The corpus is one document ``A``, ``"a" * 10 + "b" * 10 + "c" * 10`` (30 characters). Two chunks files:
HALVES (0..15, 15..30) and THIRDS (0..10, 10..20, 20..30). Evidence, by hand: q1 at 12..15 (in half h1,
in third t2), q2 at 21..24 (h2, t3), q3 at 0..4 (h1, t1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.imported import ImportedChunker
from chunkscope.cli import main
from chunkscope.errors import SpecError
from chunkscope.io.dataset import load_dataset
from chunkscope.pipeline.config import make_config, parse_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.run import RunFile

HALVES = [{"id": "h1", "doc": "A", "start": 0, "end": 15}, {"id": "h2", "doc": "A", "start": 15, "end": 30}]
THIRDS = [{"id": f"t{i + 1}", "doc": "A", "start": 10 * i, "end": 10 * (i + 1)} for i in range(3)]
NEEDS_CHUNKS = "imported needs path=FILE (or the --chunks FILE option)"
NEEDS_RUN = "run needs path=FILE (or the --run FILE option)"


def jsonl(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {
        "corpus": tmp_path / "corpus.jsonl",
        "questions": tmp_path / "questions.jsonl",
        "halves": tmp_path / "halves.jsonl",
        "thirds": tmp_path / "thirds.jsonl",
        "run": tmp_path / "thirds.trec",
    }
    paths["corpus"].write_text(jsonl([{"id": "A", "text": "a" * 10 + "b" * 10 + "c" * 10}]), encoding="utf-8")
    paths["questions"].write_text(
        jsonl(
            [
                {"id": qid, "query": "q", "evidence": [{"doc": "A", "start": start, "end": end}]}
                for qid, start, end in [("q1", 12, 15), ("q2", 21, 24), ("q3", 0, 4)]
            ]
        ),
        encoding="utf-8",
    )
    paths["halves"].write_text(jsonl(HALVES), encoding="utf-8")
    paths["thirds"].write_text(jsonl(THIRDS), encoding="utf-8")
    # q1 finds its third (t2) at rank 2, q2 (t3) at rank 1; q3 is not in the run
    paths["run"].write_text("q1 Q0 t1 1 2.0 prod\nq1 Q0 t2 2 1.0 prod\nq2 Q0 t3 1 5.0 prod\n", encoding="utf-8")
    return {name: str(path) for name, path in paths.items()}


def eval_json(files: dict[str, str], capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, object]:
    code = main(["eval", "--corpus", files["corpus"], "--questions", files["questions"], *options, "--json", "-"])
    out = capsys.readouterr().out
    assert code == 0
    (config,) = json.loads(out)["configs"]
    assert isinstance(config, dict)
    return config


def one_line_error(files: dict[str, str], capsys: pytest.CaptureFixture[str], *options: str) -> str:
    code = main(["eval", "--corpus", files["corpus"], "--questions", files["questions"], *options])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    return err.strip()


def test_two_evaluations_in_one_process_read_their_own_chunks_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    halves = eval_json(files, capsys, "--chunks", files["halves"])
    thirds = eval_json(files, capsys, "--chunks", files["thirds"])
    assert halves["chunker"] == f"imported:path={files['halves']},format=auto,doc_key=none,offset_unit=codepoint"
    assert thirds["chunker"] == f"imported:path={files['thirds']},format=auto,doc_key=none,offset_unit=codepoint"
    assert [halves["summary"]["index_chunks"], thirds["summary"]["index_chunks"]] == [2, 3]  # type: ignore[index]
    # the --chunker spec form, with the files the other way round
    again = eval_json(files, capsys, "--chunker", "imported", "--chunks", files["halves"])
    assert again["chunker"] == halves["chunker"]
    assert again["summary"] == halves["summary"]


def test_a_bare_imported_after_an_evaluation_with_chunks_still_needs_the_option(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    eval_json(files, capsys, "--chunks", files["thirds"])
    error = one_line_error(files, capsys, "--chunker", "imported")
    assert error == f"chunkscope: error: in chunker spec 'imported': {NEEDS_CHUNKS}"


def test_a_bare_run_after_an_evaluation_with_run_still_needs_the_option(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    with_run = eval_json(files, capsys, "--chunks", files["thirds"], "--run", files["run"])
    assert with_run["retriever"] == f"run:path={files['run']}"
    assert with_run["summary"]["rank_buckets"] == {"1": 1, "2-5": 1, "6-20": 0, "miss": 1}  # type: ignore[index]
    error = one_line_error(files, capsys, "--chunks", files["thirds"], "--retriever", "rrf:bm25+run")
    assert error == f"chunkscope: error: in retriever spec 'rrf:bm25+run': {NEEDS_RUN}"


def test_a_nested_bare_run_means_the_run_file(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    config = eval_json(files, capsys, "--chunks", files["thirds"], "--run", files["run"], "--retriever", "rrf:bm25+run")
    fused = parse_retriever(str(config["retriever"]))
    assert fused.parts[1] == RunFile(files["run"])  # type: ignore[attr-defined]


def test_compare_fills_both_sides(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["compare", "imported/run", "imported/bm25", "--corpus", files["corpus"], "--questions", files["questions"]]
    code = main([*argv, "--chunks", files["thirds"], "--run", files["run"], "--permutations", "10", "--json", "-"])
    assert code == 0
    configs = json.loads(capsys.readouterr().out)["configs"]
    assert [c["chunker"] for c in configs] == [
        f"imported:path={files['thirds']},format=auto,doc_key=none,offset_unit=codepoint"
    ] * 2
    assert configs[0]["retriever"] == f"run:path={files['run']}"


# ------------------------------------------------------------------ the core: specs with defaults


def test_configs_made_with_different_files_stay_apart(files: dict[str, str]) -> None:
    dataset = load_dataset(files["corpus"], files["questions"])
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    halves = make_config("imported", defaults={ImportedChunker: {"path": files["halves"]}})
    thirds = make_config("imported", defaults={ImportedChunker: {"path": files["thirds"]}})
    assert [len(evaluator.evaluate(c).chunks) for c in (halves, thirds, halves)] == [2, 3, 2]
    # a canonical spec reads back the same without any defaults: it names its file
    assert make_config(halves.chunker) == halves
    assert halves.label == f"imported:path={files['halves']}/bm25"
    with pytest.raises(SpecError, match=r"imported needs path=FILE \(or the --chunks FILE option\)"):
        parse_chunker("imported")


def test_defaults_fill_nested_specs_and_never_override_a_given_path(files: dict[str, str]) -> None:
    defaults = {ImportedChunker: {"path": files["halves"]}, RunFile: {"path": files["run"]}}
    parent = parse_chunker("parent:parent=imported", defaults)
    assert parent.parent == ImportedChunker(files["halves"])  # type: ignore[union-attr]
    assert parse_chunker(f"imported:path={files['thirds']}", defaults) == ImportedChunker(files["thirds"])
    config = parse_config("imported/run", defaults=defaults)
    assert (config.chunker, config.retriever) == (
        f"imported:path={files['halves']},format=auto,doc_key=none,offset_unit=codepoint",
        f"run:path={files['run']}",
    )
