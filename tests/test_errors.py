"""Errors keep their class and message through pickle (worker processes send them back)."""

from __future__ import annotations

import pickle

from chunkscope.errors import InputError, MissingExtraError, SpecError
from chunkscope.io.gold import BadGold, BadGoldGroup


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


def test_bad_gold_pickles_with_what_a_lenient_load_lists() -> None:
    first = BadGold(
        "h.json", "sentence 5 is outside", line=3, field="f[0][1]", reason="r", kind="out_of_range", doc="D"
    )
    second = BadGold("h.json", "title 'X' is not in the context", line=3, field="f[1][0]", kind="not_found", quote="X")
    group = pickle.loads(pickle.dumps(BadGoldGroup([first, second])))
    assert isinstance(group, BadGoldGroup)
    assert str(group) == str(first)
    assert [(i.kind, i.where, i.doc, i.quote, i.message) for i in group.as_issues("q")] == [
        ("out_of_range", "h.json:3 field 'f[0][1]'", "D", "", "sentence 5 is outside"),
        ("not_found", "h.json:3 field 'f[1][0]'", None, "X", "title 'X' is not in the context"),
    ]
    assert pickle.loads(pickle.dumps(first)).reason == "r"
