"""Configuration strings: CHUNKER[/RETRIEVER]."""

from __future__ import annotations

import pytest

from chunkscope.errors import SpecError
from chunkscope.pipeline.config import parse_config, split_config


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fixed:size=400,overlap=80/bm25", ("fixed:size=400,overlap=80", "bm25")),
        ("paragraph", ("paragraph", "bm25")),
        ("fixed/run:path=/data/runs/prod.trec", ("fixed", "run:path=/data/runs/prod.trec")),
        ("imported:path=/x/y.jsonl/overlap", ("imported:path=/x/y.jsonl", "overlap")),
        (
            "parent:child=(fixed:size=200),parent=markdown/bm25:k1=1.2",
            ("parent:child=(fixed:size=200),parent=markdown", "bm25:k1=1.2"),
        ),
    ],
)
def test_split_config_finds_the_retriever_separator(text: str, expected: tuple[str, str]) -> None:
    assert split_config(text) == expected


def test_parse_config_is_canonical_and_labels_drop_defaults() -> None:
    config = parse_config("fixed:size=200/bm25:k1=1.5", top_k=3)
    assert config.chunker == "fixed:size=200,overlap=0"
    assert config.retriever == "bm25:k1=1.5,b=0.75,epsilon=0.25,tokenizer=default"
    assert config.label == "fixed:size=200/bm25"
    assert config.top_k == 3
    # the size of a fixed window is always shown, even at its default
    assert parse_config("fixed").label == "fixed:size=400/bm25"


def test_parse_config_reports_unknown_retriever_names() -> None:
    with pytest.raises(SpecError, match=r"valid retrievers: .*bm25"):
        parse_config("fixed/bm26")
