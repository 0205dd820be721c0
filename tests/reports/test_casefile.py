"""The Markdown case file of one question (pure core: no Textual, no Rich)."""

from __future__ import annotations

import subprocess
import sys

from chunkscope.analysis.compare import compare
from chunkscope.io.dataset import Dataset
from chunkscope.model import Span
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.casefile import case_file, fenced, mark_text


def test_mark_text_places_gold_boundaries_and_cuts() -> None:
    # "abcdefghij" starting at document offset 10; gold [12, 16) = "cdef", which no chunk holds whole;
    # boundaries at 14 (inside the gold: the cut), 16 (at the gold's end: an ordinary boundary, after the
    # closing mark) and 18.
    marked = mark_text("abcdefghij", 10, [Span("d", 12, 16)], [14, 16, 18], [14])
    assert marked == "ab⟦cd✂ef⟧|gh|ij"
    # when some chunk holds the gold whole, the boundary at 14 is no cut
    assert mark_text("abcdefghij", 10, [Span("d", 12, 16)], [14, 16, 18], []) == "ab⟦cd|ef⟧|gh|ij"


def test_mark_text_clips_gold_to_the_text() -> None:
    # The text [20, 25) shows only the end of gold [18, 22): it opens at the text's start, and the
    # boundary at 20 lies strictly inside the gold (18 < 20 < 22), so it is a cut, marked before the opening.
    assert mark_text("vwxyz", 20, [Span("d", 18, 22)], [20], [20]) == "✂⟦vw⟧xyz"


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fenced("a ```` b") == ["`````text", "a ```` b", "`````"]
    assert fenced("plain")[0] == "```text"


def test_case_file_shows_the_cut_under_a_and_the_whole_gold_under_b(sample: Dataset) -> None:
    # q39's gold [380, 421) of ja/rx200-torisetsu.md is cut at 400 by fixed:size=200 (between
    # 低温時バッテ and リー保護機能) and lies whole in the window [320, 520) of fixed:size=200,overlap=40.
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    a = evaluator.evaluate(make_config("fixed:size=200"))
    b = evaluator.evaluate(make_config("fixed:size=200,overlap=40"))
    question = next(q for q in sample.questions.questions if q.id == "q39")
    text = case_file(question, sample.corpus, [a, b], sample.name, compare(a, b, permutations=100))
    section_a, section_b = text.split("\n## B: ", 1)
    assert text.startswith("# Case q39: 冬の屋外で充電が止まってしまうのはなぜですか？\n")
    assert "`ja/rx200-torisetsu.md` 380–421 (41 chars)" in text
    assert "⟦周囲の温度が0℃を下回ると、低温時バッテ✂リー保護機能がはたらき、充電を停止します。⟧" in section_a
    assert "Cause: CUT" in section_a
    # Under A both pieces of the gold are delivered (the windows ranked 1 and 4): state pieces, still recovered.
    assert "State pieces → " in text and "recovered" in text
    assert "delivered in pieces: the model sees every character, split across chunks #1 and #4" in section_a
    assert "⟦周囲の温度が0℃を下回ると、低温時バッテリー保護機能がはたらき、充電を停止します。⟧" in section_b
    # B's window [320, 520) holds the gold whole: its table row names item 1.
    assert "| 320–520 | 200 |" in section_b
    assert section_b.split("| 320–520 | 200 |", 1)[1].split("\n", 1)[0].endswith("| item 1 |")
    # Every ranked row of the top-5 of each configuration is there.
    assert section_a.count("\n| ") - 1 == 5 and section_b.count("\n| ") - 1 == 5


def test_casefile_imports_neither_textual_nor_rich() -> None:
    code = (
        "import sys, chunkscope.reports.casefile; "
        "print(any(m.split('.')[0] in ('textual', 'rich') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
