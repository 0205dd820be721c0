"""HotpotQA (distractor and fullwiki JSON, or the HuggingFace export): supporting facts as sentence spans.

A HotpotQA question holds ``context``, a list of ``[title, [sentences]]`` paragraphs, and
``supporting_facts``, a list of ``[title, sentence index]``. HotpotQA's own scripts read a paragraph as
its sentences concatenated as they are (``"".join(sentences)``: each sentence after the first carries its
own leading space), so:

- without ``--corpus``, the corpus is built from the contexts: one document per title, its text the
  paragraph's sentences joined without separator, deduplicated across questions. A title whose text
  differs between questions keeps each distinct text as its own document: the first seen keeps the title
  as its id, the later ones are ``TITLE#2``, ``TITLE#3``; each question's evidence points to the text of
  its own context;
- a supporting fact is the span of its sentence in that document (``sum of the lengths of the sentences
  before it`` to that plus its length); every supporting fact is one required evidence item;
- a **hop** is one supporting paragraph (title): the question's titles in the order their first fact is
  listed, each hop needing all its sentences (``Question.hops`` gives each item's hop);
- with ``--corpus``, each fact's sentence is located in the document whose id or title is the fact's
  title, by the quote ladder (``--gold-match``).

Bad facts (a sentence index outside its paragraph, a title not in the context, an empty sentence) refuse
the file naming row and field, or with ``--skip-bad-gold`` leave the question out, counted by reason; a
lenient load (``gold check``) looks at every fact and also lists each bad one in ``QuestionSet.issues``.
A question without supporting facts (the fullwiki test set) is left out and counted.
The HuggingFace export's shapes (``context: {title: [...], sentences: [[...]]}``, ``supporting_facts:
{title: [...], sent_id: [...]}``, one row per line) are read the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset_formats import (
    DatasetFormat,
    LoadOptions,
    MatchTally,
    Probe,
    empty_question_set,
    left_out_line,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, count_reason, resolve_all
from chunkscope.io.quotes import QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.testset import testset_rows
from chunkscope.io.text import read_text
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span, SpanMatch

SENTENCE_OUT_OF_RANGE = "sentence index outside its paragraph"
TITLE_NOT_IN_CONTEXT = "supporting title not in the context"
EMPTY_SENTENCE = "supporting fact on an empty sentence"
NO_FACTS = "no supporting facts"
NOT_FOUND = "supporting sentence not found in the corpus"


@dataclass(frozen=True, slots=True)
class Fact:
    """One supporting fact: its title, sentence index and where it is in the file."""

    title: str
    sentence: int
    field: str


@dataclass(slots=True)
class _Texts:
    """The documents built from the contexts: each distinct text of a title, in order."""

    ids: dict[tuple[str, str], str] = field(default_factory=dict)
    documents: list[Document] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)

    def document(self, title: str, sentences: list[str]) -> str:
        """The id of the document holding this paragraph (built on first sight)."""
        text = "".join(sentences)
        key = (title, text)
        found = self.ids.get(key)
        if found is not None:
            return found
        version = self.versions[title] = self.versions.get(title, 0) + 1
        doc_id = title if version == 1 else f"{title}#{version}"
        self.ids[key] = doc_id
        self.documents.append(Document(doc_id, text, title=title))
        return doc_id


def sentence_span(sentences: list[str], index: int) -> tuple[int, int]:
    """Start and end of sentence ``index`` in ``"".join(sentences)``."""
    start = sum(len(sentence) for sentence in sentences[:index])
    return start, start + len(sentences[index])


def paragraphs(path: str, where: _Where, row: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The context as (title, sentences), from the list or the HuggingFace dict shape."""
    context = row.get("context")
    if isinstance(context, Mapping):
        titles, sentences = context.get("title"), context.get("sentences")
        if not isinstance(titles, list) or not isinstance(sentences, list) or len(titles) != len(sentences):
            raise where.fail("context", "must hold lists 'title' and 'sentences' of the same length")
        context = [[title, paragraph] for title, paragraph in zip(titles, sentences, strict=True)]
    if not isinstance(context, list):
        raise where.fail("context", "must be a list of [title, [sentences]]")
    found: list[tuple[str, list[str]]] = []
    for i, pair in enumerate(context):
        ok = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], list)
        if not ok or not all(isinstance(sentence, str) for sentence in pair[1]):
            raise where.fail(f"context[{i}]", "must be [title, [sentence strings]]")
        found.append((pair[0], list(pair[1])))
    return found


def facts(where: _Where, row: Mapping[str, Any]) -> list[Fact]:
    """The supporting facts, from the list or the HuggingFace dict shape, duplicates dropped."""
    value = row.get("supporting_facts")
    if value is None:
        return []
    if isinstance(value, Mapping):
        titles, indexes = value.get("title"), value.get("sent_id")
        if not isinstance(titles, list) or not isinstance(indexes, list) or len(titles) != len(indexes):
            raise where.fail("supporting_facts", "must hold lists 'title' and 'sent_id' of the same length")
        value = [[title, index] for title, index in zip(titles, indexes, strict=True)]
    if not isinstance(value, list):
        raise where.fail("supporting_facts", "must be a list of [title, sentence index]")
    found: dict[tuple[str, int], Fact] = {}
    for i, pair in enumerate(value):
        ok = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
        if not ok or not isinstance(pair[1], int) or isinstance(pair[1], bool):
            raise where.fail(f"supporting_facts[{i}]", "must be [title, sentence index]")
        found.setdefault((pair[0], pair[1]), Fact(pair[0], pair[1], f"supporting_facts[{i}]"))
    return list(found.values())


class _Where:
    def __init__(self, path: str, line: int | None, index: int) -> None:
        self.path, self.line, self.index = path, line, index

    def name(self, name: str) -> str:
        return name if self.line is not None else f"[{self.index}].{name}"

    def fail(self, name: str, message: str) -> InputError:
        return InputError(self.path, message, line=self.line, field=self.name(name))

    def bad(self, name: str, message: str, reason: str, **found: Any) -> BadGold:
        return BadGold(self.path, message, line=self.line, field=self.name(name), reason=reason, **found)


class _Builder:
    def __init__(self, path: Path, options: LoadOptions, corpus: Corpus | None) -> None:
        self.path = path
        self.options = options
        self.corpus = corpus
        self.finder = QuoteFinder(options.gold_match)
        self.texts = _Texts()
        self.questions: list[Question] = []
        self.left_out = LeftOut(options.lenient, options.skip_bad_gold)
        self.excluded = self.left_out.reasons
        self.tally = MatchTally()
        self.ids: set[str] = set()

    def add(self, line: int | None, index: int, row: Mapping[str, Any]) -> None:
        where = _Where(str(self.path), line, index)
        question_id = row.get("_id", row.get("id"))
        if not isinstance(question_id, str) or not question_id:
            question_id = f"row-{index + 1}"
        if question_id in self.ids:
            raise where.fail("_id", f"duplicate question id '{question_id}'")
        self.ids.add(question_id)
        query = row.get("question")
        if not isinstance(query, str) or not query.strip():
            raise where.fail("question", "must be a non-empty string")
        context = paragraphs(str(self.path), where, row)
        documents = {title: (self._doc_id(title, sentences), sentences) for title, sentences in context}
        supporting = facts(where, row)
        if not supporting:
            count_reason(self.excluded, NO_FACTS)
            return
        try:
            evidence, hops = self._evidence(where, supporting, documents)
        except BadGold as bad:
            self.left_out.bad(bad, question_id)
            return
        tags = tuple(str(row[key]) for key in ("type", "level") if isinstance(row.get(key), str) and row[key])
        answer = row.get("answer")
        references = (answer,) if isinstance(answer, str) and answer else ()
        self.questions.append(Question(question_id, query, evidence, tags, references, hops))

    def _doc_id(self, title: str, sentences: list[str]) -> str:
        return self.texts.document(title, sentences) if self.corpus is None else title

    def _evidence(
        self, where: _Where, supporting: list[Fact], documents: Mapping[str, tuple[str, list[str]]]
    ) -> tuple[tuple[EvidenceItem, ...], tuple[int, ...]]:
        items = resolve_all(supporting, lambda fact: self._fact(where, fact, documents), self.options.lenient)
        hop_of: dict[str, int] = {}
        hops = tuple(hop_of.setdefault(fact.title, len(hop_of)) for fact in supporting)
        return tuple(items), hops

    def _fact(self, where: _Where, fact: Fact, documents: Mapping[str, tuple[str, list[str]]]) -> EvidenceItem:
        """One supporting fact's item (a lenient load looks at every fact of a question, bad or not)."""
        if fact.title not in documents:
            raise where.bad(
                f"{fact.field}[0]",
                f"title {fact.title!r} is not in the context",
                TITLE_NOT_IN_CONTEXT,
                kind="not_found",
                quote=fact.title,
            )
        doc_id, sentences = documents[fact.title]
        if not 0 <= fact.sentence < len(sentences):
            raise where.bad(
                f"{fact.field}[1]",
                f"sentence {fact.sentence} is outside paragraph {fact.title!r} "
                f"({len(sentences)} sentences: 0 to {len(sentences) - 1})",
                SENTENCE_OUT_OF_RANGE,
                kind="out_of_range",
                doc=doc_id,
            )
        if not sentences[fact.sentence].strip():
            raise where.bad(
                f"{fact.field}[1]",
                f"sentence {fact.sentence} of {fact.title!r} is empty",
                EMPTY_SENTENCE,
                kind="out_of_range",
                doc=doc_id,
            )
        return self._item(where, fact, doc_id, sentences)

    def _item(self, where: _Where, fact: Fact, doc_id: str, sentences: list[str]) -> EvidenceItem:
        if self.corpus is None:
            start, end = sentence_span(sentences, fact.sentence)
            self.tally.add("exact")
            return EvidenceItem((Span(doc_id, start, end),))
        sentence = sentences[fact.sentence].strip()
        document = self.corpus.by_id.get(fact.title) or next(
            (doc for doc in self.corpus.documents if doc.title == fact.title), None
        )
        hits = self.finder.find(document.id, document.text, sentence) if document is not None else None
        if document is None or hits is None or hits.match is None:
            self.tally.add(None)
            missing = "no document of that title" if document is None else "the sentence is not in its document"
            raise where.bad(
                f"{fact.field}",
                f"{fact.title!r} sentence {fact.sentence}: {missing}",
                NOT_FOUND,
                kind="not_found",
                doc=document.id if document is not None else None,
                quote=sentence,
            )
        self.tally.add(hits.match.kind)
        spans = tuple(Span(document.id, start, end) for start, end in hits.places)
        matches: tuple[SpanMatch, ...] = (hits.match,) * len(spans) if hits.match.approximate else ()
        return EvidenceItem(spans, matches)


def load_hotpotqa(path: str | Path, options: LoadOptions) -> Dataset:
    """Read a HotpotQA file (see the module docstring)."""
    path = Path(path)
    text, digest = read_text(path)
    corpus: Corpus | None = None
    sources = [SourceFile(str(path), digest)]
    if options.corpus is not None:
        corpus, corpus_source = load_corpus(options.corpus)
        sources.insert(0, corpus_source)
    builder = _Builder(path, options, corpus)
    for line, index, row in _rows(path, text):
        builder.add(line, index, row)
    if not builder.questions and not builder.left_out.issues:
        raise empty_question_set(path, builder.excluded)
    documents = corpus if corpus is not None else Corpus(tuple(builder.texts.documents))
    question_set = builder.left_out.question_set(builder.questions)
    variants = sum(1 for count in builder.texts.versions.values() if count > 1)
    notices = [builder.tally.line(path, "supporting facts"), left_out_line(path, builder.excluded)]
    if variants:
        notices.append(
            f"{path}: {variants} titles have differing texts across questions: each text is its own document"
        )
    return Dataset(documents, question_set, tuple(sources), path.stem, tuple(notices))


def _rows(path: Path, text: str) -> Iterable[tuple[int | None, int, dict[str, Any]]]:
    readable = (
        path
        if path.suffix.lower() in (".json", ".jsonl")
        else path.with_suffix(".jsonl" if text.lstrip().startswith("{") else ".json")
    )
    return testset_rows(readable, text)


def _sniff(probe: Probe) -> bool:
    return probe.layout in ("array", "jsonl") and probe.has("supporting_facts", "context", "question")


register(
    DatasetFormat(
        "hotpotqa",
        "HotpotQA rows: _id, question, answer, supporting_facts [[title, sentence]], context [[title, sentences]]",
        _sniff,
        load_hotpotqa,
        20,
    )
)
