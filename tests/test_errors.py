"""Errors keep their class and message through pickle (worker processes send them back)."""

from __future__ import annotations

import pickle

from chunkscope.errors import InputError, MissingExtraError, SpecError


def test_input_error_pickles_with_its_location() -> None:
    error = InputError("questions.jsonl", "expected a string", line=3, field="query")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is InputError
    assert str(copy) == "questions.jsonl:3: field 'query': expected a string"
    assert (copy.path, copy.line, copy.field, copy.message) == ("questions.jsonl", 3, "query", "expected a string")


def test_missing_extra_error_pickles() -> None:
    error = MissingExtraError("the tantivy retriever", "engine", "tantivy")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is MissingExtraError
    assert str(copy) == str(error)
    assert "pip install 'chunkscope[engine]'" in str(copy)


def test_spec_error_pickles() -> None:
    copy = pickle.loads(pickle.dumps(SpecError("unknown chunker 'x'")))
    assert type(copy) is SpecError and str(copy) == "unknown chunker 'x'"
