"""The tantivy retriever: Lucene BM25 over our tokens, ranked like every retriever, indexed once on disk.

The oracle is BM25 computed here by brute force from the definition (Lucene / tantivy):

    idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)),  N units, n of them holding t
    score  = sum over query tokens t (repeats count) of idf(t) * 2.2 * tf / (tf + 1.2 * (0.25 + 0.75 * L / avgdl))

with avgdl the exact mean length in tokens and L the unit's length rounded down to tantivy's one-byte
field-norm table (listed below from tantivy's ``fieldnorm/code.rs`` as far as these tests need it).
tantivy computes in float32, the oracle in float64: scores agree within a relative 1e-5, and rank
orders are compared on queries whose top scores are not that close to each other (exact ties,
same tokens and lengths, must then follow the tie-break: document id, then start).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import threading
import warnings
from bisect import bisect_right
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.base import chunk_corpus
from chunkscope.cli import main
from chunkscope.errors import ChunkscopeWarning, MissingExtraError, SpecError
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Corpus, Document, Question
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.parallel import evaluate_configs
from chunkscope.retrievers import engine, parse_retriever
from chunkscope.retrievers.engine import Tantivy, TantivyIndex, escape_token, index_text, query_terms, unit_texts
from chunkscope.spec.grammar import format_spec
from chunkscope.tokenize.base import get_tokenizer
from chunkscope.tokenize.chunks import chunk_token_batches

TANTIVY_NORMS = [*range(41), 42, 44, 46, 48, 50, 52, 54, 56, 60, 64, 68, 72, 76, 80, 84, 88, 96, 104, 112, 120, 128]
"""tantivy's FIELD_NORMS_TABLE up to 128 tokens (the longest test unit stays below 128)."""
RELATIVE = 1e-5

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
]
JAPANESE = ["梅雨", "東京", "気象", "現象", "日本"]


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(root))
    return root


def unit(doc: str, start: int, text: str) -> Chunk:
    return Chunk(f"{doc}#{start}", doc, start, start + len(text), text)


def synthetic_units(seed: int, count: int = 70) -> list[Chunk]:
    """Units of skewed word frequencies and lengths from 0 to 120 tokens, some texts repeated in other documents."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    units = []
    for number in range(count):
        length = rng.choice([0, 1, 3, 7, 12, 25, 39, 40, 41, 43, 57, 60, 75, 99, 120])
        words = rng.choices(WORDS, weights, k=length)
        if rng.random() < 0.2:
            words.append(rng.choice(JAPANESE))
        units.append(unit(f"doc{rng.randrange(12):02d}", 1000 * number, " ".join(words)))
    for copy in range(6):  # identical texts elsewhere: exact ties only the tie-break can order
        source = units[copy * 7]
        units.append(unit(f"copy{5 - copy}", source.start, source.text))
    rng.shuffle(units)
    return units


def synthetic_questions(seed: int, count: int = 60) -> list[Question]:
    rng = random.Random(seed + 1)
    questions = []
    for number in range(count):
        words = rng.choices([*WORDS, *JAPANESE, "unknownword"], k=rng.randint(1, 6))
        questions.append(Question(f"q{number}", " ".join(words), ()))
    return questions


def lucene_scores(units: list[Chunk], query: str) -> list[float]:
    """Brute-force BM25 (Lucene, tantivy's quantised lengths) of every unit, float64."""
    tokenize = get_tokenizer("default")
    documents = [Counter(tokenize(u.indexed_text)) for u in units]
    lengths = [sum(d.values()) for d in documents]
    count = len(units)
    average = sum(lengths) / count
    scores = []
    for document, length in zip(documents, lengths, strict=True):
        quantised = TANTIVY_NORMS[bisect_right(TANTIVY_NORMS, length) - 1]
        score = 0.0
        for token in tokenize(query):
            tf = document[token]
            if tf:
                holders = sum(1 for d in documents if token in d)
                idf = math.log(1 + (count - holders + 0.5) / (holders + 0.5))
                score += idf * 2.2 * tf / (tf + 1.2 * (0.25 + 0.75 * quantised / average))
        scores.append(score)
    return scores


def oracle_order(units: list[Chunk], scores: list[float]) -> list[int]:
    """Positions with a positive score, by score descending, then document id, start, end, id."""
    matched = [i for i, score in enumerate(scores) if score > 0]
    return sorted(matched, key=lambda i: (-scores[i], units[i].doc, units[i].start, units[i].end, units[i].id))


def near_tie(scores: list[float], order: list[int]) -> bool:
    """Two neighbouring ranked scores closer than float32 can tell apart, yet not equal."""
    values = [scores[i] for i in order]
    return any(a != b and abs(a - b) <= 4 * RELATIVE * a for a, b in itertools.pairwise(values))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scores_and_rankings_equal_brute_force_lucene_bm25(seed: int) -> None:
    units = synthetic_units(seed)
    questions = synthetic_questions(seed)
    rankings = Tantivy().build(units).rank(questions, depth=len(units))
    compared = 0
    for question, ranking in zip(questions, rankings, strict=True):
        scores = lucene_scores(units, question.query)
        order = oracle_order(units, scores)
        assert sorted(ranking.indices) == sorted(order)  # the same units match, zero scores left out
        for position, score in zip(ranking.indices, ranking.scores, strict=True):
            assert score == pytest.approx(scores[position], rel=RELATIVE)
        if not near_tie(scores, order):
            assert list(ranking.indices) == order
            compared += 1
    assert compared >= 0.8 * len(questions)  # 54 to 60 of 60 for these seeds


def test_depth_cut_inside_a_tie_keeps_the_tie_break_order() -> None:
    units = [*[unit(f"d{i:02d}", 0, "needle hay") for i in range(30)][::-1], unit("z", 0, "needle needle")]
    (ranking,) = Tantivy().build(units).rank([Question("q", "needle", ())], depth=5)
    assert [units[i].doc for i in ranking.indices] == ["z", "d00", "d01", "d02", "d03"]
    assert len(set(ranking.scores[1:])) == 1


def test_ties_break_by_document_then_start() -> None:
    units = [
        unit("beta", 0, "rare word"),
        unit("alpha", 50, "rare word"),
        unit("alpha", 5, "rare word"),
        *(unit("gamma", 10 * i, "none") for i in range(6)),
        unit("alpha", 0, "rare word"),
    ]
    (ranking,) = Tantivy().build(units).rank([Question("q", "rare", ())], depth=20)
    assert [(units[i].doc, units[i].start) for i in ranking.indices] == [
        ("alpha", 0),
        ("alpha", 5),
        ("alpha", 50),
        ("beta", 0),
    ]


def test_queries_without_known_tokens_and_empty_indexes_retrieve_nothing() -> None:
    units = [unit("a", 0, "alpha beta"), unit("b", 0, "")]
    questions = [Question("q1", "unknownword", ()), Question("q2", "!!!", ()), Question("q3", "", ())]
    assert [r.indices for r in Tantivy().build(units).rank(questions, 20)] == [(), (), ()]
    assert Tantivy().build([]).rank(questions, 20)[0].indices == ()


def test_query_syntax_is_not_interpreted() -> None:
    """Words of tantivy's query language are plain terms: the query is built term by term."""
    units = [unit("a", 0, "and or not"), unit("b", 0, "title body"), unit("c", 0, "plain text")]
    (ranking,) = Tantivy().build(units).rank([Question("q", 'title:"body" AND (or) NOT -x* ~2 ^3', ())], 20)
    assert sorted(units[i].doc for i in ranking.indices) == ["a", "b"]


# --- tokens -----------------------------------------------------------------------------------------

WHITESPACE = re.compile("[ \t\n\x0c\r]+")
"""How tantivy's whitespace tokenizer splits: on ASCII whitespace (Rust's ``is_ascii_whitespace``)."""


@given(st.lists(st.text(alphabet=st.sampled_from(["a", "é", " ", "\t", "\n", "\r", "\x0c", "\ue000", "0", "_"]))))
def test_escaped_tokens_survive_the_whitespace_tokenizer_one_to_one(tokens: list[str]) -> None:
    text = index_text(tokens)
    split = [piece for piece in WHITESPACE.split(text) if piece]
    assert split == [escape_token(t) for t in tokens]
    assert query_terms(tokens) == split
    distinct = {t: escape_token(t) for t in tokens}
    assert len(set(distinct.values())) == len(distinct)


def test_plain_tokens_are_joined_unchanged() -> None:
    tokens = get_tokenizer("default")("Order API: 梅雨入り v3 orders")
    assert index_text(tokens) == " ".join(tokens)
    assert query_terms(tokens) == tokens


def test_overlong_tokens_become_their_digest() -> None:
    long = "x" * 70_000
    escaped = escape_token(long)
    assert escaped.startswith("\ue000#") and len(escaped.encode()) < 100
    assert escape_token("y" * 70_000) != escaped


def test_odd_tokens_are_indexed_and_found() -> None:
    """Through tantivy itself, with a tokenizer giving spaces, empty and overlong tokens."""
    odd = {"one": ["a b", "c"], "two": ["", "c"], "three": ["x" * 70_000], "four": ["a", "b"]}
    units = [unit(name, 0, name) for name in odd]
    index = TantivyIndex(Tantivy(), units)
    index.tokenizer = lambda text: odd.get(text, text.split("|"))
    questions = [Question(name, query, ()) for name, query in [("q1", "a b"), ("q2", "|c"), ("q3", "x" * 70_000)]]
    rankings = index.rank(questions, 20)
    assert [units[i].doc for i in rankings[0].indices] == ["one"]  # "a b" is one token, not "a" or "b"
    assert [units[i].doc for i in rankings[1].indices[:1]] == ["two"]  # the empty token matches too
    assert [units[i].doc for i in rankings[2].indices] == ["three"]


ODD_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("ab 1 \t\n\r\x0c\ue000_|"),
        st.sampled_from("日本語の梅雨𠮷々ｶﾞé\u0301ﬁ"),
        st.characters(exclude_categories=["Cs"]),
    ),
    max_size=40,
)


@st.composite
def cut_documents(draw: st.DrawFn) -> tuple[Corpus, list[Chunk]]:
    texts = draw(st.lists(ODD_TEXT, min_size=1, max_size=4))
    documents = [Document(f"d{i}", text) for i, text in enumerate(texts)]
    units = []
    for number in range(draw(st.integers(0, 10))):
        document = draw(st.sampled_from(documents))
        start = draw(st.integers(0, len(document.text)))
        end = draw(st.integers(start, len(document.text)))
        prefix = draw(st.sampled_from(["", "見出し\n", "x "]))
        units.append(Chunk(f"u{number}", document.id, start, end, document.text[start:end], prefix))
    return Corpus(tuple(documents)), units


def odd_tokenizer(text: str) -> list[str]:
    """Tokens holding whitespace and the escape character, empty ones, and one past tantivy's length limit."""
    return [*text.split("|"), "x" * 70_000 if "_" in text else "y"]


@settings(max_examples=300, deadline=None)
@given(cut_documents(), st.integers(1, 60))
def test_texts_from_token_streams_equal_each_units_index_text(case: tuple[Corpus, list[Chunk]], batch: int) -> None:
    """What a build gives tantivy: each unit's tokens joined and escaped, however the runs are cut."""
    corpus, units = case
    for tokenizer in (get_tokenizer("default"), odd_tokenizer):
        expected = [index_text(tokenizer(unit.indexed_text)) for unit in units]
        for source in (corpus, None):
            batches = chunk_token_batches(tokenizer, units, source, batch)
            assert [text for _, tokens in batches for text in unit_texts(tokens)] == expected


def test_building_over_the_corpus_ranks_as_building_over_the_units(sample: Dataset) -> None:
    units = chunk_corpus(parse_chunker("fixed:size=200,overlap=40"), sample.corpus).units
    questions = sample.questions.questions
    over_units = Tantivy(cache=False).build(units).rank(questions, 20)
    assert Tantivy(cache=False).build_over(units, sample.corpus).rank(questions, 20) == over_units


# --- the on-disk index ------------------------------------------------------------------------------


def directory_state(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in sorted(folder.rglob("*"))}


def test_index_is_built_once_then_opened(cache: Path) -> None:
    units = synthetic_units(4)
    questions = synthetic_questions(4)
    first = Tantivy().build(units)
    rankings = first.rank(questions, 20)
    assert first.opened is not None and first.opened.built
    folders = list((cache / "tantivy").iterdir())
    assert [f.name for f in folders] == [engine.index_key(units, "default")]
    description = json.loads((folders[0] / "chunkscope.json").read_text())
    assert description["units"] == len(units)
    before = directory_state(folders[0])

    again = Tantivy().build([Chunk(u.id, u.doc, u.start, u.end, u.text) for u in units])  # equal, not the same
    assert again.rank(questions, 20) == rankings
    assert again.opened is not None and not again.opened.built
    assert directory_state(folders[0]) == before


def test_another_chunking_gets_another_index(cache: Path) -> None:
    units = synthetic_units(5)
    Tantivy().build(units).rank([Question("q", "alpha", ())], 20)
    changed = [*units[:-1], unit(units[-1].doc, units[-1].start, units[-1].text + " alpha")]
    index = Tantivy().build(changed)
    index.rank([Question("q", "alpha", ())], 20)
    assert index.opened is not None and index.opened.built
    assert len(list((cache / "tantivy").iterdir())) == 2


def test_cache_location_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("CHUNKSCOPE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert engine.index_directory() == tmp_path / "xdg" / "chunkscope" / "tantivy"


def test_cache_false_leaves_no_index_behind(cache: Path) -> None:
    index = Tantivy(cache=False).build(synthetic_units(6))
    index.rank([Question("q", "alpha", ())], 20)
    assert index.opened is not None and index.opened.path is not None
    temporary = index.opened.path
    assert temporary.is_dir() and not cache.exists()
    del index
    assert not temporary.exists()


def test_unwritable_cache_falls_back_to_a_temporary_index_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(blocker / "cache"))
    units = synthetic_units(7)
    questions = synthetic_questions(7)
    expected = Tantivy(cache=False).build(units).rank(questions, 20)
    with pytest.warns(ChunkscopeWarning, match="cannot write the tantivy index cache") as caught:
        index = Tantivy().build(units)
        assert index.rank(questions, 20) == expected
    assert len(caught) == 1
    assert index.opened is not None and index.opened.built
    assert blocker.is_file()


def test_unwritable_cache_is_one_warning_for_the_whole_evaluation(
    sample: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CHUNKSCOPE_CACHE", str(blocker / "cache"))
    configs = [make_config(chunker, "tantivy") for chunker in ("fixed:size=200", "paragraph", "markdown")]
    for jobs in (1, 2):
        warnings = evaluate_configs(sample.corpus, sample.questions.questions, configs, jobs).warnings
        assert len(warnings) == 1 and "cannot write the tantivy index cache" in warnings[0]


def test_damaged_cached_index_is_rebuilt(cache: Path) -> None:
    units = synthetic_units(8)
    questions = synthetic_questions(8)
    expected = Tantivy().build(units).rank(questions, 20)
    (folder,) = (cache / "tantivy").iterdir()
    for path in folder.iterdir():
        if path.name != "chunkscope.json":
            path.write_bytes(b"garbage")
    with pytest.warns(ChunkscopeWarning, match="is damaged"):
        index = Tantivy().build(units)
        assert index.rank(questions, 20) == expected
    assert index.opened is not None and index.opened.built


def damage_field_norms(folder: Path, seed: int) -> None:
    """Random bytes over the field norms (one byte per unit at the start of the file), the footer kept, the
    size and times unchanged: tantivy opens the index as if nothing happened, and scores with the wrong lengths."""
    (norms,) = folder.glob("*.fieldnorm")
    before = norms.stat()
    data = bytearray(norms.read_bytes())
    rng = random.Random(seed)
    data[:70] = bytes(rng.randrange(256) for _ in range(70))
    norms.write_bytes(bytes(data))
    os.utime(norms, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_random_bytes_in_a_field_norm_file_are_detected_and_the_index_rebuilt(cache: Path) -> None:
    # R@5 dropped from 0.675 to 0.400 on every run after such damage, without a word: the damaged index was reused.
    units = synthetic_units(8)
    questions = synthetic_questions(8)
    expected = Tantivy(cache=False).build(units).rank(questions, 20)
    assert Tantivy().build(units).rank(questions, 20) == expected
    (folder,) = (cache / "tantivy").iterdir()
    norms = re.escape(next(folder.glob("*.fieldnorm")).name)  # the rebuilt index's segment has another name
    damage_field_norms(folder, 8)
    with pytest.warns(ChunkscopeWarning) as caught:
        index = Tantivy().build(units)
        assert index.rank(questions, 20) == expected
    (warned,) = [str(w.message) for w in caught if issubclass(w.category, ChunkscopeWarning)]
    assert re.fullmatch(
        rf"the cached tantivy index {re.escape(str(folder))} is damaged \({norms} changed since the index was built "
        r"\(CRC-32 [0-9a-f]{8}, not [0-9a-f]{8}\)\); building it again",
        warned,
    )
    assert index.opened is not None and index.opened.built
    again = Tantivy().build(units)
    assert again.rank(questions, 20) == expected
    assert again.opened is not None and not again.opened.built  # the rebuilt index is trusted again


@pytest.mark.parametrize(
    "description",
    ["[]", "null", '"text"', "{", '{"units": "many"}', "\xff\xfe"],
    ids=["list", "null", "string", "truncated", "wrong-units", "not-utf8"],
)
def test_a_description_that_is_not_an_index_description_is_rebuilt(cache: Path, description: str) -> None:
    # chunkscope.json holding [] ended in an AttributeError traceback instead of a rebuild.
    units = synthetic_units(11)
    questions = synthetic_questions(11)
    expected = Tantivy().build(units).rank(questions, 20)
    (folder,) = (cache / "tantivy").iterdir()
    (folder / "chunkscope.json").write_bytes(description.encode("latin-1"))
    with pytest.warns(ChunkscopeWarning, match=r"is damaged \(chunkscope\.json "):
        index = Tantivy().build(units)
        assert index.rank(questions, 20) == expected
    assert index.opened is not None and index.opened.built


@pytest.mark.parametrize("which", ["description", "index file", "lock file"])
def test_a_fifo_in_a_cached_index_is_never_opened(cache: Path, which: str) -> None:
    units = synthetic_units(12)
    questions = synthetic_questions(12)
    expected = Tantivy().build(units).rank(questions, 20)
    (folder,) = (cache / "tantivy").iterdir()
    victim = {
        "description": folder / "chunkscope.json",
        "index file": next(folder.glob("*.fieldnorm")),
        "lock file": folder / ".tantivy-meta.lock",  # not in the manifest, but tantivy opens it
    }[which]
    victim.unlink()
    os.mkfifo(victim)
    outcome: list[object] = []

    def run() -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            index = Tantivy().build(units)
            outcome.extend([index.rank(questions, 20), index.opened, [str(w.message) for w in caught]])

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "waited for a writer of the FIFO"
    rankings, opened, warned = outcome
    assert rankings == expected and isinstance(opened, engine.OpenedIndex) and opened.built
    assert len(warned) == 1 and "is damaged" in warned[0] and "FIFO" in warned[0]  # type: ignore[arg-type]


def test_results_identical_in_worker_processes(sample: Dataset) -> None:
    configs = [make_config(chunker, "tantivy") for chunker in ("fixed:size=200", "paragraph")]
    corpus, questions = sample.corpus, sample.questions.questions
    assert (
        evaluate_configs(corpus, questions, configs, 2).results
        == evaluate_configs(corpus, questions, configs, 1).results
    )


# --- the spec ---------------------------------------------------------------------------------------


def test_spec_has_no_bm25_parameters() -> None:
    assert format_spec(parse_retriever("tantivy")) == "tantivy:tokenizer=default,cache=true"
    with pytest.raises(SpecError, match="no parameter 'k1'"):
        parse_retriever("tantivy:k1=1.5")


def test_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(engine, "tantivy_installed", lambda: False)
    with pytest.raises(MissingExtraError, match=re.escape("pip install 'chunkscope[engine]'")):
        parse_retriever("tantivy")
    assert main(["eval", "--retriever", "tantivy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'chunkscope[engine]'" in err


def test_cli_eval_with_tantivy(capsys: pytest.CaptureFixture[str], cache: Path) -> None:
    assert main(["eval", "--chunker", "paragraph", "--retriever", "tantivy", "--json", "-", "--jobs", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["configs"][0]["retriever"].startswith("tantivy")
    assert os.listdir(cache / "tantivy")


def test_builds_abandoned_by_a_dead_process_are_removed(cache: Path) -> None:
    units = synthetic_units(9)
    key = engine.index_key(units, "default")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid now names no process
    root = cache / "tantivy"
    abandoned = root / f"{key}.building-{dead.pid}-x1"
    running = root / f"{key}.building-{os.getpid()}-x2"  # this process: still alive, kept
    for folder in (abandoned, running):
        folder.mkdir(parents=True)
    Tantivy().build(units).rank([Question("q", "alpha", ())], 20)
    assert not abandoned.exists() and running.exists()
    assert (root / key / "chunkscope.json").is_file()


def test_an_interrupted_build_leaves_nothing_behind(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "_write_index", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Tantivy().build(synthetic_units(10)).rank([Question("q", "alpha", ())], 20)
    assert list((cache / "tantivy").iterdir()) == []


def test_eval_after_damage_warns_once_and_reports_the_numbers_of_a_sound_index(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", "--chunker", "fixed:size=200", "--retriever", "tantivy", "--jobs", "1", "--json", "-"]
    assert main(argv) == 0
    sound = json.loads(capsys.readouterr().out)
    (folder,) = (cache / "tantivy").iterdir()
    damage_field_norms(folder, 3)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["configs"] == sound["configs"]
    warned = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warned) == 1 and warned[0].startswith(
        f"chunkscope: warning: the cached tantivy index {folder} is damaged"
    )
