"""LegalBench-RAG: snippet spans are character offsets into the corpus files they name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.dataset import load_dataset

FIXTURES = Path(__file__).parents[1] / "fixtures" / "datasets" / "legalbench_rag"


def test_snippets_are_spans_of_the_files_they_name() -> None:
    tests = json.loads((FIXTURES / "benchmarks" / "mixed.json").read_text(encoding="utf-8"))["tests"]
    dataset = load_dataset(dataset=FIXTURES / "benchmarks" / "mixed.json", trim=False)
    assert [q.query for q in dataset.questions.questions] == [t["query"] for t in tests]
    for question, test in zip(dataset.questions.questions, tests, strict=True):
        assert len(question.evidence) == len(test["snippets"])
        for item, snippet in zip(question.evidence, test["snippets"], strict=True):
            (span,) = item.alternatives
            raw = (FIXTURES / "corpus" / snippet["file_path"]).read_bytes().decode("utf-8")
            # oracle: the answer's own position, found by a naive scan of the file's characters
            places = [i for i in range(len(raw)) if raw.startswith(snippet["answer"], i)]
            assert (span.doc, [span.start]) == (snippet["file_path"], places)
            assert span.end == span.start + len(snippet["answer"])
    assert {d.id for d in dataset.corpus.documents} == {"cuad/supply_agreement.txt", "privacy_qa/notice.txt"}
    assert (
        f"{FIXTURES / 'benchmarks' / 'mixed.json'}: 4 snippets located: 4 exactly, 0 normalised, 0 fuzzy, 0 not found"
        in (dataset.notices)
    )


def test_bad_snippets_name_the_field_or_are_counted() -> None:
    path = FIXTURES / "benchmarks" / "bad.json"
    with pytest.raises(InputError) as caught:
        load_dataset(dataset=path)
    assert caught.value.field == "tests[1].snippets[0].span"
    assert "outside 'privacy_qa/notice.txt'" in str(caught.value)
    dataset = load_dataset(dataset=path, skip_bad_gold=True)
    assert len(dataset.questions.questions) == 1
    assert dict(dataset.questions.excluded_reasons) == {
        "span outside its file": 1,
        "file not in the corpus": 1,
        "answer not at its span": 1,
    }


def test_the_corpus_directory_can_be_given(tmp_path: Path) -> None:
    benchmark = tmp_path / "b.json"
    benchmark.write_text((FIXTURES / "benchmarks" / "mixed.json").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError, match="give --corpus DIR"):
        load_dataset(dataset=benchmark)
    loaded = load_dataset(dataset=benchmark, corpus=FIXTURES / "corpus")
    assert len(loaded.questions.questions) == 3
