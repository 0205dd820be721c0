"""Imported chunks (JSONL) and, with a run file, a hand-computed evaluation of a production system."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.imported import ImportedChunker, read_chunks
from chunkscope.errors import InputError
from chunkscope.io.dataset import Dataset, sample_paths
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

DOC_A = "a" * 10 + "b" * 10 + "c" * 10 + "d" * 10  # 40 characters
DOC_B = "x" * 100
CORPUS = Corpus((Document("A", DOC_A), Document("B", DOC_B)))


def write_jsonl(path: Path, records: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_offsets_and_located_text(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chunks.jsonl",
        [
            {"id": "c1", "doc": "A", "start": 0, "end": 10},
            {"id": "c2", "doc": "A", "text": "bbbbbcc"},  # occurs once: 15-22
            {"id": "c3", "doc": "A", "text": "bbbbbcc", "section": "S", "prefix": "P: "},  # cannot start after c2
            {"id": "b1", "doc": "B", "start": 90, "end": 100},
        ],
    )
    chunking = read_chunks(path, CORPUS)
    # c3 repeats c2, whose text occurs once: c3 cannot start after c2, so no placement keeps the order and
    # each chunk of A is placed alone; a text that occurs once has only one place, so both sit at 15-22
    assert [(c.id, c.doc, c.start, c.end, c.section) for c in chunking.units] == [
        ("c1", "A", 0, 10, None),
        ("c2", "A", 15, 22, None),
        ("c3", "A", 15, 22, "S"),
        ("b1", "B", 90, 100, None),
    ]
    assert chunking.imported is not None and chunking.imported.unordered_docs == ("A",)
    assert chunking.problems == (
        f"{path}:3: chunks of 'A' are not in document order (chunk 'c3' (on line 3) cannot follow chunk 'c2' "
        "(on line 2)): placed by their offsets and by texts that occur once",
    )


def test_text_is_placed_by_the_chunks_around_it(tmp_path: Path) -> None:
    corpus = Corpus((Document("D", "abc xyz abc xyz"),))
    path = write_jsonl(
        tmp_path / "chunks.jsonl",
        [
            {"id": "1", "doc": "D", "start": 4, "end": 7},
            {"id": "2", "doc": "D", "text": "abc"},  # after "xyz" at 4: the second "abc", at 8
            {"id": "3", "doc": "D", "text": "xyz"},  # after that: 12, never 4
        ],
    )
    chunking = read_chunks(path, corpus)
    assert [(c.id, c.start, c.end) for c in chunking.units] == [("1", 4, 7), ("2", 8, 11), ("3", 12, 15)]
    assert chunking.problems == ()
    assert chunking.imported is not None
    assert (chunking.imported.exact, chunking.imported.relocated) == (1, 2)


@pytest.mark.parametrize(
    ("start", "end", "exact"),
    [
        (0, 3, 1),  # "abc" == text[0:3]
        (0, 99, 0),  # past the document: text[0:99] is "abc def", not "abc"
        (0, -1, 0),  # -1 is no offset
        (0, 5, 0),  # inside the document but text[0:5] is "abc d"
    ],
)
def test_a_chunk_is_exact_only_when_its_text_stands_at_start_end(
    tmp_path: Path, start: int, end: int, exact: int
) -> None:
    # (A dump that gives a start and no end, as LangChain's start_index, keeps its start as the claim.)
    corpus = Corpus((Document("d", "abc def"),))
    record = {"id": "1", "doc": "d", "start": start, "end": end, "text": "abc"}
    chunking = read_chunks(write_jsonl(tmp_path / "chunks.jsonl", [record]), corpus)
    assert [(c.start, c.end) for c in chunking.units] == [(0, 3)]  # placed at the text either way
    assert chunking.imported is not None
    assert (chunking.imported.exact, chunking.imported.relocated) == (exact, 1 - exact)


def test_prefix_and_section_are_kept(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "c.jsonl", [{"id": "c", "doc": "A", "start": 0, "end": 5, "prefix": "P\n", "section": "S"}]
    )
    (unit,) = read_chunks(path, CORPUS).units
    assert (unit.prefix, unit.section, unit.sent_length) == ("P\n", "S", 7)


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"id": "c", "doc": "Z", "start": 0, "end": 5}, "doc", "unknown document 'Z'"),
        ({"id": "c", "doc": "A", "start": -1, "end": 5}, "start", "outside the document"),
        ({"id": "c", "doc": "A", "start": 5, "end": 5}, "end", "must be greater than start"),
        ({"id": "c", "doc": "A", "start": 0, "end": 41}, "end", r"outside the document \(0..40 code points\)"),
        ({"id": "c", "doc": "A", "start": "0", "end": 5}, "start", "must be an integer"),
        ({"id": "c", "doc": "A", "start": 0}, "end", "missing"),
        ({"id": "c", "doc": "A"}, "start", "give start and end, or text"),
        ({"doc": "A", "start": 0, "end": 5}, "id", "missing"),
        ({"id": "c", "doc": "A", "text": ""}, "text", "non-empty string"),
    ],
)
def test_bad_records_name_file_line_and_field(
    tmp_path: Path, record: dict[str, object], field: str, message: str
) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "ok", "doc": "A", "start": 0, "end": 1}, record])
    with pytest.raises(InputError, match=message) as caught:
        read_chunks(path, CORPUS)
    assert (caught.value.path, caught.value.line, caught.value.field) == (path, 2, field)


def test_duplicate_id_and_invalid_json(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "c", "doc": "A", "start": 0, "end": 1}] * 2)
    with pytest.raises(InputError, match="duplicate chunk id 'c' \\(first on line 1\\)"):
        read_chunks(path, CORPUS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "c", "doc": "A", "start": 0, "end": 1}\n{nope\n', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON") as caught:
        read_chunks(str(bad), CORPUS)
    assert caught.value.line == 2


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read chunks file"):
        chunk_corpus(ImportedChunker(str(tmp_path / "none.jsonl")), CORPUS)


def test_bare_imported_needs_a_path() -> None:
    from chunkscope.errors import SpecError

    with pytest.raises(SpecError, match="imported needs path=FILE"):
        parse_chunker("imported")


def test_sample_chunks_file_locates_its_text_chunks(sample: Dataset) -> None:
    corpus_path, _ = sample_paths()
    chunks_path = corpus_path.parent / "imported" / "chunks.jsonl"
    chunking = read_chunks(str(chunks_path), sample.corpus)
    assert len(chunking.units) == 72
    assert chunking.problems == ()
    by_id = {c.id: c for c in chunking.units}
    # prod-0017 gives only text: the refunds document's first section (0-202; prod-0018 starts at 204)
    assert (by_id["prod-0017"].start, by_id["prod-0017"].end) == (0, 202)
    # prod-0004 gives only text: between prod-0003 (ends 875) and prod-0005 (starts 1613)
    assert (by_id["prod-0004"].start, by_id["prod-0004"].end) == (877, 1611)


# ---------------------------------------------------------------- imported chunks + run, by hand

CHUNKS = [
    {"id": "c1", "doc": "A", "start": 0, "end": 10},
    {"id": "c2", "doc": "A", "start": 10, "end": 20},
    {"id": "c3", "doc": "A", "start": 20, "end": 30},
    {"id": "c4", "doc": "A", "start": 30, "end": 40},
    {"id": "c5", "doc": "A", "start": 5, "end": 15},
    {"id": "c6", "doc": "A", "text": "bbbbbcc"},  # located at 15-22
    *({"id": f"b{i}", "doc": "B", "start": 10 * i, "end": 10 * i + 10} for i in range(10)),
]

RUN = """\
q1 Q0 c4 1 9.0 prod
q1 Q0 c3 2 8.0 prod
q1 Q0 c5 3 7.0 prod
q2 Q0 c1 1 9.0 prod
q2 Q0 c2 2 8.0 prod
q3 Q0 b0 1 9 prod
q3 Q0 b1 2 8 prod
q3 Q0 b2 3 7 prod
q3 Q0 b3 4 6 prod
q3 Q0 b4 5 5 prod
q3 Q0 b5 6 4 prod
q3 Q0 c4 7 3 prod
q5 Q0 b1 1 5 prod
q5 Q0 b0 1 9 prod
q5 Q0 c3 2 4 prod
q5 Q0 c3 9 1 prod
q6 Q0 c4 3 1 prod
q6 Q0 c1 1 3 prod
q6 Q0 b0 2 2 prod
q7 Q0 c5 1 1 prod
q99 Q0 c1 1 1 prod
"""


def hand_questions() -> list[Question]:
    def q(qid: str, *spans: tuple[int, int]) -> Question:
        return Question(qid, "unused by a run", tuple(EvidenceItem((Span("A", s, e),)) for s, e in spans))

    return [
        q("q1", (12, 15)),  # in c2 (10-20) and c5 (5-15); run: c4, c3, c5 -> first correct 3 (bucket 2-5)
        q("q2", (8, 16)),  # no chunk holds 8-16 (boundaries 10 and 15 inside): lost, miss
        q("q3", (31, 33)),  # in c4 at position 7 -> bucket 6-20
        q("q4", (0, 5)),  # in c1, but the run has no q4 -> miss, not an error
        q("q5", (22, 28)),  # in c3; rank-1 tie b0 (9) before b1 (5), then c3 -> 3; repeated c3 keeps rank 2
        q("q6", (1, 3), (35, 38)),  # c1 at 1, c4 at 3 (lines out of order) -> 3
        q("q7", (11, 14)),  # c5 at 1 -> bucket 1
    ]


def test_imported_chunks_and_run_reproduce_hand_computed_metrics(tmp_path: Path) -> None:
    chunks = write_jsonl(tmp_path / "chunks.jsonl", CHUNKS)
    run = tmp_path / "run.trec"
    run.write_text(RUN, encoding="utf-8")
    evaluator = Evaluator(CORPUS, hand_questions())
    result = evaluator.evaluate(make_config(f"imported:path={chunks}", f"run:path={run}", top_k=5))
    by_id = {q.question_id: q for q in result.questions}
    assert [by_id[q].first_correct_rank for q in ("q1", "q2", "q3", "q4", "q5", "q6", "q7")] == [
        3,
        None,
        7,
        None,
        3,
        3,
        1,
    ]
    assert [by_id[q].evidence_exists for q in ("q1", "q2", "q3", "q4", "q5", "q6", "q7")] == [
        True,
        False,
        True,
        True,
        True,
        True,
        True,
    ]
    assert by_id["q2"].cuts[0].boundaries == (10, 15)
    assert [result.chunks[i].id for i in by_id["q5"].ranking.indices] == ["b0", "b1", "c3"]
    summary = result.summary
    assert summary["index_chunks"] == 16
    assert (summary["evidence_exists"], summary["lost"]) == (6, 1)
    assert summary["recall_at_5"] == pytest.approx(4 / 7)  # q1, q5, q6, q7
    assert summary["recall_at_20"] == pytest.approx(5 / 7)  # and q3
    assert dict(summary.rank_buckets) == {"1": 1, "2-5": 3, "6-20": 1, "miss": 2}
    # MRR@10 = (1/3 + 0 + 1/7 + 0 + 1/3 + 1/3 + 1) / 7 = 15/49
    assert summary["mrr_at_10"] == pytest.approx(15 / 49)


def forward_search(text: str, bodies: list[str]) -> list[int]:
    """The rule this replaces: each text searched forward from the previous chunk's start."""
    starts, previous = [], (0, 0)
    for body in bodies:
        found = text.find(body, previous[0])
        if (found, found + len(body)) == previous:
            found = text.find(body, found + 1)
        starts.append(found)
        if found >= 0:
            previous = (found, found + len(body))
    return starts


def test_recursive_chunks_of_repeated_passages_imported_by_text_are_placed_exactly(tmp_path: Path) -> None:
    # a paragraph often repeats the end of the one before it, as boilerplate does
    pairs = [("Fees apply. See the refund table.", "See the refund table."),
             ("Keep the receipt. Contact support.", "Contact support.")]  # fmt: skip
    text = "\n\n".join(f"Item {i}.\n\n{pairs[i % 2][0]}\n\n{pairs[i % 2][1]}" for i in range(30))
    corpus = Corpus((Document("D", text),))
    chunks = chunk_corpus(parse_chunker("recursive:size=40"), corpus).units
    bodies = [chunk.text for chunk in chunks]
    # the old rule misplaces some of these chunks (inside their predecessor); the order places every one
    assert forward_search(text, bodies) != [chunk.start for chunk in chunks]
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": c.id, "doc": "D", "text": c.text} for c in chunks])
    chunking = read_chunks(path, corpus)
    assert [(c.id, c.start, c.end) for c in chunking.units] == [(c.id, c.start, c.end) for c in chunks]
    assert chunking.problems == ()


def test_a_document_no_chunk_covers_is_named_in_a_warning(tmp_path: Path) -> None:
    corpus = Corpus((Document("A", DOC_A), Document("B", DOC_B), Document("C", "c" * 20), Document("blank", " \n")))
    path = write_jsonl(
        tmp_path / "chunks.jsonl",
        [
            {"id": "a1", "doc": "A", "start": 0, "end": 40},
            {"id": "c1", "doc": "C", "text": "not in C at all"},  # left out: C ends up with no chunk either
        ],
    )
    problems = read_chunks(path, corpus).problems
    # B has no chunk in the dump, C's only chunk is not found; 'blank' has no text a chunk could hold
    assert problems[-1] == (
        f"{path}: no chunk covers 2 of the 4 corpus documents: 'B', 'C'; evidence there cannot be retrieved "
        "(its questions count as lost)"
    )


def test_a_dump_that_covers_every_document_gives_no_such_warning(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "chunks.jsonl",
        [{"id": "a1", "doc": "A", "start": 0, "end": 40}, {"id": "b1", "doc": "B", "start": 0, "end": 5}],
    )
    assert read_chunks(path, CORPUS).problems == ()


def test_many_uncovered_documents_are_counted_after_the_first_few(tmp_path: Path) -> None:
    corpus = Corpus(tuple(Document(f"d{i}", f"text {i}") for i in range(8)))
    path = write_jsonl(tmp_path / "chunks.jsonl", [{"id": "x", "doc": "d0", "start": 0, "end": 4}])
    (warning,) = read_chunks(path, corpus).problems
    assert "no chunk covers 7 of the 8 corpus documents: 'd1', 'd2', 'd3', 'd4', 'd5' and 2 more;" in warning


def test_the_uncovered_warning_reaches_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chunkscope.cli import main

    corpus, questions = sample_paths()
    dump = write_jsonl(tmp_path / "chunks.jsonl", [{"id": "a", "doc": "en/order-api.md", "start": 0, "end": 250}])
    argv = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunks", dump, "--jobs", "1"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"chunkscope: warning: {dump}: no chunk covers 9 of the 10 corpus documents: " in err
