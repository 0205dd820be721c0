"""NQ simplified: token ranges become character spans of document_text; short answers are references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset
from chunkscope.io.natural_questions import token_starts

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets" / "natural_questions"


def _oracle(text: str, start_token: int, end_token: int) -> str:
    """The tokens of the range, found by walking the text character by character."""
    tokens: list[str] = []
    current = ""
    for character in text + " ":
        if character == " ":
            tokens.append(current)
            current = ""
        else:
            current += character
    return " ".join(tokens[start_token:end_token])


@pytest.mark.parametrize("name", ["simplified.jsonl", "simplified.jsonl.gz"])
def test_long_answers_are_character_spans_of_the_document_text(name: str) -> None:
    rows = [json.loads(line) for line in (FIXTURES / "simplified.jsonl").read_text().splitlines()]
    dataset = load_dataset(dataset=FIXTURES / name, trim=False)
    by_id = {q.id: q for q in dataset.questions.questions}
    assert sorted(by_id) == ["101", "103"]
    assert dict(dataset.questions.excluded_reasons) == {"no long answer": 1}
    assert [d.id for d in dataset.corpus.documents] == ["101", "103"]  # 102 is on the page of 101
    for row in rows:
        question = by_id.get(str(row["example_id"]))
        if question is None:
            continue
        text = row["document_text"]
        (item,) = question.evidence
        assert {dataset.corpus.by_id[span.doc].text for span in item.alternatives} == {text}
        expected = [
            _oracle(text, a["long_answer"]["start_token"], a["long_answer"]["end_token"])
            for a in row["annotations"]
            if a["long_answer"]["start_token"] >= 0
        ]
        assert [text[span.start : span.end] for span in item.alternatives] == expected
    assert by_id["101"].references == ("1881",)
    assert by_id["103"].references == ("YES",)


def test_token_starts_against_a_brute_force() -> None:
    text = "a bb  ccc <P> d"
    starts = token_starts(text)
    brute = [i for i in range(len(text)) if i == 0 or text[i - 1] == " "]
    assert starts == brute


def test_tokens_outside_the_document_name_line_and_field() -> None:
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=FIXTURES / "bad_tokens.jsonl")
    assert (caught.value.line, caught.value.field) == (2, "annotations[0].long_answer.end_token")
    assert "outside the document" in str(caught.value)
    skipped = load_dataset(dataset=FIXTURES / "bad_tokens.jsonl", skip_bad_gold=True)
    assert dict(skipped.questions.excluded_reasons) == {"token offsets outside the document": 1}
