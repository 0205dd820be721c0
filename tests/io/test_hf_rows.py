"""HuggingFace-style exports given to ``--testset``: read as what they are, or refused naming what they are.

Fixtures (tests/fixtures/hf) are written by hand after the ``squad`` / ``squad_v2`` and ``hotpot_qa``
dataset schemas as ``Dataset.to_json`` writes them. Before this change the SQuAD rows loaded as a test
set: ``context`` was the required evidence (the whole paragraph), ``answers`` were ignored and the
unanswerable rows counted as answerable; the HotpotQA rows failed on a missing question field or
loaded with every paragraph required.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset
from chunkscope.model import Span

HF = Path(__file__).resolve().parents[1] / "fixtures" / "hf"
TESTSET = Path(__file__).resolve().parents[1] / "fixtures" / "testset"


def test_squad_v2_rows_become_documents_and_answer_spans() -> None:
    dataset = load_dataset(testset=HF / "squad_v2_rows.jsonl")
    documents = {document.id: document for document in dataset.corpus.documents}
    assert list(documents) == ["Cape_Vell_Lighthouse", "Tea"]  # one per title, in order of appearance
    lighthouse = documents["Cape_Vell_Lighthouse"]
    # the two distinct contexts joined without separator (111 + 107 characters), each a paragraph
    assert len(lighthouse.text) == 218 and lighthouse.paragraphs == ((0, 111), (111, 218))
    gold = {question.id: question.gold_spans for question in dataset.questions.questions}
    assert gold == {
        "5733be284776f41900661182": (Span("Cape_Vell_Lighthouse", 41, 45),),  # "1871"
        "5733be284776f41900661183": (Span("Cape_Vell_Lighthouse", 90, 98),),  # "kerosene", first answer
        "5733be284776f41900661184": (Span("Cape_Vell_Lighthouse", 182, 186),),  # "1964" in the second context
        "56de3cd0cffd8e1900b4b6c0": (Span("Tea", 13, 33),),  # "steamed or pan-fired"
    }
    assert lighthouse.text[182:186] == "1964" and documents["Tea"].text[13:33] == "steamed or pan-fired"
    assert dataset.questions.excluded == 2
    assert dataset.questions.excluded_reasons == {"unanswerable": 2}
    assert len(dataset.notices) == 1 and "read as a HuggingFace SQuAD export" in dataset.notices[0]


def test_json_rows_with_answers_as_a_list_of_objects_read_the_same() -> None:
    from_jsonl = load_dataset(testset=HF / "squad_v2_rows.jsonl")
    from_json = load_dataset(testset=HF / "squad_rows.json")
    assert from_json.corpus == from_jsonl.corpus
    assert from_json.questions.questions == from_jsonl.questions.questions
    assert from_json.questions.excluded == 0  # this file holds the answerable rows only


def test_any_answer_keeps_each_distinct_answer_once() -> None:
    dataset = load_dataset(testset=HF / "squad_v2_rows.jsonl", squad_answers="any")
    kerosene = next(q for q in dataset.questions.questions if q.id == "5733be284776f41900661183")
    assert kerosene.gold_spans == (Span("Cape_Vell_Lighthouse", 90, 98),)


def test_an_ordinary_test_set_is_still_a_test_set() -> None:
    dataset = load_dataset(TESTSET / "corpus", testset=TESTSET / "testset.jsonl")
    assert dataset.notices == ()
    assert dataset.questions.questions


def test_the_cli_says_which_reading_was_taken(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["eval", "--testset", str(HF / "squad_v2_rows.jsonl"), "--json", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 0
    notices = [line for line in err.splitlines() if "read as a HuggingFace SQuAD export" in line]
    assert len(notices) == 1
    assert "2 documents" in notices[0] and "4 questions" in notices[0] and "2 unanswerable left out" in notices[0]


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("hotpotqa_rows.jsonl", "HotpotQA export"),
        ("squad_rows.csv", "written as CSV"),
    ],
)
def test_other_shapes_are_refused_naming_them(name: str, says: str) -> None:
    with pytest.raises(InputError) as raised:
        load_dataset(TESTSET / "corpus", testset=HF / name)
    assert says in str(raised.value) and str(HF / name) in str(raised.value)


def test_hotpotqa_refusal_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--corpus", str(TESTSET / "corpus"), "--testset", str(HF / "hotpotqa_rows.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "give it with --dataset" in err and "distractors" in err


def test_a_squad_file_given_as_a_test_set_names_squad(tmp_path: Path) -> None:
    squad = tmp_path / "squad.json"
    squad.write_text('{"data": [{"title": "T", "paragraphs": []}]}', encoding="utf-8")
    with pytest.raises(InputError, match="give it with --squad"):
        load_dataset(TESTSET / "corpus", testset=squad)


def test_an_export_with_a_corpus_is_refused() -> None:
    with pytest.raises(InputError, match="holds its own documents"):
        load_dataset(TESTSET / "corpus", testset=HF / "squad_v2_rows.jsonl")


def test_an_answer_not_at_its_start_is_refused_naming_the_line_and_the_way_out() -> None:
    with pytest.raises(InputError) as raised:
        load_dataset(testset=HF / "squad_off_by_one.jsonl")
    message = str(raised.value)
    assert message.startswith(f"{HF / 'squad_off_by_one.jsonl'}:2: field 'answers.answer_start[0]'")
    assert "--skip-bad-gold" in message
