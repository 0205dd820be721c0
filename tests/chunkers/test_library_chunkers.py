"""Library chunkers: the library's own chunks, in order, at exact offsets (sample data and JSQuAD).

Each reference is the library called directly, on an object the test builds itself. Where the
library gives no offsets (LangChain), the true place of every chunk is found on a *twin* of the
document: every non-whitespace character replaced by a distinct private-use character. LangChain's
character splitters decide only by lengths and by their whitespace separators, so the twin splits
the same way, and its chunk texts, all distinct, occur exactly once: ``find`` on the twin is an
oracle for where each chunk of the original came from, repeated passages included.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.errors import ChunkscopeError, MissingExtraError, SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.spec.grammar import format_spec

langchain = pytest.importorskip("langchain_text_splitters")
semchunk = pytest.importorskip("semchunk")
semantic_text_splitter = pytest.importorskip("semantic_text_splitter")

pytestmark = pytest.mark.reference

REPEATED = Document(
    "repeated",
    "\n\n".join(
        ["Returns are free within 30 days.", "Shipping takes two days.", "Returns are free within 30 days."] * 6
        + ["- item", "- item", "- item"]
    ),
)


def twin(text: str) -> str:
    """The text with each non-whitespace character replaced by a private-use character of its own."""
    assert len(text) < 2 * 65534
    code = [0xF0000 + i if i < 65534 else 0x100000 + i - 65534 for i in range(len(text))]
    return "".join(char if char.isspace() else chr(code[i]) for i, char in enumerate(text))


def twin_spans(split: Callable[[str], list[str]], text: str) -> list[tuple[int, int] | None]:
    """Where each chunk of ``text`` lies, read off the twin's chunk texts (None for a whitespace-only chunk).

    A twin chunk with a non-whitespace character occurs once (or, returned twice in a row, at the
    same place); a whitespace-only one has no such mark, so it is left out of the comparison.
    """
    double = twin(text)
    spans: list[tuple[int, int] | None] = []
    for piece in split(double):
        if piece.isspace():
            spans.append(None)
            continue
        start = double.find(piece)
        assert double.find(piece, start + 1) < 0
        spans.append((start, start + len(piece)))
    return spans


def same_places(chunks: list[Chunk], oracle: list[tuple[int, int] | None]) -> bool:
    assert len(chunks) == len(oracle)
    return all(place is None or place == (c.start, c.end) for c, place in zip(chunks, oracle, strict=True))


def documents(dataset: Dataset) -> list[Document]:
    return [*dataset.corpus.documents, REPEATED]


def check_langchain(spec: str, reference: object, docs: list[Document]) -> None:
    """Same chunk texts as the library, in order, at the offsets the twin shows (exact: text[start:end])."""
    chunker = parse_chunker(spec)
    for document in docs:
        chunks = chunker.chunk_document(document)
        expected = reference.split_text(document.text)  # type: ignore[attr-defined]
        assert [chunk.text for chunk in chunks] == expected, document.id
        assert all(document.text[c.start : c.end] == c.text for c in chunks)
        assert same_places(chunks, twin_spans(reference.split_text, document.text)), document.id  # type: ignore[attr-defined]


LANGCHAIN_CASES = [
    ("langchain:chunk_size=200,chunk_overlap=40", {"chunk_size": 200, "chunk_overlap": 40}),
    ("langchain:chunk_size=400,chunk_overlap=0", {"chunk_size": 400, "chunk_overlap": 0}),
    ("langchain:chunk_size=60,chunk_overlap=20", {"chunk_size": 60, "chunk_overlap": 20}),
    (
        "langchain:chunk_size=30,chunk_overlap=29,keep_separator=end",
        {"chunk_size": 30, "chunk_overlap": 29, "keep_separator": "end"},
    ),
    (
        "langchain:chunk_size=100,chunk_overlap=20,strip_whitespace=false",
        {"chunk_size": 100, "chunk_overlap": 20, "strip_whitespace": False},
    ),
    (
        'langchain:chunk_size=150,chunk_overlap=30,separators="\\n\\n"+"\\n"+" "+""',
        {"chunk_size": 150, "chunk_overlap": 30, "separators": ["\n\n", "\n", " ", ""]},
    ),
]


@pytest.mark.parametrize(("spec", "arguments"), LANGCHAIN_CASES)
def test_langchain_recursive_on_sample(spec: str, arguments: dict[str, object], sample: Dataset) -> None:
    reference = langchain.RecursiveCharacterTextSplitter(**arguments)
    check_langchain(spec, reference, documents(sample))


@pytest.mark.jsquad
@pytest.mark.parametrize(("spec", "arguments"), LANGCHAIN_CASES[:2] + LANGCHAIN_CASES[3:4])
def test_langchain_recursive_on_jsquad(spec: str, arguments: dict[str, object], jsquad: Dataset) -> None:
    reference = langchain.RecursiveCharacterTextSplitter(**arguments)
    check_langchain(spec, reference, list(jsquad.corpus.documents))


def test_langchain_character_splitter_keeping_separators(sample: Dataset) -> None:
    arguments = {"chunk_size": 120, "chunk_overlap": 30, "separator": " ", "keep_separator": True}
    reference = langchain.CharacterTextSplitter(**arguments)
    check_langchain(
        'langchain:CharacterTextSplitter,chunk_size=120,chunk_overlap=30,separator=" ",keep_separator=true',
        reference,
        documents(sample),
    )


@pytest.mark.parametrize(("separator", "written"), [("\n", '"\\n"'), ("\n\n", '"\\n\\n"'), ("。", "。")])
def test_langchain_character_splitter_gluing_with_its_separator(separator: str, written: str, sample: Dataset) -> None:
    """Without keep_separator LangChain reads one separator where the document has a run: the span holds the run."""
    reference = langchain.CharacterTextSplitter(chunk_size=150, chunk_overlap=30, separator=separator)
    chunker = parse_chunker(f"langchain:CharacterTextSplitter,chunk_size=150,chunk_overlap=30,separator={written}")
    run = re.compile(f"(?:{re.escape(separator)})+")
    for document in documents(sample):
        chunks = chunker.chunk_document(document)
        expected = reference.split_text(document.text)
        assert [run.sub(separator, chunk.text) for chunk in chunks] == expected, document.id
        assert all(document.text[c.start : c.end] == c.text for c in chunks)
        assert [(c.start, c.end) for c in chunks] == sorted((c.start, c.end) for c in chunks)


@pytest.mark.jsquad
def test_langchain_character_splitter_on_jsquad(jsquad: Dataset) -> None:
    reference = langchain.CharacterTextSplitter(chunk_size=300, chunk_overlap=60, separator="。")
    chunker = parse_chunker("langchain:CharacterTextSplitter,chunk_size=300,chunk_overlap=60,separator=。")
    for document in jsquad.corpus.documents:
        chunks = chunker.chunk_document(document)
        assert [re.sub("。+", "。", c.text) for c in chunks] == reference.split_text(document.text)


@pytest.mark.parametrize(
    ("spec", "reference"),
    [
        ("langchain:MarkdownTextSplitter,chunk_size=300,chunk_overlap=50", "MarkdownTextSplitter"),
        ("langchain:language=markdown,chunk_size=300,chunk_overlap=50", "from_language"),
    ],
)
def test_langchain_markdown_splitters(spec: str, reference: str, sample: Dataset) -> None:
    if reference == "from_language":
        splitter = langchain.RecursiveCharacterTextSplitter.from_language(
            langchain.Language.MARKDOWN, chunk_size=300, chunk_overlap=50
        )
    else:
        splitter = langchain.MarkdownTextSplitter(chunk_size=300, chunk_overlap=50)
    chunker = parse_chunker(spec)
    for document in documents(sample):
        chunks = chunker.chunk_document(document)
        assert [c.text for c in chunks] == splitter.split_text(document.text), document.id
        assert all(document.text[c.start : c.end] == c.text for c in chunks)


def test_repeated_passages_are_placed_at_their_own_copies() -> None:
    """LangChain's add_start_index guesses from an estimated position; the locator's placement is the true one."""
    reference = langchain.RecursiveCharacterTextSplitter(chunk_size=40, chunk_overlap=0)
    chunks = parse_chunker("langchain:chunk_size=40,chunk_overlap=0").chunk_document(REPEATED)
    passage = "Returns are free within 30 days."
    placed = [c.start for c in chunks if c.text == passage]
    assert placed == [m.start() for m in re.finditer(re.escape(passage), REPEATED.text)]
    assert same_places(chunks, twin_spans(reference.split_text, REPEATED.text))


@pytest.mark.parametrize(
    ("spec", "size", "overlap"), [("semchunk:size=200", 200, None), ("semchunk:size=120,overlap=0.25", 120, 0.25)]
)
def test_semchunk_matches_the_library(spec: str, size: int, overlap: float | None, sample: Dataset) -> None:
    chunker = parse_chunker(spec)
    for document in documents(sample):
        chunks = chunker.chunk_document(document)
        expected, offsets = semchunk.chunk(document.text, size, len, offsets=True, overlap=overlap)
        assert [c.text for c in chunks] == expected
        assert [(c.start, c.end) for c in chunks] == [tuple(o) for o in offsets]
        assert all(document.text[c.start : c.end] == c.text for c in chunks)


@pytest.mark.jsquad
def test_semchunk_on_jsquad(jsquad: Dataset) -> None:
    chunker = parse_chunker("semchunk:size=300")
    for document in jsquad.corpus.documents:
        chunks = chunker.chunk_document(document)
        assert [c.text for c in chunks] == semchunk.chunk(document.text, 300, len)
        assert all(document.text[c.start : c.end] == c.text for c in chunks)


@pytest.mark.parametrize(
    ("spec", "markdown", "overlap", "trim"),
    [
        ("textsplitter:size=200", False, 0, True),
        ("textsplitter:size=200,overlap=50", False, 50, True),
        ("textsplitter:size=300,markdown=true", True, 0, True),
        ("textsplitter:size=150,trim=false", False, 0, False),
    ],
)
def test_textsplitter_matches_the_library(spec: str, markdown: bool, overlap: int, trim: bool, sample: Dataset) -> None:
    cls = semantic_text_splitter.MarkdownSplitter if markdown else semantic_text_splitter.TextSplitter
    splitter = cls(int(spec.split("size=")[1].split(",")[0]), overlap=overlap, trim=trim)
    chunker = parse_chunker(spec)
    for document in documents(sample):
        chunks = chunker.chunk_document(document)
        assert [c.text for c in chunks] == splitter.chunks(document.text)
        assert all(document.text[c.start : c.end] == c.text for c in chunks)


@pytest.mark.jsquad
def test_textsplitter_offsets_are_characters_not_bytes(jsquad: Dataset) -> None:
    """On Japanese text a byte offset would differ from the character offset after the first character."""
    splitter = semantic_text_splitter.TextSplitter(250)
    chunker = parse_chunker("textsplitter:size=250")
    for document in jsquad.corpus.documents:
        chunks = chunker.chunk_document(document)
        assert [c.text for c in chunks] == splitter.chunks(document.text)
        assert all(document.text[c.start : c.end] == c.text for c in chunks)
    later = [c for c in chunk_corpus(chunker, jsquad.corpus).units if c.start > 0]
    assert any(len(c.doc) and len(jsquad.corpus.by_id[c.doc].text[: c.start].encode()) != c.start for c in later)


@pytest.mark.parametrize(
    ("text", "canonical", "short"),
    [
        (
            "langchain",
            "langchain:RecursiveCharacterTextSplitter,chunk_size=4000,chunk_overlap=200",
            "langchain:chunk_size=4000",
        ),
        (
            "langchain:CharacterTextSplitter,separator=。,chunk_size=300,chunk_overlap=0",
            "langchain:CharacterTextSplitter,chunk_size=300,chunk_overlap=0,separator=。",
            "langchain:CharacterTextSplitter,chunk_size=300,chunk_overlap=0,separator=。",
        ),
        (
            'langchain:separators="\\n\\n"+" ",chunk_size=100,chunk_overlap=10',
            'langchain:RecursiveCharacterTextSplitter,chunk_size=100,chunk_overlap=10,separators="\\n\\n"+" "',
            'langchain:chunk_size=100,chunk_overlap=10,separators="\\n\\n"+" "',
        ),
        ("semchunk", "semchunk:size=400,overlap=0", "semchunk:size=400"),
        ("semchunk:size=100,overlap=0.2", "semchunk:size=100,overlap=0.2", "semchunk:size=100,overlap=0.2"),
        (
            "textsplitter:markdown=yes",
            "textsplitter:size=400,overlap=0,markdown=true,trim=true",
            "textsplitter:size=400,markdown=true",
        ),
    ],
)
def test_canonical_forms_round_trip(text: str, canonical: str, short: str) -> None:
    chunker = parse_chunker(text)
    assert format_spec(chunker) == canonical
    assert format_spec(chunker, short=True) == short
    assert parse_chunker(canonical) == chunker == parse_chunker(short)


def test_separators_reach_the_library_as_a_list() -> None:
    chunker = parse_chunker('langchain:separators="\\n\\n"+"\\n"+" "+"",chunk_size=100,chunk_overlap=10')
    assert chunker.separators == ("\n\n", "\n", " ", "")
    assert chunker._splitter._separators == ["\n\n", "\n", " ", ""]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "langchain:TokenTextSplitter",
            r"unknown splitter 'TokenTextSplitter'; valid splitters: RecursiveCharacterTextSplitter",
        ),
        ("langchain:CharacterTextSplitter,separators=a+b", r"CharacterTextSplitter takes no 'separators'"),
        ("langchain:MarkdownTextSplitter,separator=x", r"MarkdownTextSplitter takes no 'separator'"),
        ("langchain:chunk_size=100", r"larger chunk overlap \(200\) than chunk size \(100\)"),
        ("langchain:keep_separator=middle", r"keep_separator must be true, false, start or end"),
        ("langchain:language=klingon", r"unknown language 'klingon'; valid languages: cpp"),
        ("semchunk:size=0", r"size must be at least 1"),
        ("textsplitter:size=10,overlap=10", r"overlap must lie between 0 and size - 1"),
        ("semchunk:unit=words", r"unit must be chars or tokens"),
        ("textsplitter:tokenizer=cl100k", r"tokenizer=cl100k counts tokens: add unit=tokens"),
    ],
)
def test_bad_specs_name_the_problem(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_chunker(spec)


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("langchain:chunk_size=100,chunk_overlap=10", "langchain_text_splitters", "langchain"),
        ("semchunk:size=100", "semchunk", "semchunk"),
        ("textsplitter:size=100", "semantic_text_splitter", "textsplitter"),
    ],
)
def test_a_missing_library_names_its_extra(spec: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import now fails as if the package were not installed
    with pytest.raises(MissingExtraError) as caught:
        parse_chunker(spec)
    assert f"pip install 'chunkscope[{extra}]'" in str(caught.value)


def test_token_lengths_need_the_counting_tokenizers() -> None:
    spec = "semchunk:size=100,unit=tokens"
    if importlib.util.find_spec("chunkscope.tokenize.counting") is None:
        with pytest.raises(ChunkscopeError, match=r"needs the tokens extra.*pip install 'chunkscope\[tokens\]'"):
            parse_chunker(spec)
        return
    try:
        chunker = parse_chunker(spec)
    except MissingExtraError as exc:
        assert "chunkscope[tokens]" in str(exc)
        return
    assert format_spec(chunker) == "semchunk:size=100,overlap=0,unit=tokens,tokenizer=cl100k"


def test_library_chunkers_serve_as_children_of_parents(sample: Dataset) -> None:
    chunking = chunk_corpus(
        parse_chunker("parent:child=(textsplitter:size=100),parent=markdown"), Corpus(sample.corpus.documents[:2])
    )
    assert chunking.parents is not None and len(chunking.units) == len(chunking.parents)
    for child, parent in zip(chunking.units, chunking.parents, strict=True):
        assert parent.start <= child.start and child.end <= parent.end
        assert sample.corpus.by_id[child.doc].text[child.start : child.end] == child.text
