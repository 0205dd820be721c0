"""Corpus and question loaders: formats, evidence resolution, and errors that name file, line and field."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset import load_dataset, sample_paths
from chunkscope.io.questions import find_all, load_questions
from chunkscope.model import Corpus, Document, EvidenceItem, Span

# ------------------------------------------------------------------ helpers


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# "The cat sat. The cat ran." : "cat" at 4 and 17; "sat" at 8.
CAT_TEXT = "The cat sat. The cat ran."
CORPUS = Corpus((Document("cats", CAT_TEXT), Document("dogs", "Dogs bark.")))


def load_one(tmp_path: Path, evidence: list[object]) -> tuple[EvidenceItem, ...]:
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": "q1", "query": "cat?", "evidence": evidence}])
    questions, _ = load_questions(path, CORPUS)
    return questions.questions[0].evidence


def input_error(tmp_path: Path, records: list[object], corpus: Corpus = CORPUS) -> InputError:
    path = write_jsonl(tmp_path / "q.jsonl", records)
    with pytest.raises(InputError) as caught:
        load_questions(path, corpus)
    return caught.value


def question(evidence: list[object], qid: str = "q1") -> dict[str, object]:
    return {"id": qid, "query": "cat?", "evidence": evidence}


# ------------------------------------------------------------------ corpus


def test_jsonl_corpus_keeps_text_title_and_metadata(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"id": "a", "text": "line one\r\nline two", "title": "A", "metadata": {"lang": "en"}},
            {"id": "b", "text": "日本語"},
        ],
    )
    corpus, source = load_corpus(path)
    assert [d.id for d in corpus.documents] == ["a", "b"]
    assert corpus.by_id["a"].text == "line one\r\nline two"
    assert corpus.by_id["a"].title == "A"
    assert dict(corpus.by_id["a"].metadata) == {"lang": "en"}
    assert corpus.by_id["b"].title is None
    assert source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_jsonl_corpus_accepts_crlf_line_endings_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x"}\r\n\r\n{"id": "b", "text": "y"}\r\n')
    corpus, _ = load_corpus(path)
    assert [d.text for d in corpus.documents] == ["x", "y"]


def test_directory_corpus_ids_are_relative_posix_paths_and_crlf_stays(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "en" / "deep").mkdir(parents=True)
    (root / "en" / "a.md").write_bytes(b"# A\r\n\r\nBody.\r\n")
    (root / "en" / "deep" / "b.txt").write_bytes("テキスト".encode())
    (root / "ignored.json").write_text("{}")
    corpus, _ = load_corpus(root)
    assert [d.id for d in corpus.documents] == ["en/a.md", "en/deep/b.txt"]
    text = corpus.by_id["en/a.md"].text
    assert text == "# A\r\n\r\nBody.\r\n"
    # Offsets are true offsets into the file: "Body." starts after 3 + 2 + 2 characters.
    assert text[7:12] == "Body."


def test_corpus_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": \n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    assert (caught.value.path, caught.value.line) == (str(path), 2)
    assert "invalid JSON" in str(caught.value)

    write_jsonl(path, [{"id": "a", "text": "x"}, {"text": "y"}])
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    assert (caught.value.line, caught.value.field) == (2, "id")

    write_jsonl(path, [{"id": 7, "text": "x"}])
    with pytest.raises(InputError, match="must be a string, got int") as caught:
        load_corpus(path)
    assert caught.value.field == "id"

    write_jsonl(path, [["not", "an", "object"]])
    with pytest.raises(InputError, match="JSON object"):
        load_corpus(path)


def test_duplicate_document_id_names_both_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "c.jsonl", [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}, {"id": "a", "text": "z"}]
    )
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    error = caught.value
    assert (error.line, error.field) == (3, "id")
    assert "duplicate document id 'a' (first on line 1)" in error.message
    assert str(error) == f"{path}:3: field 'id': duplicate document id 'a' (first on line 1)"


def test_empty_or_missing_or_undecodable_corpus(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(InputError, match="empty"):
        load_corpus(tmp_path / "empty.jsonl")
    with pytest.raises(InputError, match="no such file"):
        load_corpus(tmp_path / "absent.jsonl")
    (tmp_path / "nothing").mkdir()
    with pytest.raises(InputError, match=r"no \.md, \.txt, \.pdf, \.html, \.htm or \.docx files"):
        load_corpus(tmp_path / "nothing")
    (tmp_path / "latin1").mkdir()
    (tmp_path / "latin1" / "a.txt").write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(InputError, match="not valid UTF-8") as caught:
        load_corpus(tmp_path / "latin1")
    assert caught.value.line == 2


# ------------------------------------------------------------------ evidence


def test_offset_quote_occurrence_and_any_items(tmp_path: Path) -> None:
    evidence = load_one(
        tmp_path,
        [
            {"doc": "cats", "start": 0, "end": 3},
            {"doc": "cats", "quote": "sat"},
            {"doc": "cats", "quote": "cat", "occurrence": 1},
            {"any": [{"doc": "dogs", "quote": "bark"}, {"doc": "cats", "start": 21, "end": 24}]},
        ],
    )
    assert evidence == (
        EvidenceItem((Span("cats", 0, 3),)),
        EvidenceItem((Span("cats", 8, 11),)),  # "sat" starts at 8
        EvidenceItem((Span("cats", 17, 20),)),  # second "cat": "The cat sat. The " is 17 characters
        EvidenceItem((Span("dogs", 5, 9), Span("cats", 21, 24))),
    )
    assert CAT_TEXT[17:20] == "cat"
    assert CAT_TEXT[21:24] == "ran"


def test_nested_any_flattens_into_one_item(tmp_path: Path) -> None:
    evidence = load_one(
        tmp_path, [{"any": [{"any": [{"doc": "cats", "quote": "sat"}]}, {"doc": "dogs", "start": 0, "end": 4}]}]
    )
    assert evidence == (EvidenceItem((Span("cats", 8, 11), Span("dogs", 0, 4))),)


def test_questions_keep_order_query_and_tags(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"id": "z", "query": "first", "evidence": [{"doc": "dogs", "quote": "Dogs"}], "tags": ["en"]},
            {"id": "a", "query": "second", "evidence": [{"doc": "dogs", "quote": "bark"}]},
        ],
    )
    questions, source = load_questions(path, CORPUS)
    assert [(q.id, q.query, q.tags) for q in questions.questions] == [("z", "first", ("en",)), ("a", "second", ())]
    assert questions.excluded == 0
    assert source.path == str(path)


@pytest.mark.parametrize(
    ("item", "field", "message"),
    [
        ({"doc": "birds", "start": 0, "end": 1}, "evidence[0].doc", "unknown document 'birds'"),
        (
            {"doc": "cats", "start": 20, "end": 26},
            "evidence[0].start",
            "span [20, 26) is out of range (document has 25",
        ),
        ({"doc": "cats", "start": -1, "end": 2}, "evidence[0].start", "out of range"),
        ({"doc": "cats", "start": 5, "end": 5}, "evidence[0].start", "span [5, 5) is empty"),
        ({"doc": "cats", "start": 6, "end": 5}, "evidence[0].start", "span [6, 5) is empty"),
        ({"doc": "cats", "start": 1}, "evidence[0].end", "must be an integer"),
        ({"doc": "cats", "start": "1", "end": 3}, "evidence[0].start", "must be an integer"),
        ({"start": 1, "end": 3}, "evidence[0].doc", "missing"),
        ({"doc": "cats", "quote": "dog"}, "evidence[0].quote", "quote 'dog' found 0 times in 'cats'"),
        ({"doc": "cats", "quote": ""}, "evidence[0].quote", "non-empty"),
        ({"doc": "cats", "quote": "cat", "occurrence": 2}, "evidence[0].occurrence", "occurs 2 times"),
        ({"any": []}, "evidence[0].any", "at least one alternative"),
        ({"any": [{"doc": "cats", "quote": "dog"}]}, "evidence[0].any[0].quote", "found 0 times"),
        ("cats", "evidence[0]", "must be an object"),
    ],
)
def test_bad_evidence_names_line_and_field(tmp_path: Path, item: object, field: str, message: str) -> None:
    error = input_error(tmp_path, [question([{"doc": "cats", "quote": "sat"}], "ok"), question([item])])
    assert error.path == str(tmp_path / "q.jsonl")
    assert error.line == 2
    assert error.field == field
    assert message in error.message


def test_ambiguous_quote_lists_every_offset(tmp_path: Path) -> None:
    error = input_error(tmp_path, [question([{"doc": "cats", "quote": "cat"}])])
    # "cat" occurs at 4 and 17 (see CAT_TEXT).
    assert "quote 'cat' found 2 times in 'cats' at offsets 4, 17" in error.message
    assert '"occurrence"' in error.message


def test_overlapping_quote_occurrences_are_all_counted() -> None:
    assert find_all("aaaa", "aa") == [0, 1, 2]


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"query": "x", "evidence": []}, "id", "missing"),
        ({"id": "q2", "query": "  ", "evidence": [{"doc": "cats", "quote": "sat"}]}, "query", "must not be empty"),
        ({"id": "q2", "query": "x", "evidence": []}, "evidence", "at least one evidence item"),
        ({"id": "q2", "query": "x", "evidence": {}}, "evidence", "must be a list"),
        ({"id": "q2", "query": "x", "evidence": [{"doc": "cats", "quote": "sat"}], "tags": "en"}, "tags", "list"),
    ],
)
def test_bad_question_fields(tmp_path: Path, record: dict[str, object], field: str, message: str) -> None:
    error = input_error(tmp_path, [question([{"doc": "cats", "quote": "sat"}]), record])
    assert (error.line, error.field) == (2, field)
    assert message in error.message


def test_duplicate_question_id_names_first_line(tmp_path: Path) -> None:
    ok = [{"doc": "cats", "quote": "sat"}]
    error = input_error(tmp_path, [question(ok, "q1"), question(ok, "q2"), question(ok, "q1")])
    assert (error.line, error.field) == (3, "id")
    assert "duplicate question id 'q1' (first on line 1)" in error.message


def test_empty_question_set_is_an_error_not_a_division_by_zero(tmp_path: Path) -> None:
    (tmp_path / "q.jsonl").write_text("\n")
    with pytest.raises(InputError, match="question set is empty"):
        load_questions(tmp_path / "q.jsonl", CORPUS)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(question([{"doc": "cats", "quote": "sat"}])) + "\n\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_questions(path, CORPUS)
    assert caught.value.line == 3  # blank line 2 is skipped but still counted
    assert "invalid JSON" in caught.value.message


# ------------------------------------------------------------------ datasets


def test_load_dataset_defaults_to_the_bundled_sample() -> None:
    dataset = load_dataset()
    corpus_dir, questions_file = sample_paths()
    assert corpus_dir.is_dir() and questions_file.is_file()
    assert len(dataset.corpus.documents) == 10
    assert len(dataset.questions.questions) == 40
    assert [s.path for s in dataset.sources] == [str(corpus_dir), str(questions_file)]


def test_sample_evidence_texts_are_what_the_questions_quote() -> None:
    dataset = load_dataset()
    records = [json.loads(line) for line in sample_paths()[1].read_text(encoding="utf-8").splitlines()]
    for record, loaded in zip(records, dataset.questions.questions, strict=True):
        for raw, item in zip(record["evidence"], loaded.evidence, strict=True):
            alternatives = raw.get("any", [raw])
            for alternative, span in zip(alternatives, item.alternatives, strict=True):
                text = dataset.corpus.by_id[span.doc].text[span.start : span.end]
                if "quote" in alternative:
                    assert text == alternative["quote"]


def test_load_dataset_rejects_mixed_or_partial_inputs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="either --squad or --corpus"):
        load_dataset(corpus=tmp_path, squad=tmp_path / "s.json")
    with pytest.raises(InputError, match="--questions is needed"):
        load_dataset(corpus=tmp_path)
    with pytest.raises(InputError, match="--corpus is needed"):
        load_dataset(questions=tmp_path / "q.jsonl")


def test_loading_never_writes_the_inputs(tmp_path: Path) -> None:
    corpus_path = write_jsonl(tmp_path / "c.jsonl", [{"id": "cats", "text": CAT_TEXT}])
    questions_path = write_jsonl(tmp_path / "q.jsonl", [question([{"doc": "cats", "quote": "sat"}])])
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (corpus_path, questions_path)}
    load_dataset(corpus_path, questions_path)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "q.jsonl"]
