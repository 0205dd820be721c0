"""--dataset: every registered format recognised by its content, or forced by name; no match names them all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset
from chunkscope.io.dataset_formats import FORMATS, detect

FIXTURES = Path(__file__).parents[1] / "fixtures"
SAMPLE = Path(__file__).parents[2] / "src" / "chunkscope" / "sample_data"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (FIXTURES / "hf" / "squad_rows.json", "hf-squad"),
        (FIXTURES / "hf" / "squad_v2_rows.jsonl", "hf-squad"),
        (FIXTURES / "tydi" / "tydi-sample.jsonl", "tydi"),
        (FIXTURES / "chroma" / "questions_df.csv", "chroma"),
        (FIXTURES / "testset" / "testset.json", "testset"),
        (FIXTURES / "testset" / "testset.jsonl", "testset"),
        (SAMPLE / "questions.jsonl", "questions"),
        (FIXTURES / "hf" / "hotpotqa_rows.jsonl", "hotpotqa"),
        (FIXTURES / "datasets" / "hotpotqa" / "distractor.json", "hotpotqa"),
        (FIXTURES / "datasets" / "hotpotqa" / "hf_export.jsonl", "hotpotqa"),
        (FIXTURES / "datasets" / "multihop_rag" / "MultiHopRAG.json", "multihop-rag"),
        (FIXTURES / "datasets" / "natural_questions" / "simplified.jsonl", "natural-questions"),
        (FIXTURES / "datasets" / "natural_questions" / "simplified.jsonl.gz", "natural-questions"),
        (FIXTURES / "datasets" / "legalbench_rag" / "benchmarks" / "mixed.json", "legalbench-rag"),
        (FIXTURES / "datasets" / "qasper" / "qasper-dev.json", "qasper"),
        (FIXTURES / "datasets" / "passages" / "mtcb.jsonl", "passages"),
    ],
)
def test_each_format_is_recognised_by_its_content(path: Path, name: str) -> None:
    assert detect(path).name == name


def test_the_dataset_option_reads_the_same_as_the_dedicated_option() -> None:
    path = FIXTURES / "tydi" / "tydi-sample.jsonl"
    assert load_dataset(dataset=path).questions == load_dataset(tydi=path).questions
    squad_rows = FIXTURES / "hf" / "squad_rows.json"
    assert load_dataset(dataset=squad_rows).questions == load_dataset(testset=squad_rows).questions
    sample = load_dataset(dataset=SAMPLE / "questions.jsonl", corpus=SAMPLE / "corpus")
    assert sample.questions == load_dataset().questions


def test_a_file_no_format_matches_lists_every_format_tried(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"prompt": "x"}\n')
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path)
    message = str(caught.value)
    assert message.startswith(f"{path}: matches no known dataset format")
    assert "\n" not in message
    for known in FORMATS.values():
        assert f"{known.name}: {known.expects}" in message


def test_the_format_can_be_forced_and_an_unknown_name_lists_the_known(tmp_path: Path) -> None:
    path = FIXTURES / "hf" / "squad_rows.json"
    forced = load_dataset(dataset=path, dataset_format="hf-squad")
    assert "as --dataset-format says" in forced.notices[0]
    with pytest.raises(InputError, match=r"unknown --dataset-format 'nope'; known: .*hotpotqa"):
        load_dataset(dataset=path, dataset_format="nope")


def test_dataset_excludes_the_other_sources() -> None:
    with pytest.raises(InputError, match="give one question source"):
        load_dataset(dataset=FIXTURES / "hf" / "squad_rows.json", squad=FIXTURES / "hf" / "squad_rows.json")


def test_every_format_says_its_match_rate_and_what_it_left_out() -> None:
    sample = load_dataset(dataset=SAMPLE / "questions.jsonl", corpus=SAMPLE / "corpus")
    items = [item for question in sample.questions.questions for item in question.evidence]
    exact = sum(1 for item in items if not item.approximate)
    normalised = len(items) - exact
    path = SAMPLE / "questions.jsonl"
    assert sample.notices[1:] == (
        f"{path}: {len(items)} gold spans located: {exact} exactly, {normalised} normalised, 0 fuzzy, 0 not found",
        f"{path}: questions left out: nothing",
    )
    testset = load_dataset(dataset=FIXTURES / "testset" / "testset.json", corpus=FIXTURES / "testset" / "corpus")
    issues = len(testset.questions.issues)
    assert issues and any(notice.endswith(f"{issues} not found") for notice in testset.notices)
    reasons = "; ".join(f"{count} {reason}" for reason, count in testset.questions.excluded_reasons.items())
    assert testset.notices[-1].endswith(f"questions left out: {reasons}")


def test_a_tydi_goldp_export_reads_as_hf_squad_rows() -> None:
    path = FIXTURES / "datasets" / "hf" / "tydi_goldp.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    dataset = load_dataset(dataset=path)
    assert detect(path).name == "hf-squad"
    assert [d.id for d in dataset.corpus.documents] == ["東京タワー", "富士山"]
    for question, row in zip(dataset.questions.questions, rows, strict=True):
        (span,) = question.gold_spans
        text = dataset.corpus.by_id[span.doc].text
        answer = row["answers"]["text"][0]
        # oracle: the answer's place in its context, found by a naive scan, inside the one document of its title
        start = next(i for i in range(len(row["context"])) if row["context"][i : i + len(answer)] == answer)
        assert text == row["context"] and (span.start, span.end) == (start, start + len(answer))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "hp.json",
            '[{"question": "q", "supporting_facts": [["a", "x"]], "context": [["a", ["s"]]]}]',
            "[title, sentence",
        ),
        ("hp0.json", '[{"question": "q", "supporting_facts": [], "context": []}]', "(1 no supporting facts)"),
        ("lb.json", '{"tests": [{"query": "q", "snippets": [5]}]}', "give --corpus DIR"),
        ("qa.json", '{"p": {"full_text": 5, "qas": []}}', "p.full_text"),
        ("nq.jsonl", '{"document_text": "a b", "question_text": "q", "annotations": 5}\n', "annotations"),
        ("mh.json", '[{"query": "q", "evidence_list": [5]}]', "give --corpus corpus.json"),
        ("empty.json", "", "matches no known dataset format"),
    ],
)
def test_malformed_files_are_one_line_errors(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_directory_is_not_a_dataset_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory: --dataset takes a dataset file"):
        load_dataset(dataset=tmp_path)
