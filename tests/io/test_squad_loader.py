"""SQuAD / JSQuAD loading: numeric paragraph order, prefix removal, exclusions, and the JSQuAD facts."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.squad import load_squad
from chunkscope.model import Span

# ------------------------------------------------------------------ a small hand-made file

PREFIX = "Alpha [SEP] "  # 12 characters


def qa(qid: str, answers: list[tuple[str, int]], **extra: Any) -> dict[str, Any]:
    return {
        "id": qid,
        "question": f"question {qid}?",
        "answers": [{"text": t, "answer_start": s} for t, s in answers],
        **extra,
    }


def alpha_paragraph(n: int) -> dict[str, Any]:
    # Body "[pN]": the answer "pN" sits one character after the prefix.
    return {"context": f"{PREFIX}[p{n}]", "qas": [qa(f"a1p{n}q0", [(f"p{n}", len(PREFIX) + 1)])]}


def squad_file(tmp_path: Path, articles: list[dict[str, Any]]) -> Path:
    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"version": "test", "data": articles}, ensure_ascii=False), encoding="utf-8")
    return path


def lexicographic_alpha() -> dict[str, Any]:
    # Stored the way JSQuAD stores them: p0, p1, p10, p2, ..., p9.
    order = sorted(range(11), key=str)
    assert order[:4] == [0, 1, 10, 2]
    return {"title": "Alpha", "paragraphs": [alpha_paragraph(n) for n in order]}


def test_paragraphs_are_joined_in_numeric_order_without_separator(tmp_path: Path) -> None:
    dataset = load_squad(squad_file(tmp_path, [lexicographic_alpha()]))
    (document,) = dataset.corpus.documents
    assert document.id == "Alpha"
    assert document.title == "Alpha"
    assert document.text == "".join(f"[p{n}]" for n in range(11))
    # "[p0]".."[p9]" are 4 characters each, "[p10]" is 5: spans (0,4), (4,8), ..., (36,40), (40,45).
    assert document.paragraphs == (*tuple((4 * n, 4 * n + 4) for n in range(10)), (40, 45))


def test_gold_offsets_move_with_the_paragraph_and_lose_the_prefix(tmp_path: Path) -> None:
    dataset = load_squad(squad_file(tmp_path, [lexicographic_alpha()]))
    by_id = {q.id: q for q in dataset.questions.questions}
    # p10's answer "p10" is at 13 in its context: 13 - 12 (prefix) + 40 (paragraph start) = 41.
    assert by_id["a1p10q0"].gold_spans == (Span("Alpha", 41, 44),)
    # p2 follows p0 and p1: 1 + 8 = 9.
    assert by_id["a1p2q0"].gold_spans == (Span("Alpha", 9, 11),)
    text = dataset.corpus.documents[0].text
    for question in dataset.questions.questions:
        (span,) = question.gold_spans
        assert text[span.start : span.end] == re.search(r"p\d+", question.id).group(0)  # type: ignore[union-attr]


def test_paragraph_index_gaps_keep_numeric_order(tmp_path: Path) -> None:
    article = {
        "title": "Gamma",
        "paragraphs": [
            {"context": "Gamma [SEP] two", "qas": [qa("a3p2q0", [("two", 12)])]},
            {"context": "Gamma [SEP] zero", "qas": [qa("a3p0q0", [("zero", 12)])]},
        ],
    }
    (document,) = load_squad(squad_file(tmp_path, [article])).corpus.documents
    assert document.text == "zerotwo"
    assert document.paragraphs == ((0, 4), (4, 7))


def test_exclusions_are_counted_by_reason(tmp_path: Path) -> None:
    article = {
        "title": "Alpha",
        "paragraphs": [
            {
                "context": f"{PREFIX}Body text.",
                "qas": [
                    qa("a1p0q0", [("Body", 12)]),
                    qa("a1p0q1", [("Alpha", 0)]),  # wholly in the removed prefix
                    qa("a1p0q2", [("] B", 10)]),  # starts in the prefix
                    qa("a1p0q3", [], is_impossible=True),  # v2 unanswerable
                    qa("a1p0q4", [("text", 17)], is_impossible=True),
                    qa("a1p0q5", []),
                ],
            }
        ],
    }
    questions = load_squad(squad_file(tmp_path, [article])).questions
    assert [q.id for q in questions.questions] == ["a1p0q0"]
    assert questions.excluded == 5
    assert dict(questions.excluded_reasons) == {"gold in removed title prefix": 2, "unanswerable": 3}


def test_any_answers_become_alternatives_of_one_item(tmp_path: Path) -> None:
    article = {
        "title": "Alpha",
        "paragraphs": [
            {
                "context": f"{PREFIX}Body text Body.",
                "qas": [qa("a1p0q0", [("Body", 12), ("Alpha", 0), ("Body", 22)])],
            }
        ],
    }
    path = squad_file(tmp_path, [article])
    (first,) = load_squad(path).questions.questions
    assert first.gold_spans == (Span("Alpha", 0, 4),)
    (anyq,) = load_squad(path, answers="any").questions.questions
    assert len(anyq.evidence) == 1
    # The answer inside the prefix is dropped; "Body" at 22 - 12 = 10 remains.
    assert anyq.evidence[0].alternatives == (Span("Alpha", 0, 4), Span("Alpha", 10, 14))


def test_context_without_prefix_is_kept_whole(tmp_path: Path) -> None:
    article = {"title": "Beta", "paragraphs": [{"context": "No prefix here.", "qas": [qa("q", [("prefix", 3)])]}]}
    dataset = load_squad(squad_file(tmp_path, [article]))
    assert dataset.corpus.documents[0].text == "No prefix here."
    assert dataset.questions.questions[0].gold_spans == (Span("Beta", 3, 9),)


def test_repeated_titles_get_distinct_document_ids(tmp_path: Path) -> None:
    first = {"title": "Alpha", "paragraphs": [alpha_paragraph(0)]}
    second = {"title": "Alpha", "paragraphs": [{"context": "other", "qas": [qa("x", [("other", 0)])]}]}
    dataset = load_squad(squad_file(tmp_path, [first, second]))
    assert [d.id for d in dataset.corpus.documents] == ["Alpha", "Alpha (data[1])"]
    assert dataset.questions.questions[1].gold_spans == (Span("Alpha (data[1])", 0, 5),)


def test_load_dataset_reads_squad(tmp_path: Path) -> None:
    path = squad_file(tmp_path, [lexicographic_alpha()])
    dataset = load_dataset(squad=path)
    assert dataset.name == "squad"
    assert len(dataset.questions.questions) == 11


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        ({"data": {}}, "data", "'data' list"),
        ({"data": [{"paragraphs": []}]}, "data[0].title", "string 'title'"),
        ({"data": [{"title": "T", "paragraphs": [{"qas": []}]}]}, "data[0].paragraphs[0].context", "string"),
        (
            {"data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": [qa("q", [("zz", 1)])]}]}]},
            "data[0].paragraphs[0].qas[0].answers[0].answer_start",
            "answer text 'zz' is not at offset 1",
        ),
        (
            {
                "data": [
                    {
                        "title": "T",
                        "paragraphs": [{"context": "abc", "qas": [qa("q", [("a", 0)]), qa("q", [("b", 1)])]}],
                    }
                ]
            },
            "data[0].paragraphs[0].qas[1].id",
            "duplicate question id 'q'",
        ),
        (
            {"data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": [qa("q", [("a", 0)])]}, {"qas": None}]}]},
            "data[0].paragraphs[1].qas",
            "must be a list",
        ),
        (
            {"data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": 5}]}]},
            "data[0].paragraphs[0].qas",
            "must be a list",
        ),
        (
            {
                "data": [
                    {
                        "title": "T",
                        "paragraphs": [{"context": "abc", "qas": [{"id": "q", "question": "x", "answers": {}}]}],
                    }
                ]
            },
            None,
            "question set is empty",  # an empty object counts as no answers: unanswerable
        ),
        (
            {
                "data": [
                    {
                        "title": "T",
                        "paragraphs": [{"context": "abc", "qas": [{"id": "q", "question": "x", "answers": {"a": 1}}]}],
                    }
                ]
            },
            "data[0].paragraphs[0].qas[0].answers",
            "must be a list",
        ),
        (
            {"data": [{"title": "T", "paragraphs": [{"context": "T [SEP] x", "qas": [qa("q", [("T", 0)])]}]}]},
            None,
            "question set is empty",
        ),
    ],
)
def test_bad_squad_names_the_json_path(tmp_path: Path, content: object, field: str | None, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_squad(path)
    assert caught.value.path == str(path)
    assert caught.value.field == field
    assert message in caught.value.message


def test_invalid_squad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"data": [\n  {"title": "x",\n  oops}\n]}', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON") as caught:
        load_squad(path)
    assert caught.value.line == 3


def test_unknown_answer_mode(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'first' or 'any'"):
        load_squad(squad_file(tmp_path, [lexicographic_alpha()]), answers="all")


# ------------------------------------------------------------------ JSQuAD valid v1.3


def raw_articles(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["data"]  # type: ignore[no-any-return]


def paragraph_number(paragraph: dict[str, Any]) -> int:
    return int(re.match(r"a\d+p(\d+)q\d+$", paragraph["qas"][0]["id"]).group(1))  # type: ignore[union-attr]


@pytest.mark.jsquad
def test_jsquad_facts(jsquad: Dataset) -> None:
    corpus, questions = jsquad.corpus, jsquad.questions
    assert len(corpus.documents) == 59
    assert sum(len(d.paragraphs or ()) for d in corpus.documents) == 1145
    assert corpus.total_chars == 196_198
    assert len(questions.questions) == 3973
    assert questions.excluded == 469
    assert dict(questions.excluded_reasons) == {"gold in removed title prefix": 469}


@pytest.mark.jsquad
def test_jsquad_paragraphs_tile_each_document(jsquad: Dataset) -> None:
    for document in jsquad.corpus.documents:
        spans = document.paragraphs
        assert spans is not None and spans[0][0] == 0 and spans[-1][1] == len(document.text)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))


@pytest.mark.jsquad
def test_jsquad_paragraph_order_is_numeric_not_lexicographic(jsquad: Dataset, jsquad_path: Path) -> None:
    articles = raw_articles(jsquad_path)
    first = articles[0]
    stored = [paragraph_number(p) for p in first["paragraphs"]]
    assert stored[:4] == [0, 1, 10, 11]  # the file's own (lexicographic) order
    document = jsquad.corpus.by_id[first["title"]]
    assert document.paragraphs is not None
    prefix = f"{first['title']} [SEP] "
    by_number = {paragraph_number(p): p["context"].removeprefix(prefix) for p in first["paragraphs"]}
    # The third paragraph of the rebuilt document is p2, not p10 as stored.
    start, end = document.paragraphs[2]
    assert document.text[start:end] == by_number[2]
    # The boundary between p9 and p10 joins the end of p9 to the start of p10.
    boundary = document.paragraphs[10][0]
    assert document.text[boundary - 10 : boundary] == by_number[9][-10:]
    assert document.text[boundary : boundary + 10] == by_number[10][:10]
    # Every article: paragraph k of the document is the k-th smallest paragraph number.
    for article in articles:
        prefix = f"{article['title']} [SEP] "
        ordered = sorted(article["paragraphs"], key=paragraph_number)
        document = jsquad.corpus.by_id[article["title"]]
        assert document.paragraphs is not None
        texts = [document.text[s:e] for s, e in document.paragraphs]
        assert texts == [p["context"].removeprefix(prefix) for p in ordered]


@pytest.mark.jsquad
def test_jsquad_gaps_in_paragraph_numbers(jsquad: Dataset, jsquad_path: Path) -> None:
    gapped = []
    for article in raw_articles(jsquad_path):
        numbers = sorted(paragraph_number(p) for p in article["paragraphs"])
        if numbers != list(range(len(numbers))):
            gapped.append(article["title"])
    assert len(gapped) == 2  # the data README: "two articles have gaps"
    for title in gapped:
        assert jsquad.corpus.by_id[title].paragraphs is not None


@pytest.mark.jsquad
def test_jsquad_every_gold_span_is_its_answer_text(jsquad: Dataset, jsquad_path: Path) -> None:
    answers = {
        qa["id"]: qa["answers"][0]["text"]
        for article in raw_articles(jsquad_path)
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }
    for question in jsquad.questions.questions:
        (item,) = question.evidence
        (span,) = item.alternatives
        assert jsquad.corpus.by_id[span.doc].text[span.start : span.end] == answers[question.id]


@pytest.mark.jsquad
def test_jsquad_any_answers_are_all_real_answers(jsquad_path: Path) -> None:
    dataset = load_squad(jsquad_path, answers="any")
    answers = {
        qa["id"]: {a["text"] for a in qa["answers"]}
        for article in raw_articles(jsquad_path)
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    }
    # Every question whose first answer survives keeps it; "any" can only add questions.
    assert len(dataset.questions.questions) >= 3973
    for question in dataset.questions.questions:
        for span in question.gold_spans:
            assert dataset.corpus.by_id[span.doc].text[span.start : span.end] in answers[question.id]
