"""``input_conflict``: the one rule for where reports and exports may not go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chunkscope.io.outputs import input_conflict


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    (corpus / "en").mkdir(parents=True)
    (corpus / "en" / "a.md").write_text("Alpha.", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    questions.write_text("{}\n", encoding="utf-8")
    return corpus, questions


def test_an_input_file_is_refused_by_any_name(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    _, questions = inputs
    link = tmp_path / "link.json"
    link.symlink_to(questions)
    hard = tmp_path / "hard.json"
    os.link(questions, hard)
    for target in (questions, link, hard, tmp_path / "corpus" / ".." / "questions.jsonl"):
        assert input_conflict(target, inputs) == f"it is an input file ({questions})"


def test_a_corpus_document_is_refused_and_other_files_there_are_not(inputs: tuple[Path, Path]) -> None:
    corpus, _ = inputs
    refusal = f"it would add a document to the corpus directory {corpus}"
    for document in (corpus / "en" / "a.md", corpus / "new.md", corpus / "en" / "Notes.TXT"):
        assert input_conflict(document, inputs) == refusal
    for other in (corpus / "report.json", corpus / "en" / "cases.csv"):
        assert input_conflict(other, inputs) is None


def test_a_new_file_elsewhere_is_allowed(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    assert input_conflict(tmp_path / "case.md", inputs) is None
    assert input_conflict(tmp_path / "questions.jsonl.bak", inputs) is None
    assert input_conflict(tmp_path / "case.md", ()) is None


def test_a_corpus_document_reached_through_a_symlink_or_hard_link_is_refused(tmp_path: Path) -> None:
    # corpus/policy.md is a symlink to notes/policy.md: --markdown notes/policy.md overwrote the input, as the
    # check compared the target with the corpus folder, not with the files read from it.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "policy.md").write_text("Policy.", encoding="utf-8")
    (notes / "rules.txt").write_text("Rules.", encoding="utf-8")
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "policy.md").symlink_to(notes / "policy.md")
    os.link(notes / "rules.txt", corpus / "sub" / "rules.txt")
    assert input_conflict(notes / "policy.md", [corpus]) == (
        f"it is the document {corpus / 'policy.md'} of the corpus directory {corpus} (through a link)"
    )
    assert input_conflict(notes / "rules.txt", [corpus]) == (
        f"it is the document {corpus / 'sub' / 'rules.txt'} of the corpus directory {corpus} (through a link)"
    )
    (notes / "other.md").write_text("Other.", encoding="utf-8")
    assert input_conflict(notes / "other.md", [corpus]) is None
