"""Answer formulas: SQuAD's and JGLUE's answer normalisation, exact match, F1, and the has-answer test.

Two families of rules, chosen per reference by :func:`language_of`:

- **English (SQuAD v1.1's official ``evaluate-v1.1.py``)**: lowercase; remove every character of
  ``string.punctuation``; replace the words ``a``, ``an``, ``the`` (``\\b(a|an|the)\\b``) by a space;
  collapse whitespace (``" ".join(text.split())``). Exact match compares the normalised strings; F1
  counts the common tokens (a multiset intersection of the whitespace tokens), ``0`` when none.
- **Japanese (JGLUE's JSQuAD scorer, the ``squad_metrics.py`` its transformers patch ships)**:
  lowercase; strip trailing ``。``; collapse whitespace. Punctuation and articles are kept. F1 is
  over characters (spaces included) of the normalised strings; when either side is empty it is
  ``1`` if both are, else ``0``.

A prediction scores its best value over the references (the official scripts' maximum over ground
truths). ``answer_in_context`` (DPR's has-answer) uses a matching normalisation: English compares
SQuAD-normalised token sequences (the reference's tokens appear contiguously in the text's
tokens), Japanese NFKC-normalises and removes all whitespace, then looks for a substring.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Language = Literal["en", "ja"]
"""Which normalisation family applies."""

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]")
"""Hiragana, katakana, CJK ideographs (extensions A to G, compatibility) and half-width katakana."""


def language_of(reference: str) -> Language:
    """``ja`` when the reference holds a kana or CJK ideograph character, else ``en``."""
    return "ja" if _JAPANESE.search(reference) else "en"


def normalize_squad(text: str) -> str:
    """SQuAD v1.1's ``normalize_answer``: lowercase, drop punctuation, drop articles, collapse whitespace."""
    lowered = text.lower()
    no_punctuation = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punctuation)
    return " ".join(no_articles.split())


def normalize_jsquad(text: str) -> str:
    """JGLUE's JSQuAD ``normalize_answer``: lowercase, strip trailing ``。``, collapse whitespace."""
    return " ".join(text.lower().rstrip("。").split())


def exact_match(prediction: str, references: Sequence[str], language: Language | None = None) -> bool:
    """True when the normalised prediction equals some normalised reference (False without references).

    ``language`` forces the rule; by default each reference's own (:func:`language_of`).
    """
    return any(_exact(prediction, reference, language or language_of(reference)) for reference in references)


def f1_score(prediction: str, references: Sequence[str], language: Language | None = None) -> float:
    """The best F1 over the references (``0.0`` without references); see the module docstring."""
    return max(
        (_f1(prediction, reference, language or language_of(reference)) for reference in references), default=0.0
    )


def _exact(prediction: str, reference: str, language: Language) -> bool:
    normalize = normalize_squad if language == "en" else normalize_jsquad
    return normalize(prediction) == normalize(reference)


def _f1(prediction: str, reference: str, language: Language) -> float:
    if language == "en":
        predicted, gold = normalize_squad(prediction).split(), normalize_squad(reference).split()
    else:
        predicted, gold = list(normalize_jsquad(prediction)), list(normalize_jsquad(reference))
        if not predicted or not gold:
            return float(predicted == gold)
    same = sum((Counter(predicted) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def context_form(text: str, language: Language) -> str | tuple[str, ...]:
    """The form ``answer_in_context`` compares: SQuAD tokens (English) or NFKC text without whitespace."""
    if language == "en":
        return tuple(normalize_squad(text).split())
    if not unicodedata.is_normalized("NFKC", text):  # the check is far cheaper than normalising
        text = unicodedata.normalize("NFKC", text)
    return "".join(text.split())


class ContextForms:
    """A text's language and :func:`context_form`, remembered per text: a chunk delivered to many
    questions is examined once."""

    __slots__ = ("_forms", "_languages")

    def __init__(self) -> None:
        self._forms: dict[tuple[str, Language], str | tuple[str, ...]] = {}
        self._languages: dict[str, Language] = {}

    def __call__(self, text: str, language: Language) -> str | tuple[str, ...]:
        key = (text, language)
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = context_form(text, language)
        return form

    def language(self, text: str) -> Language:
        """:func:`language_of` the text."""
        found = self._languages.get(text)
        if found is None:
            found = self._languages[text] = language_of(text)
        return found


def has_answer(references: Sequence[str], texts: Iterable[str], forms: ContextForms | None = None) -> bool:
    """DPR's has-answer: some reference, normalised, occurs in one of ``texts``, normalised alike.

    The Japanese rule applies when the reference or the text is Japanese (:func:`language_of`): the
    reference's NFKC form without whitespace is a substring of the text's. Otherwise the English rule:
    the reference's SQuAD tokens appear as a contiguous run of the text's SQuAD tokens. A reference that
    normalises to nothing never occurs. ``forms`` remembers the texts' languages and forms across calls.
    """
    memory = forms or ContextForms()
    wanted = [(language_of(r), r) for r in references]
    needles = {(lang, r): context_form(r, lang) for lang0, r in wanted for lang in {lang0, "ja"}}
    for text in texts:
        text_language = memory.language(text)
        for reference_language, reference in wanted:
            rule: Language = "ja" if "ja" in (reference_language, text_language) else "en"
            needle = needles[(rule, reference)]
            if needle and _occurs(needle, memory(text, rule)):
                return True
    return False


def _occurs(needle: str | tuple[str, ...], haystack: str | tuple[str, ...]) -> bool:
    if isinstance(needle, str) and isinstance(haystack, str):
        return needle in haystack
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


@dataclass(frozen=True, slots=True)
class AnswerMetric:
    """One answer metric: its key, label, kind and formula over the per-question values.

    The answer metrics live beside :data:`chunkscope.metrics.registry.REGISTRY`: a registry metric is
    a function of a question's evidence result alone, these of a per-question 0/1 value that needs
    the question's references or its answer (``None`` where it does not apply: no reference, no answer).
    """

    name: str
    """The JSON/CSV key."""
    label: str
    """Short display label."""
    kind: Literal["rate", "count"]
    """``count``: a whole number of questions; ``rate``: a share of the questions it applies to."""
    summarize: Callable[[Sequence[bool | None]], float | None]
    """The configuration's value from every question's value (``None`` entries left out)."""

    @property
    def definition(self) -> str:
        """The exact formula, from the summary function's docstring."""
        return " ".join((self.summarize.__doc__ or "").split())


def _count(values: Sequence[bool | None]) -> int:
    """``Σ_q [v_q]`` over the questions whose value applies."""
    return sum(1 for value in values if value)


def _rate(values: Sequence[bool | None]) -> float | None:
    """``Σ_q [v_q] / |{q : v_q applies}|``; ``null`` when it applies to no question."""
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def _applies(values: Sequence[bool | None]) -> int:
    """``|{q : v_q applies}|``: the questions with a reference (or an answer)."""
    return sum(1 for value in values if value is not None)


ANSWER_METRICS: dict[str, AnswerMetric] = {
    metric.name: metric
    for metric in (
        AnswerMetric("answer_in_context", "in ctx", "count", _count),
        AnswerMetric("answer_in_context_rate", "in ctx %", "rate", _rate),
        AnswerMetric("questions_with_references", "with refs", "count", _applies),
        AnswerMetric("answer_correct", "correct", "count", _count),
        AnswerMetric("answer_correct_rate", "correct %", "rate", _rate),
    )
}
"""The answer metrics by key, in report order; ``answer_in_context*`` and ``questions_with_references`` read
each question's answer_in_context, ``answer_correct*`` each answered question's judgment."""
