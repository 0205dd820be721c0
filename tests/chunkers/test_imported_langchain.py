"""A LangChain dump written here by langchain-text-splitters (``add_start_index=True``), read back exactly.

The text is built from paragraphs whose offsets are known by construction; the splitter's chunk size
keeps each paragraph a chunk of its own (two never fit together, and none is shorter than the overlap),
so the truth does not come from LangChain's own ``start_index``.
"""

from __future__ import annotations

import itertools
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

from chunkscope.chunkers.imported import read_chunks
from chunkscope.io.locate import Piece, place_in_order
from chunkscope.model import Corpus, Document

splitters = pytest.importorskip("langchain_text_splitters")

PARAGRAPHS = ["the cat sat", "cat sat", "the dog ran", "dog ran", "the cat sat", "cat sat", "a bird sang"]
TEXT = "\n\n".join(PARAGRAPHS)
TRUTH = []
_offset = 0
for _paragraph in PARAGRAPHS:
    TRUTH.append((_offset, _offset + len(_paragraph)))
    _offset += len(_paragraph) + 2
CORPUS = Corpus((Document("docs/pets.md", TEXT),))


def langchain_documents() -> list[dict[str, Any]]:
    splitter = splitters.RecursiveCharacterTextSplitter(
        chunk_size=12, chunk_overlap=5, separators=["\n\n"], keep_separator=False, add_start_index=True
    )
    documents = splitter.create_documents([TEXT], metadatas=[{"source": "/home/me/corpus/docs/pets.md"}])
    return [document.model_dump() for document in documents]


def write(path: Path, records: list[dict[str, Any]], lines: bool) -> str:
    if lines:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return str(path)


def test_the_splitter_makes_one_chunk_per_paragraph() -> None:
    assert [d["page_content"] for d in langchain_documents()] == PARAGRAPHS


@pytest.mark.parametrize("lines", [False, True], ids=["json", "jsonl"])
def test_a_langchain_dump_is_placed_exactly(tmp_path: Path, lines: bool) -> None:
    chunking = read_chunks(write(tmp_path / "dump.json", langchain_documents(), lines), CORPUS)
    assert [(c.start, c.end) for c in chunking.units] == TRUTH
    assert [c.id for c in chunking.units] == [str(i) for i in range(len(PARAGRAPHS))]  # no ids: positions
    assert chunking.imported is not None and chunking.imported.format == "langchain"
    assert chunking.imported.exact == len(PARAGRAPHS)


def test_dumps_without_offsets_or_with_minus_one_are_relocated_in_order(tmp_path: Path) -> None:
    records = langchain_documents()
    for number, record in enumerate(records):
        if number % 2:
            record["metadata"]["start_index"] = -1  # what str.find gives when it does not find the chunk
        else:
            del record["metadata"]["start_index"]
    chunking = read_chunks(write(tmp_path / "dump.json", records, False), CORPUS)
    # "cat sat" also occurs inside the "the cat sat" before it: a forward search from the previous start
    # would put it there; the order puts it after
    assert [(c.start, c.end) for c in chunking.units] == TRUTH
    assert chunking.imported is not None
    assert (chunking.imported.exact, chunking.imported.relocated) == (0, len(PARAGRAPHS))


def without(dropped: set[int]) -> list[dict[str, Any]]:
    """The dump without some chunks and without offsets: placed by text and order alone."""
    records = [r for i, r in enumerate(langchain_documents()) if i not in dropped]
    for record in records:
        del record["metadata"]["start_index"]
    return records


def test_chunks_around_a_gap_are_still_placed_by_order(tmp_path: Path) -> None:
    chunking = read_chunks(write(tmp_path / "dump.jsonl", without({1}), True), CORPUS)
    # left: the cat sat, the dog ran, dog ran, the cat sat, cat sat, a bird sang. The first "the cat sat"
    # (0 or 44) must come before "the dog ran" (22): 0. "dog ran" at 26 would end with its predecessor: 35.
    assert [(c.id, c.start) for c in chunking.units] == [
        ("0", 0), ("1", 22), ("2", 35), ("3", 44), ("4", 57), ("5", 66)
    ]  # fmt: skip


def test_a_chunk_that_fits_twice_is_reported_ambiguous(tmp_path: Path) -> None:
    path = write(tmp_path / "dump.jsonl", without({1, 4}), True)
    chunking = read_chunks(path, CORPUS)
    # left: the cat sat, the dog ran, dog ran, cat sat, a bird sang. "cat sat" must start after "dog ran"
    # (35) and before "a bird sang" (66): 48 and 57 both fit, so it is left out
    summary = chunking.imported
    assert summary is not None
    assert [(c.id, c.start) for c in chunking.units] == [("0", 0), ("1", 22), ("2", 35), ("4", 66)]
    assert [(u.id, u.status, u.candidates) for u in summary.unplaced] == [("3", "ambiguous", (48, 57))]
    assert (summary.exact, summary.relocated, summary.ambiguous, summary.not_found) == (0, 4, 1, 0)
    warning = f"{path}:4: chunk '3' ambiguous in 'docs/pets.md': its text fits at offsets 48, 57; left out"
    assert warning in chunking.problems


def test_a_chunk_ending_where_its_predecessor_ends_keeps_the_order(tmp_path: Path) -> None:
    # real RecursiveCharacterTextSplitter output: "ff.g g" (7..13) is followed by "g" (12..13), which ends where
    # it ends, and no later "g" can follow it before "ff.a" (17). The old order rule (ends strictly increase)
    # found no placement and placed every chunk alone, warning that the chunks were out of order.
    text = "ddddbb\nff.g g \n\n\nff.a ddddcccff. e\n\nbb\n\n\ng g\ndddd a ccc ccc\n"
    splitter = splitters.RecursiveCharacterTextSplitter(chunk_size=7, chunk_overlap=2, add_start_index=True)
    records = [d.model_dump() for d in splitter.create_documents([text], metadatas=[{"source": "notes.txt"}])]
    spans = [(r["metadata"]["start_index"], r["metadata"]["start_index"] + len(r["page_content"])) for r in records]
    assert ((7, 13), (12, 13)) in set(itertools.pairwise(spans))  # the equal ends, as the splitter wrote them
    assert all(text[start:end] == r["page_content"] for r, (start, end) in zip(records, spans, strict=True))
    chunking = read_chunks(write(tmp_path / "dump.jsonl", records, True), Corpus((Document("notes.txt", text),)))
    assert chunking.imported is not None and chunking.imported.unordered_docs == ()
    assert not [p for p in chunking.problems if "not in document order" in p]
    assert chunking.imported.exact == len(records)
    assert [(c.start, c.end) for c in chunking.units] == spans


def crlf_corpus_and_dump(tmp_path: Path) -> tuple[Path, Path, str, list[dict[str, Any]]]:
    """A CRLF document on disk and the dump LangChain makes of it: TextLoader reads it with open() (universal
    newlines, so its chunks hold LF and its start_index counts the LF text), then the splitter cuts it."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    paragraphs = [f"Section {n}\nRefunds take {n} days.\nContact support for help." for n in range(6)]
    (corpus / "policy.txt").write_bytes("\n\n".join(paragraphs).replace("\n", "\r\n").encode())
    with open(corpus / "policy.txt", encoding="utf-8") as handle:  # what TextLoader does
        read = handle.read()
    splitter = splitters.RecursiveCharacterTextSplitter(chunk_size=60, chunk_overlap=20, add_start_index=True)
    records = [d.model_dump() for d in splitter.create_documents([read], metadatas=[{"source": "policy.txt"}])]
    return corpus, tmp_path / "dump.jsonl", read, records


def test_a_crlf_document_cut_by_a_text_mode_pipeline_is_placed_through_its_lf_view(tmp_path: Path) -> None:
    from chunkscope.io.corpus import load_corpus
    from chunkscope.reports.offsets import chunk_import_dict

    corpus_dir, dump, read, records = crlf_corpus_and_dump(tmp_path)
    corpus, _ = load_corpus(str(corpus_dir))
    original = corpus.documents[0].text
    assert "\r\n" in original and "\r" not in read and any("\n" in r["page_content"] for r in records)
    chunking = read_chunks(write(dump, records, True), corpus)
    summary = chunking.imported
    assert summary is not None
    # before: every chunk holding a line break was "not found" and eval blamed chunking
    assert (summary.exact, summary.not_found, summary.ambiguous) == (len(records), 0, 0)
    assert summary.newline_view_docs == ("policy.txt",)
    for unit, record in zip(chunking.units, records, strict=True):
        lf_start = record["metadata"]["start_index"]
        # by hand: one "\r" before every "\n" of the LF text, and the body is the file's own text
        assert unit.start == lf_start + read.count("\n", 0, lf_start)
        assert unit.text == record["page_content"].replace("\n", "\r\n") == original[unit.start : unit.end]
    notice = next(p for p in chunking.problems if "line endings differ" in p)
    assert notice.startswith(f"{dump}: line endings differ: 'policy.txt' has CRLF line endings")
    assert "placed through the universal-newlines view" in notice
    assert chunk_import_dict(summary)["newline_view_docs"] == ["policy.txt"]  # in every JSON report


def scrambled(text: str, rng: random.Random) -> str:
    """``text`` with every non-space character replaced at random: the splitter cuts it at the same places (it
    splits on whitespace and counts characters), and its chunks are unique there, so their offsets are the truth."""
    return "".join(c if c.isspace() else rng.choice(string.ascii_letters) for c in text)


def covered(spans: list[tuple[int, int]]) -> int:
    return len({c for start, end in spans for c in range(start, end)})


def test_langchain_output_with_a_known_truth_keeps_the_order_and_is_never_placed_worse() -> None:
    # The method: LangChain's own start_index (str.find from a guessed position) over text with repeated
    # words, against the truth taken from a scrambled copy that the splitter cuts at the same places.
    rng = random.Random(22)
    words = ["refund", "the", "order", "days", "support", "a", "is", "to"]
    documents = rejected = 0
    for _ in range(300):
        text = "".join(
            rng.choice(words) + rng.choice([" ", " ", "\n", "\n\n", ". "]) for _ in range(rng.randint(20, 80))
        )
        size = rng.randint(15, 60)
        splitter = splitters.RecursiveCharacterTextSplitter(
            chunk_size=size, chunk_overlap=rng.randint(0, size // 2), add_start_index=True
        )
        chunks = splitter.create_documents([text])
        twin = scrambled(text, rng)
        truth_chunks = splitter.create_documents([twin])
        if [len(c.page_content) for c in chunks] != [len(c.page_content) for c in truth_chunks] or any(
            twin.count(c.page_content) != 1 for c in truth_chunks
        ):
            continue  # the copy was cut elsewhere or a chunk repeats there: no truth for this text
        truth = [(c.metadata["start_index"], c.metadata["start_index"] + len(c.page_content)) for c in truth_chunks]
        documents += 1
        # the truth keeps the documented rule: starts and ends never decrease, never the same span twice in a row
        assert all(a[0] <= b[0] and a[1] <= b[1] and a != b for a, b in itertools.pairwise(truth))
        placed = place_in_order(text, [Piece(c.page_content, c.metadata["start_index"]) for c in chunks])
        rejected += placed.order_break is not None
        chosen = [(p.start, p.start + len(c.page_content)) for p, c in zip(placed.placements, chunks, strict=True)
                  if p.start is not None]  # fmt: skip
        if len(chosen) == len(truth) and chosen != truth:  # a wrong choice may only tie with the truth on coverage
            assert covered(chosen) == covered(truth)
    assert documents > 150
    assert rejected == 0  # before: LangChain's equal ends and equal starts rejected some documents' order
