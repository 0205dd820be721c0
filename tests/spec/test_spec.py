"""Spec strings: grammar, canonical form, round trips, and errors that list what is valid."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from chunkscope.chunkers import chunkers, parse_chunker
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.paragraph import ParagraphChunker
from chunkscope.errors import SpecError
from chunkscope.pipeline.config import make_config, parse_config, short_label, short_spec, split_config
from chunkscope.retrievers import parse_retriever, retrievers
from chunkscope.retrievers.bm25 import BM25
from chunkscope.retrievers.overlap import KeywordOverlap
from chunkscope.spec.grammar import format_spec
from chunkscope.spec.registry import Registry


@pytest.mark.parametrize(
    ("text", "strategy"),
    [
        ("fixed", FixedChunker(400, 0)),
        ("fixed:size=200", FixedChunker(200, 0)),
        ("fixed:size=400,overlap=80", FixedChunker(400, 80)),
        ("fixed:overlap=80,size=400", FixedChunker(400, 80)),
        ("  fixed:size=100  ", FixedChunker(100, 0)),
        ("paragraph", ParagraphChunker()),
    ],
)
def test_chunker_grammar(text: str, strategy: object) -> None:
    assert parse_chunker(text) == strategy


@pytest.mark.parametrize(
    ("text", "strategy"),
    [
        ("bm25", BM25(1.5, 0.75, 0.25, "default")),
        ("bm25:k1=1.2", BM25(k1=1.2)),
        ("bm25:b=0,k1=2", BM25(k1=2.0, b=0.0)),
        ("overlap", KeywordOverlap()),
    ],
)
def test_retriever_grammar(text: str, strategy: object) -> None:
    assert parse_retriever(text) == strategy


@pytest.mark.parametrize(
    ("text", "canonical", "short"),
    [
        # The window size is always shown, even at its default: "fixed:overlap=80" would hide it.
        ("fixed", "fixed:size=400,overlap=0", "fixed:size=400"),
        ("fixed:overlap=80,size=400", "fixed:size=400,overlap=80", "fixed:size=400,overlap=80"),
        ("fixed:size=200", "fixed:size=200,overlap=0", "fixed:size=200"),
        ("paragraph", "paragraph", "paragraph"),
        ("bm25", "bm25:k1=1.5,b=0.75,epsilon=0.25,tokenizer=default", "bm25"),
        ("bm25:k1=1.2", "bm25:k1=1.2,b=0.75,epsilon=0.25,tokenizer=default", "bm25:k1=1.2"),
        ("overlap", "overlap:tokenizer=default", "overlap"),
    ],
)
def test_canonical_and_short_forms_round_trip(text: str, canonical: str, short: str) -> None:
    parse = parse_chunker if text.split(":")[0] in chunkers else parse_retriever
    strategy = parse(text)
    assert format_spec(strategy) == canonical
    assert format_spec(strategy, short=True) == short
    # Both forms read back as the same strategy.
    assert parse(canonical) == strategy
    assert parse(short) == strategy


def test_make_config_writes_canonical_specs() -> None:
    config = make_config("fixed:overlap=80,size=400", "bm25:b=0.75", top_k=3, budget=500, overflow="skip")
    assert config.chunker == "fixed:size=400,overlap=80"
    assert config.retriever == "bm25:k1=1.5,b=0.75,epsilon=0.25,tokenizer=default"
    assert (config.top_k, config.budget, config.overflow) == (3, 500, "skip")
    # Equal configurations written differently are one cache key.
    assert config == make_config("fixed:size=400,overlap=80", "bm25", top_k=3, budget=500, overflow="skip")
    assert config.label == "fixed:size=400,overlap=80/bm25"


def test_configuration_strings() -> None:
    assert split_config("fixed:size=400,overlap=80/bm25:k1=1.2") == ("fixed:size=400,overlap=80", "bm25:k1=1.2")
    assert split_config("paragraph") == ("paragraph", "bm25")
    assert split_config("paragraph", default_retriever="overlap") == ("paragraph", "overlap")
    config = parse_config("fixed:size=200/overlap", top_k=2)
    assert (config.chunker, config.retriever, config.top_k) == (
        "fixed:size=200,overlap=0",
        "overlap:tokenizer=default",
        2,
    )
    assert short_label(config) == "fixed:size=200/overlap"
    assert short_spec("bm25:k1=1.5", "retriever") == "bm25"


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(SpecError) as caught:
        parse_chunker("sentence:size=3")
    message = str(caught.value)
    assert "unknown chunker 'sentence'" in message
    assert "valid chunkers: " in message
    for name in ("fixed", "paragraph"):
        assert name in message.split("valid chunkers: ")[1].split(", ")
    with pytest.raises(SpecError, match=r"unknown retriever 'tfidf'; valid retrievers: .*bm25.*overlap"):
        parse_retriever("tfidf")
    assert {"bm25", "overlap"} <= set(retrievers.names)
    assert list(chunkers.names) == sorted(chunkers.names)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fixed:width=3", r"chunker 'fixed' has no parameter 'width' \(valid: size, overlap, unit, tokenizer, shift\)"),
        ("fixed:size=abc", r"'fixed' parameter 'size' must be int, got 'abc'"),
        ("fixed:size=1.5", r"must be int, got '1.5'"),
        ("fixed:size", r"expected '=' after 'size'"),
        ("fixed:size=10)", r"unexpected '\)'"),
        ("", r"expected a name at position 0"),
        ("fixed:size=10,overlap=10", r"overlap \(10\) must be smaller than size \(10\)"),
        ("paragraph:size=3", r"has no parameter 'size' \(valid: none\)"),
    ],
)
def test_bad_chunker_specs(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as caught:
        parse_chunker(text)
    assert f"spec '{text.strip()}'" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bm25:k1=fast", r"'bm25' parameter 'k1' must be float, got 'fast'"),
        ("bm25:alpha=1", r"no parameter 'alpha' \(valid: k1, b, epsilon, tokenizer\)"),
        ("bm25:tokenizer=nope", r"unknown tokenizer 'nope'"),
    ],
)
def test_bad_retriever_specs(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        retriever = parse_retriever(text)
        retriever.build([])  # an unknown tokenizer is found when the index is built


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"top_k": 0}, "--top-k must be at least 1"),
        ({"budget": -1}, "--budget must not be negative"),
        ({"overflow": "drop"}, "--overflow must be stop, skip or truncate"),
    ],
)
def test_bad_delivery_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_config("paragraph", **kwargs)  # type: ignore[arg-type]


def test_registry_accepts_only_dataclasses_and_sorts_names() -> None:
    registry: Registry[object] = Registry("widget")

    @registry.register("zeta")
    @dataclass(frozen=True)
    class Zeta:
        level: int = 1

    @registry.register("alpha")
    @dataclass(frozen=True)
    class Alpha:
        pass

    assert registry.names == ("alpha", "zeta")
    assert registry.parse("zeta:level=3") == Zeta(3)
    assert format_spec(Zeta(3)) == "zeta:level=3"
    assert "alpha" in registry
    with pytest.raises(TypeError, match="must be a dataclass"):
        registry.register("plain")(type("Plain", (), {}))
    with pytest.raises(SpecError, match="unknown widget 'beta'; valid widgets: alpha, zeta"):
        registry.parse("beta")
