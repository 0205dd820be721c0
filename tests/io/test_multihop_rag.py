"""MultiHop-RAG: each fact located in its article's body; a hop per evidence article."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets" / "multihop_rag"


def _naive_places(text: str, needle: str) -> list[int]:
    return [i for i in range(len(text) - len(needle) + 1) if text[i : i + len(needle)] == needle]


def test_facts_are_located_in_their_article_and_hops_counted() -> None:
    articles = {row["title"]: row["body"] for row in json.loads((FIXTURES / "corpus.json").read_text())}
    rows = json.loads((FIXTURES / "MultiHopRAG.json").read_text())
    dataset = load_dataset(dataset=FIXTURES / "MultiHopRAG.json", trim=False)
    answerable = [row for row in rows if row["evidence_list"]]
    assert [q.query for q in dataset.questions.questions] == [row["query"] for row in answerable]
    for question, row in zip(dataset.questions.questions, answerable, strict=True):
        titles = list(dict.fromkeys(entry["title"] for entry in row["evidence_list"]))
        assert question.hop_count == len(titles)
        for item, hop, entry in zip(question.evidence, question.hops, row["evidence_list"], strict=True):
            body = articles[entry["title"]]
            needle = entry["fact"].replace("\u201c", '"').replace("\u201d", '"')  # the one normalised fact
            starts = _naive_places(body, needle)
            assert [(span.doc, span.start, span.end) for span in item.alternatives] == [
                (entry["title"], start, start + len(needle)) for start in starts
            ]
            assert titles[hop] == entry["title"]
        assert question.references == (row["answer"],)
    assert dict(dataset.questions.excluded_reasons) == {"no evidence (null query)": 1}
    assert f"{FIXTURES / 'MultiHopRAG.json'}: 6 facts located: 5 exactly, 1 normalised, 0 fuzzy, 0 not found" in (
        dataset.notices
    )


def test_articles_are_the_documents() -> None:
    articles = json.loads((FIXTURES / "corpus.json").read_text())
    dataset = load_dataset(dataset=FIXTURES / "MultiHopRAG.json")
    assert [(d.id, d.text) for d in dataset.corpus.documents] == [(a["title"], a["body"]) for a in articles]


def test_a_bad_fact_names_file_row_and_field() -> None:
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=FIXTURES / "bad_facts.json")
    assert caught.value.field == "[1].evidence_list[0].title"
    assert "no article titled 'Not an article'" in str(caught.value)


def test_skip_bad_gold_counts_each_reason() -> None:
    dataset = load_dataset(dataset=FIXTURES / "bad_facts.json", skip_bad_gold=True)
    assert len(dataset.questions.questions) == 1
    assert dict(dataset.questions.excluded_reasons) == {
        "evidence article not in the corpus": 1,
        "fact not found in its article": 1,
    }


def test_queries_without_their_articles_say_what_to_give(tmp_path: Path) -> None:
    path = tmp_path / "MultiHopRAG.json"
    path.write_text((FIXTURES / "MultiHopRAG.json").read_text())
    with pytest.raises(InputError, match=r"give --corpus corpus\.json"):
        load_dataset(dataset=path)
    assert load_dataset(dataset=path, corpus=FIXTURES / "corpus.json").questions.questions
