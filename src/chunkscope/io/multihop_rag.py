"""MultiHop-RAG: queries whose evidence is a list of fact strings, each quoted from a news article.

Two files, as the dataset publishes them: the queries (``MultiHopRAG.json``, a list of ``{query, answer,
question_type, evidence_list: [{title, fact, ...}]}``), given to ``--dataset``, and the articles
(``corpus.json``, a list of ``{title, body, ...}``), given to ``--corpus`` or found as ``corpus.json``
beside the queries. Each article is one document, its text the ``body``, its id the ``title`` (a title
met again gets ``#2``, ``#3``: the evidence names the first). Each fact is one required evidence item,
located in the body of the article its ``title`` names by the quote ladder (``--gold-match``); every
occurrence there is an alternative. A **hop** is one evidence article: the query's articles in the order
their first fact is listed, each hop needing all its facts. A query without evidence (``null_query``) is
left out and counted; a fact not found, or naming an article the corpus lacks, refuses the file naming
row and field, or with ``--skip-bad-gold`` leaves its query out, counted by reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chunkscope.errors import InputError
from chunkscope.io.dataset_formats import (
    DatasetFormat,
    LoadOptions,
    MatchTally,
    Probe,
    empty_question_set,
    left_out_line,
    quote_item,
    register,
)
from chunkscope.io.gold import BadGold, LeftOut, count_reason, resolve_all
from chunkscope.io.quotes import QuoteFinder
from chunkscope.io.sources import Dataset, SourceFile
from chunkscope.io.text import parse_json, read_text, reject_bom
from chunkscope.model import Corpus, Document, EvidenceItem, Question

NO_EVIDENCE = "no evidence (null query)"
UNKNOWN_ARTICLE = "evidence article not in the corpus"
FACT_NOT_FOUND = "fact not found in its article"
CORPUS_NAME = "corpus.json"


def _list_of_objects(path: Path, what: str) -> tuple[list[tuple[int, Mapping[str, Any]]], str]:
    text, digest = read_text(path)
    reject_bom(path, text)
    value = parse_json(path, text)
    if not isinstance(value, list):
        raise InputError(str(path), f"expected a list of {what}")
    for index, row in enumerate(value):
        if not isinstance(row, dict):
            raise InputError(str(path), "each element must be an object", field=f"[{index}]")
    return list(enumerate(value)), digest


def load_articles(path: Path) -> tuple[Corpus, SourceFile]:
    """The MultiHop-RAG articles as documents (id: title, text: body)."""
    rows, digest = _list_of_objects(path, "articles {title, body}")
    documents: list[Document] = []
    seen: dict[str, int] = {}
    for index, row in rows:
        for key in ("title", "body"):
            if not isinstance(row.get(key), str) or not row[key]:
                raise InputError(str(path), "must be a non-empty string", field=f"[{index}].{key}")
        title = row["title"]
        seen[title] = seen.get(title, 0) + 1
        doc_id = title if seen[title] == 1 else f"{title}#{seen[title]}"
        metadata = {key: value for key, value in row.items() if key not in ("title", "body")}
        documents.append(Document(doc_id, row["body"], title=title, metadata=metadata))
    return Corpus(tuple(documents)), SourceFile(str(path), digest)


def load_multihop_rag(path: str | Path, options: LoadOptions) -> Dataset:
    """Read MultiHop-RAG queries with their articles (see the module docstring)."""
    path = Path(path)
    corpus_path = Path(options.corpus) if options.corpus is not None else path.parent / CORPUS_NAME
    if options.corpus is None and not corpus_path.is_file():
        raise InputError(
            str(path), f"MultiHop-RAG queries need their articles: give --corpus corpus.json ({corpus_path} is absent)"
        )
    corpus, corpus_source = load_articles(corpus_path)
    rows, digest = _list_of_objects(path, "queries {query, answer, evidence_list}")
    finder = QuoteFinder(options.gold_match)
    tally = MatchTally()
    questions: list[Question] = []
    left_out = LeftOut(options.lenient, options.skip_bad_gold)
    excluded = left_out.reasons
    for index, row in rows:
        where = f"[{index}]"
        query = row.get("query")
        if not isinstance(query, str) or not query.strip():
            raise InputError(str(path), "must be a non-empty string", field=f"{where}.query")
        evidence = row.get("evidence_list")
        if not isinstance(evidence, list):
            raise InputError(str(path), "must be a list of {title, fact}", field=f"{where}.evidence_list")
        if not evidence:
            count_reason(excluded, NO_EVIDENCE)
            continue
        question_id = row.get("id") if isinstance(row.get("id"), str) and row.get("id") else f"q{index + 1}"
        try:
            items, hops = _evidence(str(path), where, evidence, corpus, finder, tally, options.lenient)
        except BadGold as bad:
            left_out.bad(bad, str(question_id))
            continue
        tags = (row["question_type"],) if isinstance(row.get("question_type"), str) and row["question_type"] else ()
        answer = row.get("answer")
        references = (answer,) if isinstance(answer, str) and answer else ()
        questions.append(Question(str(question_id), query, items, tags, references, hops))
    if not questions and not left_out.issues:
        raise empty_question_set(path, excluded)
    question_set = left_out.question_set(questions)
    notices = (tally.line(path, "facts"), left_out_line(path, excluded))
    return Dataset(corpus, question_set, (corpus_source, SourceFile(str(path), digest)), path.stem, notices)


def _evidence(
    path: str,
    where: str,
    evidence: list[Any],
    corpus: Corpus,
    finder: QuoteFinder,
    tally: MatchTally,
    lenient: bool = False,
) -> tuple[tuple[EvidenceItem, ...], tuple[int, ...]]:
    """Each fact's item and hop (``lenient``: every fact is looked at, and the bad ones raised together)."""

    def fact(i: int, entry: Any) -> tuple[EvidenceItem, str]:
        name = f"{where}.evidence_list[{i}]"
        if not isinstance(entry, dict):
            raise InputError(path, "must be an object {title, fact}", field=name)
        for key in ("title", "fact"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise InputError(path, "must be a non-empty string", field=f"{name}.{key}")
        document = corpus.by_id.get(entry["title"])
        if document is None:
            tally.add(None)
            message = f"no article titled {entry['title']!r}"
            raise BadGold(
                path, message, field=f"{name}.title", reason=UNKNOWN_ARTICLE, kind="not_found", quote=entry["title"]
            )
        quote = entry["fact"].strip()
        item = quote_item(finder, tally, document, quote)
        if item is None:
            message = f"fact not found in article {entry['title']!r}"
            raise BadGold(
                path,
                message,
                field=f"{name}.fact",
                reason=FACT_NOT_FOUND,
                kind="not_found",
                doc=document.id,
                quote=quote,
            )
        return item, document.id

    found = resolve_all(enumerate(evidence), lambda pair: fact(*pair), lenient)
    hop_of: dict[str, int] = {}
    return tuple(item for item, _ in found), tuple(hop_of.setdefault(doc, len(hop_of)) for _, doc in found)


def _sniff(probe: Probe) -> bool:
    return probe.layout == "array" and probe.has("query", "evidence_list")


register(
    DatasetFormat(
        "multihop-rag",
        "MultiHop-RAG queries: query, answer, evidence_list [{title, fact}] (articles: --corpus corpus.json)",
        _sniff,
        load_multihop_rag,
        20,
    )
)
