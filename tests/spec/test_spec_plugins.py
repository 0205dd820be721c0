"""The grammar for plugins and lists: a ``module:function`` value, free parameters, ``+``-joined atoms, escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.plugin import PythonChunker
from chunkscope.errors import SpecError
from chunkscope.pipeline.config import parse_config, split_config
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.plugin import PythonRetriever
from chunkscope.retrievers.rrf import ReciprocalRankFusion
from chunkscope.spec.grammar import format_spec

WINDOWS = "cs_plugins.chunking:windows"


@pytest.mark.parametrize(
    "text",
    [f"python:{WINDOWS}", f'python:"{WINDOWS}"', f"python:target={WINDOWS}", f'python:target="{WINDOWS}"'],
)
def test_the_target_reads_quoted_or_not(text: str, plugins: Path) -> None:
    assert parse_chunker(text) == PythonChunker(WINDOWS)
    assert format_spec(parse_chunker(text)) == f"python:{WINDOWS}"


@pytest.mark.parametrize(
    ("text", "params"),
    [
        (f"python:{WINDOWS},size=120", (("size", 120),)),
        (f"python:{WINDOWS},overlap=20,size=120", (("overlap", 20), ("size", 120))),  # sorted by key
        (f"python:{WINDOWS},ratio=0.5,flag=true,name=abc", (("flag", True), ("name", "abc"), ("ratio", 0.5))),
        (f"python:{WINDOWS},small=1e-3,neg=-4,off=FALSE", (("neg", -4), ("off", False), ("small", 0.001))),
        (f'python:{WINDOWS},size="120",text="a, b"', (("size", "120"), ("text", "a, b"))),  # quoted: strings
        (f"python:{WINDOWS},limit=inf,empty=", (("empty", ""), ("limit", "inf"))),  # not finite numbers: strings
    ],
)
def test_free_parameters_are_typed_and_round_trip(
    text: str, params: tuple[tuple[str, object], ...], plugins: Path
) -> None:
    chunker = parse_chunker(text)
    assert chunker.params == params
    assert [type(value) for _, value in chunker.params] == [type(value) for _, value in params]
    canonical = format_spec(chunker)
    assert parse_chunker(canonical) == chunker
    assert format_spec(chunker, short=True) == canonical  # the user's parameters are always shown


def test_canonical_form_quotes_strings_that_would_read_back_as_numbers(plugins: Path) -> None:
    chunker = parse_chunker(f'python:{WINDOWS},code="007",on="true",word=plain')
    assert format_spec(chunker) == f'python:{WINDOWS},code="007",on="true",word=plain'


def test_nested_plugins_take_parameters_inside_parentheses(plugins: Path) -> None:
    fused = parse_retriever("rrf:bm25+(python:cs_plugins.ranking:shared_words,minimum=2),k=10")
    assert isinstance(fused, ReciprocalRankFusion) and fused.k == 10
    assert fused.parts[1] == PythonRetriever("cs_plugins.ranking:shared_words", (("minimum", 2),))
    assert parse_retriever(format_spec(fused)) == fused
    bare = parse_retriever("rrf:bm25+python:cs_plugins.ranking:shared_words,k=10")
    assert bare.parts[1] == PythonRetriever("cs_plugins.ranking:shared_words") and bare.k == 10
    with pytest.raises(SpecError, match=r"retriever 'rrf' has no parameter 'minimum'"):
        parse_retriever("rrf:bm25+python:cs_plugins.ranking:shared_words,minimum=2")


def test_configuration_strings_split_after_a_plugin(plugins: Path) -> None:
    assert split_config(f"python:{WINDOWS},size=50/python:cs_plugins.ranking:shared_words") == (
        f"python:{WINDOWS},size=50",
        "python:cs_plugins.ranking:shared_words",
    )
    config = parse_config(f"python:{WINDOWS},size=50/python:cs_plugins.ranking:shared_words")
    assert config.chunker == f"python:{WINDOWS},size=50"
    assert config.retriever == "python:cs_plugins.ranking:shared_words"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("python", r"python needs package.module:function"),
        ("python:windows", r"a plugin is named package.module:function \(Python names\), got 'windows'"),
        ("python:cs_plugins.chunking:", r"a plugin is named package.module:function"),
        (f"python:{WINDOWS},size=1,size=2", r"chunker 'python' parameter 'size' is given twice"),
        (f"python:{WINDOWS},my-size=1", r"plugin parameter 'my-size' is not a Python name"),
        (f"python:{WINDOWS},size", r"expected '=' after 'size'"),
    ],
)
def test_bad_plugin_specs(text: str, message: str, plugins: Path) -> None:
    with pytest.raises(SpecError, match=message):
        parse_chunker(text)


@pytest.mark.parametrize(
    ("value", "written"),
    [("a\nb", '"a\\nb"'), ("tab\there", '"tab\\there"'), ("cr\r", '"cr\\r"'), ('q"\\', '"q\\"\\\\"')],
)
def test_quoted_atoms_escape_control_characters(value: str, written: str, plugins: Path) -> None:
    chunker = PythonChunker(WINDOWS, (("text", value),))
    assert format_spec(chunker) == f"python:{WINDOWS},text={written}"
    assert parse_chunker(format_spec(chunker)) == chunker


def test_tuple_fields_take_atoms_joined_by_plus() -> None:
    pytest.importorskip("langchain_text_splitters")
    chunker = parse_chunker('langchain:separators="\\n\\n"+"\\n"+" "+"",chunk_size=50,chunk_overlap=5')
    assert chunker.separators == ("\n\n", "\n", " ", "")
    assert parse_chunker("langchain:separators=a+b,chunk_size=50,chunk_overlap=5").separators == ("a", "b")
    assert parse_chunker("langchain:separators=none,chunk_size=50,chunk_overlap=5").separators is None
    assert parse_chunker('langchain:separators="none",chunk_size=50,chunk_overlap=5').separators == ("none",)
