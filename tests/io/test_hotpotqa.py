"""HotpotQA: supporting facts become sentence spans of the joined paragraphs, one hop per supporting title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset
from chunkscope.io.gold import trim_span

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets" / "hotpotqa"


def _oracle_spans(row: dict) -> list[tuple[str, str, str, str]]:
    """(title, paragraph text, text before the sentence, sentence) of each distinct supporting fact."""
    context = dict((title, sentences) for title, sentences in row["context"])
    seen: list[tuple[str, int]] = []
    for title, index in row["supporting_facts"]:
        if (title, index) not in seen:
            seen.append((title, index))
    found = []
    for title, index in seen:
        before = ""
        for sentence in context[title][:index]:
            before += sentence
        found.append((title, "".join(context[title]), before, context[title][index]))
    return found


def test_supporting_facts_are_sentence_spans_of_the_joined_paragraph() -> None:
    rows = json.loads((FIXTURES / "distractor.json").read_text())
    dataset = load_dataset(dataset=FIXTURES / "distractor.json", trim=False)
    by_id = {question.id: question for question in dataset.questions.questions}
    assert len(by_id) == len(rows)
    for row in rows:
        question = by_id[row["_id"]]
        expected = _oracle_spans(row)
        assert len(question.evidence) == len(expected)
        for item, (title, paragraph, before, sentence) in zip(question.evidence, expected, strict=True):
            (span,) = item.alternatives
            document = dataset.corpus.by_id[span.doc]
            assert document.title == title
            assert document.text == paragraph  # the question's own context text
            assert (span.start, span.end) == (len(before), len(before) + len(sentence))
            assert document.text[span.start : span.end] == sentence
        assert question.references == (row["answer"],)
        assert set(question.tags) == {row["type"], row["level"]}


def test_hops_are_the_supporting_titles_in_order() -> None:
    rows = json.loads((FIXTURES / "distractor.json").read_text())
    dataset = load_dataset(dataset=FIXTURES / "distractor.json")
    for question, row in zip(dataset.questions.questions, rows, strict=True):
        titles = list(dict.fromkeys(title for title, _ in row["supporting_facts"]))
        assert question.hop_count == len(titles)
        for item, hop in zip(question.evidence, question.hops, strict=True):
            assert dataset.corpus.by_id[item.alternatives[0].doc].title == titles[hop]


def test_one_document_per_title_and_each_differing_text_its_own() -> None:
    rows = json.loads((FIXTURES / "distractor.json").read_text())
    dataset = load_dataset(dataset=FIXTURES / "distractor.json")
    distinct = {(title, "".join(sentences)) for row in rows for title, sentences in row["context"]}
    assert len(dataset.corpus.documents) == len(distinct)
    ids = [document.id for document in dataset.corpus.documents]
    assert "Tollbridge" in ids and "Tollbridge#2" in ids  # two texts of one title
    assert len(set(ids)) == len(ids)


def test_the_huggingface_export_reads_the_same() -> None:
    plain = load_dataset(dataset=FIXTURES / "distractor.json")
    exported = load_dataset(dataset=FIXTURES / "hf_export.jsonl")
    assert exported.questions.questions == plain.questions.questions[:2]
    assert [q.hops for q in exported.questions.questions] == [q.hops for q in plain.questions.questions[:2]]


def test_hotpot_rows_given_to_testset_name_the_dataset_option() -> None:
    with pytest.raises(InputError, match="--dataset"):
        load_dataset(testset=FIXTURES / "hf_export.jsonl", corpus=FIXTURES)


@pytest.mark.parametrize(
    ("row", "field", "reason"),
    [
        (1, "supporting_facts[0][1]", "sentence 7 is outside paragraph 'Harrowgate'"),
        (2, "supporting_facts[0][0]", "title 'Nowhere' is not in the context"),
    ],
)
def test_a_bad_fact_names_file_row_and_field(tmp_path: Path, row: int, field: str, reason: str) -> None:
    rows = json.loads((FIXTURES / "bad_facts.json").read_text())
    path = tmp_path / "one.json"
    path.write_text(json.dumps([rows[2], rows[row - 1]], indent=1))
    second_row_line = 1 + json.dumps([rows[2]], indent=1).count("\n")
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), second_row_line, field)
    assert reason in str(caught.value)


def test_skip_bad_gold_leaves_bad_questions_out_and_counts_them() -> None:
    dataset = load_dataset(dataset=FIXTURES / "bad_facts.json", skip_bad_gold=True)
    assert [q.id for q in dataset.questions.questions] == ["5a85ea095542994775f606a8"]
    assert dict(dataset.questions.excluded_reasons) == {
        "sentence index outside its paragraph": 1,
        "supporting title not in the context": 1,
    }
    assert any("left out: 1 sentence index outside its paragraph" in notice for notice in dataset.notices)


def test_with_a_corpus_the_sentences_are_located_by_the_ladder(tmp_path: Path) -> None:
    rows = json.loads((FIXTURES / "distractor.json").read_text())
    corpus = tmp_path / "corpus.jsonl"
    texts = {title: " ".join(s.strip() for s in sentences) for title, sentences in rows[0]["context"]}
    corpus.write_text("".join(json.dumps({"id": title, "text": text}) + "\n" for title, text in texts.items()))
    path = tmp_path / "q.json"
    path.write_text(json.dumps(rows[:1]))
    dataset = load_dataset(dataset=path, corpus=corpus)
    (question,) = dataset.questions.questions
    for item, (title, _, _, sentence) in zip(question.evidence, _oracle_spans(rows[0]), strict=True):
        span = item.alternatives[0]
        assert span.doc == title
        assert dataset.corpus.by_id[title].text[span.start : span.end] == sentence.strip()
    assert any("3 supporting facts located: 3 exactly" in notice for notice in dataset.notices)


def test_trimmed_spans_lose_the_leading_space_only() -> None:
    raw = load_dataset(dataset=FIXTURES / "distractor.json", trim=False)
    trimmed = load_dataset(dataset=FIXTURES / "distractor.json")
    for before, after in zip(raw.questions.questions, trimmed.questions.questions, strict=True):
        for a, b in zip(before.gold_spans, after.gold_spans, strict=True):
            assert trim_span(a, raw.corpus.by_id[a.doc].text) == b
