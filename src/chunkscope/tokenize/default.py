"""The default tokenizer: NFKC, ASCII words and CJK bigrams."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from chunkscope.tokenize.base import tokenizers

# ASCII words, or runs of Han / Hiragana / Katakana (incl. the prolonged sound mark,
# iteration marks, 〇, small Ainu katakana and the supplementary-plane ideographs
# of names such as 𠮷). NFKC already turned half-width katakana into full width.
_TOKEN_RUNS = re.compile(
    r"[a-z0-9]+"
    r"|[\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3006\u30fc"
    r"\u3007\u31f0-\u31ff\U00020000-\U0003ffff]+"
)


@tokenizers.register("default")
@dataclass(frozen=True, slots=True)
class DefaultTokenizer:
    """NFKC + lowercase; ASCII letter/digit runs are words; CJK runs become
    overlapping character bigrams (a lone CJK character stays a unigram).

    Other characters (punctuation, symbols, non-ASCII Latin) separate tokens.
    """

    def __call__(self, text: str) -> list[str]:
        normal = unicodedata.normalize("NFKC", text).lower()
        tokens: list[str] = []
        for run in _TOKEN_RUNS.findall(normal):
            if run[0] < "\u0080" or len(run) == 1:
                tokens.append(run)
            else:
                tokens.extend(map(str.__add__, run[:-1], run[1:]))
        return tokens
