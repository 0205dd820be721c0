"""Gold as users have it: quotes with offsets, edge whitespace, and the Chroma, TyDi and test-set loaders."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from chunkscope.errors import InputError
from chunkscope.io.chroma import load_chroma
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset import load_dataset
from chunkscope.io.gold import trim_span
from chunkscope.io.questions import load_questions
from chunkscope.io.quotes import DEFAULT_POLICY, EXACT_POLICY, MatchPolicy
from chunkscope.io.testset import load_testset
from chunkscope.io.tydi import ByteOffsets, load_tydi
from chunkscope.model import Corpus, Document, Span, SpanMatch

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CHROMA = FIXTURES / "chroma" / "questions_df.csv"
TYDI = FIXTURES / "tydi" / "tydi-sample.jsonl"
TESTSET = FIXTURES / "testset"

CAT_TEXT = "The cat sat. The cat ran."
CORPUS = Corpus((Document("cats", CAT_TEXT),))


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def one_question(tmp_path: Path, evidence: list[object], policy: MatchPolicy = DEFAULT_POLICY) -> list[Span]:
    path = write_jsonl(tmp_path / "q.jsonl", [{"id": "q", "query": "cat?", "evidence": evidence}])
    questions, _ = load_questions(path, CORPUS, policy)
    return list(questions.questions[0].gold_spans)


# ------------------------------------------------------------------ quote with offsets


def test_a_repeated_quote_is_accepted_when_its_offsets_agree(tmp_path: Path) -> None:
    # "cat" occurs at 4 and 17: the offsets pick the second
    assert one_question(tmp_path, [{"doc": "cats", "quote": "cat", "start": 17, "end": 20}]) == [Span("cats", 17, 20)]


def test_a_quote_whose_offsets_disagree_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"\[5, 8\) does not match the quote, found at \[4, 7\), \[17, 20\)"):
        one_question(tmp_path, [{"doc": "cats", "quote": "cat", "start": 5, "end": 8}])


def test_offsets_agree_with_a_normalised_quote_but_not_under_exact(tmp_path: Path) -> None:
    item = {"doc": "cats", "quote": "The  cat\nsat.", "start": 0, "end": 12}
    assert one_question(tmp_path, [item]) == [Span("cats", 0, 12)]
    with pytest.raises(InputError, match="does not match the quote"):
        one_question(tmp_path, [item], EXACT_POLICY)


def test_each_located_item_records_how_it_was_found(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {
                "id": "q",
                "query": "cat?",
                "evidence": [
                    {"doc": "cats", "quote": "cat sat"},
                    {"any": [{"doc": "cats", "quote": "The\ncat  ran"}, {"doc": "cats", "start": 0, "end": 3}]},
                ],
            }
        ],
    )
    question = load_questions(path, CORPUS)[0].questions[0]
    assert question.evidence[0].matches == ()  # every alternative exact: nothing recorded
    assert question.evidence[1].match_labels == ("normalized", "exact")
    assert question.approximate


def test_lenient_loading_records_unresolved_gold_and_excludes_its_question(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"id": "ok", "query": "q", "evidence": [{"doc": "cats", "quote": "sat"}]},
            {"id": "two", "query": "q", "evidence": [{"doc": "cats", "quote": "cat"}]},
            {"id": "none", "query": "q", "evidence": [{"doc": "cats", "quote": "dog"}]},
        ],
    )
    questions, _ = load_questions(path, CORPUS, lenient=True)
    assert [q.id for q in questions.questions] == ["ok"]
    assert questions.excluded == 2
    assert [(i.kind, i.question) for i in questions.issues] == [("ambiguous", "two"), ("not_found", "none")]
    assert questions.issues[0].places == (("cats", 4, 7), ("cats", 17, 20))
    assert questions.issues[0].where == f"{path}:2 field 'evidence[0].quote'"


# ------------------------------------------------------------------ edge whitespace


@pytest.mark.parametrize(
    ("held", "expected"),
    [(" ab ", (1, 3)), ("ab", (0, 2)), ("\n\tab", (2, 4)), ("a b\n", (0, 3)), ("   ", (0, 3))],
)
def test_trimming_drops_edge_whitespace_only(held: str, expected: tuple[int, int]) -> None:
    assert trim_span(Span("d", 0, len(held)), held) == Span("d", *expected)


def test_loaded_gold_is_trimmed_unless_asked_not_to(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("One two. Three four.", encoding="utf-8")
    questions = write_jsonl(
        tmp_path / "q.jsonl", [{"id": "q", "query": "q", "evidence": [{"doc": "a.md", "quote": "two. "}]}]
    )
    assert load_dataset(corpus, questions).questions.questions[0].gold_spans == (Span("a.md", 4, 8),)
    assert load_dataset(corpus, questions, trim=False).questions.questions[0].gold_spans == (Span("a.md", 4, 9),)


# ------------------------------------------------------------------ Chroma


def test_chroma_rows_become_required_spans_tagged_by_corpus() -> None:
    dataset = load_chroma(CHROMA)
    questions = {q.id: q for q in dataset.questions.questions}
    assert sorted(questions) == ["alpha-0", "beta-1", "beta-3"]
    alpha = dataset.corpus.by_id["alpha.md"].text
    first = questions["alpha-0"]
    assert first.tags == ("alpha",)
    assert len(first.evidence) == 2  # two references, both required
    # the repeated sentence: its offsets pick the second copy
    assert alpha.count("The water is warm by noon.") == 2
    assert first.evidence[0].alternatives == (Span("alpha.md", 118, 144),)
    assert alpha.index("The water is warm by noon.", 100) == 118
    assert [s.path for s in dataset.sources] == [
        str(CHROMA),
        *(str(CHROMA.parent / "corpora" / f) for f in ("alpha.md", "beta.md")),
    ]


def test_a_chroma_reference_not_at_its_offsets_excludes_its_question_and_is_listed() -> None:
    questions = load_chroma(CHROMA).questions
    assert questions.excluded == 1
    assert dict(questions.excluded_reasons) == {"reference not at its offsets": 1}
    (issue,) = questions.issues
    assert issue.kind == "mismatch" and issue.question == "alpha-2"
    assert issue.where == f"{CHROMA}:4 field 'references[0]'"
    assert issue.places == (("alpha.md", 222, 272),)


def test_chroma_corpora_may_come_from_another_directory(tmp_path: Path) -> None:
    csv_path = tmp_path / "q.csv"
    shutil.copy(CHROMA, csv_path)
    with pytest.raises(InputError, match="no corpora directory"):
        load_chroma(csv_path)
    dataset = load_dataset(corpus=CHROMA.parent / "corpora", chroma=csv_path)
    assert len(dataset.questions.questions) == 3


@pytest.mark.parametrize(
    ("content", "line", "field", "message"),
    [
        ("question,corpus_id\nq,alpha\n", 1, "references", "missing column"),
        ('question,references,corpus_id\nq,"[{""content"": 1",alpha\n', 2, "references", "invalid JSON"),
        ("question,references,corpus_id\nq,{},alpha\n", 2, "references", "non-empty JSON list"),
        ('question,references,corpus_id\nq,"[{""content"": ""x"", ""start_index"": ""0"", ""end_index"": 1}]",alpha\n',
         2, "references[0].start_index", "must be an integer"),
        ('question,references,corpus_id\nq,"[{""content"": ""x"", ""start_index"": 0, ""end_index"": 1}]",gamma\n',
         2, "corpus_id", "no corpus file"),
        ('question,references,corpus_id\n"q\nr","[{""content"": ""x"", ""start_index"": 5, ""end_index"": 1}]",alpha\n',
         2, "references[0].start_index", "is empty"),
    ],
)  # fmt: skip
def test_bad_chroma_input_names_line_and_field(
    tmp_path: Path, content: str, line: int, field: str, message: str
) -> None:
    shutil.copytree(CHROMA.parent / "corpora", tmp_path / "corpora")
    path = tmp_path / "questions_df.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_chroma(path)
    assert (caught.value.line, caught.value.field) == (line, field)
    assert message in caught.value.message


# ------------------------------------------------------------------ TyDi


def test_tydi_byte_offsets_become_code_point_offsets() -> None:
    dataset = load_tydi(TYDI, "japanese")
    text = dataset.corpus.by_id["東京"].text
    record = json.loads(TYDI.read_text(encoding="utf-8").splitlines()[0])
    raw = record["document_plaintext"].encode("utf-8")
    minimal = record["annotations"][0]["minimal_answer"]
    # oracle: decode the bytes before each offset and count the characters
    start = len(raw[: minimal["plaintext_start_byte"]].decode("utf-8"))
    end = len(raw[: minimal["plaintext_end_byte"]].decode("utf-8"))
    first = dataset.questions.questions[0]
    assert first.id == "101"
    assert first.gold_spans == (Span("東京", start, end),)  # two annotators gave the same answer: one alternative
    assert text[start:end] == "約1400万人"


def test_tydi_gold_choice_paragraphs_and_exclusions() -> None:
    dataset = load_tydi(TYDI, "japanese")
    questions = {q.id: q for q in dataset.questions.questions}
    text = dataset.corpus.by_id["東京"].text
    assert len(dataset.corpus.documents) == 1  # four questions share one article
    # paragraphs: the passage candidates, one per line of the fixture
    lines = text.split("\n")
    starts = [sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))]
    assert dataset.corpus.documents[0].paragraphs == tuple(
        (s, s + len(line)) for s, line in zip(starts, lines, strict=True)
    )
    # a yes/no question has no minimal answer: its annotated passage is the gold
    assert [text[s.start : s.end] for s in questions["102"].gold_spans] == [lines[2]]
    # every annotator's minimal answer is an alternative
    assert [text[s.start : s.end] for s in questions["105"].gold_spans] == ["東京", "東京は日本の首都"]
    assert dict(dataset.questions.excluded_reasons) == {"unanswerable": 1, "language not japanese": 1}
    assert all(q.tags == ("japanese",) for q in questions.values())


def test_tydi_reads_gzip_and_every_language_without_a_filter(tmp_path: Path) -> None:
    path = tmp_path / "tydi.jsonl.gz"
    path.write_bytes(gzip.compress(TYDI.read_bytes()))
    dataset = load_tydi(path)
    assert sorted(q.id for q in dataset.questions.questions) == ["101", "102", "104", "105"]
    assert dataset.name == "tydi"


def test_a_tydi_byte_offset_inside_a_character_names_file_line_and_field(tmp_path: Path) -> None:
    records = [json.loads(line) for line in TYDI.read_text(encoding="utf-8").splitlines()]
    records[4]["annotations"][1]["minimal_answer"]["plaintext_end_byte"] += 1  # into the next 3-byte character
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError) as caught:
        load_tydi(path)
    assert caught.value.line == 5
    assert caught.value.field == "annotations[1].minimal_answer.plaintext_end_byte"
    assert "inside a multi-byte UTF-8 character" in caught.value.message


def test_byte_offsets_convert_like_decoding_the_prefix() -> None:
    text = "aé日本🙂b"
    raw = text.encode("utf-8")
    boundaries = [i for i in range(len(raw) + 1) if i == len(raw) or raw[i] & 0xC0 != 0x80]
    converted = ByteOffsets(raw).to_chars(boundaries[::-1])
    assert converted == [len(raw[:b].decode("utf-8")) for b in boundaries[::-1]]


# ------------------------------------------------------------------ test sets


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_test_sets_load_the_same_from_json_jsonl_and_csv(suffix: str) -> None:
    corpus, _ = load_corpus(TESTSET / "corpus")
    questions, _ = load_testset(TESTSET / f"testset.{suffix}", corpus)
    by_id = {q.id: q for q in questions.questions}
    assert sorted(by_id) == ["row-1", "row-2", "row-3", "row-5"]
    texts = {
        qid: [[corpus.by_id[s.doc].text[s.start : s.end] for s in item.alternatives] for item in q.evidence]
        for qid, q in by_id.items()
    }
    assert texts["row-1"] == [["New employees receive a laptop on their first day."]]
    # other line breaks: found by the normalised rung, mapped back to the original text
    assert texts["row-2"] == [["It comes with the standard\nsoftware already installed."]]
    assert by_id["row-2"].evidence[0].matches == (SpanMatch("normalized"),)
    # two contexts: two required items; the <1-hop> markers are not searched for
    assert texts["row-3"] == [
        ["Train tickets are booked through the travel portal."],
        ["Hotel costs are refunded up to 120 euros a night."],
    ]
    # a context in two documents: either copy is the evidence
    assert [s.doc for s in by_id["row-5"].evidence[0].alternatives] == ["onboarding.md", "travel.md"]
    assert by_id["row-1"].tags == ("single_hop_specific_query_synthesizer",)
    assert questions.excluded == 1
    (issue,) = questions.issues
    assert issue.kind == "not_found" and issue.question == "row-4"


@pytest.mark.parametrize(
    ("name", "content", "line", "field"),
    [
        ("t.jsonl", '{"user_input": "q"}\n', 1, "reference_contexts"),
        ("t.jsonl", '{"user_input": "q", "reference_contexts": []}\n', 1, "reference_contexts"),
        ("t.jsonl", '{"contexts": ["x"]}\n', 1, "user_input"),
        ("t.jsonl", '{"question": "q", "contexts": [""]}\n', 1, "contexts[0]"),
        ("t.csv", "question,contexts\nq,\n", 2, "contexts"),
        ("t.csv", "question,contexts\nq,\"['a', \"\n", 2, "contexts"),
        ("t.json", '[\n {"input": "q", "context": ["New employees"]},\n {"input": "r"}\n]\n', 3, "reference_contexts"),
    ],
)
def test_a_test_set_row_without_contexts_names_line_and_field(
    tmp_path: Path, name: str, content: str, line: int, field: str
) -> None:
    corpus, _ = load_corpus(TESTSET / "corpus")
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_testset(path, corpus)
    assert (caught.value.line, caught.value.field) == (line, field)


def test_one_question_source_at_a_time(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="give one question source, not --questions and --chroma"):
        load_dataset(corpus=tmp_path, questions=tmp_path / "q.jsonl", chroma=CHROMA)
    with pytest.raises(InputError, match="--corpus is needed too"):
        load_dataset(testset=TESTSET / "testset.json")
    with pytest.raises(InputError, match="applies only to --tydi"):
        load_dataset(tydi_language="japanese")
