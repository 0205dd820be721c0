"""Page metrics of one question: gold given as pages (``{"doc": ..., "page": 12}``, FinanceBench) delivered.

An item that names pages is *page-hit* when some delivered body shares at least one character with one of its
pages (the page's range in the extracted text: ``start < page.end and page.start < end``, same document). The
metrics exist only for configurations whose questions name pages; a question naming none counts 0 in both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def page_gold(result: QuestionResult) -> int:
    """``1`` when the question names at least one page as gold, else ``0``."""
    return int(bool(result.page_hits))


def page_hit(result: QuestionResult) -> int:
    """``1`` when the question names pages and every item naming pages is page-hit (a delivered body shares a
    character with one of its pages), else ``0``."""
    return int(bool(result.page_hits) and all(result.page_hits))


def has_page_gold(results: Sequence[QuestionResult]) -> bool:
    """True when some question names a page as gold."""
    return any(result.page_hits for result in results)


def page_gold_column(columns: ResultColumns) -> np.ndarray:
    """:func:`page_gold` of every question (int64)."""
    return columns.page_gold.astype(np.int64)


def page_hit_column(columns: ResultColumns) -> np.ndarray:
    """:func:`page_hit` of every question (int64)."""
    return columns.page_hit.astype(np.int64)


def has_page_gold_column(columns: ResultColumns) -> bool:
    """:func:`has_page_gold` from the columns."""
    return bool(columns.page_gold.any())
