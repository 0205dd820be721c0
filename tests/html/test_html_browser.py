"""The HTML reports opened in a real browser (headless Chromium): the numbers, the filters, the keys, the quiet.

Each page must show the JSON report's numbers, request nothing but its own file and log no error.
The screenshots for docs/html.md are taken here (docs/img/html-*.png with CHUNKSCOPE_SCREENSHOTS=1).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01 00:00 UTC: screenshots do not change


def _run(*argv: str) -> None:
    assert main(list(argv)) == 0


def _close(shown: str, value: float) -> bool:
    """The page's text of ``value``: the integer, or four decimals."""
    return shown == str(value) if isinstance(value, int) else abs(float(shown) - value) <= 0.5e-4 + 1e-12


def _check_configs(page: Any, report: dict[str, Any]) -> None:
    """Metrics, rank buckets and failure causes on the page equal each configuration's in the report."""
    cells = page.js(
        "return [...document.querySelectorAll('#metrics-table td[data-metric]')]"
        ".map(td => [Number(td.dataset.config), td.dataset.metric, td.dataset.value, td.firstChild.textContent])"
    )
    expected = {(i, k) for i, c in enumerate(report["configs"]) for k in c["summary"] if k != "rank_buckets"}
    assert {(i, k) for i, k, _, _ in cells} == expected
    for i, metric, value, shown in cells:
        truth = report["configs"][i]["summary"][metric]
        assert json.loads(value) == truth
        assert _close(shown, truth)
    buckets = page.js(
        "return [...document.querySelectorAll('#bucket-table [data-bucket]')]"
        ".map(s => [Number(s.dataset.config), s.dataset.bucket, Number(s.dataset.value)])"
    )
    assert {(i, b): n for i, b, n in buckets} == {
        (i, b): n for i, c in enumerate(report["configs"]) for b, n in c["summary"]["rank_buckets"].items()
    }
    causes = page.js(
        "return [...document.querySelectorAll('#causes-table td[data-cause]')]"
        ".map(td => [Number(td.dataset.config), td.dataset.cause, Number(td.dataset.value)])"
    )
    assert {(i, k): n for i, k, n in causes} == {
        (i, k): n for i, c in enumerate(report["configs"]) for k, n in c["diagnosis"]["counts"].items()
    }
    shown_inputs = page.js("return [...document.querySelectorAll('#inputs td:nth-child(2)')].map(td => td.textContent)")
    assert shown_inputs == [entry["sha256"] for entry in report["inputs"]]


def test_sample_eval_page_shows_the_report_numbers_and_steps_through_failing_questions(
    open_page: Any, tmp_path: Path
) -> None:
    _run("eval", "--json", str(tmp_path / "eval.json"), "--html", str(tmp_path / "eval.html"))
    report = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "eval.html")
    _check_configs(page, report)
    ids = [q["id"] for q in report["configs"][0]["questions"]]
    failing = [
        qid
        for position, qid in enumerate(ids)
        if any(c["questions"][position]["failure_cause"] != "OK" for c in report["configs"])
    ]
    assert page.selected_id() == ids[0]
    # n walks the failing questions in order from the selected one, wrapping; N walks back
    start = ids.index(next(q for q in failing if ids.index(q) > 0))
    expected = [q for q in failing if ids.index(q) >= start] + [q for q in failing if ids.index(q) < start]
    seen = []
    for _ in failing:
        page.press("n")
        seen.append(page.selected_id())
    assert seen == expected
    page.press("N")
    assert page.selected_id() == expected[-2]
    page.press("j")
    assert page.selected_id() == ids[ids.index(expected[-2]) + 1]
    page.press("k")
    assert page.selected_id() == expected[-2]
    # the detail shows the selected question's text and per configuration its cause
    detail = page.js("return document.getElementById('detail').textContent")
    assert expected[-2] in detail
    # '/' focuses the filter box; typing filters by id
    page.press("/")
    assert page.js("return document.activeElement.id") == "filter"
    page.driver.switch_to.active_element.send_keys("q1")
    assert page.shown_ids() == [q for q in ids if "q1" in q]
    page.js("document.getElementById('clear-filter').click()")
    # q39's gold [380, 421) is cut at 400 by fixed:size=200 (the hand-checked case of tests/reports/test_casefile.py)
    page.js("document.querySelector('#qlist .qrow[data-id=q39]') || document.getElementById('qlist').scrollTo(0, 9999)")
    page.js("document.querySelector('#qlist .qrow[data-id=q39]').click()")
    first_run = page.js("return document.querySelector('#detail .run').textContent")
    assert "⟦周囲の温度が0℃を下回ると、低温時バッテ✂リー保護機能がはたらき、充電を停止します。⟧" in first_run
    assert "CUT" in first_run
    page.assert_quiet()
    page.screenshot("html-eval")
    page.screenshot("html-eval-question", "questions")


def test_saved_report_page_shows_the_same_numbers(open_page: Any, tmp_path: Path) -> None:
    _run("eval", "--chunker", "fixed:size=200", "--chunker", "paragraph", "--json", str(tmp_path / "eval.json"))
    _run("report", str(tmp_path / "eval.json"), "--html", str(tmp_path / "saved.html"))
    report = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "saved.html")
    _check_configs(page, report)
    assert page.shown_ids() == [q["id"] for q in report["configs"][0]["questions"]]
    page.assert_quiet()


def test_saved_compare_page_lists_the_moved_questions_by_transition_cell(open_page: Any, tmp_path: Path) -> None:
    saved = tmp_path / "c.json"
    _run("compare", "fixed:size=200", "paragraph", "--permutations", "100", "--json", str(saved))
    _run("report", str(saved), "--html", str(tmp_path / "saved.html"))
    report = json.loads(saved.read_text(encoding="utf-8"))
    page = open_page(tmp_path / "saved.html")
    _check_configs(page, report)
    _check_tests(page, report)
    moved = report["comparison"]["moved"]
    assert page.shown_ids() == [m["id"] for m in moved]
    cells = {(m["state_a"], m["state_b"]) for m in moved}
    for a, b in sorted(cells):
        button = f"#transition-table td[data-a='{a}'][data-b='{b}'] button"
        page.js(f'document.querySelector("{button}").click()')
        assert page.shown_ids() == [m["id"] for m in moved if (m["state_a"], m["state_b"]) == (a, b)]
        page.js(f'document.querySelector("{button}").click()')
    page.assert_quiet()


def test_sample_sweep_page_draws_every_configuration_and_the_frontier(open_page: Any, tmp_path: Path) -> None:
    _run(
        "sweep", "--size", "200,400", "--overlap", "0,0.2", "--permutations", "200",
        "--json", str(tmp_path / "sweep.json"), "--html", str(tmp_path / "sweep.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "sweep.html")
    _check_configs(page, report)
    points = page.js(
        "return [...document.querySelectorAll('#scatter [data-label]')]"
        ".map(p => [p.dataset.label, p.classList.contains('onf')])"
    )
    assert sorted(map(tuple, points)) == sorted((c["label"], c["pareto"]) for c in report["configs"])
    assert sorted(label for label, on in points if on) == sorted(report["pareto"]["frontier"])
    heat = page.js(
        "return [...document.querySelectorAll('#heatmap td[data-label]')]"
        ".map(td => [td.dataset.label, JSON.parse(td.dataset.value)])"
    )
    metric = report["pareto"]["metric"]
    by_label = {c["label"]: c["summary"][metric] for c in report["configs"]}
    cells = [label for row in report["grid"]["cells"] for label in row if label]
    assert sorted(map(tuple, heat)) == sorted((label, by_label[label]) for label in cells)
    # a question's detail: two configurations of the sweep side by side, each one chosen
    runs = page.js("return [...document.querySelectorAll('#detail .run')].map(r => r.dataset.label)")
    assert runs == [report["configs"][0]["label"], report["configs"][1]["label"]]
    page.js("var s = document.getElementById('run-select-1'); s.value = '3'; s.dispatchEvent(new Event('change'))")
    runs = page.js("return [...document.querySelectorAll('#detail .run')].map(r => r.dataset.label)")
    assert runs == [report["configs"][0]["label"], report["configs"][3]["label"]]
    page.assert_quiet()
    page.screenshot("html-sweep", "sweepmap")


def _transition_cells_filter_exactly(page: Any, csv_path: Path, report: dict[str, Any]) -> None:
    """Every transition cell equals the report's count, and clicking it lists exactly its questions (the CSV's)."""
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    matrix = report["comparison"]["transitions"]["rows_a_columns_b"]
    states = report["comparison"]["transitions"]["states"]
    for i, a in enumerate(states):
        for j, b in enumerate(states):
            cell = f"#transition-table td[data-a='{a}'][data-b='{b}']"
            assert int(page.js(f'return document.querySelector("{cell}").dataset.value')) == matrix[i][j]
            if not matrix[i][j]:
                continue
            page.js(f'document.querySelector("{cell} button").click()')
            assert page.shown_ids() == [r["question"] for r in rows if (r["state_a"], r["state_b"]) == (a, b)]
            page.js(f'document.querySelector("{cell} button").click()')  # again: cleared
            assert int(page.js("return document.getElementById('count').dataset.shown")) == len(rows)


def _check_tests(page: Any, report: dict[str, Any]) -> None:
    shown = page.js(
        "return [...document.querySelectorAll('#tests-table tr[data-metric]')].map(tr => [tr.dataset.metric,"
        " [...tr.querySelectorAll('td[data-value]')].map(td => JSON.parse(td.dataset.value)),"
        " JSON.parse(tr.querySelector('[data-low]').dataset.low),"
        " JSON.parse(tr.querySelector('[data-high]').dataset.high),"
        " tr.querySelector('[data-significant]').dataset.significant === 'true'])"
    )
    assert shown == [
        [
            t["metric"],
            [t["mean_a"], t["mean_b"], t["delta"], t["p_value"]],
            t["ci95"][0],
            t["ci95"][1],
            t["significant"],
        ]
        for t in report["comparison"]["tests"]
    ]


def test_sample_compare_page_filters_by_transition_cell(open_page: Any, tmp_path: Path) -> None:
    _run(
        "compare", "fixed:size=200", "paragraph", "--permutations", "200",
        "--json", str(tmp_path / "c.json"), "--csv", str(tmp_path / "c.csv"), "--html", str(tmp_path / "c.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "c.html")
    _check_configs(page, report)
    _check_tests(page, report)
    _transition_cells_filter_exactly(page, tmp_path / "c.csv", report)
    page.assert_quiet()
    page.driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
    )
    assert page.js("return matchMedia('(prefers-color-scheme: dark)').matches")
    assert page.js("return getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 26)"
    page.screenshot("html-compare-dark", "questions")
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


@pytest.mark.jsquad
def test_jsquad_compare_page(open_page: Any, tmp_path: Path, jsquad_path: Path) -> None:
    _run(
        "compare", "fixed:size=200", "fixed:size=400", "--squad", str(jsquad_path), "--permutations", "200",
        "--json", str(tmp_path / "c.json"), "--csv", str(tmp_path / "c.csv"), "--html", str(tmp_path / "c.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "c.html")
    _check_configs(page, report)
    _check_tests(page, report)
    _transition_cells_filter_exactly(page, tmp_path / "c.csv", report)
    rows = list(csv.DictReader((tmp_path / "c.csv").open(encoding="utf-8")))
    page.js("document.querySelector('#qlist .qrow').click()")
    page.press("n")
    assert page.selected_id() == next(r["question"] for r in rows[1:] if r["cause_a"] != "OK" or r["cause_b"] != "OK")
    page.assert_quiet()
    page.screenshot("html-compare", "transitions")
    page.screenshot("html-compare-question", "questions")


HOSTILE = "<script>alert('x')</script></textarea><b>bold</b>&amp;"


def test_text_that_looks_like_markup_is_shown_as_text(open_page: Any, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    questions = tmp_path / "questions.jsonl"
    doc_id = "doc</textarea><script>alert(1)</script>"
    text = f"Intro {HOSTILE} middle. The gold {HOSTILE} sits here. Outro </script> end."
    corpus.write_text(json.dumps({"id": doc_id, "text": text}) + "\n", encoding="utf-8")
    question = {
        "id": "q</script><script>alert(2)</script>",
        "query": f"where is {HOSTILE}?",
        "evidence": [{"doc": doc_id, "quote": f"The gold {HOSTILE}"}],
    }
    questions.write_text(json.dumps(question) + "\n", encoding="utf-8")
    html = tmp_path / "hostile.html"
    _run(
        "eval",
        "--corpus",
        str(corpus),
        "--questions",
        str(questions),
        "--chunker",
        "fixed:size=40",
        "--html",
        str(html),
    )
    page = open_page(html)  # an alert would fail every call that follows
    assert page.js("return document.querySelectorAll('script').length") == 2
    assert page.js("return document.querySelectorAll('textarea, main script').length") == 0
    # an element of its own would hold the text 'bold' alone
    assert page.js("return [...document.querySelectorAll('b')].filter(b => b.textContent === 'bold').length") == 0
    assert page.selected_id() == question["id"]
    assert (
        page.js("return document.getElementById('detail-query').textContent")
        == question["id"] + "  " + question["query"]
    )
    detail = page.js("return document.getElementById('detail').textContent")
    assert doc_id in detail and HOSTILE in detail
    page.assert_quiet()


def test_a_saved_report_without_causes_or_buckets_still_renders_quietly(open_page: Any, tmp_path: Path) -> None:
    """A report of an older chunkscope, without diagnosis or rank buckets: the sections it lacks are left out."""
    _run("eval", "--json", str(tmp_path / "eval.json"))
    report = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
    for config in report["configs"]:
        del config["diagnosis"], config["summary"]["rank_buckets"]
    (tmp_path / "old.json").write_text(json.dumps(report), encoding="utf-8")
    _run("report", str(tmp_path / "old.json"), "--html", str(tmp_path / "old.html"))
    page = open_page(tmp_path / "old.html")
    assert page.js("return ['buckets', 'causes'].map(id => document.getElementById(id).hidden)") == [True, True]
    assert page.js("return document.querySelectorAll('#metrics-table td[data-metric]').length") > 0
    page.assert_quiet()
