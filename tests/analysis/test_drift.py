"""Drift: RBO_ext against the paper's agreement sum, exposure and top-1 changes by hand, the query log reader."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.analysis.drift import measure_drift, rbo_ext
from chunkscope.cli import main
from chunkscope.errors import InputError
from chunkscope.io.query_log import read_query_log


def rbo_by_agreement(first: list[str], second: list[str], p: Fraction) -> Fraction:
    """RBO_ext as the paper builds it: (1 - p) * sum_d p^(d-1) * A_d over every depth d >= 1.

    A_d is the agreement at depth d, the share of the first d items the lists share, with the unseen
    items extrapolated (Webber et al. 2010, section 4.3): past the shorter list's end s its unseen items
    agree at the rate X_s / s, and past the longer list's end l the agreement stays at its value at l.
    The sum past l is geometric: p^l * A_l.
    """
    short, long = sorted((first, second), key=len)
    s, n = len(short), len(long)

    def overlap(d: int) -> int:
        return len(set(short[: min(d, s)]) & set(long[: min(d, n)]))

    def agreement(d: int) -> Fraction:
        if d <= s:
            return Fraction(overlap(d), d)
        return (overlap(d) + Fraction(overlap(s) * (d - s), s)) / d

    head = sum(((1 - p) * p ** (d - 1) * agreement(d) for d in range(1, n + 1)), Fraction(0))
    return head + p**n * agreement(n)


ITEMS = st.lists(st.sampled_from("abcdefghij"), unique=True, max_size=10)


@given(ITEMS.filter(bool), ITEMS.filter(bool), st.sampled_from([Fraction(1, 2), Fraction(9, 10), Fraction(98, 100)]))
def test_rbo_ext_equals_the_agreement_sum(first: list[str], second: list[str], p: Fraction) -> None:
    assert rbo_ext(first, second, float(p)) == pytest.approx(float(rbo_by_agreement(first, second, p)), abs=1e-12)


def test_rbo_ext_by_hand() -> None:
    # Same items, first two swapped, p = 0.5, k = 2: X_1 = 0, X_2 = 2.
    # (1 - p)/p * (0/1 * 0.5 + 2/2 * 0.25) + 2/2 * 0.25 = 0.25 + 0.25 = 0.5
    assert rbo_ext(["a", "b"], ["b", "a"], 0.5) == pytest.approx(0.5)
    # Uneven: S = [a], L = [a, b], p = 0.5: s = 1, l = 2, X_1 = 1, X_2 = 1.
    # (1-p)/p * (1 * 0.5 + 1/2 * 0.25 + 1 * (2-1)/(1*2) * 0.25) + ((1 - 1)/2 + 1/1) * 0.25 = 0.75 + 0.25 = 1
    assert rbo_ext(["a"], ["a", "b"], 0.5) == pytest.approx(1.0)
    assert rbo_ext(list("abc"), list("abc")) == pytest.approx(1.0)
    assert rbo_ext(list("abc"), list("xyz")) == 0.0
    assert rbo_ext([], []) == 1.0
    assert rbo_ext([], ["a"]) == 0.0
    with pytest.raises(ValueError, match="p must be between 0 and 1"):
        rbo_ext(["a"], ["a"], 1.0)


def test_rbo_ext_published_example() -> None:
    # The README of b4ny4n/rankmeasures (extrapolated RBO of uneven-capable lists): 0.828 for these at p = 0.9.
    assert round(rbo_ext([1, 2, 3, 4, 5], [2, 3, 4, 1, 5], 0.9), 3) == 0.828
    assert round(rbo_ext(list("abcde"), list("bcdae"), 0.9), 3) == 0.828


def test_exposure_top1_and_moved_most_by_hand() -> None:
    a = [[("c1", "d1"), ("c2", "d2"), ("c3", "d1")], [("c4", "d3")]]
    b = [[("c2", "d2"), ("c1", "d1")], [("c4", "d3")]]
    drift = measure_drift([1, 3], ["q one", "q two"], a, b, "chunk", depth=10, p=0.9)
    exposure = {shift.doc: (shift.first, shift.second) for shift in drift.exposure}
    # A: d1 at ranks 1 and 3 -> 1 + 1/log2(4) = 1.5; d2 at rank 2 -> 1/log2(3). B: d2 at 1, d1 at 2.
    assert exposure["d1"] == pytest.approx((1.5, 1 / math.log2(3)))
    assert exposure["d2"] == pytest.approx((1 / math.log2(3), 1.0))
    assert exposure["d3"] == pytest.approx((1.0, 1.0))
    assert [shift.doc for shift in drift.exposure] == ["d2", "d3", "d1"]  # gain first, loss last
    assert [q.top1_changed for q in drift.queries] == [True, False]
    assert drift.top1_change_rate == 0.5
    assert [q.line for q in drift.moved_most(1)] == [1]
    documents = measure_drift([1, 3], ["q one", "q two"], a, b, "document", depth=10, p=0.9)
    assert documents.queries[0].first == ("d1", "d2") and documents.queries[0].second == ("d2", "d1")
    shallow = measure_drift([1, 3], ["q one", "q two"], a, b, "chunk", depth=1, p=0.9)
    assert {s.doc: s.first for s in shallow.exposure}["d1"] == 1.0  # rank 3 is past the depth


def test_query_log_formats(tmp_path: Path) -> None:
    text = tmp_path / "log.txt"
    text.write_text("where is my order\n\n{not json\nrefund?\r\n", encoding="utf-8")
    log = read_query_log(text)
    assert (log.format, log.lines, log.queries) == ("text", (1, 3, 4), ("where is my order", "{not json", "refund?"))
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text('{"query": "a", "ts": 1}\n\n{"query": "b"}\n', encoding="utf-8")
    log = read_query_log(jsonl)
    assert (log.format, log.lines, log.queries) == ("jsonl", (1, 3), ("a", "b"))
    jsonl.write_text('{"query": "a"}\n{"q": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"log\.jsonl:2: field 'query': must be a non-empty string"):
        read_query_log(jsonl)
    (tmp_path / "empty.txt").write_text("\n \n", encoding="utf-8")
    with pytest.raises(InputError, match="holds no query"):
        read_query_log(tmp_path / "empty.txt")


def test_drift_cli_reports_and_protects_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "queries.jsonl"
    log.write_text('{"query": "refund after 30 days"}\n{"query": "privacy request deadline"}\n', encoding="utf-8")
    before = log.read_bytes()
    args = ["drift", "paragraph", "paragraph/overlap", "--queries", str(log)]
    assert main([*args, "--json", "-", "--depth", "5"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["level"] == "chunk" and report["depth"] == 5 and report["queries"] == 2
    assert "as JSONL" in captured.err and "comparing chunk rankings" in captured.err
    rbos = [q["rbo"] for q in report["per_query"]]
    assert report["mean_rbo"] == pytest.approx(sum(rbos) / 2)
    for query in report["per_query"]:
        assert query["rbo"] == pytest.approx(rbo_ext(query["a"], query["b"], 0.9))
        assert len(query["a"]) <= 5
    assert main([*args, "--json", str(log)]) == 2
    assert "refusing to write --json" in capsys.readouterr().err
    assert log.read_bytes() == before
    assert main(["drift", "paragraph", "paragraph", "--queries", str(log)]) == 2
    assert "nothing can drift" in capsys.readouterr().err
