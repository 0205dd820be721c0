"""QASPER evidence paragraphs and MTCB-style passages, located in their documents by the quote ladder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets"
SAMPLE_CORPUS = Path(__file__).parents[2] / "src" / "chunkscope" / "sample_data" / "corpus"


def _naive_places(text: str, needle: str) -> list[int]:
    """Starts of ``needle`` with every run of whitespace matching any run (a brute-force regex oracle)."""
    pattern = r"\s+".join(re.escape(word) for word in needle.split())
    return [m.start() for m in re.finditer(pattern, text)]


def test_qasper_paper_text_and_evidence_spans() -> None:
    path = FIXTURES / "qasper" / "qasper-dev.json"
    (paper,) = json.loads(path.read_text()).values()
    dataset = load_dataset(dataset=path, trim=False)
    (document,) = dataset.corpus.documents
    pieces = [paper["title"], paper["abstract"]]
    for section in paper["full_text"]:
        pieces += [section["section_name"]] if section["section_name"] else []
        pieces += section["paragraphs"]
    assert document.text == "\n\n".join(pieces)
    by_id = {q.id: q for q in dataset.questions.questions}
    assert sorted(by_id) == ["q-cut", "q-docs"]
    assert dict(dataset.questions.excluded_reasons) == {"evidence is a figure or table": 1, "unanswerable": 1}
    for qid, quotes in (
        ("q-docs", ["We index 4,000 documents with fixed windows of 200 characters."]),
        ("q-cut", ["A chunk boundary can cut a sentence in two.", "Recall drops by 12 points  when evidence is cut."]),
    ):
        question = by_id[qid]
        for item, quote in zip(question.evidence, quotes, strict=True):
            starts = _naive_places(document.text, quote)
            assert [span.start for span in item.alternatives] == starts
            assert all(
                " ".join(document.text[s.start : s.end].split()) == " ".join(quote.split()) for s in item.alternatives
            )
    assert by_id["q-docs"].references == ("4,000 documents",)
    assert by_id["q-cut"].references == ("Yes",)
    assert any("3 evidence paragraphs located: 2 exactly, 1 normalised" in notice for notice in dataset.notices)


def test_qasper_evidence_not_in_the_paper() -> None:
    path = FIXTURES / "qasper" / "bad_evidence.json"
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path)
    assert caught.value.field == "1909.00002.qas[1].answers.evidence[0]"
    skipped = load_dataset(dataset=path, skip_bad_gold=True)
    assert dict(skipped.questions.excluded_reasons) == {"evidence not found in the paper": 1}


def test_passages_are_located_in_their_document_or_the_corpus() -> None:
    path = FIXTURES / "passages" / "mtcb.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    dataset = load_dataset(dataset=path, corpus=SAMPLE_CORPUS, trim=False)
    assert [q.id for q in dataset.questions.questions] == [row["id"] for row in rows]
    for question, row in zip(dataset.questions.questions, rows, strict=True):
        passage = row.get("passage") or row["reference"]
        expected = [
            (document.id, start)
            for document in dataset.corpus.documents
            if row.get("doc") in (None, document.id)
            for start in _naive_places(document.text, passage)
        ]
        (item,) = question.evidence
        assert [(span.doc, span.start) for span in item.alternatives] == expected
        assert expected
    assert dataset.questions.questions[2].references == ("approved resellers",)


def test_passage_problems_name_line_and_field() -> None:
    path = FIXTURES / "passages" / "bad.jsonl"
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path, corpus=SAMPLE_CORPUS)
    assert (caught.value.line, caught.value.field) == (2, "passage")
    skipped = load_dataset(dataset=path, corpus=SAMPLE_CORPUS, skip_bad_gold=True)
    assert dict(skipped.questions.excluded_reasons) == {
        "passage not found in the corpus": 1,
        "document not in the corpus": 1,
    }
