"""The character-overlap metrics against Chroma's chunking evaluation, recomputed step by step.

Chroma's ``chunking_evaluation`` (``evaluation_framework/base_evaluation.py``) scores each
question from its references (``start_index``/``end_index`` into one corpus) and the
character ranges of the retrieved chunks:

* recall, precision and IoU (``_scores_from_dataset_and_retrievals``): walking the
  retrieved chunks of the question's corpus and every reference, an intersection test
  that accepts touching ranges (``max(starts) <= min(ends)``); each intersection is
  unioned into the numerator and subtracted from every reference range separately
  (the "unused highlights"). recall = numerator / Σ reference lengths; precision =
  numerator / Σ retrieved chunk lengths (every retrieved chunk, summed); IoU =
  numerator / (Σ retrieved lengths + Σ unused highlight lengths);
* precision Ω (``_full_precision_score``): the same walk over every chunk of the corpus,
  with each chunk that intersects (or touches) a reference unioned into the
  denominator; Ω = numerator / |union(those chunks + unused highlights)|, 0 when no
  chunk intersects;
* the reported numbers are the means over the questions.

This module ports that walk, written independently of chunkscope's interval code, and
feeds it chunkscope's delivered chunks as the "retrieved" ones (chunkscope scores what
was delivered, so top-k, budget and truncation count) and chunkscope's units as the
corpus chunks. Chroma locates each chunk by searching its text in the corpus, which maps
a repeated chunk to its first occurrence (their code warns about it); the port is given
the true offsets, so it checks the measures, not that locator. chunkscope trims whitespace
at the edges of every gold span before measuring (the span-edge rule of its metric
policy), so the port is given each reference as trimmed: the one place where chunkscope
scores other characters than Chroma. The fixture is in Chroma's own format
(``questions.csv`` with JSON references and ``corpus_id``): several references per
question, references that overlap, nest or repeat, one ending with a space, a reference
touching chunk boundaries, a repeated sentence, and overlapping chunks.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from chunkscope.io.gold import trim_span
from chunkscope.metrics.registry import REGISTRY
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult

FIXTURE = Path(__file__).with_name("chroma_fixture")
CHROMA_NAMES = {
    "iou": "iou",
    "recall": "evidence_recall",
    "precision": "precision",
    "precision_omega": "precision_omega",
}
"""Chroma's score names -> chunkscope's metric keys."""

Interval = tuple[int, int]


# ------------------------------------------------------------ Chroma's walk, ported


def _meet(first: Interval, second: Interval) -> Interval | None:
    """Their intersection: accepted when the later start is not past the earlier end (touching ranges meet)."""
    low, high = max(first[0], second[0]), min(first[1], second[1])
    return (low, high) if low <= high else None


def _minus(ranges: Sequence[Interval], cut: Interval) -> list[Interval]:
    """Each range with ``cut`` taken out of it, range by range (no union across ranges)."""
    left, right = cut
    kept: list[Interval] = []
    for start, end in ranges:
        if end < left or start > right:
            kept.append((start, end))
            continue
        if start < left:
            kept.append((start, left))
        if end > right:
            kept.append((right, end))
    return kept


def _merge(ranges: Sequence[Interval]) -> list[Interval]:
    """Their union: sort by start, extend the last range while the next one starts inside or at its end."""
    merged: list[Interval] = []
    for start, end in sorted(ranges, key=lambda r: r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _total(ranges: Sequence[Interval]) -> int:
    return sum(end - start for start, end in ranges)


def _walk(references: Sequence[Interval], chunks: Sequence[Interval]) -> tuple[list[Interval], list[Interval], list]:
    """(numerator ranges, unused highlights, chunks that met a reference) over ``chunks`` of the corpus."""
    numerator: list[Interval] = []
    unused = list(references)
    met: list[Interval] = []
    for chunk in chunks:
        for reference in references:
            common = _meet(chunk, reference)
            if common is None:
                continue
            unused = _minus(unused, common)
            numerator = _merge([common, *numerator])
            met = _merge([chunk, *met])
    return numerator, unused, met


def chroma_retrieval_scores(
    references: Sequence[Interval], corpus_id: str, retrieved: Sequence[dict[str, Any]]
) -> dict[str, float]:
    """Recall, precision and IoU of one question from the retrieved chunks' metadata."""
    own = [(m["start_index"], m["end_index"]) for m in retrieved if m["corpus_id"] == corpus_id]
    numerator, unused, _ = _walk(references, own)
    reached = _total(numerator)
    retrieved_length = sum(m["end_index"] - m["start_index"] for m in retrieved)
    return {
        "recall": reached / _total(references),
        "precision": reached / retrieved_length,
        "iou": reached / (retrieved_length + _total(unused)),
    }


def chroma_precision_omega(references: Sequence[Interval], corpus_id: str, chunks: Sequence[dict[str, Any]]) -> float:
    """Precision Ω of one question from every chunk of the corpus."""
    own = [(m["start_index"], m["end_index"]) for m in chunks if m["corpus_id"] == corpus_id]
    numerator, unused, met = _walk(references, own)
    if not numerator:
        return 0.0
    return _total(numerator) / _total(_merge([*met, *unused]))


# ------------------------------------------------------------ the fixture, as chunkscope reads it


def chroma_questions() -> list[dict[str, Any]]:
    with (FIXTURE / "questions.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["references"] = json.loads(row["references"])
    return rows


def chroma_corpus() -> Corpus:
    names = sorted({row["corpus_id"] for row in chroma_questions()})
    return Corpus(tuple(Document(name, (FIXTURE / name).read_text(encoding="utf-8")) for name in names))


def as_questions(rows: Sequence[dict[str, Any]]) -> list[Question]:
    """Each Chroma reference becomes one required item with one span."""
    return [
        Question(
            f"q{number}",
            row["question"],
            tuple(
                EvidenceItem((Span(row["corpus_id"], ref["start_index"], ref["end_index"]),))
                for ref in row["references"]
            ),
        )
        for number, row in enumerate(rows, start=1)
    ]


def raw_references(row: dict[str, Any]) -> list[Interval]:
    return [(ref["start_index"], ref["end_index"]) for ref in row["references"]]


def references_of(row: dict[str, Any]) -> list[Interval]:
    """The references as chunkscope scores them: without edge whitespace (the span-edge rule)."""
    text = (FIXTURE / row["corpus_id"]).read_text(encoding="utf-8")
    trimmed = [trim_span(Span(row["corpus_id"], start, end), text) for start, end in raw_references(row)]
    return [(span.start, span.end) for span in trimmed]


CONFIGS = [
    ("fixed:size=50", "bm25", 5, None, "stop"),
    ("fixed:size=50,overlap=20", "bm25", 5, None, "stop"),
    ("fixed:size=100,overlap=30", "bm25", 3, None, "stop"),
    ("fixed:size=100,overlap=30", "bm25", 5, 260, "truncate"),
    ("fixed:size=40,overlap=10", "bm25", 4, 150, "skip"),
    ("recursive:size=120", "bm25", 2, None, "stop"),
    ("paragraph", "bm25", 1, None, "stop"),
]


@pytest.fixture(scope="module")
def evaluated() -> list[ConfigResult]:
    evaluator = Evaluator(chroma_corpus(), as_questions(chroma_questions()))
    return [
        evaluator.evaluate(make_config(chunker, retriever, top_k, budget, overflow))
        for chunker, retriever, top_k, budget, overflow in CONFIGS
    ]


def test_the_fixture_is_valid_chroma_data() -> None:
    corpus = chroma_corpus()
    rows = chroma_questions()
    for row in rows:
        text = corpus.by_id[row["corpus_id"]].text
        assert len(row["references"]) >= 1
        for ref in row["references"]:
            assert text[ref["start_index"] : ref["end_index"]] == ref["content"]
    assert any(raw_references(row) != references_of(row) for row in rows)  # a reference with edge whitespace
    spans = [raw_references(row) for row in rows]
    assert any(a != b and a[0] < b[1] and b[0] < a[1] for refs in spans for a in refs for b in refs)  # overlapping
    assert any(refs.count(ref) > 1 for refs in spans for ref in refs)  # the same reference twice
    assert any(a[0] <= b[0] and b[1] <= a[1] and a != b for refs in spans for a in refs for b in refs)  # nested
    refunds = corpus.by_id["refunds.md"].text
    assert refunds.count("Keep the receipt with the parcel.") == 3  # repeated text


def test_every_question_and_mean_agrees_with_chroma(evaluated: list[ConfigResult]) -> None:
    rows = chroma_questions()
    checked = 0
    for result in evaluated:
        corpus_chunks = [{"start_index": u.start, "end_index": u.end, "corpus_id": u.doc} for u in result.chunks]
        chroma: dict[str, list[float]] = {name: [] for name in CHROMA_NAMES}
        for row, question in zip(rows, result.questions, strict=True):
            assert question.delivered, "Chroma always retrieves k chunks: the fixture must deliver some"
            retrieved = [
                {"start_index": d.start, "end_index": d.end, "corpus_id": d.chunk.doc} for d in question.delivered
            ]
            scores = chroma_retrieval_scores(references_of(row), row["corpus_id"], retrieved)
            scores["precision_omega"] = chroma_precision_omega(references_of(row), row["corpus_id"], corpus_chunks)
            for name, key in CHROMA_NAMES.items():
                per_question = REGISTRY[key].per_question
                assert per_question is not None
                assert per_question(question) == pytest.approx(scores[name], abs=1e-12, rel=0), (result.config, key)
                chroma[name].append(scores[name])
                checked += 1
        for name, key in CHROMA_NAMES.items():
            mean = sum(chroma[name]) / len(chroma[name])
            assert result.summary[key] == pytest.approx(mean, abs=1e-12, rel=0), (result.config, key)
    assert checked == len(CONFIGS) * len(rows) * len(CHROMA_NAMES)


def test_the_fixture_exercises_what_differs_from_plain_set_measures(evaluated: list[ConfigResult]) -> None:
    """The cases where summing and touching matter do occur, so the agreement above covers them."""
    questions = [q for result in evaluated for q in result.questions]
    # overlapping references are summed: recall stays below 1 although every character was delivered
    assert any(
        q.overlap.delivered_evidence_chars < q.overlap.evidence_chars and q.overlap.undelivered_evidence_chars == 0
        for q in questions
    )
    # overlapping chunks are summed in precision: sent characters exceed the distinct ones
    assert any(q.duplicate_chars > 0 and q.overlap.delivered_evidence_chars > 0 for q in questions)
    # a delivered chunk was truncated by the budget
    assert any(d.truncated for q in questions for d in q.delivered)
    # a chunk touching a reference without sharing a character counts in precision Ω's denominator
    rows = chroma_questions()
    assert any(
        unit.end == start or unit.start == end
        for result in evaluated
        for row in rows
        for start, end in references_of(row)
        for unit in result.chunks
        if unit.doc == row["corpus_id"]
    )
    # some question arrived in pieces, some did not
    assert any(q.in_pieces for q in questions) and any(not q.in_pieces and not q.complete for q in questions)
