"""The answers on the HTML page (issue 23 in the report of issue 24), opened in headless Chromium.

The sample data with reference answers and hand-written answers files: the page's answer numbers must be the JSON
report's, the attribution filter must list exactly the questions of a class (the JSON report's or the compare
CSV's per-question attribution), and the answers' texts must stay text. Screenshots: docs/img/html-answers*.png
with CHUNKSCOPE_SCREENSHOTS=1.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "chunkscope" / "sample_data"
HOSTILE = "<script>alert('a')</script></textarea><b>bold</b>&amp;"
CLASSES = ("ok", "generation", "retrieval", "unsupported")


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01 00:00 UTC: screenshots do not change


def _run(*argv: str) -> None:
    assert main(list(argv)) == 0


def _sample_with_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The sample questions with a reference answer (the first quote's first six words), and two answers
    files: A answers every question but q05 and judges every third one wrong; B judges every fourth one wrong.
    One answer holds markup; one row of A answers no question. Run from ``tmp_path``, so that the page names the
    answers files as the docs' screenshots show them (``answers-a.jsonl``)."""
    monkeypatch.chdir(tmp_path)
    questions = [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    with_references = tmp_path / "questions.jsonl"
    with with_references.open("w", encoding="utf-8") as out:
        for q in questions:
            first = q["evidence"][0]
            quote = first.get("quote") or first.get("any", [{}])[0].get("quote")
            references = [" ".join(quote.split()[:6])] if quote else []  # q26's gold is offsets: no reference
            out.write(json.dumps({**q, "answers": references}, ensure_ascii=False) + "\n")
    files = {"questions": with_references, "a": Path("answers-a.jsonl"), "b": Path("answers-b.jsonl")}
    with files["a"].open("w", encoding="utf-8") as a, files["b"].open("w", encoding="utf-8") as b:
        for i, q in enumerate(questions):
            answer = HOSTILE if q["id"] == "q02" else f"answer {i} to {q['id']}"
            if q["id"] != "q05":
                a.write(json.dumps({"id": q["id"], "answer": answer, "correct": i % 3 != 0}) + "\n")
            b.write(json.dumps({"id": q["id"], "answer": f"B's {answer}", "correct": i % 4 != 0}) + "\n")
        a.write(json.dumps({"id": "nobody", "answer": "no such question", "correct": True}) + "\n")
    return files


def _check_attribution(page: Any, index: int, block: dict[str, Any]) -> None:
    """The attribution of configuration ``index`` on the page equals the report's ``block``."""
    box = f".answers-of[data-config='{index}']"
    cells = page.js(
        f'return [...document.querySelectorAll("{box} .attribution-table td[data-class]")]'
        ".map(td => [td.parentNode.dataset.cause, td.dataset.class, JSON.parse(td.dataset.value), td.textContent])"
    )
    expected = {(cause, k): n for cause, row in block["by_cause"].items() for k, n in row.items()}
    expected |= {("all", k): n for k, n in block["attribution"].items()}
    assert {(cause, k): n for cause, k, n, _ in cells} == expected
    assert all(text == str(n) for _, _, n, text in cells)
    counts = page.js(
        f'return Object.fromEntries([...document.querySelectorAll("{box} [data-count]")]'
        ".map(s => [s.dataset.count, JSON.parse(s.dataset.value)]))"
    )
    assert counts == {
        "answered": block["answered"],
        "correct": block["correct"],
        "correct_rate": block["correct_rate"],
        "unanswered": block["unanswered"],
        "unmatched_rows": len(block["unmatched_rows"]),
        "duplicate_rows": len(block["duplicate_rows"]),
    }
    for stat in ("agreement", "phi"):
        shown = page.js(
            f"var s = document.querySelector(\"{box} [data-stat='{stat}']\");"
            " return [s.dataset.value, s.dataset.low, s.dataset.high].map(JSON.parse)"
        )
        assert shown == [block[stat]["value"], block[stat]["low"], block[stat]["high"]]
    why = page.js(f'return document.querySelector("{box} .why").textContent')
    assert why == block["why_this_configuration"]
    assert block["configuration"] in page.js(f'return document.querySelector("{box} h3").textContent')


def _filter_lists(page: Any, value: str) -> list[str]:
    page.js(
        "var s = document.getElementById('answer-filter'); s.value = arguments[0];"
        " s.dispatchEvent(new Event('change'))",
        value,
    )
    assert page.js("return document.getElementById('answer-filter').value") == value
    return list(page.shown_ids())


def _option_counts(page: Any) -> dict[str, Any]:
    return dict(
        page.js(
            "return [...document.querySelectorAll('#answer-filter option')].filter(o => o.value)"
            ".map(o => [o.value, JSON.parse(o.dataset.count)])"
        )
    )


def test_eval_page_shows_the_answers_of_the_json_report(
    open_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _sample_with_answers(tmp_path, monkeypatch)
    _run(
        "eval", "--corpus", str(SAMPLE / "corpus"), "--questions", str(files["questions"]),
        "--chunker", "fixed:size=200", "--chunker", "paragraph", "--answers", str(files["a"]),
        "--answers-config", "2", "--answer-in-context",
        "--json", str(tmp_path / "e.json"), "--html", str(tmp_path / "e.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    block = report["configs"][1]["answers"]["answers"]
    assert "answers" not in report["configs"][0]["answers"]  # the answers belong to the second configuration only
    page = open_page(tmp_path / "e.html")
    _check_attribution(page, 1, block)
    assert page.js("return document.querySelectorAll('.answers-of').length") == 1
    owners = page.js("return [...document.querySelectorAll('#provenance .answers-owner')].map(p => p.textContent)")
    assert owners == [
        f"Answers (answers-a.jsonl) belong to {owner['configuration']}: {owner['why']}."
        for owner in report["answers_configurations"]
    ]
    in_context = page.js(
        "return [...document.querySelectorAll('#answer-in-context td[data-metric]')]"
        ".map(td => [Number(td.parentNode.dataset.config), td.dataset.metric, JSON.parse(td.dataset.value)])"
    )
    names = ("answer_in_context", "answer_in_context_rate", "questions_with_references")
    assert sorted(map(tuple, in_context)) == sorted(
        (i, name, c["answers"][name]) for i, c in enumerate(report["configs"]) for name in names
    )
    # the filter: one option per class (and "no answer") of the answered configuration, with the report's counts
    questions = report["configs"][1]["questions"]
    assert _option_counts(page) == {f"1:{k}": block["attribution"][k] for k in CLASSES} | {
        "1:none": block["unanswered"]
    }
    for k in CLASSES:
        assert _filter_lists(page, f"1:{k}") == [q["id"] for q in questions if q["answer_attribution"] == k]
    assert _filter_lists(page, "1:none") == [q["id"] for q in questions if q["answer_attribution"] is None]
    # a question's detail: the answer, its judgment and class beside the evidence, the references; markup as text
    _filter_lists(page, "")
    page.js("document.querySelector('#qlist .qrow[data-id=q02]').click()")
    q02 = next(q for q in questions if q["id"] == "q02")
    answer = page.js(
        "var a = document.querySelector('#detail .run[data-label=\"paragraph/bm25\"] .answer');"
        " return [a.dataset.attribution, a.querySelector('.answer-text').textContent,"
        " a.querySelector('[data-correct]').dataset.correct]"
    )
    assert answer == [q02["answer_attribution"], HOSTILE, json.dumps(q02["answer_correct"])]
    assert page.js("return document.querySelector('#detail .run:first-child .answer')") is None  # not the first one's
    references = page.js("return document.getElementById('detail-references').textContent")
    first_quote = "the 30-day period starts on the"  # its first six words
    assert references == f"references: “{first_quote}”"
    assert page.js("return [...document.querySelectorAll('b')].filter(b => b.textContent === 'bold').length") == 0
    page.assert_quiet()
    page.screenshot("html-answers", "answers")
    page.js("document.getElementById('answer-filter').value = '1:generation';"
            " document.getElementById('answer-filter').dispatchEvent(new Event('change'))")  # fmt: skip
    page.screenshot("html-answers-question", "questions")


def test_compare_page_shows_answer_transitions_and_filters_by_side(
    open_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _sample_with_answers(tmp_path, monkeypatch)
    _run(
        "compare", "fixed:size=200", "paragraph", "--corpus", str(SAMPLE / "corpus"),
        "--questions", str(files["questions"]), "--permutations", "200",
        "--answers", str(files["a"]), "--answers", str(files["b"]), "--answer-margin", "0.1",
        "--json", str(tmp_path / "c.json"), "--csv", str(tmp_path / "c.csv"), "--html", str(tmp_path / "c.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "c.html")
    for i, side in enumerate(report["answers"]["configs"]):
        _check_attribution(page, i, side["answers"])
    _check_transitions(page, report["answers"]["transitions"])
    rows = list(csv.DictReader((tmp_path / "c.csv").open(encoding="utf-8")))
    for side, index in (("a", 0), ("b", 1)):
        for k in CLASSES:
            expected = [r["question"] for r in rows if r[f"answer_attribution_{side}"] == k]
            assert _filter_lists(page, f"{index}:{k}") == expected
    assert _filter_lists(page, "0:none") == ["q05"]
    _filter_lists(page, "")
    _answer_cells_filter_exactly(page, rows, report["answers"]["transitions"])
    page.assert_quiet()
    _filter_lists(page, "")
    page.screenshot("html-compare-answers", "answer-transitions-head")


def _moves(rows: list[dict[str, str]]) -> dict[str, tuple[str, str]]:
    """Each question answered under A and B: its evidence and answer transitions, by their definitions in
    docs/metrics.md, from the compare CSV's complete and answer_correct columns."""
    evidence = {("1", "1"): "stayed complete", ("0", "1"): "became complete", ("1", "0"): "became incomplete"}
    answer = {("1", "1"): "stayed correct", ("0", "1"): "turned correct", ("1", "0"): "turned wrong"}
    return {
        r["question"]: (
            evidence.get((r["complete_a"], r["complete_b"]), "stayed incomplete"),
            answer.get((r["answer_correct_a"], r["answer_correct_b"]), "stayed wrong"),
        )
        for r in rows
        if r["answer_correct_a"] and r["answer_correct_b"]
    }


def _answer_cells_filter_exactly(page: Any, rows: list[dict[str, str]], transitions: dict[str, Any]) -> None:
    """Each cell of the answer transitions lists exactly its questions; clicking it again clears the filter."""
    moves = _moves(rows)
    clicked = 0
    for e, row in transitions["transitions"].items():
        for a, count in row.items():
            cell = f"#answer-transitions td[data-evidence='{e}'][data-answer='{a}'] button"
            page.js("document.querySelector(arguments[0]).click()", cell)
            shown = page.shown_ids()
            assert shown == [r["question"] for r in rows if moves.get(r["question"]) == (e, a)]
            assert len(shown) == count
            clicked += bool(count)
            page.js("document.querySelector(arguments[0]).click()", cell)
            assert len(page.shown_ids()) == len(rows)
    assert clicked >= 4  # the sample's answers move in several ways: the check is not vacuous


def _check_transitions(page: Any, transitions: dict[str, Any]) -> None:
    cells = page.js(
        "return [...document.querySelectorAll('#answer-transitions td[data-evidence]')]"
        ".map(td => [td.dataset.evidence, td.dataset.answer, JSON.parse(td.dataset.value)])"
    )
    assert {(e, a): n for e, a, n in cells} == {
        (e, a): n for e, row in transitions["transitions"].items() for a, n in row.items()
    }
    fields = page.js(
        "return Object.fromEntries([...document.querySelectorAll('#answer-tests td[data-field]')]"
        ".map(td => [td.dataset.field, JSON.parse(td.dataset.value)]))"
    )
    names = ("answer_rate_a", "answer_rate_b", "delta", "p_value", "evidence_p_value")
    assert fields == {name: transitions[name] for name in names}
    assert page.js("return document.getElementById('answer-summary').textContent") == transitions["summary"] + "."
    if "equivalence" not in transitions:  # no --answer-margin
        assert page.js("return document.getElementById('answer-equivalence')") is None
        return
    equivalence = page.js("return JSON.parse(document.querySelector('[data-field=equivalence_p]').dataset.value)")
    assert equivalence == transitions["equivalence"]["p_value"]


def test_saved_reports_render_their_answers(open_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _sample_with_answers(tmp_path, monkeypatch)
    common = ("--corpus", str(SAMPLE / "corpus"), "--questions", str(files["questions"]))
    _run("eval", *common, "--answers", str(files["a"]), "--json", str(tmp_path / "e.json"))
    _run("report", str(tmp_path / "e.json"), "--html", str(tmp_path / "e.html"))
    report = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "e.html")
    _check_attribution(page, 0, report["configs"][0]["answers"]["answers"])
    questions = report["configs"][0]["questions"]
    for k in CLASSES:
        assert _filter_lists(page, f"0:{k}") == [q["id"] for q in questions if q["answer_attribution"] == k]
    page.js("document.querySelector('#qlist .qrow').click()")
    shown = page.js("return document.querySelector('#detail .answer').dataset.attribution")
    assert shown == next(q for q in questions if q["id"] == page.selected_id())["answer_attribution"]
    page.assert_quiet()
    _run(
        "compare", "fixed:size=200", "paragraph", *common, "--permutations", "200",
        "--answers", str(files["a"]), "--answers", str(files["b"]), "--answer-margin", "0.1",
        "--json", str(tmp_path / "c.json"),
    )  # fmt: skip
    _run("report", str(tmp_path / "c.json"), "--html", str(tmp_path / "c.html"))
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "c.html")
    for i, side in enumerate(report["answers"]["configs"]):
        _check_attribution(page, i, side["answers"])
    _check_transitions(page, report["answers"]["transitions"])
    assert page.js("return document.getElementById('answer-filter')") is None  # no per-question answers saved
    page.assert_quiet()


def test_a_page_without_answers_has_no_answer_section(open_page: Any, tmp_path: Path) -> None:
    _run("eval", "--html", str(tmp_path / "e.html"))
    page = open_page(tmp_path / "e.html")
    assert page.js("return document.getElementById('answers').hidden") is True
    assert page.js("return document.getElementById('answer-filter')") is None
    page.assert_quiet()


@pytest.mark.jsquad
def test_jsquad_compare_page_with_answers_judged_by_exact_match(
    open_page: Any, tmp_path: Path, jsquad_path: Path, jsquad: Any
) -> None:
    """3,973 questions: answers for A and B (the first reference, or 不明 for every third / fourth question),
    judged by the built-in exact match; the page's numbers and filters against the JSON report and the CSV."""
    questions = jsquad.questions.questions
    for name, every in (("a", 3), ("b", 4)):
        with (tmp_path / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for i, q in enumerate(questions):
                answer = q.references[0] if i % every else "不明"
                out.write(json.dumps({"id": q.id, "answer": answer}, ensure_ascii=False) + "\n")
    _run(
        "compare", "fixed:size=200", "fixed:size=400", "--squad", str(jsquad_path), "--permutations", "200",
        "--answers", str(tmp_path / "a.jsonl"), "--answers", str(tmp_path / "b.jsonl"), "--judge", "em",
        "--json", str(tmp_path / "c.json"), "--csv", str(tmp_path / "c.csv"), "--html", str(tmp_path / "c.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "c.html")
    for i, side in enumerate(report["answers"]["configs"]):
        _check_attribution(page, i, side["answers"])
    _check_transitions(page, report["answers"]["transitions"])
    rows = list(csv.DictReader((tmp_path / "c.csv").open(encoding="utf-8")))
    for side, index in (("a", 0), ("b", 1)):
        for k in CLASSES:
            expected = [r["question"] for r in rows if r[f"answer_attribution_{side}"] == k]
            assert _filter_lists(page, f"{index}:{k}") == expected
    _filter_lists(page, "")
    _answer_cells_filter_exactly(page, rows, report["answers"]["transitions"])
    # the first "generation" question of B: its references, and B's answer judged wrong (so 不明, not a reference)
    generation = _filter_lists(page, "1:generation")
    chosen = page.selected_id()
    assert chosen == generation[0]
    question = next(q for q in questions if q.id == chosen)
    references = page.js(
        "return [...document.querySelectorAll('#detail-references .reference > span')].map(s => s.textContent)"
    )
    assert references == list(question.references)
    answer = page.js("return document.querySelectorAll('#detail .run')[1].querySelector('.answer-text').textContent")
    assert answer == "不明"
    assert page.js(
        "return document.querySelectorAll('#detail .run')[1].querySelector('.answer').dataset.attribution"
    ) == ("generation")
    page.assert_quiet()


def test_eval_with_a_reader_answers_every_configuration_and_filters_each(
    open_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugins: Path
) -> None:
    files = _sample_with_answers(tmp_path, monkeypatch)
    _run(
        "eval", "--corpus", str(SAMPLE / "corpus"), "--questions", str(files["questions"]),
        "--chunker", "fixed:size=200", "--chunker", "paragraph",
        "--reader", "python:cs_plugins.answering:first_chunk",
        "--judge", "python:cs_plugins.answering:contains_reference",
        "--json", str(tmp_path / "e.json"), "--html", str(tmp_path / "e.html"),
    )  # fmt: skip
    report = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    page = open_page(tmp_path / "e.html")
    labels = page.js("return [...document.querySelectorAll('#answer-filter option')].map(o => o.textContent)")
    for i, config in enumerate(report["configs"]):
        block = config["answers"]["answers"]
        _check_attribution(page, i, block)
        assert sum(1 for k in CLASSES if block["attribution"][k]) >= 2  # the filter checks below are not vacuous
        assert f"{block['configuration']}: generation ({block['attribution']['generation']})" in labels
        for k in CLASSES:
            expected = [q["id"] for q in config["questions"] if q["answer_attribution"] == k]
            assert _filter_lists(page, f"{i}:{k}") == expected
    _filter_lists(page, "")
    marks = page.js(
        "return [...document.querySelectorAll('#qlist .qrow')][0].querySelectorAll('[data-attribution]').length"
    )
    assert marks == 2  # one mark per answered configuration
    page.assert_quiet()
