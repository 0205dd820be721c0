"""``--html`` on the commands and ``chunkscope report``: report-target checks, the gate, bad saved reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkscope.cli import main


def _data(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, flags=re.DOTALL)
    assert found is not None
    return dict(json.loads(found.group(1)))


def test_the_gate_writes_the_html_report_before_failing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    html, report = tmp_path / "gate.html", tmp_path / "gate.json"
    code = main(["eval", "--fail-if", "lost>0", "--json", str(report), "--html", str(html)])
    assert code == 1
    assert "gate failed" in capsys.readouterr().err
    data = _data(html.read_text(encoding="utf-8"))
    assert data["kind"] == "eval"
    assert data["report"] == json.loads(report.read_text(encoding="utf-8"))


def test_html_goes_through_the_report_target_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same = tmp_path / "both"
    assert main(["eval", "--json", str(same), "--html", str(same)]) == 2
    assert "--html and --json both write" in capsys.readouterr().err
    assert main(["eval", "--html", str(tmp_path)]) == 2  # a directory
    assert "cannot write --html" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_report_renders_a_saved_report_to_stdout_and_refuses_to_overwrite_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "compare.json"
    assert main(["compare", "fixed:size=200", "paragraph", "--permutations", "100", "--json", str(saved)]) == 0
    capsys.readouterr()
    before = saved.read_bytes()
    assert main(["report", str(saved), "--html", "-"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>")
    data = _data(page)
    assert (data["kind"], data["detail"], data["report"]) == ("compare", None, json.loads(before))
    assert main(["report", str(saved), "--html", str(saved)]) == 2
    assert "it is an input file" in capsys.readouterr().err
    assert saved.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"chunkscope_version": "0.1.0", "inputs": [{"path": "a", "sha', ":1: truncated JSON"),
        ('{"explanations": []}', "not a chunkscope eval, compare or sweep report"),
        ('{"chunkscope_version": "99.0", "inputs": [], "configs": [{"summary": {}}]}', "newer than this chunkscope"),
        ("", ":1: truncated JSON"),
    ],
)
def test_report_refuses_what_it_cannot_render_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    saved = tmp_path / "results.json"
    saved.write_text(text, encoding="utf-8")
    assert main(["report", str(saved), "--html", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(saved) in err and says in err
    assert not (tmp_path / "out.html").exists()


def test_the_page_is_the_same_bytes_whatever_the_worker_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    pages = []
    for jobs in ("1", "2"):
        page = tmp_path / f"sweep-{jobs}.html"
        arguments = ["sweep", "--size", "200,400", "--permutations", "100", "--jobs", jobs, "--html", str(page)]
        assert main(arguments) == 0
        pages.append(page.read_bytes())
    assert pages[0] == pages[1]
    assert b"generated 1970-01-01 00:00 UTC" not in pages[0]  # the date is in the data, not the markup
    assert b'"generated":"1970-01-01 00:00 UTC"' in pages[0]
