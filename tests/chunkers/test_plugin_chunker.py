"""``python:`` chunkers: the user's function, its parameters, and one-line errors that point at the user's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Document
from chunkscope.spec.plugins import PluginError


def line_of(path: Path, fragment: str) -> int:
    """The 1-based number of the line of ``path`` holding ``fragment`` (read from the file, not assumed)."""
    numbers = [n for n, line in enumerate(path.read_text().splitlines(), start=1) if fragment in line]
    assert len(numbers) == 1
    return numbers[0]


def test_pairs_become_chunks_at_those_offsets(plugins: Path, sample: Dataset) -> None:
    chunking = chunk_corpus(parse_chunker("python:cs_plugins.chunking:windows,size=150,overlap=30"), sample.corpus)
    expected = chunk_corpus(FixedChunker(150, 30), sample.corpus)
    assert [(c.id, c.doc, c.start, c.end, c.text) for c in chunking.units] == [
        (c.id, c.doc, c.start, c.end, c.text) for c in expected.units
    ]


@pytest.mark.parametrize("function", ["lines", "lines_lazily"])
def test_strings_are_placed_where_they_stand(function: str, plugins: Path, sample: Dataset) -> None:
    chunker = parse_chunker(f"python:cs_plugins.chunking:{function}")
    for document in sample.corpus.documents:
        expected = []
        position = 0
        for line in document.text.split("\n"):
            stripped = line.strip()
            if stripped:
                start = position + line.index(stripped)
                expected.append((start, start + len(stripped)))
            position += len(line) + 1
        assert [(c.start, c.end) for c in chunker.chunk_document(document)] == expected


def test_repeated_strings_go_to_successive_copies(plugins: Path) -> None:
    document = Document("faq", "Yes.\nIs it free?\nYes.\nDoes it ship abroad?\nYes.\n")
    chunks = parse_chunker("python:cs_plugins.chunking:lines").chunk_document(document)
    assert [(c.start, c.text) for c in chunks] == [
        (0, "Yes."),
        (5, "Is it free?"),
        (17, "Yes."),
        (22, "Does it ship abroad?"),
        (43, "Yes."),
    ]


def test_parameters_arrive_as_keyword_arguments(plugins: Path, sample: Dataset) -> None:
    from cs_plugins import chunking  # type: ignore[import-not-found]

    chunking.RECEIVED.clear()
    chunker = parse_chunker('python:cs_plugins.chunking:echo_params,size=3,ratio=0.5,strict=true,name=x,code="7"')
    chunker.chunk_document(sample.corpus.documents[0])
    assert chunking.RECEIVED == [{"size": 3, "ratio": 0.5, "strict": True, "name": "x", "code": "7"}]


def test_an_exception_names_the_users_file_and_line(plugins: Path, sample: Dataset) -> None:
    path = plugins / "cs_plugins" / "chunking.py"
    chunker = parse_chunker("python:cs_plugins.chunking:explode")
    document = sample.corpus.documents[0]
    with pytest.raises(PluginError) as caught:
        chunker.chunk_document(document)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line_of(path, 'len(text) // divisor')}: ")
    assert "plugin 'python:cs_plugins.chunking:explode' raised ZeroDivisionError" in message
    assert f"document '{document.id}'" in message and "\n" not in message


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (
            "out_of_range",
            r"for document 'en/order-api.md' returned chunk \(0, 4289\): a chunk needs 0 <= start < end <= 4284",
        ),
        ("backwards", r"returned chunk \(10, 3\): a chunk needs 0 <= start < end"),
        ("twice", r"returned chunk \(0, 5\) twice"),
        ("same_text_twice", r"returned chunk \(0, 5\) twice"),
        ("not_a_list", r"returned int: expected a list of \(start, end\) pairs or strings"),
        ("missing_text", r"chunk 0 of document 'en/order-api.md' \('this sentence is in no document'\) is not in the"),
    ],
)
def test_unusable_results_are_one_line_errors_naming_the_plugin(
    function: str, message: str, plugins: Path, sample: Dataset
) -> None:
    document = sample.corpus.by_id["en/order-api.md"]
    assert len(document.text) == 4284
    with pytest.raises(ChunkscopeError, match=message) as caught:
        parse_chunker(f"python:cs_plugins.chunking:{function}").chunk_document(document)
    assert f"python:cs_plugins.chunking:{function}" in str(caught.value)


def test_modules_that_cannot_be_imported_say_why(plugins: Path) -> None:
    broken = plugins / "cs_plugins" / "broken_import.py"
    with pytest.raises(PluginError) as caught:
        parse_chunker("python:cs_plugins.broken_import:split")
    line = line_of(broken, 'SETTINGS["width"]')
    assert str(caught.value) == (
        f"{broken}:{line}: cannot import plugin module 'cs_plugins.broken_import': KeyError: 'width'"
    )
    dependency = plugins / "cs_plugins" / "missing_dependency.py"
    with pytest.raises(PluginError, match=r"No module named 'chunkscope_no_such_dependency'") as caught:
        parse_chunker("python:cs_plugins.missing_dependency:split")
    assert str(caught.value).startswith(f"{dependency}:{line_of(dependency, 'import chunkscope_no_such')}: ")
    with pytest.raises(PluginError, match=r"cannot import plugin module 'cs_plugins.nothing': No module named"):
        parse_chunker("python:cs_plugins.nothing:split")
    with pytest.raises(
        PluginError, match=r"plugin module 'cs_plugins.chunking' \(.*chunking.py\) has no attribute 'nope'"
    ):
        parse_chunker("python:cs_plugins.chunking:nope")
    with pytest.raises(PluginError, match=r"'cs_plugins.chunking:NOT_CALLABLE' is a int, not a function"):
        parse_chunker("python:cs_plugins.chunking:NOT_CALLABLE")


def test_a_syntax_error_names_its_line(plugins: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cs_broken_syntax.py").write_text("def split(text):\n    return [(0, len(text)]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError, match=r"cs_broken_syntax.py:2: cannot import plugin module 'cs_broken_syntax'"):
        parse_chunker("python:cs_broken_syntax:split")
