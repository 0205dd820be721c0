"""Indexes built from the corpus's document token streams equal indexes built from each chunk's text."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Corpus
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.base import build_index
from chunkscope.tokenize.default import DefaultTokenizer
from chunkscope.tokenize.streams import DocumentTokens


def test_corpus_streams_index_like_chunk_texts(sample: Dataset) -> None:
    # Tokens taken from the documents give the same postings, so the same scores, bit for bit.
    units = chunk_corpus(parse_chunker("fixed:size=77,overlap=13"), sample.corpus).units
    questions = sample.questions.questions
    alone = parse_retriever("bm25").build(units)
    shared = build_index(parse_retriever("bm25"), units, sample.corpus)
    for question in questions:
        np.testing.assert_array_equal(alone.scores(question.query), shared.scores(question.query))
    assert alone.rank(questions, 20) == shared.rank(questions, 20)


@pytest.mark.parametrize(
    "chunker", ["markdown:prefix=path", "parent:child=fixed:size=120,parent=markdown", "recursive:size=150,overlap=30"]
)
def test_corpus_streams_index_like_chunk_texts_with_prefixes(sample: Dataset, chunker: str) -> None:
    units = chunk_corpus(parse_chunker(chunker), sample.corpus).units
    questions = sample.questions.questions
    assert parse_retriever("bm25").build(units).rank(questions, 20) == build_index(
        parse_retriever("bm25"), units, sample.corpus
    ).rank(questions, 20)


def test_a_sweep_tokenises_each_document_once(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = DefaultTokenizer.document_tokens

    def counted(self: DefaultTokenizer, texts: Sequence[str]) -> DocumentTokens:
        calls.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(DefaultTokenizer, "document_tokens", counted)
    corpus = Corpus(tuple(sample.corpus.documents))  # a corpus no earlier test has tokenised
    evaluator = Evaluator(corpus, sample.questions.questions)
    for chunker in ("fixed:size=100", "fixed:size=200,overlap=40", "paragraph"):
        for retriever in ("bm25", "overlap", "rrf:bm25+overlap"):
            evaluator.evaluate(make_config(chunker, retriever))
    assert calls == [len(corpus.documents)]


@pytest.mark.parametrize("chunker", ["fixed:size=77,overlap=13", "markdown:prefix=path"])
def test_queries_looked_up_together_equal_each_query_on_its_own(sample: Dataset, chunker: str) -> None:
    # Each distinct token is looked up once for all the queries: the ids of every query, repeats and order kept.
    units = chunk_corpus(parse_chunker(chunker), sample.corpus).units
    postings = build_index(parse_retriever("bm25"), units, sample.corpus).postings
    texts = [q.query for q in sample.questions.questions] + ["", "zzqx unknown tokens only", "the the the"]
    texts += texts[:5]  # the same queries twice
    together = postings.queries_term_ids(texts)
    assert len(together) == len(texts)
    for number, text in enumerate(texts):
        run = together.terms[together.offsets[number] : together.offsets[number + 1]]
        assert run.tolist() == postings.query_term_ids(text)
