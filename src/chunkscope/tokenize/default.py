"""The default tokenizer: NFKC, ASCII words and CJK bigrams."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from chunkscope.tokenize.base import tokenizers
from chunkscope.tokenize.cjk import CJK_RANGES
from chunkscope.tokenize.streams import DocumentTokens, encode_documents

"""Inclusive code-point ranges of the characters that form CJK runs (after NFKC and lower-casing)."""

_CJK_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in CJK_RANGES)
# ASCII words, or runs of Han / Hiragana / Katakana. NFKC already turned half-width katakana into full width.
_TOKEN_RUNS = re.compile(f"[a-z0-9]+|[{_CJK_CLASS}]+")


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

    def document_tokens(self, texts: Sequence[str]) -> DocumentTokens:
        """Every text tokenised at once, with token offsets, so chunks can take their tokens from it."""
        return encode_documents(texts)
