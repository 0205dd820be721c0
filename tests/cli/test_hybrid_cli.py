"""Hybrid retrieval from the command line: a sweep over alpha, and alpha outside [0, 1]."""

from __future__ import annotations

import json

import pytest

from chunkscope.cli import main

FAST = ["--permutations", "200"]


def test_sweep_over_alpha_matches_the_single_retrievers(capsys: pytest.CaptureFixture[str]) -> None:
    grid = ["--chunker", "paragraph", "--retriever", "hybrid:bm25+overlap", "--hybrid-alpha", "0,0.5,1"]
    assert main(["sweep", *FAST, *grid, "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    summaries = {c["retriever"]: c["summary"] for c in report["configs"]}
    assert len(summaries) == 3
    singles = {}
    for retriever in ("bm25", "overlap"):
        assert main(["eval", "--chunker", "paragraph", "--retriever", retriever, "--json", "-"]) == 0
        singles[retriever] = json.loads(capsys.readouterr().out)["configs"][0]["summary"]
    by_alpha = {float(spec.split("alpha=")[1].split(",")[0]): value for spec, value in summaries.items()}
    assert by_alpha[1.0] == singles["bm25"]
    assert by_alpha[0.0] == singles["overlap"]


def test_hybrid_alpha_needs_a_hybrid_retriever(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", *FAST, "--hybrid-alpha", "0,1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "chunkscope: error: --hybrid-alpha needs a hybrid --retriever (hybrid:bm25+dense), got 'bm25'"


def test_alpha_outside_the_unit_interval_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--retriever", "hybrid:bm25+overlap,alpha=1.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "alpha must be between 0 and 1 (the first retriever's weight), got 1.2" in err
