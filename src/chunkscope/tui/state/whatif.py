"""The boundary what-if of one question, ready for the inspector's what-if panel.

Computed off the UI thread (:func:`question_whatif`) from the evaluator's cached chunking: the options
of every cut span (:func:`chunkscope.analysis.whatif.whatif_for_question`) and, per option, the new
delivered units of the span's document, which the panel's document view previews. Applying an option
makes the configuration with its chunker spec (:func:`option_config`), evaluated as B.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkscope.analysis.whatif import BoundaryOption, SpanWhatIf, whatif_for_question
from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from chunkscope.tui.state.config_steps import with_chunker_spec

__all__ = ["QuestionWhatIf", "WhatIfChoice", "option_config", "question_whatif", "span_text"]


@dataclass(frozen=True, slots=True)
class WhatIfChoice:
    """One option of one cut span, with what the preview draws."""

    span: SpanWhatIf
    option: BoundaryOption
    chunks: tuple[Chunk, ...]
    """The units the option's chunker delivers for the span's document (all of them, in order)."""

    @property
    def region(self) -> tuple[int, int]:
        """From the first to the end of the last new unit overlapping the span (the span when none does)."""
        boundaries = self.option.boundaries
        if not boundaries:
            return self.span.span.start, self.span.span.end
        return min(start for start, _ in boundaries), max(end for _, end in boundaries)


@dataclass(frozen=True, slots=True)
class QuestionWhatIf:
    """The what-if of one question under one configuration's chunker."""

    question: Question
    config: Config
    spans: tuple[SpanWhatIf, ...]
    """Every cut span of the question (none: nothing is cut)."""
    choices: tuple[WhatIfChoice, ...]
    """Every option of every span, in span order."""
    error: str | None = None
    """Why there is no what-if (the chunker spec could not be taken apart)."""

    @property
    def note(self) -> str | None:
        """What the panel says instead of the spans, when there are none: the error, or that nothing is cut.

        (A span without options carries its own note, shown under it.)"""
        if self.error is not None:
            return self.error
        if not self.spans:
            return f"nothing cut: a chunk of {self.config.chunker} holds every gold span of {self.question.id} whole"
        return None


def question_whatif(evaluator: Evaluator, question: Question, config: Config) -> QuestionWhatIf:
    """The options of ``question``'s cut spans under ``config``'s chunker (slow: run it in a worker).

    Uses the evaluator's chunking of the spec (cached when the configuration was evaluated).
    """
    corpus = evaluator.corpus
    try:
        chunking = evaluator.chunking(config.chunker).chunking
        spans = whatif_for_question(config.chunker, corpus, question, chunking)
        choices = tuple(
            WhatIfChoice(span, option, _delivered(option.spec, corpus, span.span.doc))
            for span in spans
            for option in span.options
        )
    except (ChunkscopeError, ValueError) as error:
        return QuestionWhatIf(question, config, (), (), f"no what-if: {error}")
    return QuestionWhatIf(question, config, spans, choices)


def _delivered(spec: str, corpus: Corpus, doc_id: str) -> tuple[Chunk, ...]:
    """The units ``spec`` delivers for one document of ``corpus``."""
    return chunk_corpus(parse_chunker(spec), Corpus((corpus.by_id[doc_id],))).delivered_units


def option_config(config: Config, option: BoundaryOption) -> Config:
    """``config`` with the option's chunker spec (retriever and delivery unchanged)."""
    return with_chunker_spec(config, option.spec)


def span_text(span: SpanWhatIf) -> str:
    """``item 2 · en/refunds.md [743, 876) · cut: [600, 800) [800, 1000)`` (items counted from 1)."""
    current = " ".join(f"[{start}, {end})" for start, end in span.boundaries)
    where = span.span
    return f"item {span.item + 1} · {where.doc} [{where.start}, {where.end}) · now in {current or 'no chunk'}"
