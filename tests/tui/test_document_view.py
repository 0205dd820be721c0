"""The document view on a JSQuAD-like article: paragraph breaks, offsets and rank tags in the gutter.

The fixture is one SQuAD article in the JSQuAD form (``TITLE [SEP] `` before each
context, Japanese text, paragraphs joined without a separator by the loader), so
the only paragraph breaks are the spans the loader records. Chunks of 50
characters with 8 of overlap (a step of 42) start mid-paragraph, between Japanese
characters and, at 168, inside the word ``software``, so ranked chunks begin
inside lines of text and inside a word.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from pilot_helpers import every_document_row
from textual.app import App, ComposeResult

from chunkscope.io.dataset import Dataset
from chunkscope.io.squad import load_squad
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult
from chunkscope.tui.cells import cell_widths
from chunkscope.tui.widgets import DocumentView

SIZE = (100, 30)
TITLE = "梅雨"
PARAGRAPHS = (
    "梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、朝鮮半島南部、中国の南部から長江流域にかけての沿海部、"
    "および台湾など、東アジアの広範囲においてみられる特有の気象現象で、5月から7月にかけて来る曇りや雨の多い期間のこと。",
    "梅雨の時期は年によって異なる。1. 梅雨入りは気象庁が発表する。2. 梅雨明けも同様に発表される。"
    "観測にはsoftwareによる解析も用いられる。",
    "沖縄では5月上旬に梅雨入りし、6月下旬に梅雨明けすることが多い。",
    "梅雨前線は、オホーツク海気団と太平洋高気圧の間に生じる停滞前線である。前線の位置は年ごとに変わり、大雨をもたらすこともある。",
)
QUESTIONS = (
    ("日本で梅雨がないのは北海道とどこか。", 0, "小笠原諸島"),
    ("梅雨入りを発表するのはどこか。", 1, "気象庁"),
    ("梅雨明けの解析に使われるのは何か。", 1, "software"),
    ("沖縄の梅雨明けはいつ頃か。", 2, "6月下旬"),
    ("梅雨前線はどのような前線か。", 3, "停滞前線"),
)
CONFIG = make_config("fixed:size=50,overlap=8", "bm25", top_k=3)
SPACED_WORD = re.compile(r"[A-Za-z0-9_'-]+")
"""Words of the spaced script in the fixture (``software``, digits): a line may not split one."""
RANK_TAG = re.compile(r"[●○]#\d+\+?")


def jsquad_like(path: Path) -> Path:
    """Write the article as JSQuAD stores it: ``a<n>p<n>q<n>`` ids, answers offset into the prefixed context."""
    paragraphs = []
    for p, body in enumerate(PARAGRAPHS):
        context = f"{TITLE} [SEP] {body}"
        qas = [
            {
                "id": f"a1p{p}q{q}",
                "question": query,
                "answers": [{"text": answer, "answer_start": context.index(answer)}],
                "is_impossible": False,
            }
            for q, (query, paragraph, answer) in enumerate(QUESTIONS)
            if paragraph == p
        ]
        paragraphs.append({"context": context, "qas": qas})
    path.write_text(json.dumps({"version": "v1.3", "data": [{"title": TITLE, "paragraphs": paragraphs}]}))
    return path


@pytest.fixture(scope="module")
def article(tmp_path_factory: pytest.TempPathFactory) -> tuple[Dataset, ConfigResult]:
    dataset = load_squad(jsquad_like(tmp_path_factory.mktemp("jsquad") / "jsquad-like.json"))
    result = Evaluator(dataset.corpus, dataset.questions.questions).evaluate(CONFIG)
    return dataset, result


class DocumentApp(App[None]):
    """The view alone, showing question ``index`` of the article."""

    def __init__(self, dataset: Dataset, result: ConfigResult, index: int) -> None:
        super().__init__()
        self.dataset, self.result, self.index = dataset, result, index

    def compose(self) -> ComposeResult:
        yield DocumentView()

    def on_mount(self) -> None:
        question = self.dataset.questions.questions[self.index]
        document = self.dataset.corpus.documents[0]
        self.query_one(DocumentView).show(document, self.result.chunks, self.result.questions[self.index], question)


class Shown(NamedTuple):
    """Every line of the document as the view draws it, the gutter's width and the line's width in cells."""

    rows: list[str]
    gutter: int
    width: int


def every_row(app: DocumentApp) -> Shown:
    """Scroll through the whole document, a screenful at a time."""

    async def main() -> Shown:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            view = app.query_one(DocumentView)
            rows = await every_document_row(pilot, view)
            return Shown(rows, view._gutter_width(), view.scrollable_content_region.width)

    return asyncio.run(main())


def paragraph_starts() -> list[int]:
    """The offsets of the paragraphs in the joined article, by hand from the fixture."""
    starts = [0]
    for body in PARAGRAPHS[:-1]:
        starts.append(starts[-1] + len(body))
    return starts


def unmarked(text: str) -> str:
    """``text`` without the view's marker glyphs."""
    return re.sub(r"[│«»⟦⟧✂]", "", text)


def tag_rank(tag: str) -> int:
    return int(tag[2:].rstrip("+"))


def is_word_character(character: str) -> bool:
    """Letters, digits and ideographs: what a rank tag must not sit between."""
    return character.isalnum() or character == "_"


def test_the_loader_records_the_paragraphs_the_view_breaks_at(article: tuple[Dataset, ConfigResult]) -> None:
    dataset, _ = article
    document = dataset.corpus.documents[0]
    assert "\n" not in document.text
    assert [start for start, _ in document.paragraphs or ()] == paragraph_starts()


def test_each_paragraph_starts_a_line_with_its_offset_in_the_gutter(article: tuple[Dataset, ConfigResult]) -> None:
    dataset, result = article
    rows, gutter, _ = every_row(DocumentApp(dataset, result, 0))
    fields = [row[:gutter].split() for row in rows]
    numbered = [(int(f[0]), row[gutter:].rstrip()) for f, row in zip(fields, rows, strict=True) if f and f[0].isdigit()]
    assert [offset for offset, _ in numbered] == paragraph_starts()
    # each numbered line holds the start of its paragraph, and the lines together hold the text in order
    for (offset, line), body in zip(numbered, PARAGRAPHS, strict=True):
        assert unmarked(line) and body.startswith(unmarked(line)), offset
    assert unmarked("".join(row[gutter:].rstrip() for row in rows)) == "".join(PARAGRAPHS)


@pytest.mark.parametrize("index", range(len(QUESTIONS)))
def test_rank_tags_sit_in_the_gutter_never_between_word_characters(
    article: tuple[Dataset, ConfigResult], index: int
) -> None:
    dataset, result = article
    question_result = result.questions[index]
    own = {hit.rank for hit in question_result.ranked if hit.chunk.doc == dataset.corpus.documents[0].id}
    rows, gutter, width = every_row(DocumentApp(dataset, result, index))
    tags = [(row, match) for row in rows for match in RANK_TAG.finditer(row)]
    # every ranked chunk of the document has its tag, once
    assert sorted(tag_rank(match.group()) for _, match in tags) == sorted(own)
    for row, match in tags:
        before = row[match.start() - 1] if match.start() else " "
        after = row[match.end()] if match.end() < len(row) else " "
        assert not (is_word_character(before) and is_word_character(after)), row
        # in the gutter, with a blank cell before the text
        assert match.end() < gutter and row[match.end()] == " ", row
    # the text columns hold no tag at all (cells: the Japanese text is double width)
    for row in rows:
        assert not RANK_TAG.search(row[gutter:]), row
        assert int(cell_widths(row).sum()) == width


def test_a_ranked_chunk_starting_mid_line_starts_a_visual_line(article: tuple[Dataset, ConfigResult]) -> None:
    dataset, result = article
    document = dataset.corpus.documents[0]
    question_result = result.questions[1]
    rows, gutter, _ = every_row(DocumentApp(dataset, result, 1))
    tagged = {}
    for row in rows:
        match = RANK_TAG.search(row[:gutter])
        if match:
            tagged[tag_rank(match.group())] = unmarked(row[gutter:]).rstrip()
    hits = [hit for hit in question_result.ranked if hit.chunk.doc == document.id]
    assert hits and {hit.rank for hit in hits} == set(tagged)
    # several chunks start inside a recorded paragraph (the fixture's chunks are shorter than its paragraphs)
    assert sum(hit.chunk.start not in paragraph_starts() for hit in hits) >= 3
    for hit in hits:
        # the tagged line shows the chunk's text from its first character, or from the start of the word
        # the chunk starts inside (by hand: "software" starts at 165, the chunk at 168, its "t")
        line_start = 165 if hit.chunk.start == 168 else hit.chunk.start
        assert tagged[hit.rank] and document.text.startswith(tagged[hit.rank], line_start), hit.rank


@pytest.mark.parametrize("index", range(len(QUESTIONS)))
def test_no_word_is_split_across_lines_by_a_rank_tag_break(article: tuple[Dataset, ConfigResult], index: int) -> None:
    dataset, result = article
    document = dataset.corpus.documents[0]
    starts = {hit.chunk.start for hit in result.questions[index].ranked}
    # the fixture is meant to rank a chunk that starts inside "software"
    assert 168 in starts and document.text[165:173] == "software"
    rows, gutter, _ = every_row(DocumentApp(dataset, result, index))
    shown = "\n".join(unmarked(row[gutter:]).rstrip() for row in rows)
    # a split word would show as two shorter words on two lines
    assert Counter(SPACED_WORD.findall(shown)) == Counter(SPACED_WORD.findall(document.text))
    # the line starts with the word, tagged; the overlap mark stays where the chunk starts (at "t")
    row = next(row for row in rows if "software" in unmarked(row))
    assert RANK_TAG.search(row[:gutter]) and re.match(r"⟦?sof«tware", row[gutter:].lstrip()), row


def test_snapshot_jsquad_like_article(snap_compare: Any, article: tuple[Dataset, ConfigResult]) -> None:
    dataset, result = article
    assert snap_compare(DocumentApp(dataset, result, 1), terminal_size=SIZE)
