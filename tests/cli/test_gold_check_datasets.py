"""gold check reads every --dataset format, and reports the questions each loader left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import load_dataset
from chunkscope.io.questions import load_questions
from chunkscope.io.quotes import parse_match_policy
from chunkscope.model import Question, Span

DATASETS = Path(__file__).parents[1] / "fixtures" / "datasets"
SAMPLE_CORPUS = Path(__file__).parents[2] / "src" / "chunkscope" / "sample_data" / "corpus"


@pytest.mark.parametrize(
    ("path", "extra", "questions", "excluded"),
    [
        (DATASETS / "hotpotqa" / "distractor.json", [], 3, 0),
        (DATASETS / "multihop_rag" / "MultiHopRAG.json", [], 3, 1),
        (DATASETS / "natural_questions" / "simplified.jsonl.gz", [], 2, 1),
        (DATASETS / "legalbench_rag" / "benchmarks" / "mixed.json", [], 3, 0),
        (DATASETS / "qasper" / "qasper-dev.json", [], 2, 2),
        (DATASETS / "passages" / "mtcb.jsonl", ["--corpus", str(SAMPLE_CORPUS)], 3, 0),
        (DATASETS / "hotpotqa" / "bad_facts.json", ["--skip-bad-gold"], 1, 2),
    ],
)
def test_gold_check_reads_the_format(
    path: Path, extra: list[str], questions: int, excluded: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gold", "check", "--dataset", str(path), *extra]) in (0, 1)  # 1: findings listed, not an error
    out, err = capsys.readouterr()
    assert f"{questions} questions ({excluded} excluded at load)" in out
    assert "recognised by its content" in err


def test_eval_refuses_a_bad_fact_in_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    # gold check lists bad facts as findings (below); eval still refuses the file at the first one
    assert main(["eval", "--dataset", str(DATASETS / "hotpotqa" / "bad_facts.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 + err.count("read as")  # the notice, then the one error line
    assert "bad_facts.json:2: field 'supporting_facts[0][1]': sentence 7 is outside paragraph" in err


# ------------------------------------------------------------------ every bad fact is a finding

SAMPLE = ["--corpus", str(SAMPLE_CORPUS)]
HOTPOTQA = DATASETS / "hotpotqa" / "gold_check.json"
MULTIHOP = DATASETS / "multihop_rag" / "gold_check.json"
NQ = DATASETS / "natural_questions" / "gold_check.jsonl"
LEGALBENCH = DATASETS / "legalbench_rag" / "benchmarks" / "gold_check.json"
QASPER = DATASETS / "qasper" / "gold_check.json"
PASSAGES = DATASETS / "passages" / "gold_check.jsonl"

# Each fixture holds one good question and two bad ones, the first of them with two bad facts (written by hand:
# the expected findings below are the facts planted, read off the file, not the loader's output).
BAD_FACTS = [
    (
        HOTPOTQA,
        [],
        {
            ("out_of_range", "two-bad", ":3", "supporting_facts[0][1]"),  # sentence 5 of a 3-sentence paragraph
            ("not_found", "two-bad", ":3", "supporting_facts[1][0]"),  # title 'Nowhere' not in the context
            ("out_of_range", "empty", ":4", "supporting_facts[0][1]"),  # a blank sentence
        },
    ),
    (
        MULTIHOP,
        [],
        {
            ("not_found", "q2", "", "[1].evidence_list[0].title"),  # no such article
            ("not_found", "q2", "", "[1].evidence_list[2].fact"),  # not in its article
            ("not_found", "q3", "", "[2].evidence_list[0].fact"),
        },
    ),
    (
        NQ,
        [],
        {
            ("out_of_range", "202", ":2", "annotations[0].long_answer.end_token"),  # 40 > 20 tokens
            ("out_of_range", "202", ":2", "annotations[0].short_answers[0].end_token"),
            ("out_of_range", "203", ":3", "annotations[0].long_answer.end_token"),
        },
    ),
    (
        LEGALBENCH,
        [],
        {
            ("out_of_range", "t2", "", "tests[1].snippets[0].span"),  # [15, 1000) in a 154-character file
            ("not_found", "t2", "", "tests[1].snippets[1].file_path"),  # no such file
            ("mismatch", "t3", "", "tests[2].snippets[0].answer"),  # the span holds "Privacy"
        },
    ),
    (
        QASPER,
        [],
        {
            ("not_found", "q-two-bad", "", "2001.00002.qas[1].answers.evidence[0]"),
            ("not_found", "q-two-bad", "", "2001.00002.qas[1].answers.evidence[2]"),
            ("not_found", "q-bad", "", "2001.00002.qas[2].answers.evidence[0]"),
        },
    ),
    (
        DATASETS / "squad" / "gold_check.json",
        ["--squad-answers", "any"],
        {
            ("mismatch", "s-two-bad", "", "data[0].paragraphs[0].qas[1].answers[0].answer_start"),  # "each May" at 10
            ("out_of_range", "s-two-bad", "", "data[0].paragraphs[0].qas[1].answers[1].answer_start"),  # -4
            ("mismatch", "s-bad", "", "data[0].paragraphs[0].qas[2].answers[0].answer_start"),
        },
    ),
    (
        DATASETS / "hf" / "squad_gold_check.jsonl",
        ["--squad-answers", "any"],
        {
            ("mismatch", "h-two-bad", ":2", "answers.answer_start[0]"),  # "whale oil" is at 63, not 62
            ("out_of_range", "h-two-bad", ":2", "answers.answer_start[1]"),  # -3
            ("mismatch", "h-bad", ":3", "answers.answer_start[0]"),  # "1902" is at 79, not 80
        },
    ),
    (
        DATASETS / "tydi" / "gold_check.jsonl",
        [],
        {
            ("out_of_range", "302", ":2", "passage_answer_candidates[0].plaintext_end_byte"),  # 40 > 33 bytes
            ("out_of_range", "302", ":2", "annotations[0].minimal_answer.plaintext_start_byte"),  # inside 東
            ("out_of_range", "303", ":3", "annotations[0].minimal_answer.plaintext_end_byte"),  # inside は
        },
    ),
    (
        DATASETS / "chroma" / "gold_check.csv",
        ["--corpus", str(DATASETS.parent / "chroma" / "corpora")],
        {
            ("out_of_range", "alpha-1", ":3", "references[0].start_index"),  # [200, 900) in 273 characters
            ("mismatch", "alpha-1", ":3", "references[1]"),  # the anemones sentence is at 145, not 10
            ("mismatch", "alpha-2", ":4", "references[0]"),  # a sentence the file does not hold
        },
    ),
    (
        PASSAGES,
        SAMPLE,
        {
            ("not_found", "g2", ":2", "doc"),  # no such document
            ("not_found", "g3", ":3", "passage"),  # in no document
        },
    ),
]
FORMAT_IDS = [
    "hotpotqa",
    "multihop-rag",
    "natural-questions",
    "legalbench-rag",
    "qasper",
    "squad",
    "hf-squad",
    "tydi",
    "chroma",
    "passages",
]
UNRESOLVED = ("not_found", "ambiguous", "mismatch", "out_of_range")


@pytest.mark.parametrize(("path", "extra", "planted"), BAD_FACTS, ids=FORMAT_IDS)
def test_gold_check_lists_every_bad_fact_with_file_row_and_field(
    path: Path, extra: list[str], planted: set[tuple[str, str, str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gold", "check", "--dataset", str(path), *extra, "--json", "-"]) == 1  # findings, not bad input
    report = json.loads(capsys.readouterr().out)
    listed = {(f["kind"], f["question"], f["where"]) for f in report["findings"] if f["kind"] in UNRESOLVED}
    assert listed == {(kind, question, f"{path}{row} field '{name}'") for kind, question, row, name in planted}
    bad_questions = {question for _, question, _, _ in planted}
    assert report["excluded_questions"] == len(bad_questions)  # left out of the set, counted
    assert report["questions"] == 1
    assert report["problems"] >= len(planted)


@pytest.mark.parametrize(("path", "extra", "planted"), BAD_FACTS, ids=FORMAT_IDS)
def test_eval_still_refuses_the_first_bad_fact(
    path: Path, extra: list[str], planted: set[tuple[str, str, str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--dataset", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert "--skip-bad-gold leaves such questions out" in err
    assert any(f"field '{name}'" in err for _, _, _, name in planted)


def test_gold_check_terminal_names_each_bad_fact(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gold", "check", "--dataset", str(HOTPOTQA)]) == 1
    out = " ".join(capsys.readouterr().out.split())  # the table wraps long cells
    assert "1 questions (2 excluded at load)" in out
    assert "not_found │ 1" in out
    assert "out_of_range │ 2" in out
    assert "two-bad:" in out  # the detail cells wrap in the table; the JSON report above holds them whole


# ------------------------------------------------------------------ --write from a dataset


def test_write_from_a_dataset_loads_back_to_the_same_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixed = tmp_path / "fixed.jsonl"
    assert main(["gold", "check", "--dataset", str(HOTPOTQA), "--write", str(fixed)]) == 1
    err = capsys.readouterr().err
    assert "3 references not resolved: their questions are not in it" in err
    loaded = load_dataset(dataset=HOTPOTQA, lenient=True)
    back, _ = load_questions(fixed, loaded.corpus, parse_match_policy("exact"))
    assert back.questions == loaded.questions.questions
    assert [q.references for q in back.questions] == [("Wen",)]  # the reference answer travels too
    assert [q.id for q in back.questions] == ["good"]


def test_write_from_a_passage_set_loads_back_with_its_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixed = tmp_path / "fixed.jsonl"
    source = DATASETS / "passages" / "mtcb.jsonl"
    assert main(["gold", "check", "--dataset", str(source), *SAMPLE, "--write", str(fixed)]) in (0, 1)
    capsys.readouterr()
    from_dataset = load_dataset(dataset=source, corpus=SAMPLE_CORPUS)
    from_written = load_dataset(corpus=SAMPLE_CORPUS, questions=fixed, gold_match=parse_match_policy("exact"))
    # the same questions and gold spans; a passage located by the normalised rung is written as its offsets, so the
    # file loads exactly (the match kind is not part of a question's identity)
    assert gold_of(from_written.questions.questions) == gold_of(from_dataset.questions.questions)
    assert len(from_written.questions.questions) == 3
    assert [q.references for q in from_written.questions.questions] == [(), (), ("approved resellers",)]


def gold_of(questions: tuple[Question, ...]) -> list[tuple[str, str, tuple[str, ...], list[tuple[Span, ...]]]]:
    return [(q.id, q.query, q.tags, [item.alternatives for item in q.evidence]) for q in questions]


def test_a_file_whose_every_question_is_bad_is_listed_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a page of 4 tokens whose only long answer ends at token 9: eval has no question left, gold check lists why
    record = {
        "example_id": 7,
        "question_text": "where is ash",
        "document_text": "Ash is a river",
        "annotations": [{"long_answer": {"start_token": 0, "end_token": 9}, "short_answers": []}],
    }
    path = tmp_path / "nq.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["gold", "check", "--dataset", str(path), "--json", "-"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["questions"] == 0
    assert [(f["kind"], f["where"]) for f in report["findings"]] == [
        ("out_of_range", f"{path}:1 field 'annotations[0].long_answer.end_token'")
    ]
    assert main(["eval", "--dataset", str(path), "--skip-bad-gold"]) == 2
    assert "the question set is empty" in capsys.readouterr().err
