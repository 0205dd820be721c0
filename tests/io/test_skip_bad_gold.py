"""``--skip-bad-gold``: one unusable gold reference leaves its question out, counted, instead of refusing the file.

Before it, one off-by-one ``answer_start`` (or a span past the end, an offset inside a character, an unknown
document, an unfound quote) refused the whole file, and the message named no way out.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HINT = "--skip-bad-gold leaves such questions out and counts them"
CONTEXT = "Alpha beta gamma delta."


def squad_file(path: Path) -> Path:
    """Three questions; the second's answer_start is one past 'gamma' (11)."""
    qas = [
        {"id": "a0p0q0", "question": "First?", "answers": [{"text": "Alpha", "answer_start": 0}]},
        {"id": "a0p0q1", "question": "Third?", "answers": [{"text": "gamma", "answer_start": 12}]},
        {"id": "a0p0q2", "question": "Last?", "answers": [{"text": "delta", "answer_start": 17}]},
    ]
    data = {"data": [{"title": "T", "paragraphs": [{"context": CONTEXT, "qas": qas}]}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_off_by_one_answer_start_refuses_naming_the_option(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        load_dataset(squad=squad_file(tmp_path / "squad.json"))
    assert "field 'data[0].paragraphs[0].qas[1].answers[0].answer_start'" in str(raised.value)
    assert HINT in str(raised.value)


def test_skip_bad_gold_leaves_the_squad_question_out_and_counts_it(tmp_path: Path) -> None:
    dataset = load_dataset(squad=squad_file(tmp_path / "squad.json"), skip_bad_gold=True)
    assert [q.id for q in dataset.questions.questions] == ["a0p0q0", "a0p0q2"]
    assert dataset.questions.excluded == 1
    assert dataset.questions.excluded_reasons == {"answer not at answer_start": 1}


def test_the_eval_report_counts_the_skipped_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    squad = squad_file(tmp_path / "squad.json")
    code = main(["eval", "--squad", str(squad), "--skip-bad-gold", "--json", str(report)])
    capsys.readouterr()
    assert code == 0
    loaded = json.loads(report.read_text(encoding="utf-8"))
    assert loaded["excluded_reasons"] == {"answer not at answer_start": 1}
    assert loaded["configs"][0]["summary"]["questions"] == 2


def test_questions_jsonl_problems_are_each_counted_by_reason(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("One two three four. One two.", encoding="utf-8")
    records = [
        {"id": "ok", "query": "q", "evidence": [{"doc": "a.md", "start": 0, "end": 3}]},
        {"id": "range", "query": "q", "evidence": [{"doc": "a.md", "start": 20, "end": 99}]},
        {"id": "doc", "query": "q", "evidence": [{"doc": "b.md", "start": 0, "end": 3}]},
        {"id": "quote", "query": "q", "evidence": [{"doc": "a.md", "quote": "five"}]},
        {"id": "twice", "query": "q", "evidence": [{"doc": "a.md", "quote": "One two"}]},
        {"id": "occurrence", "query": "q", "evidence": [{"doc": "a.md", "quote": "four", "occurrence": 1}]},
    ]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(InputError, match="--skip-bad-gold"):
        load_dataset(corpus, questions)
    dataset = load_dataset(corpus, questions, skip_bad_gold=True)
    assert [q.id for q in dataset.questions.questions] == ["ok"]
    assert dataset.questions.excluded_reasons == {
        "span out of range or empty": 1,
        "unknown document": 1,
        "gold not resolved": 3,
    }
    assert dataset.questions.excluded == 5


def test_an_offset_inside_a_character_in_another_unit(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("😀 smile", encoding="utf-8")
    records = [
        {"id": "ok", "query": "q", "evidence": [{"doc": "a.md", "start": 3, "end": 8}]},  # UTF-16: "smile"
        {"id": "half", "query": "q", "evidence": [{"doc": "a.md", "start": 1, "end": 8}]},  # inside the pair
    ]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(InputError, match="--skip-bad-gold"):
        load_dataset(corpus, questions, questions_offset_unit="utf16")
    dataset = load_dataset(corpus, questions, questions_offset_unit="utf16", skip_bad_gold=True)
    assert [q.gold_spans[0].start for q in dataset.questions.questions] == [2]
    assert dataset.questions.excluded_reasons == {"offset inside a character": 1}


def test_tydi_byte_offset_inside_a_character(tmp_path: Path) -> None:
    lines = (FIXTURES / "tydi" / "tydi-sample.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["annotations"][0]["minimal_answer"]["plaintext_start_byte"] += 1  # inside a kana or kanji
    path = tmp_path / "tydi.jsonl"
    path.write_text("\n".join([json.dumps(record, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="--skip-bad-gold"):
        load_dataset(tydi=path)
    whole = load_dataset(tydi=FIXTURES / "tydi" / "tydi-sample.jsonl")
    skipped = load_dataset(tydi=path, skip_bad_gold=True)
    assert len(skipped.questions.questions) == len(whole.questions.questions) - 1
    assert skipped.questions.excluded_reasons["byte offset not on a character"] == 1


def test_chroma_reference_out_of_range(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "chroma", tmp_path / "chroma")
    csv = tmp_path / "chroma" / "questions_df.csv"
    text = csv.read_text(encoding="utf-8")
    given = '""start_index"": 103, ""end_index"": 164'
    out_of_range = text.replace(given, given.replace("164", "99999"))
    csv.write_text(out_of_range, encoding="utf-8")
    with pytest.raises(InputError, match="--skip-bad-gold"):
        load_dataset(chroma=csv)
    whole = load_dataset(chroma=FIXTURES / "chroma" / "questions_df.csv")
    skipped = load_dataset(chroma=csv, skip_bad_gold=True)
    assert len(skipped.questions.questions) == len(whole.questions.questions) - 1
    assert skipped.questions.excluded_reasons["reference out of range or empty"] == 1
    assert skipped.questions.excluded == whole.questions.excluded + 1


def test_a_huggingface_export_row(tmp_path: Path) -> None:
    dataset = load_dataset(testset=FIXTURES / "hf" / "squad_off_by_one.jsonl", skip_bad_gold=True)
    assert dataset.questions.excluded_reasons == {"answer not at answer_start": 1}
    assert len(dataset.questions.questions) == 2
