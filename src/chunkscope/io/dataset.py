"""A corpus with its questions, and the bundled sample data."""

from __future__ import annotations

from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.offsets import OffsetUnit
from chunkscope.io.questions import load_questions
from chunkscope.io.sources import Dataset
from chunkscope.io.squad import load_squad

__all__ = ["Dataset", "load_dataset", "sample_paths"]
"""``Dataset`` is re-exported: callers that load a dataset name its type from here."""


def load_dataset(
    corpus: str | Path | None = None,
    questions: str | Path | None = None,
    squad: str | Path | None = None,
    squad_answers: str = "first",
    questions_offset_unit: OffsetUnit = "codepoint",
) -> Dataset:
    """Load either a corpus + questions pair or a SQuAD file (the bundled sample when none).

    ``questions_offset_unit`` is what the evidence offsets (or SQuAD ``answer_start``) count.
    """
    if squad is not None:
        if corpus is not None or questions is not None:
            raise InputError(str(squad), "give either --squad or --corpus/--questions, not both")
        return load_squad(squad, squad_answers, questions_offset_unit)
    name = None
    if corpus is None and questions is None:
        corpus, questions = sample_paths()
        name = "sample data"
    if corpus is None or questions is None:
        missing = "--questions" if questions is None else "--corpus"
        raise InputError(str(corpus or questions), f"{missing} is needed too")
    loaded_corpus, corpus_source = load_corpus(corpus)
    question_set, question_source = load_questions(questions, loaded_corpus, questions_offset_unit)
    return Dataset(loaded_corpus, question_set, (corpus_source, question_source), name or Path(corpus).name)


def sample_paths() -> tuple[Path, Path]:
    """The bundled sample corpus directory and questions file."""
    root = Path(__file__).parents[1] / "sample_data"
    return root / "corpus", root / "questions.jsonl"
