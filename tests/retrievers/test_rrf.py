"""Reciprocal rank fusion: hand-computed scores, part ranks, ties, depth, report fields."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.errors import SpecError
from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.eval import question_dict
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.rrf import part_names

UNITS = tuple(Chunk(f"u{i}", "d", i * 10, i * 10 + 10, "x" * 10) for i in range(6))
QUESTIONS = [Question("q1", "q", (EvidenceItem((Span("d", 0, 1),)),))]


def run_file(tmp_path: Path, name: str, ids: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(f"q1 Q0 {cid} {rank} 1 t\n" for rank, cid in enumerate(ids, start=1)), encoding="utf-8")
    return str(path)


def test_fused_scores_and_part_ranks(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", ["u0", "u1", "u2"])
    b = run_file(tmp_path, "b.trec", ["u2", "u3", "u0"])
    fusion = parse_retriever(f"rrf:run:path={a}+run:path={b},k=1")
    (ranking,) = fusion.build(UNITS).rank(QUESTIONS, depth=20)
    # k = 1: u0 = 1/2 + 1/4 = 0.75; u2 = 1/4 + 1/2 = 0.75; u1 = 1/3; u3 = 1/3.
    # Ties by document then start: u0 before u2, u1 before u3.
    assert ranking.indices == (0, 2, 1, 3)
    assert ranking.scores == pytest.approx((0.75, 0.75, 1 / 3, 1 / 3))
    names = [name for name, _ in ranking.parts]
    assert names == [f"run:path={a}", f"run:path={b}"]
    assert [ranks for _, ranks in ranking.parts] == [(1, 3, 2, None), (3, 1, None, 2)]


def test_default_k_is_60(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", ["u0", "u1"])
    b = run_file(tmp_path, "b.trec", ["u1"])
    (ranking,) = parse_retriever(f"rrf:run:path={a}+run:path={b}").build(UNITS).rank(QUESTIONS, depth=20)
    # u1 = 1/62 + 1/61 beats u0 = 1/61
    assert ranking.indices == (1, 0)
    assert ranking.scores == pytest.approx((1 / 62 + 1 / 61, 1 / 61))


def test_depth_keeps_the_best_fused_units(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", ["u0", "u1", "u2", "u3"])
    b = run_file(tmp_path, "b.trec", ["u3", "u2", "u1", "u0"])
    (ranking,) = parse_retriever(f"rrf:run:path={a}+run:path={b},k=0").build(UNITS).rank(QUESTIONS, depth=2)
    # k = 0: u0 = 1 + 1/4, u3 = 1/4 + 1, u1 = 1/2 + 1/3, u2 = 1/3 + 1/2 -> u0, u3 kept
    assert ranking.indices == (0, 3)


def test_candidates_limit_what_each_part_contributes(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", ["u0", "u1", "u2"])
    b = run_file(tmp_path, "b.trec", ["u2", "u1", "u0"])
    spec = f"rrf:run:path={a}+run:path={b},k=0,candidates=1"
    (ranking,) = parse_retriever(spec).build(UNITS).rank(QUESTIONS, depth=1)
    # each part contributes only its top max(depth 1, candidates 1) = 1 unit: u0 (1) and u2 (1), tie -> u0
    assert ranking.indices == (0,)
    assert dict(ranking.parts)[f"run:path={b}"] == (None,)


def test_repeated_parts_get_distinct_names() -> None:
    bm25 = parse_retriever("bm25")
    assert part_names([bm25, bm25, parse_retriever("overlap"), bm25]) == ["bm25", "bm25#2", "overlap", "bm25#3"]


def test_bm25_fused_with_itself_keeps_bm25_order() -> None:
    corpus = Corpus((Document("d", "apple banana. apple cherry. banana cherry. durian."),))
    questions = [Question("q", "apple banana", (EvidenceItem((Span("d", 0, 5),)),))]
    evaluator = Evaluator(corpus, questions)
    plain = evaluator.evaluate(make_config("recursive:size=14", "bm25"))
    fused = evaluator.evaluate(make_config("recursive:size=14", "rrf:bm25+bm25"))
    assert fused.questions[0].ranking.indices == plain.questions[0].ranking.indices
    hits = fused.questions[0].ranked
    assert [dict(h.parts) for h in hits] == [{"bm25": r, "bm25#2": r} for r in range(1, len(hits) + 1)]
    assert question_dict(fused.questions[0])["ranked"][0]["parts"] == {"bm25": 1, "bm25#2": 1}


@pytest.mark.parametrize("spec", ["rrf:bm25", "rrf:bm25+overlap,k=-1", "rrf:bm25+overlap,candidates=0"])
def test_invalid_specs(spec: str) -> None:
    with pytest.raises(SpecError):
        parse_retriever(spec)


def test_three_parts_with_permuted_ranks_tie_exactly(tmp_path: Path) -> None:
    a = run_file(tmp_path, "a.trec", ["u0", "u1", "u2"])
    b = run_file(tmp_path, "b.trec", ["u1", "u2", "u0"])
    c = run_file(tmp_path, "c.trec", ["u2", "u0", "u1"])
    (ranking,) = parse_retriever(f"rrf:run:path={a}+run:path={b}+run:path={c}").build(UNITS).rank(QUESTIONS, 20)
    # every unit has ranks 1, 2 and 3 once: 1/61 + 1/62 + 1/63 each, so the tie-break orders them
    assert ranking.indices == (0, 1, 2)
    assert ranking.scores[0] == ranking.scores[1] == ranking.scores[2]
    assert ranking.scores[0] == pytest.approx(1 / 61 + 1 / 62 + 1 / 63)


def test_csv_lists_each_top_hit_part_ranks(tmp_path: Path) -> None:
    import csv
    import io
    import json

    from chunkscope.reports.eval import to_csv

    corpus = Corpus((Document("d", "apple banana. apple cherry. banana cherry. durian."),))
    questions = [Question("q", "apple banana", (EvidenceItem((Span("d", 0, 5),)),))]
    result = Evaluator(corpus, questions).evaluate(make_config("recursive:size=14", "rrf:bm25+bm25", top_k=2))
    (row,) = list(csv.DictReader(io.StringIO(to_csv([result]))))
    assert json.loads(row["top_parts"]) == [{"bm25": 1, "bm25#2": 1}, {"bm25": 2, "bm25#2": 2}]
