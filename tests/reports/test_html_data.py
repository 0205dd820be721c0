"""The data an HTML report embeds: the JSON report as it is, and per-question detail that agrees with it."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from chunkscope.analysis.compare import compare
from chunkscope.errors import InputError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.compare import compare_csv, compare_report
from chunkscope.reports.eval import eval_report
from chunkscope.reports.html_data import ROW_FIELDS, html_data, load_report, report_kind, saved_report_data

SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "src" / "chunkscope" / "sample_data" / "questions.jsonl"


@pytest.fixture(scope="module")
def evaluated(sample: Dataset) -> tuple[Dataset, list[Any]]:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    return sample, [evaluator.evaluate(make_config(spec)) for spec in ("fixed:size=200", "paragraph")]


def _state(question: dict[str, Any]) -> str:
    """The transition state by the definition in docs/metrics.md, from the JSON report's fields."""
    if question["pieces"] and (question["bucket"] == "miss" or not question["evidence_exists"]):
        return "pieces"
    return "lost" if not question["evidence_exists"] else question["bucket"]


def test_each_row_says_what_the_json_report_says(evaluated: tuple[Dataset, list[Any]]) -> None:
    dataset, results = evaluated
    report = json.loads(json.dumps(eval_report(dataset, results)))
    data = html_data("eval", report, dataset, results, "then")
    assert data["report"] == report  # embedded as it is
    fields = data["detail"]["row_fields"]
    assert fields == list(ROW_FIELDS)
    documents = data["detail"]["documents"]
    for config, run in zip(report["configs"], data["detail"]["runs"], strict=True):
        assert len(run["rows"]) == len(config["questions"]) == 40
        for question, values in zip(config["questions"], run["rows"], strict=True):
            row = dict(zip(fields, values, strict=True))
            assert row["state"] == _state(question)
            assert row["first_correct_rank"] == question["first_correct_rank"]
            assert row["cause"] == question["failure_cause"]
            assert row["cause_detail"] == question["failure_detail"]
            assert row["complete"] == int(question["complete"])
            assert row["covered"] == [int(x) for x in question["covered"]]
            for key in ("sent_chars", "duplicate_chars", "delivery_stop"):
                assert row[key] == question[key]
            top = question["ranked"][: config["top_k"]]
            assert [(h[0], h[1], documents[h[2]], h[3], h[4]) for h in row["hits"]] == [
                (h["rank"], h["id"], h["doc"], h["start"], h["end"]) for h in top
            ]
            sent = {d["rank"]: (d["start"], d["end"]) for d in question["delivered"]}
            for hit in row["hits"]:
                assert (tuple(hit[6:8]) if hit[6] is not None else None) == sent.get(hit[0])
            assert [[documents[c[0]], *c[1:]] for c in row["cuts"]] == [
                [c["doc"], c["start"], c["end"], c["boundaries"]] for c in question["cuts"]
            ]


def test_gold_texts_are_the_quotes_of_the_question_file(evaluated: tuple[Dataset, list[Any]]) -> None:
    dataset, results = evaluated
    data = html_data("eval", {}, dataset, results, "then")["detail"]
    quotes = {}
    for line in SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        quotes[entry["id"]] = [(e["doc"], e["quote"]) for e in entry["evidence"] if "quote" in e]
    checked = 0
    for question in data["questions"]:
        shown = [(data["documents"][g[1]], _kept_text(data, g[1], g[2], g[3])) for g in question["gold"]]
        for doc, quote in quotes[question["id"]]:
            assert (doc, quote) in shown
            checked += 1
    assert checked >= 40


def _kept_text(detail: dict[str, Any], doc: int, start: int, end: int) -> str:
    """The text of [start, end) of document ``doc`` from the pieces the page holds (one piece must hold it)."""
    holding = [text for at, text in detail["segments"][doc] if at <= start and end <= at + len(text)]
    assert len(holding) == 1
    at = next(at for at, text in detail["segments"][doc] if text == holding[0])
    return str(holding[0][start - at : end - at])


def test_the_page_holds_each_gold_span_with_its_context_and_each_shown_chunk_not_whole_documents(
    evaluated: tuple[Dataset, list[Any]],
) -> None:
    dataset, results = evaluated
    detail = html_data("eval", {}, dataset, results, "then")["detail"]
    context = detail["context"]
    for doc, pieces in enumerate(detail["segments"]):
        text = dataset.corpus.by_id[detail["documents"][doc]].text
        assert detail["lengths"][doc] == len(text)
        for (at, piece), after in zip(pieces, [*pieces[1:], None], strict=True):
            assert text[at : at + len(piece)] == piece  # the document's own text
            if after is not None:
                assert at + len(piece) < after[0]  # sorted, apart (touching pieces are merged)
    for question in detail["questions"]:
        for _, doc, start, end, _ in question["gold"]:
            text = dataset.corpus.by_id[detail["documents"][doc]].text
            low, high = max(0, start - context), min(len(text), end + context)
            assert _kept_text(detail, doc, low, high) == text[low:high]
    for run in detail["runs"]:
        for row in run["rows"]:
            for hit in row[ROW_FIELDS.index("hits")]:
                text = dataset.corpus.by_id[detail["documents"][hit[2]]].text
                assert _kept_text(detail, hit[2], hit[3], hit[4]) == text[hit[3] : hit[4]]
    kept = sum(len(piece) for pieces in detail["segments"] for _, piece in pieces)
    assert kept < sum(len(document.text) for document in dataset.corpus.documents)


def test_rows_place_every_question_in_the_transition_cell_the_report_counts(
    evaluated: tuple[Dataset, list[Any]],
) -> None:
    dataset, results = evaluated
    comparison = compare(results[0], results[1], permutations=200)
    report = json.loads(json.dumps(compare_report(dataset, results, comparison)))
    assert report_kind(report) == "compare"
    data = html_data("compare", report, dataset, results, "then")["detail"]
    pairs = Counter((a[0], b[0]) for a, b in zip(data["runs"][0]["rows"], data["runs"][1]["rows"], strict=True))
    states = report["comparison"]["transitions"]["states"]
    matrix = report["comparison"]["transitions"]["rows_a_columns_b"]
    assert {(a, b): n for (a, b), n in pairs.items()} == {
        (a, b): matrix[i][j] for i, a in enumerate(states) for j, b in enumerate(states) if matrix[i][j]
    }
    # and each question in the cell the compare CSV names
    by_csv = {
        row["question"]: (row["state_a"], row["state_b"])
        for row in csv.DictReader(io.StringIO(compare_csv(comparison)))
    }
    ids = [q["id"] for q in data["questions"]]
    rows = zip(ids, data["runs"][0]["rows"], data["runs"][1]["rows"], strict=True)
    assert {qid: (a[0], b[0]) for qid, a, b in rows} == by_csv


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "report.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_saved_report_is_embedded_as_it_is(tmp_path: Path, evaluated: tuple[Dataset, list[Any]]) -> None:
    dataset, results = evaluated
    report = json.loads(json.dumps(eval_report(dataset, results)))
    loaded = load_report(_write(tmp_path, json.dumps(report)))
    assert loaded == report
    data = saved_report_data(loaded, "then")
    assert (data["kind"], data["detail"], data["report"]) == ("eval", None, report)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"chunkscope_version": "0.1.0", "inputs": [], "con', ".json:1: truncated JSON"),
        ('{"chunkscope_version": "0.1.0",\n "inputs": [', ".json:2: truncated JSON"),
        ("[1, 2]", "not a chunkscope eval, compare or sweep report (the JSON is not an object)"),
        ('{"rows": 3}', "field 'chunkscope_version': not a chunkscope eval, compare or sweep report"),
        (
            '{"chunkscope_version": "0.1.0", "inputs": []}',
            "field 'configs': not a chunkscope eval, compare or sweep report",
        ),
        ('{"chunkscope_version": "0.1.0", "inputs": [], "configs": [{"a": 1}]}', "a configuration without a summary"),
        (
            '{"chunkscope_version": "0.10.0", "inputs": [], "configs": [{"summary": {}}]}',
            "written by chunkscope 0.10.0, newer than this chunkscope",
        ),
    ],
)
def test_a_json_that_is_no_report_this_version_reads_is_refused(tmp_path: Path, text: str, says: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_report(path)
    message = str(caught.value)
    assert message.startswith(path) and says in message and "\n" not in message


ANSWERS = Path(__file__).resolve().parents[1] / "fixtures" / "answers"


def _embedded(path: Path) -> dict[str, Any]:
    page = path.read_text(encoding="utf-8")
    start = page.index('<script type="application/json" id="report-data">') + len(
        '<script type="application/json" id="report-data">'
    )
    return dict(json.loads(page[start : page.index("</script>", start)]))


def test_each_question_answer_is_the_one_the_json_report_counts(tmp_path: Path) -> None:
    from chunkscope.cli import main

    argv = ["eval", "--chunker", "fixed:size=200", "--chunker", "paragraph", "--answers-config", "2"]
    json_path, html_path = tmp_path / "e.json", tmp_path / "e.html"
    answers = ["--answers", str(ANSWERS / "plain.jsonl")]
    assert main([*argv, *answers, "--json", str(json_path), "--html", str(html_path)]) == 0
    report = json.loads(json_path.read_text(encoding="utf-8"))
    detail = _embedded(html_path)["detail"]
    assert detail["answer_fields"] == ["answer", "correct", "score", "attribution", "cause"]
    first, second = detail["runs"]
    assert "answers" not in first  # the answers belong to the second configuration only
    questions = report["configs"][1]["questions"]
    expected = [
        None
        if q["answer_attribution"] is None
        else [q["answer"], q["answer_correct"], q["answer_score"], q["answer_attribution"], q["failure_cause"]]
        for q in questions
    ]
    assert second["answers"] == expected
    counted = Counter(row[3] for row in second["answers"] if row is not None)
    assert counted == {k: n for k, n in report["configs"][1]["answers"]["answers"]["attribution"].items() if n}
    assert [q["references"] for q in detail["questions"]] == [[]] * 40  # the sample has no reference answers
    # without answers, the embedded data has no answer field at all
    assert main([*argv, "--html", str(tmp_path / "plain.html")]) == 0
    plain = _embedded(tmp_path / "plain.html")["detail"]
    assert "answer_fields" not in plain and all("references" not in q for q in plain["questions"])
    assert all("answers" not in run and "answer_in_context" not in run for run in plain["runs"])


def test_compare_answers_per_side_are_the_csv_rows(tmp_path: Path) -> None:
    from chunkscope.cli import main

    files = ["--answers", str(ANSWERS / "plain.jsonl"), "--answers", str(ANSWERS / "plain-scores.csv")]
    csv_path, html_path = tmp_path / "c.csv", tmp_path / "c.html"
    argv = ["compare", "fixed:size=200", "paragraph", "--permutations", "100", *files]
    assert main([*argv, "--csv", str(csv_path), "--html", str(html_path)]) == 0
    rows = {r["question"]: r for r in csv.DictReader(csv_path.open(encoding="utf-8"))}
    detail = _embedded(html_path)["detail"]
    for side, run in zip("ab", detail["runs"], strict=True):
        for question, answer in zip(detail["questions"], run["answers"], strict=True):
            row = rows[question["id"]]
            if answer is None:
                assert row[f"answer_attribution_{side}"] == ""
            else:
                assert answer[3] == row[f"answer_attribution_{side}"]
                assert int(answer[1]) == int(row[f"answer_correct_{side}"])
