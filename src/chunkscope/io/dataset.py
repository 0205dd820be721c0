"""A corpus with its questions, and the bundled sample data."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io.chroma import load_chroma
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset_formats import LoadOptions, load_by_format
from chunkscope.io.financebench import load_financebench
from chunkscope.io.gold import trim_question_set
from chunkscope.io.gold_units import Newlines, Suspicion
from chunkscope.io.hf_rows import load_hf_testset
from chunkscope.io.hotpotqa import load_hotpotqa
from chunkscope.io.legalbench_rag import load_legalbench_rag
from chunkscope.io.multihop_rag import load_multihop_rag
from chunkscope.io.natural_questions import load_natural_questions
from chunkscope.io.offsets import OffsetUnit
from chunkscope.io.passages import load_passages
from chunkscope.io.qasper import load_qasper
from chunkscope.io.questions import load_questions
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy
from chunkscope.io.sources import Dataset
from chunkscope.io.squad import load_squad
from chunkscope.io.testset import load_testset
from chunkscope.io.tydi import load_tydi

__all__ = [
    "Dataset",
    "load_dataset",
    "load_hotpotqa",
    "load_legalbench_rag",
    "load_multihop_rag",
    "load_natural_questions",
    "load_passages",
    "load_qasper",
    "sample_paths",
]
"""``Dataset`` is re-exported: callers that load a dataset name its type from here. Importing the format
modules (``load_hotpotqa``) registers them for ``--dataset``."""


def load_dataset(
    corpus: str | Path | None = None,
    questions: str | Path | None = None,
    squad: str | Path | None = None,
    squad_answers: str = "first",
    *,
    chroma: str | Path | None = None,
    tydi: str | Path | None = None,
    tydi_language: str | None = None,
    testset: str | Path | None = None,
    gold_match: MatchPolicy = DEFAULT_POLICY,
    lenient: bool = False,
    trim: bool = True,
    questions_offset_unit: OffsetUnit = "codepoint",
    skip_bad_gold: bool = False,
    questions_newlines: Newlines = "as-is",
    financebench: str | Path | None = None,
    dataset: str | Path | None = None,
    dataset_format: str | None = None,
) -> Dataset:
    """Load one question source with its corpus (the bundled sample when none is given).

    Sources: ``questions``, ``testset`` or ``financebench`` (each with ``corpus``), ``chroma`` (its
    corpora beside it, or ``corpus`` as their directory), ``squad`` or ``tydi``
    (their own documents). Quotes are located by the ``gold_match`` ladder.
    ``lenient`` records unresolved gold in ``QuestionSet.issues`` instead of failing
    (``gold check``). With ``trim`` (the default) every gold span loses its edge
    whitespace, the span a chunk must contain. ``questions_offset_unit`` is what the evidence
    offsets (or SQuAD ``answer_start``) count. ``skip_bad_gold``: a question whose gold no span can be
    made of is excluded and counted (``QuestionSet.excluded_reasons``) instead of refusing its file.
    ``questions_newlines="lf"``: the questions file's offsets count the documents read with universal
    newlines. When another reading of the file's offsets-only spans is clearly better (another unit, or
    the other line endings), the dataset carries a warning naming what to pass.
    ``dataset``: a file of any registered format (:mod:`chunkscope.io.dataset_formats`), recognised by its
    content or read as ``dataset_format``; ``corpus`` is its documents when the format carries none.
    """
    given = {
        name: value
        for name, value in (
            ("--questions", questions),
            ("--squad", squad),
            ("--chroma", chroma),
            ("--tydi", tydi),
            ("--testset", testset),
            ("--financebench", financebench),
            ("--dataset", dataset),
        )
        if value is not None
    }
    if len(given) > 1:
        raise InputError(str(next(iter(given.values()))), f"give one question source, not {' and '.join(given)}")
    if dataset_format is not None and dataset is None:
        raise InputError(dataset_format, "--dataset-format applies only to --dataset")
    if tydi_language is not None and tydi is None and dataset is None:
        raise InputError(tydi_language, "--tydi-language applies only to --tydi")
    if dataset is not None:
        options = LoadOptions(
            corpus,
            squad_answers,
            tydi_language,
            gold_match,
            questions_offset_unit,
            skip_bad_gold,
            lenient,
            questions_newlines,
        )
        loaded = load_by_format(dataset, dataset_format, options)
    else:
        loaded = _load(
            corpus,
            questions,
            squad,
            squad_answers,
            chroma,
            tydi,
            tydi_language,
            testset,
            gold_match,
            lenient,
            questions_offset_unit,
            skip_bad_gold,
            questions_newlines,
            financebench,
        )
    if not trim:
        return loaded
    return replace(loaded, questions=trim_question_set(loaded.questions, loaded.corpus))


def _load(
    corpus: str | Path | None,
    questions: str | Path | None,
    squad: str | Path | None,
    squad_answers: str,
    chroma: str | Path | None,
    tydi: str | Path | None,
    tydi_language: str | None,
    testset: str | Path | None,
    gold_match: MatchPolicy,
    lenient: bool,
    questions_offset_unit: OffsetUnit,
    skip_bad_gold: bool = False,
    questions_newlines: Newlines = "as-is",
    financebench: str | Path | None = None,
) -> Dataset:
    for option, path in (("--squad", squad), ("--tydi", tydi)):
        if path is not None:
            if corpus is not None:
                raise InputError(str(path), f"give either {option} or --corpus/--questions, not both")
            return (
                load_squad(path, squad_answers, questions_offset_unit, skip_bad_gold, lenient)
                if option == "--squad"
                else load_tydi(path, tydi_language, skip_bad_gold, lenient)
            )
    if chroma is not None:
        return load_chroma(chroma, corpus, gold_match, skip_bad_gold, lenient)
    if testset is not None:
        exported = load_hf_testset(testset, squad_answers, questions_offset_unit, skip_bad_gold, lenient)
        if exported is not None:
            if corpus is not None:
                raise InputError(
                    str(testset),
                    "a HuggingFace SQuAD export holds its own documents (its contexts): give it without --corpus",
                )
            return exported
    name = None
    if corpus is None and questions is None and testset is None and financebench is None:
        corpus, questions = sample_paths()
        name = "sample data"
    if corpus is None or (questions is None and testset is None and financebench is None):
        missing = "--corpus" if corpus is None else "--questions"
        raise InputError(str(corpus or questions or testset or financebench), f"{missing} is needed too")
    loaded_corpus, corpus_source = load_corpus(corpus)
    notices: tuple[str, ...] = ()
    suspicions: tuple[Suspicion, ...] = ()
    if financebench is not None:
        question_set, question_source = load_financebench(financebench, loaded_corpus, gold_match)
    elif testset is not None:
        question_set, question_source = load_testset(testset, loaded_corpus, gold_match)
    else:
        assert questions is not None  # checked above
        found: list[Suspicion] = []
        question_set, question_source = load_questions(
            questions,
            loaded_corpus,
            gold_match,
            lenient,
            questions_offset_unit,
            skip_bad_gold,
            questions_newlines,
            reading=found,
        )
        suspicions = tuple(found)
        notices = tuple("warning: " + suspicion.message() for suspicion in found)
    sources = (corpus_source, question_source)
    return Dataset(loaded_corpus, question_set, sources, name or Path(corpus).name, notices, suspicions)


def sample_paths() -> tuple[Path, Path]:
    """The bundled sample corpus directory and questions file."""
    root = Path(__file__).parents[1] / "sample_data"
    return root / "corpus", root / "questions.jsonl"
