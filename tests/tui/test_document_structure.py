"""Extracted documents in the inspector: page labels and element kinds in the document view's gutter, the pages
of each ranked chunk, header-severed rows marked under the chunk that delivered them, page gold in the question
panel. Every expected value comes from the core (the structure map, ``severed_rows``, ``page_hits``) or from the
fixture's text, counted by hand, never from the widgets.
"""

from __future__ import annotations

import json
import re
from itertools import takewhile
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import every_document_row, make_app, settle
from textual.pilot import Pilot
from textual.widgets import Static

from chunkscope.analysis.diagnose import failure_detail
from chunkscope.analysis.tables import severed_rows
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.widgets import DocumentView
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from document_files import HTML_WITH_TABLES, HTML_WITH_TABLES_TEXT, write_pdf

PAGES = [
    [
        "ACME Corp annual report 2023",
        "Revenue for fiscal 2023 was 12 million euros, up from 9 million.",
        "The board proposes a dividend of 1 euro per share.",
    ],
    ["Capital expenditure was 3 million euros.", "Most of it went to the new plant in Lyon.", "Headcount rose to 140."],
    ["Outlook: revenue of 15 million euros is expected in 2024.", "Risks include energy prices and supplier delays."],
]
QUESTIONS = [
    {"id": "q1", "query": "Enterprise call us", "evidence": [{"doc": "plans.html", "quote": "Enterprise | call us"}]},
    {"id": "q2", "query": "What was capital expenditure?", "evidence": [{"doc": "report.pdf", "page": 2}]},
    {
        "id": "q3",
        "query": "What is the revenue outlook for 2024?",
        "evidence": [{"doc": "report.pdf", "page": 3, "quote": "revenue of 15 million euros"}],
    },
]
FIXED_40 = make_config("fixed:size=40", top_k=2)
SIZE = (140, 40)
GUTTER = re.compile(r"^\s*(\d*) (p\. \d+|h\d|list|table)?\s")


@pytest.fixture
def documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dataset:
    """``plans.html`` (a heading, a nested list, a 3-row table) and the 3-page ``report.pdf``, with a question on
    the table's last row, one on page 2 alone and one on a quote of page 3."""
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(tmp_path / "cache"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "plans.html").write_text(HTML_WITH_TABLES, encoding="utf-8")
    write_pdf(corpus / "report.pdf", PAGES)
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return load_dataset(corpus, questions)


def evaluate(dataset: Dataset, config: Config) -> ConfigResult:
    return Evaluator(dataset.corpus, dataset.questions.questions).evaluate(config)


async def select(pilot: Pilot[None], index: int) -> None:
    await settle(pilot)
    for _ in range(index):
        await pilot.press("down")
    await settle(pilot)


async def document_rows(pilot: Pilot[None]) -> list[str]:
    """Every line of the shown document as drawn."""
    return await every_document_row(pilot, pilot.app.screen.query_one(DocumentView))


def gutter_labels(rows: list[str]) -> dict[int, str]:
    """The structure label of each row that has one, by the offset in its gutter."""
    labels = {}
    for row in rows:
        match = GUTTER.match(row)
        if match and match.group(2):
            labels[int(match.group(1))] = match.group(2)
    return labels


def test_each_pdf_page_is_labelled_where_it_starts(documents: Dataset) -> None:
    pages = documents.corpus.by_id["report.pdf"].structure.pages  # type: ignore[union-attr]
    app = make_app(documents, FIXED_40)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 1)
        view = pilot.app.screen.query_one(DocumentView)
        assert view.document.id == "report.pdf"  # type: ignore[union-attr]
        assert str(view.border_title).startswith(f"report.pdf · {len(pages)} pages · ")
        rows = await document_rows(pilot)
        assert gutter_labels(rows) == {start: f"p. {n}" for n, (start, _) in enumerate(pages, start=1)}
        assert sum("p. " in row[:16] for row in rows) == len(pages) == 3

    app_run(app, run)


def test_html_elements_show_their_kind_and_paragraphs_none(documents: Dataset) -> None:
    text = HTML_WITH_TABLES_TEXT
    expected = {
        text.index("# Plans"): "h1",
        text.index("- Basic"): "list",
        text.index("  - one user"): "list",
        text.index("  - email support"): "list",
        text.index("- Team"): "list",
        text.index("| Plan |"): "table",
        text.index("## Cancelling"): "h2",
    }
    app = make_app(documents, FIXED_40)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 0)
        rows = await document_rows(pilot)
        assert gutter_labels(rows) == expected
        # the paragraphs start lines with their offset and no label
        for paragraph in ("Every plan", "Cancel any time"):
            (row,) = [row for row in rows if paragraph in row]
            assert GUTTER.match(row).group(1) == str(text.index(paragraph))  # type: ignore[union-attr]
            assert GUTTER.match(row).group(2) is None  # type: ignore[union-attr]

    app_run(app, run)


def test_ranked_chunks_name_their_pages(documents: Dataset) -> None:
    result = evaluate(documents, FIXED_40).questions[1]
    report = documents.corpus.by_id["report.pdf"]
    app = make_app(documents, FIXED_40)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 1)
        lines = pilot.app.screen.query_one(RankedChunksView).lines_text()
        seen = 0
        for hit in result.ranked[: FIXED_40.depth]:
            chunk = hit.chunk
            first, last = report.structure.pages_of(chunk.start, chunk.end)  # type: ignore[union-attr,misc]
            pages = f"p. {first}" if first == last else f"pp. {first}–{last}"
            header = f"report.pdf {chunk.start}–{chunk.end} · {pages} · {chunk.length} ch"
            assert any(f"#{hit.rank} " in line and header in line for line in lines), header
            seen += first != last
        assert seen  # a chunk across a page break names both pages

    app_run(app, run)


def test_a_header_severed_row_is_marked_under_the_chunk_that_delivered_it(documents: Dataset) -> None:
    result = evaluate(documents, FIXED_40).questions[0]
    (row,) = severed_rows(result, documents.corpus)
    header_line = HTML_WITH_TABLES_TEXT[row.header[0] : row.header[1]]
    assert header_line == "| Plan | Price |"
    last_row = HTML_WITH_TABLES_TEXT[row.start : row.end]
    assert last_row == "| Enterprise | call us |"  # the third body row of the only table
    app = make_app(documents, FIXED_40)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 0)
        lines = pilot.app.screen.query_one(RankedChunksView).lines_text()
        mark = (
            f"⊣ header severed: row 3 of table 1 ({row.start}–{row.end}) delivered without its header "
            f"({row.header[0]}–{row.header[1]})"
        )
        marked = [i for i, line in enumerate(lines) if "⊣" in line]
        assert len(marked) == 1
        # wrapped to the pane: the mark's rows read as one line
        rows = [lines[marked[0]], *takewhile(lambda line: line.startswith("▌      "), lines[marked[0] + 1 :])]
        assert mark in " ".join(row[1:].strip() for row in rows)
        # under the block of the hit the core names
        hit_header = max(i for i, line in enumerate(lines[: marked[0]]) if re.match(r"^.#\d+ ", line))
        assert lines[hit_header][1:].startswith(f"#{row.rank} ")
        panel = str(pilot.app.screen.query_one("#inspect-question", Static).render())
        assert failure_detail(result, FIXED_40, severed=(row,)) in " ".join(panel.split())

    app_run(app, run)


def test_the_document_view_marks_the_severed_row_in_its_gutter(documents: Dataset) -> None:
    (row,) = severed_rows(evaluate(documents, FIXED_40).questions[0], documents.corpus)
    app = make_app(documents, FIXED_40)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 0)
        rows = await document_rows(pilot)
        marked = [row for row in rows if "⊣" in row[:16]]
        assert len(marked) == 1
        assert re.match(rf"^\s*{row.start} ⊣\s", marked[0]), marked[0]

    app_run(app, run)


def test_no_severed_mark_where_the_header_is_repeated(documents: Dataset) -> None:
    config = make_config("markdown:max_chars=40", top_k=1)
    assert severed_rows(evaluate(documents, config).questions[0], documents.corpus) == ()
    app = make_app(documents, config)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 0)
        assert not any("⊣" in line for line in pilot.app.screen.query_one(RankedChunksView).lines_text())
        assert not any("⊣" in row for row in await document_rows(pilot))
        assert "header-severed" not in str(pilot.app.screen.query_one("#inspect-question", Static).render())

    app_run(app, run)


@pytest.mark.parametrize("top_k", [1, 2])
def test_page_gold_shows_in_the_question_panel_with_its_hit(documents: Dataset, top_k: int) -> None:
    config = make_config("fixed:size=40", top_k=top_k)
    (hit,) = evaluate(documents, config).questions[2].page_hits
    app = make_app(documents, config)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 2)
        panel = str(pilot.app.screen.query_one("#inspect-question", Static).render())
        verdict = "✓ page delivered" if hit else "✗ page not delivered"
        assert "gold: p. 3 of report.pdf " + verdict in panel

    app_run(app, run)


def test_the_two_depths_show_both_page_verdicts(documents: Dataset) -> None:
    # page 3 reaches the context only at top-2 (the chunk across pages 2 and 3), so the test above sees ✓ and ✗
    hits = [evaluate(documents, make_config("fixed:size=40", top_k=k)).questions[2].page_hits for k in (1, 2)]
    assert hits == [(False,), (True,)]


def app_run(app: Any, steps: Any) -> None:
    import asyncio

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await steps(pilot)

    asyncio.run(main())


def test_snapshot_pdf_document(snap_compare: Any, documents: Dataset) -> None:
    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 1)

    assert snap_compare(make_app(documents, FIXED_40), terminal_size=SIZE, run_before=run)


def test_the_split_view_names_each_sides_severed_rows_and_page_hits(documents: Dataset) -> None:
    a, b = make_config("fixed:size=40", top_k=1), make_config("markdown:max_chars=40", top_k=2)
    results = [evaluate(documents, config).questions for config in (a, b)]
    app = make_app(documents, a, b)

    async def run(pilot: Pilot[None]) -> None:
        await select(pilot, 0)
        panel = " ".join(str(pilot.app.screen.query_one("#compare-question", Static).render()).split())
        for config, side in zip((a, b), results, strict=True):
            severed = severed_rows(side[0], documents.corpus)
            assert failure_detail(side[0], config, severed=severed) in panel
        assert "header-severed" in panel  # A severs the last row, B repeats the header
        await pilot.press("down", "down")
        await settle(pilot)
        panel = str(pilot.app.screen.query_one("#compare-question", Static).render())
        (hit_a,), (hit_b,) = results[0][2].page_hits, results[1][2].page_hits
        verdict = {True: "✓ page delivered", False: "✗ page not delivered"}
        assert f"gold: p. 3 of report.pdf · A {verdict[hit_a]} · B {verdict[hit_b]}" in panel

    app_run(app, run)
