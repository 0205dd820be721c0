"""``chunkscope explain``, rerank reports, --equivalence-margin and --groups auto on the command line."""

from __future__ import annotations

import csv
import io
import json

import pytest

from chunkscope.cli import main


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(list(argv)) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_explain_json_names_both_chunks_and_sums_terms(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, "explain", "q05", "--chunker", "fixed:size=200", "--json", "-")
    (entry,) = report["explanations"]  # type: ignore[misc]
    assert entry["question_id"] == "q05"
    anatomy = entry["anatomy"]
    assert anatomy["kind"] == "lexical"
    terms = anatomy["evidence"]["terms"]
    assert sum(t["contribution"] for t in terms) == pytest.approx(anatomy["evidence"]["score"], abs=1e-9)


def test_explain_csv_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "q01", "--retriever", "rrf:bm25+overlap", "--csv", "-"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["item"] for r in rows} >= {"rank:bm25", "rrf:bm25", "score"}
    assert main(["explain", "q01", "--markdown", "-"]) == 0
    text = capsys.readouterr().out
    assert "| term | in query | df | idf |" in text and "## q01" in text


def test_explain_unknown_question_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "nope"]) == 2
    assert capsys.readouterr().err.strip() == "chunkscope: error: no question 'nope' in the question set"


def test_rerank_fields_only_with_a_rerank_stage(capsys: pytest.CaptureFixture[str]) -> None:
    plain = _json(capsys, "eval", "--chunker", "fixed:size=200", "--json", "-")
    assert "rerank" not in plain["configs"][0]  # type: ignore[index]
    report = _json(
        capsys, "eval", "--chunker", "fixed:size=200", "--retriever", "rerank:first=bm25,by=test-count", "--json", "-"
    )
    rerank = report["configs"][0]["rerank"]  # type: ignore[index]
    assert set(rerank) >= {"metrics", "added_seconds_mean", "added_seconds_p95", "questions", "first_stage"}
    assert rerank["added_seconds_p95"] >= 0
    first = _json(capsys, "eval", "--chunker", "fixed:size=200", "--json", "-")["configs"][0]["summary"]  # type: ignore[index]
    assert rerank["metrics"]["recall_at_5"]["before"] == first["recall_at_5"]
    for move in rerank["questions"]:
        if move["before"] is not None and move["after"] is not None:
            assert move["change"] == move["before"] - move["after"]


def test_equivalence_verdicts_only_with_a_margin(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "fixed:size=200", "fixed:size=200,overlap=40", "--permutations", "500", "--json", "-"]
    assert "equivalence" not in _json(capsys, *args)
    report = _json(capsys, *args, "--equivalence-margin", "recall_at_5=0.5")
    (test,) = report["equivalence"]["tests"]  # type: ignore[index]
    assert test["metric"] == "recall_at_5"
    assert test["verdict"] in ("equivalent within ±0.5", "different", "neither shown")


def test_bad_margin_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--size", "200,400", "--equivalence-margin", "-1"]) == 2
    assert "positive" in capsys.readouterr().err


def test_computed_groups_are_marked(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, "eval", "--chunker", "fixed:size=400", "--groups", "auto", "--json", "-")
    assert "computed_groups" in report
    sources = {g["tag"]: g["group_source"] for g in report["by_tag"]}  # type: ignore[union-attr]
    assert sources["lexical:low"] == "computed" and sources["paraphrase"] == "tags"
    plain = _json(capsys, "eval", "--chunker", "fixed:size=400", "--json", "-")
    assert "computed_groups" not in plain
    assert all("group_source" not in g for g in plain["by_tag"])  # type: ignore[union-attr]
