"""The boundary what-if: options checked by evaluating them, the recommendation against evaluating every candidate."""

from __future__ import annotations

import dataclasses

import pytest

from chunkscope.analysis.whatif import BoundaryOption, SpanWhatIf, whatif, whatif_for_question
from chunkscope.chunkers import parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.locate import cut_spans
from chunkscope.spec.grammar import format_spec

SPECS = (
    "fixed:size=120",
    "fixed:size=150,overlap=30",
    "fixed:size=140,overlap=20,shift=50",
    "recursive:size=90",
    "recursive:size=120,overlap=30",
    "markdown:max_chars=100",
    "parent:child=fixed:size=60,parent=fixed:size=150",
)


def holds(evaluator: Evaluator, spec: str, span: Span) -> bool:
    """The evaluator's own rule: some delivered unit of the chunking contains the span."""
    return bool(evaluator.chunking(spec).locator.containing(span))


def with_value(spec: str, parameter: str, value: int) -> str:
    """``spec`` with one parameter set (``parent.size`` sets the parent chunker's size)."""
    chunker = parse_chunker(spec)
    if parameter.startswith("parent."):
        inner = dataclasses.replace(chunker.parent, **{parameter.removeprefix("parent."): value})  # type: ignore[union-attr]
        return format_spec(dataclasses.replace(chunker, parent=inner))  # type: ignore[type-var]
    return format_spec(dataclasses.replace(chunker, **{parameter: value}))  # type: ignore[type-var]


def smaller_values(option: BoundaryOption) -> range:
    """Every value the option passed over: sizes above the current one, overlaps and shifts from 0."""
    name = option.parameter.removeprefix("parent.")
    if name in ("size", "max_chars"):
        return range(option.current + 1, option.value)
    return range(option.value)


@pytest.mark.parametrize("spec", SPECS)
def test_every_option_keeps_its_span_whole_and_no_smaller_value_does(sample: Dataset, spec: str) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    result = whatif(spec, sample.corpus, sample.questions.questions)
    assert result.spans, "the configuration loses no question: the test checks nothing"
    for span in result.spans:
        assert not holds(evaluator, spec, span.span)
        for option in span.options:
            assert option.recovered
            assert holds(evaluator, option.spec, span.span), option
            assert option.spec == with_value(spec, option.parameter, option.value)
            for smaller in smaller_values(option):
                if smaller == option.current:
                    continue
                try:
                    other = with_value(spec, option.parameter, smaller)
                except ValueError:
                    continue  # not a valid setting (e.g. a shift outside the step)
                assert not holds(evaluator, other, span.span), (option, smaller)


RECOMMENDED_SPECS = (
    "fixed:size=120",
    "recursive:size=90",
    "parent:child=fixed:size=60,parent=fixed:size=150",
    "markdown:max_chars=100",
)


@pytest.mark.parametrize("spec", RECOMMENDED_SPECS)
def test_the_recommendation_is_the_best_candidate_when_evaluated(sample: Dataset, spec: str) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    base = evaluator.evaluate(make_config(spec))
    lost = {r.question_id for r in base.questions if r.lost}
    result = whatif(spec, sample.corpus, sample.questions.questions)
    assert set(result.lost) == lost

    def evaluated(candidate_spec: str) -> tuple[int, int, int, str]:
        outcome = evaluator.evaluate(make_config(candidate_spec))
        recovered = sum(1 for r in outcome.questions if r.question_id in lost and not r.lost)
        chunks = outcome.summary.count("index_chunks") - base.summary.count("index_chunks")
        chars = outcome.summary.count("indexed_chars") - base.summary.count("indexed_chars")
        return -recovered, chunks, chars, candidate_spec

    order = sorted(result.candidates, key=lambda c: evaluated(c.spec))
    assert [c.spec for c in result.candidates] == [c.spec for c in order]
    best = result.recommendation
    assert best is not None and best.spec == order[0].spec
    assert -len(best.recovered) == evaluated(best.spec)[0]
    recovered = evaluator.evaluate(make_config(best.spec))
    assert {r.question_id for r in recovered.questions if r.question_id in lost and not r.lost} == set(best.recovered)


def test_hand_computed_fixed_options() -> None:
    # Windows of 10: [0,10) [10,20) [20,30); the answer [8,13) is cut at 10.
    text = "abcdefghijklmnopqrstuvwxyz0123"
    corpus = Corpus((Document(id="d", text=text),))
    question = Question(id="q", query="?", evidence=(EvidenceItem((Span("d", 8, 13),)),))
    (found,) = whatif_for_question("fixed:size=10", corpus, question)
    assert isinstance(found, SpanWhatIf) and found.boundaries == ((0, 10), (10, 20))
    assert [(o.parameter, o.value, o.spec) for o in found.options] == [
        ("size", 13, "fixed:size=13,overlap=0"),
        ("overlap", 2, "fixed:size=10,overlap=2"),
        ("shift", 3, "fixed:size=10,overlap=0,shift=3"),
    ]
    # overlap 2: step 8, windows [0,10) [8,18) [16,26) [24,30): [8,18) holds the span.
    assert found.options[1].boundaries == ((0, 10), (8, 18))
    # shift 3: the head [0,3), then [3,13) [13,23) ...
    assert found.options[2].boundaries == ((3, 13),)
    result = whatif("fixed:size=10", corpus, [question])
    assert result.lost == ("q",)
    best = result.recommendation
    # Each setting recovers the question; 13 makes 3 chunks (was 3), overlap 2 makes 4, shift 3 makes 4.
    assert best is not None and best.spec == "fixed:size=13,overlap=0" and best.chunk_growth == 0


def test_a_whole_span_has_no_options_and_nothing_is_lost() -> None:
    corpus = Corpus((Document(id="d", text="x" * 30),))
    question = Question(id="q", query="?", evidence=(EvidenceItem((Span("d", 2, 5),)),))
    assert whatif_for_question("fixed:size=10", corpus, question) == ()
    result = whatif("fixed:size=10", corpus, [question])
    assert result.lost == () and result.recommendation is None


@pytest.mark.parametrize(
    ("spec", "note"),
    [
        ("fixed:size=3,unit=tokens", "fixed in tokens is not supported"),
        ("paragraph", "no what-if for 'paragraph' chunking"),
    ],
)
def test_chunkers_without_options_say_why(spec: str, note: str) -> None:
    corpus = Corpus((Document(id="d", text="one two three four five six seven\n\neight nine ten eleven twelve"),))
    question = Question(id="q", query="?", evidence=(EvidenceItem((Span("d", 28, 45),)),))
    (found,) = whatif_for_question(spec, corpus, question)
    assert found.options == () and found.note is not None and note in found.note


def test_jsquad_options_hold_their_spans(jsquad: Dataset) -> None:
    questions = jsquad.questions.questions
    evaluator = Evaluator(jsquad.corpus, questions)
    result = whatif("fixed:size=200", jsquad.corpus, questions)
    assert result.spans and result.recommendation is not None
    for span in result.spans:
        for option in span.options:
            assert holds(evaluator, option.spec, span.span)


@pytest.mark.parametrize("spec", ["fixed:size=120", "recursive:size=90", "markdown:max_chars=100"])
def test_evaluating_each_suggestion_keeps_the_span_whole_and_one_less_does_not(sample: Dataset, spec: str) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    result = whatif(spec, sample.corpus, sample.questions.questions)
    span = next(s for s in result.spans if s.options)
    for option in span.options:
        evaluated = evaluator.evaluate(make_config(option.spec))
        (question,) = [r for r in evaluated.questions if r.question_id == span.question_id]
        assert span.span not in cut_spans(question)
        one_less = with_value(spec, option.parameter, option.value - 1)
        evaluated = evaluator.evaluate(make_config(one_less))
        (question,) = [r for r in evaluated.questions if r.question_id == span.question_id]
        assert span.span in cut_spans(question), (option, one_less)
