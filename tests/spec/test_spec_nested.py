"""The spec grammar: nested specs, '+'-lists, a positional first value, quoted atoms, round trips."""

from __future__ import annotations

import pytest

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.parent import ParentChildChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.errors import SpecError
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.bm25 import BM25
from chunkscope.retrievers.overlap import KeywordOverlap
from chunkscope.retrievers.rrf import ReciprocalRankFusion
from chunkscope.spec.grammar import format_spec


def test_nested_chunker_keeps_only_the_parameters_it_knows() -> None:
    parsed = parse_chunker("parent:child=fixed:size=200,parent=markdown")
    assert parsed == ParentChildChunker(child=FixedChunker(200), parent=MarkdownChunker())


def test_nested_chunker_takes_several_of_its_own_parameters() -> None:
    parsed = parse_chunker("parent:child=fixed:size=200,overlap=40,parent=markdown:max_chars=800,levels=2")
    assert parsed == ParentChildChunker(FixedChunker(200, 40), MarkdownChunker(max_chars=800, levels=2))


def test_parenthesised_nested_spec() -> None:
    parsed = parse_chunker("parent:parent=(markdown:prefix=path),child=(recursive:size=100)")
    assert parsed == ParentChildChunker(RecursiveChunker(100), MarkdownChunker(prefix="path"))


def test_positional_list_then_named_parameter() -> None:
    parsed = parse_retriever("rrf:bm25+overlap,k=10")
    assert parsed == ReciprocalRankFusion((BM25(), KeywordOverlap()), k=10)


def test_positional_list_may_also_be_named() -> None:
    assert parse_retriever("rrf:parts=bm25+overlap") == parse_retriever("rrf:bm25+overlap")


def test_list_item_parameters_end_at_plus_and_comma() -> None:
    parsed = parse_retriever("rrf:bm25:k1=1.2+overlap:tokenizer=default,k=5")
    assert parsed == ReciprocalRankFusion((BM25(k1=1.2), KeywordOverlap()), k=5)


def test_list_item_keeps_a_parameter_the_outer_spec_also_lacks_as_error() -> None:
    with pytest.raises(SpecError, match="has no parameter 'size'"):
        parse_retriever("rrf:bm25+overlap,size=3")


def test_quoted_atom_keeps_spaces_commas_and_none() -> None:
    parsed = parse_retriever('bm25:tokenizer="sudachi:mode=A,form=dictionary"')
    assert parsed == BM25(tokenizer="sudachi:mode=A,form=dictionary")
    assert format_spec(parsed) == 'bm25:k1=1.5,b=0.75,epsilon=0.25,tokenizer="sudachi:mode=A,form=dictionary"'


def test_quoted_atom_escapes() -> None:
    parsed = parse_retriever(r'bm25:tokenizer="a\"b\\c"')
    assert parsed == BM25(tokenizer='a"b\\c')


def test_unterminated_quote_is_a_spec_error() -> None:
    with pytest.raises(SpecError, match="unterminated quote"):
        parse_retriever('bm25:tokenizer="abc')


def test_positional_without_declaration_is_an_error() -> None:
    with pytest.raises(SpecError, match="has no parameter 'bm25'"):
        parse_chunker("fixed:bm25")


@pytest.mark.parametrize(
    "text",
    [
        "parent:child=fixed:size=200,parent=markdown",
        "parent:child=recursive:size=120,overlap=30,parent=markdown:max_chars=900,levels=2,prefix=path",
        "parent:child=paragraph,parent=fixed:size=1000",
        "markdown:prefix=path",
        "recursive:size=50,overlap=10",
        'imported:path="some dir/chunks (v2).jsonl"',
    ],
)
def test_chunker_canonical_form_round_trips(text: str) -> None:
    parsed = parse_chunker(text)
    for short in (False, True):
        assert parse_chunker(format_spec(parsed, short)) == parsed


@pytest.mark.parametrize(
    "text",
    [
        "rrf:bm25+overlap",
        "rrf:bm25:k1=1.2,b=0.5+overlap+bm25,k=10,candidates=50",
        "rrf:(rrf:bm25+overlap)+bm25",
        'bm25:tokenizer="x, y"',
        "run:path=a+b.trec",
    ],
)
def test_retriever_canonical_form_round_trips(text: str) -> None:
    parsed = parse_retriever(text)
    for short in (False, True):
        assert parse_retriever(format_spec(parsed, short)) == parsed


def test_canonical_form_of_nested_specs() -> None:
    parsed = parse_chunker("parent:child=fixed:size=200,parent=markdown")
    assert format_spec(parsed, short=True) == "parent:child=(fixed:size=200),parent=markdown"
    assert format_spec(parse_retriever("rrf:bm25+overlap,k=10"), short=True) == "rrf:bm25+overlap,k=10"
