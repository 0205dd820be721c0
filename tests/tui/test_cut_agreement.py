"""The case file and the inspector mark the same cuts: a gold span is cut only when no unit holds it whole.

One document of 299 characters, chunked by ``fixed:size=100,overlap=50`` into
[0,100), [50,150), [100,200), [150,250), [200,299). Item 1, [40, 90), lies whole
in [0,100): the boundary 50 inside it (where [50,150) starts) is no cut. Item 2,
[90, 160), fits no chunk: the boundaries 100 and 150 inside it are its cuts.
"""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult

from chunkscope.analysis.marks import chunk_marks, document_marks
from chunkscope.model import Chunk, Corpus, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.locate import cut_spans
from chunkscope.reports.casefile import case_file
from chunkscope.results import QuestionResult
from chunkscope.tui.widgets import DocumentView
from chunkscope.tui.widgets._marked_text import marker_glyphs
from chunkscope.tui.widgets.ranked_rows import detail_lines

# Words joined by "." (not spaces): the spans end on separators that the edge-whitespace rule leaves alone.
DOC = Document("d", ".".join(f"w{i:03d}" for i in range(60)))
QUESTION = Question(
    "q1", "w009 w017 w025 w035", (EvidenceItem((Span("d", 40, 90),)), EvidenceItem((Span("d", 90, 160),)))
)
MARKS = "⟦⟧|✂"


def marked_offsets(marked: str, offset: int) -> dict[str, set[int]]:
    """Document offsets of the ``|`` and ``✂`` marks in a case-file text block starting at ``offset``."""
    found: dict[str, set[int]] = {"|": set(), "✂": set()}
    position = offset
    for char in marked.removesuffix("…"):
        if char in found:
            found[char].add(position)
        elif char not in MARKS:
            position += 1
    return found


def block_after(text: str, heading: str) -> str:
    """The first line of the fenced block that follows ``heading`` (the blocks here are one line)."""
    after = text.split(heading, 1)[1]
    return after.split("```text\n", 1)[1].split("\n", 1)[0]


def inspector_cuts(glyphs: dict[int, list[tuple[str, str]]]) -> set[int]:
    return {offset for offset, marks in glyphs.items() if ("✂", "cut") in marks}


def test_case_file_and_inspector_agree_when_another_chunk_holds_the_span_whole() -> None:
    config = make_config("fixed:size=100,overlap=50", top_k=5)
    result = Evaluator(Corpus((DOC,)), [QUESTION]).evaluate(config)
    question_result = result.questions[0]
    assert [(c.start, c.end) for c in result.chunks] == [(0, 100), (50, 150), (100, 200), (150, 250), (200, 299)]
    text = case_file(QUESTION, Corpus((DOC,)), [result], "tiny")

    # the document view and the case file's context blocks: ✂ at 100 and 150 only; 50 is a plain boundary
    document = inspector_cuts(marker_glyphs(document_marks(DOC, result.chunks, QUESTION, question_result), True, True))
    assert document == {100, 150}
    for heading in ("`d` 40–90:", "`d` 90–160:"):
        marks = marked_offsets(block_after(text, heading), 0)
        assert marks["✂"] == document
        assert 50 in marks["|"]

    # each ranked chunk, in the ranked view and in the case file: ✂ only at its edges inside item 2
    expected = {0: {100}, 50: {150}, 100: {100}, 150: {150}}
    hits = question_result.ranked
    assert sorted(hit.chunk.start for hit in hits) == sorted(expected)
    for hit in hits:
        chunk = hit.chunk
        ranked_view = inspector_cuts(marker_glyphs(chunk_marks(DOC, chunk, QUESTION, question_result), False, False))
        in_case_file = marked_offsets(
            block_after(text, f"### A #{hit.rank} `d` {chunk.start}–{chunk.end}"), chunk.start
        )
        assert ranked_view == in_case_file["✂"] == expected[chunk.start], chunk.id

    # the table marks only the part of the cut item with ✂: [50,150) holds part of item 1 (whole in
    # [0,100), so no ✂) and part of item 2 (cut)
    row = next(line for line in text.splitlines() if line.startswith(f"| {hits[1].rank} |"))
    assert hits[1].chunk.start == 50
    assert row.endswith("| part of item 1, part of item 2 ✂ |")


def test_ranked_view_names_a_partial_span_held_whole_elsewhere_without_a_cut() -> None:
    result = Evaluator(Corpus((DOC,)), [QUESTION]).evaluate(make_config("fixed:size=100,overlap=50", top_k=5))
    question_result = result.questions[0]
    hit = next(h for h in question_result.ranked if h.chunk.start == 50)
    # [50,150) holds [50,90) of item 1 (40 of its 50 characters) and [90,150) of item 2 (60 of 70)
    details = detail_lines(hit, chunk_marks(DOC, hit.chunk, QUESTION, question_result), question_result)
    assert details[0] == "item 1 partial (40 of 50 chars, whole in another chunk) · ✂ item 2 partial (60 of 70 chars)"


def rendered_document(question: Question, result: QuestionResult, chunks: tuple[Chunk, ...]) -> str:
    """The document view's rows, as drawn at 100 x 30, joined by newlines."""

    class ViewApp(App[None]):
        def compose(self) -> ComposeResult:
            yield DocumentView()

        def on_mount(self) -> None:
            self.query_one(DocumentView).show(DOC, chunks, result, question)

    async def main() -> str:
        app = ViewApp()
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            view = app.query_one(DocumentView)
            return "\n".join(view.render_line(y).text for y in range(view.scrollable_content_region.height))

    return asyncio.run(main())


def test_a_complete_question_cut_by_one_chunk_but_held_whole_by_another_shows_no_cut() -> None:
    # item 1 alone: [40, 90) holds the boundary 50 (where [50,150) starts) but lies whole in [0,100)
    question = Question("q2", "w009 w017", (EvidenceItem((Span("d", 40, 90),)),))
    result = Evaluator(Corpus((DOC,)), [question]).evaluate(make_config("fixed:size=100,overlap=50", top_k=5))
    question_result = result.questions[0]
    assert question_result.complete and question_result.cuts == ()
    assert any(c.start == 50 for c in result.chunks)

    # the core, the document view's marks and its drawing: no cut, the boundary at 50 an ordinary overlap start
    assert cut_spans(question_result) == frozenset()
    marks = document_marks(DOC, result.chunks, question, question_result)
    assert marks.cuts == () and all(g.whole for g in marks.gold)
    drawn = rendered_document(question, question_result, result.chunks)
    assert "⟦" in drawn and "⟧" in drawn and "«" in drawn
    assert "✂" not in drawn

    # the case file: the boundary at 50 is marked `|`, no ✂ in any context block (only in the legend)
    text = case_file(question, Corpus((DOC,)), [result], "tiny")
    blocks = [block.split("```", 1)[0] for block in text.split("```text\n")[1:]]
    assert blocks and not any("✂" in block for block in blocks)
    assert 50 in marked_offsets(block_after(text, "`d` 40–90:"), 0)["|"]
