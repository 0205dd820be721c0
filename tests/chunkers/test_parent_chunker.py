"""Parent-child chunking: child offsets, parent delivery once, budget on parent characters, attribution."""

from __future__ import annotations

import json

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.errors import SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

TEXT = "# Alpha\n\nzebra lion. tiger bear.\n\n# Beta\n\nwhale shark."
# "# Alpha" 0-7 | "zebra lion. tiger bear." 9-32 | "# Beta" 34-40 | "whale shark." 42-54
CORPUS = Corpus((Document("d", TEXT),))
SPEC = "parent:child=paragraph,parent=markdown"


def question(qid: str, query: str, *spans: tuple[int, int]) -> Question:
    return Question(qid, query, tuple(EvidenceItem((Span("d", s, e),)) for s, e in spans))


def test_children_are_cut_inside_each_parent_with_absolute_offsets() -> None:
    chunking = chunk_corpus(parse_chunker(SPEC), CORPUS)
    assert [(c.id, c.start, c.end, c.section) for c in chunking.units] == [
        ("d#0/0", 0, 7, "Alpha"),
        ("d#0/1", 9, 32, "Alpha"),
        ("d#1/0", 34, 40, "Beta"),
        ("d#1/1", 42, 54, "Beta"),
    ]
    assert chunking.parents is not None
    assert [(p.id, p.start, p.end) for p in chunking.parents] == [
        ("d#0", 0, 32),
        ("d#0", 0, 32),
        ("d#1", 34, 54),
        ("d#1", 34, 54),
    ]
    for child in chunking.units:
        assert TEXT[child.start : child.end] == child.text


def test_fixed_children_inside_parents() -> None:
    chunking = chunk_corpus(parse_chunker("parent:child=fixed:size=16,parent=markdown"), CORPUS)
    # parent d#0 (0-32) gives windows 0-16, 16-32; parent d#1 (34-54, 20 chars) gives 34-50, 50-54
    assert [(c.start, c.end) for c in chunking.units] == [(0, 16), (16, 32), (34, 50), (50, 54)]


def test_two_children_of_one_parent_deliver_it_once() -> None:
    evaluator = Evaluator(CORPUS, [question("q", "zebra alpha", (9, 14))])
    result = evaluator.evaluate(make_config(SPEC, "bm25", top_k=5))
    q = result.questions[0]
    # "zebra" ranks d#0/1 and "alpha" ranks d#0/0: both children of d#0.
    assert sorted(result.chunks[i].id for i in q.ranking.indices) == ["d#0/0", "d#0/1"]
    assert [(d.chunk.id, d.start, d.end) for d in q.delivered] == [("d#0", 0, 32)]
    assert q.sent_chars == 32  # the parent's 32 characters, once
    assert q.duplicate_chars == 0
    assert q.complete


def test_budget_counts_parent_characters() -> None:
    evaluator = Evaluator(CORPUS, [question("q", "zebra", (9, 14))])
    # The matched child is 23 characters but the parent costs 32.
    too_small = evaluator.evaluate(make_config(SPEC, "bm25", top_k=5, budget=31, overflow="stop")).questions[0]
    assert too_small.delivered == ()
    assert too_small.delivery_stop == "budget"
    assert not too_small.complete
    fits = evaluator.evaluate(make_config(SPEC, "bm25", top_k=5, budget=32, overflow="stop")).questions[0]
    assert fits.sent_chars == 32
    assert fits.complete


def test_attribution_child_parent_none() -> None:
    questions = [
        question("in-child", "zebra", (9, 14)),  # "zebra" lies in the matched child d#0/1
        question("in-parent", "zebra", (2, 7)),  # "Alpha" lies in child d#0/0, which did not match
        question("not-sent", "zebra", (42, 47)),  # "whale" is in d#1, never delivered
        question("mixed", "zebra", (9, 14), (2, 7), (42, 47)),
    ]
    result = Evaluator(CORPUS, questions).evaluate(make_config(SPEC, "bm25", top_k=5))
    assert [q.attribution for q in result.questions] == [
        ("child",),
        ("parent",),
        ("none",),
        ("child", "parent", "none"),
    ]


def test_attribution_is_empty_without_parents() -> None:
    result = Evaluator(CORPUS, [question("q", "zebra", (9, 14))]).evaluate(make_config("markdown", "bm25"))
    assert result.questions[0].attribution == ()


def test_child_must_split_documents() -> None:
    with pytest.raises(SpecError, match="child chunker must split single documents"):
        parse_chunker("parent:child=(parent:child=fixed,parent=markdown),parent=markdown")


def test_sample_q15_child_ranks_first_but_its_parent_exceeds_the_budget(sample: Dataset) -> None:
    # sample_data/README.md: under parent:child=fixed:size=200,parent=markdown the Webhooks child
    # ranks first, but its parent (the first 1,237 characters of the section) does not fit 1,000.
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    config = make_config("parent:child=fixed:size=200,parent=markdown", "bm25", top_k=5, budget=1000)
    result = evaluator.evaluate(config)
    q15 = next(q for q in result.questions if q.question_id == "q15")
    top = q15.ranked[0]
    assert top.chunk.length == 200
    assert top.delivered_unit.length == 1237
    assert top.delivered_unit.section == "Partner Order API Guide > Webhooks"
    assert 1 in q15.skipped_ranks
    assert not q15.complete
    # Attribution is a retrieval fact: the evidence is not in the matched child but in the
    # text of its parent, which is exactly why the parent had to be delivered (and did not fit).
    assert q15.attribution == ("parent",)


def test_reports_carry_sections_prefixes_and_attribution() -> None:
    import csv
    import io

    from chunkscope.io.dataset import Dataset as LoadedDataset
    from chunkscope.model import QuestionSet
    from chunkscope.reports.eval import question_dict, to_csv, to_markdown

    questions = [question("mixed", "zebra", (9, 14), (42, 47))]
    config = make_config("parent:child=paragraph,parent=markdown:prefix=path", "bm25", top_k=5)
    result = Evaluator(CORPUS, questions).evaluate(config)
    (row,) = list(csv.DictReader(io.StringIO(to_csv([result]))))
    assert row["attribution"] == "child/none"
    assert json.loads(row["top_sections"]) == ["Alpha"]
    # the child is a paragraph of the parent's body, so it has no prefix; the parent has the path
    assert json.loads(row["top_prefixes"]) == [""]
    assert row["top_parts"] == ""
    entry = question_dict(result.questions[0])
    assert entry["attribution"] == ["child", "none"]
    assert entry["ranked"][0]["parent"] == {"id": "d#0", "start": 0, "end": 32}
    dataset = LoadedDataset(CORPUS, QuestionSet(tuple(questions)), (), "tiny")
    markdown = to_markdown(dataset, [result])
    assert "| evidence in |" in markdown and "| child/none |" in markdown
    assert "| top hit section |" in markdown and "| Alpha |" in markdown
