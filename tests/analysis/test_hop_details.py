"""Each hop of a multi-hop question named by its document and items (``chunkscope.analysis.hops``)."""

from __future__ import annotations

from pathlib import Path

from chunkscope.analysis.hops import HopDetail, hop_details, missing_hop_details
from chunkscope.io.dataset import load_dataset
from chunkscope.model import EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import QuestionResult, Ranking

HOTPOT = Path(__file__).parents[1] / "fixtures" / "datasets" / "hotpotqa" / "distractor.json"


def _result(covered: tuple[bool, ...], hops: tuple[int, ...]) -> QuestionResult:
    return QuestionResult("q", True, (), Ranking((), ()), None, (), (), "top_k", covered, False, hops=hops)


def _question(docs: tuple[tuple[str, ...], ...], hops: tuple[int, ...]) -> Question:
    evidence = tuple(EvidenceItem(tuple(Span(doc, 0, 5) for doc in alternatives)) for alternatives in docs)
    return Question("q", "query", evidence, hops=hops)


def test_items_are_grouped_by_hop_and_named_by_their_documents() -> None:
    # Three items: two sentences of "Lanner" (hop 0, the second not delivered), one of "Wen" (hop 1, delivered);
    # a fourth item of hop 1 listed after a hop-0 item, its alternatives in two documents.
    question = _question((("Lanner",), ("Lanner",), ("Wen",), ("Wen", "Wen#2")), (0, 0, 1, 1))
    result = _result((True, False, True, True), (0, 0, 1, 1))
    assert hop_details(question, result) == (
        HopDetail(0, ("Lanner",), (0, 1), (1,), False),
        HopDetail(1, ("Wen", "Wen#2"), (2, 3), (), True),
    )
    assert missing_hop_details(question, result) == (HopDetail(0, ("Lanner",), (0, 1), (1,), False),)


def test_hops_listed_out_of_order_come_by_hop_index() -> None:
    question = _question((("B",), ("A",), ("B",)), (1, 0, 1))
    result = _result((False, False, True), (1, 0, 1))
    assert [(d.hop, d.documents, d.items, d.not_delivered) for d in hop_details(question, result)] == [
        (0, ("A",), (1,), (1,)),
        (1, ("B",), (0, 2), (0,)),
    ]


def test_a_question_without_hops_has_no_details() -> None:
    question = _question((("A",),), ())
    assert hop_details(question, _result((False,), ())) == ()


def test_on_hotpotqa_the_missing_details_are_the_cores_missing_hops_and_a_brute_force_agrees() -> None:
    dataset = load_dataset(dataset=HOTPOT)
    questions = dataset.questions.questions
    for top_k in (1, 2, 5):
        config = make_config("fixed:size=200", top_k=top_k)
        results = Evaluator(dataset.corpus, questions).evaluate(config).questions
        for question, result in zip(questions, results, strict=True):
            missing = missing_hop_details(question, result)
            assert tuple(detail.hop for detail in missing) == result.missing_hops
            # brute force: a hop is missing when some item of it has no alternative inside a delivered body
            delivered = [(d.chunk.doc, d.start, d.end) for d in result.delivered]
            for detail in hop_details(question, result):
                lacking = tuple(
                    i
                    for i in detail.items
                    if not any(
                        doc == span.doc and start <= span.start and span.end <= end
                        for span in question.evidence[i].alternatives
                        for doc, start, end in delivered
                    )
                )
                assert detail.not_delivered == lacking
                assert detail.delivered == (not lacking)
                assert detail.items == tuple(i for i, hop in enumerate(question.hops) if hop == detail.hop)


def test_hotpotqa_hops_are_named_by_their_titles() -> None:
    # 2nd question: facts [Harrowgate, 1], [Tollbridge, 0] (listed twice, counted once); its Tollbridge paragraph
    # differs from the 1st question's, so its document is Tollbridge#2 (docs/inputs.md#hotpotqa).
    dataset = load_dataset(dataset=HOTPOT)
    question = dataset.questions.questions[1]
    config = make_config("fixed:size=200", top_k=5)
    result = Evaluator(dataset.corpus, dataset.questions.questions).evaluate(config).questions[1]
    assert [(d.hop, d.documents, d.items) for d in hop_details(question, result)] == [
        (0, ("Harrowgate",), (0,)),
        (1, ("Tollbridge#2",), (1,)),
    ]
