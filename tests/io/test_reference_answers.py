"""Reference answers kept on questions by every loader that has them; never part of question equality."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.questions import load_questions
from chunkscope.io.squad import load_squad
from chunkscope.io.testset import load_testset
from chunkscope.io.tydi import load_tydi
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_squad_keeps_every_answer_text_once(tmp_path: Path) -> None:
    context = "Paris is the capital of France."
    qa = {
        "id": "a1p0q0",
        "question": "What is the capital of France?",
        "answers": [
            {"text": "Paris", "answer_start": 0},
            {"text": "Paris", "answer_start": 0},
            {"text": "Paris is the capital", "answer_start": 0},
        ],
    }
    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"data": [{"title": "Paris", "paragraphs": [{"context": context, "qas": [qa]}]}]}))
    (question,) = load_squad(path).questions.questions  # gold is the first answer, references every answer
    assert question.references == ("Paris", "Paris is the capital")
    assert len(question.gold_spans) == 1


def test_tydi_minimal_answers_become_references() -> None:
    questions = {q.id: q for q in load_tydi(FIXTURES / "tydi" / "tydi-sample.jsonl").questions.questions}
    # bytes 43-56 of the UTF-8 text: 約 (3 bytes), 1400 (4), 万 (3), 人 (3)
    assert questions["101"].references == ("約1400万人",)
    assert questions["104"].references == ("Paris",)
    assert questions["105"].references == ("東京", "東京は日本の首都")
    assert questions["102"].references == ()  # a passage answer only


def test_questions_jsonl_answers_field(tmp_path: Path) -> None:
    corpus = Corpus((Document("a.md", "The refund takes 5 days."),))
    path = tmp_path / "q.jsonl"
    record = {"id": "q1", "query": "How long?", "evidence": [{"doc": "a.md", "quote": "5 days"}], "answers": ["5 days"]}
    path.write_text(json.dumps(record) + "\n")
    (question,) = load_questions(path, corpus)[0].questions
    assert question.references == ("5 days",)
    path.write_text(json.dumps(record | {"answers": ["5 days", 3]}) + "\n")
    with pytest.raises(InputError, match=r"q\.jsonl:1: field 'answers': must be a list of non-empty strings"):
        load_questions(path, corpus)


def test_testset_reference_column(tmp_path: Path) -> None:
    corpus = Corpus((Document("a.md", "The refund takes 5 days."),))
    path = tmp_path / "set.jsonl"
    row = {"user_input": "How long?", "reference_contexts": ["The refund takes 5 days."], "reference": "5 days"}
    path.write_text(json.dumps(row) + "\n")
    (question,) = load_testset(path, corpus)[0].questions
    assert question.references == ("5 days",)


def test_references_are_not_part_of_equality() -> None:
    evidence = (EvidenceItem((Span("a.md", 0, 3),)),)
    assert Question("q", "x", evidence, (), ("a",)) == Question("q", "x", evidence)
    assert hash(Question("q", "x", evidence, (), ("a",))) == hash(Question("q", "x", evidence))
