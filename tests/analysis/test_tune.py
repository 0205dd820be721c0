"""Tuning: the recommendation against a brute-force rule and against an exhaustive sweep, the space, the cache."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from chunkscope.analysis.paired import metric_values
from chunkscope.analysis.tune import Scored, TuneSettings, recommend, subset_sizes, successive_halving
from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator

EXACT = 1 << 12  # permutations >= 2^n: the sign-flip tests enumerate every sign vector


def exact_p(d: np.ndarray, one_sided: bool = False) -> float:
    """p of the sign-flip test by enumerating every sign vector (two-sided |mean|, or one-sided mean)."""
    observed = d.sum()
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        value = float(np.dot(signs, d))
        tol = 1e-9
        hits += (value >= observed - tol) if one_sided else (abs(value) >= abs(observed) - tol)
    return 1.0 if not one_sided and not d.any() else hits / 2 ** len(d)


def holm_by_hand(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted = [0.0] * len(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def brute_force_choice(values: list[list[float]], costs: list[float], alpha: float, margin: float | None) -> int:
    means = [float(np.mean(v)) for v in values]
    best = max(range(len(values)), key=lambda i: (means[i], -costs[i], -i))
    others = [i for i in range(len(values)) if i != best]
    diffs = {i: np.array(values[i]) - np.array(values[best]) for i in others}
    worse_p = dict(zip(others, holm_by_hand([exact_p(diffs[i]) for i in others]), strict=True))
    eligible = {best}
    tost: dict[int, float] = {}
    if margin is not None:
        raw = [max(exact_p(diffs[i] + margin, True), exact_p(margin - diffs[i], True)) for i in others]
        tost = dict(zip(others, holm_by_hand(raw), strict=True))
    for i in others:
        worse = worse_p[i] < alpha and diffs[i].mean() < 0
        if not worse and (margin is None or tost[i] < alpha):
            eligible.add(i)
    return min(eligible, key=lambda i: (costs[i], -means[i], i))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("margin", [None, 0.3])
def test_recommend_equals_the_rule_computed_by_brute_force(sample: Dataset, seed: int, margin: float | None) -> None:
    rng = np.random.default_rng(seed)
    count = 5
    values = [rng.integers(0, 2, size=10).astype(float).tolist() for _ in range(count)]
    costs = rng.integers(1, 4, size=count).astype(float).tolist()  # ties in cost happen
    configs = [make_config(f"fixed:size={100 * (i + 1)}") for i in range(count)]
    scored = [Scored(c, np.array(v), cost) for c, v, cost in zip(configs, values, costs, strict=True)]
    chosen = recommend(scored, TuneSettings(alpha=0.2, permutations=EXACT, seed=seed, margin=margin))
    assert chosen.recommended.config == configs[brute_force_choice(values, costs, 0.2, margin)]


def test_subset_sizes_by_hand() -> None:
    # 8 configurations, eta 2: three halvings, 1000 questions: 125, 250, 500, 1000.
    assert subset_sizes(1000, 8, 2, 100) == [125, 250, 500, 1000]
    assert subset_sizes(1000, 8, 2, 200) == [250, 500, 1000]  # 125 is below the first round's minimum
    assert subset_sizes(40, 9, 3, 5) == [5, 14, 40]
    assert subset_sizes(40, 1, 2, 5) == [40]


SPACES = [
    ["published"],
    ["fixed:size=150", "fixed:size=300", "fixed:size=300,overlap=60", "fixed:size=600", "paragraph"],
    ["fixed:size=200", "fixed:size=250", "fixed:size=300", "fixed:size=350", "fixed:size=400", "fixed:size=450"],
]


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_halving_recommends_what_the_exhaustive_sweep_recommends(sample: Dataset, space: list[str], seed: int) -> None:
    from chunkscope.pipeline.config import PUBLISHED_CHUNKERS

    specs = list(PUBLISHED_CHUNKERS) if space == ["published"] else space
    configs = [make_config(spec) for spec in specs]
    questions = sample.questions.questions
    evaluator = Evaluator(sample.corpus, questions)
    full = {config: evaluator.evaluate(config) for config in configs}
    settings = TuneSettings(alpha=0.05, permutations=2000, seed=seed)
    exhaustive = recommend(
        [Scored(c, metric_values(full[c], ["recall_at_5"])[0], full[c].summary["sent_chars"]) for c in configs],
        settings,
    )

    def evaluate(chosen: list[object], positions: np.ndarray) -> list[Scored]:
        subset = [questions[i] for i in positions.tolist()]
        fresh = Evaluator(sample.corpus, subset)
        results = [fresh.evaluate(c) for c in chosen]  # type: ignore[arg-type]
        return [Scored(r.config, metric_values(r, ["recall_at_5"])[0], r.summary["sent_chars"]) for r in results]

    halving = successive_halving(configs, len(questions), evaluate, settings, eta=2, min_questions=8)
    assert len(halving.rounds) > 1
    dropped = len(configs) - len(halving.rounds[-1].evaluated)
    if space is not SPACES[2]:  # sizes 200-450 stay too close on 40 questions for any to be dropped
        assert dropped >= 1  # the halving did leave configurations out
    assert halving.recommendation.recommended.config == exhaustive.recommended.config
    assert halving.recommendation.best.config == exhaustive.best.config


def tune(*args: str) -> list[str]:
    return ["tune", "--permutations", "1000", "--min-questions", "10", "--no-fragility", *args]


def test_tune_cli_is_deterministic_and_resumes_from_its_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "tune-cache.jsonl"
    space = ["--preset", "published", "--seed", "3", "--cache", str(cache)]
    assert main([*tune(*space), "--json", "-"]) == 0
    first = capsys.readouterr()
    assert "(0 from the cache)" in first.err
    lines = cache.read_text(encoding="utf-8").splitlines()
    cache.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20], encoding="utf-8")  # killed while writing
    assert main([*tune(*space), "--json", "-"]) == 0
    second = capsys.readouterr()
    assert f"({len(lines) - 1} from the cache)" in second.err
    assert json.loads(first.out) == json.loads(second.out)


def test_tune_cli_matches_the_sweep_of_the_same_space(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*tune("--size", "200,300,400", "--overlap", "0,0.2", "--seed", "1"), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    finalists = {f["label"] for f in report["finalists"]}
    assert report["recommended"]["label"] in finalists
    assert report["space"] == 6 and report["evaluations"] > 6


def test_space_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(tune("--size", "100,200,300", "--overlap", "0,0.1,0.2", "--max-evaluations", "5")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "the search space has 9 configurations, more than --max-evaluations 5 allows" in err
    assert "--max-evaluations 18" in err
    space = tmp_path / "space.toml"
    space.write_text('chunkers = ["paragraph"]\nsize = [100]\n', encoding="utf-8")
    assert main(tune("--space", str(space))) == 2
    assert "space.toml: field 'size': unknown key (valid: preset, chunkers, sizes" in capsys.readouterr().err
    space.write_text("chunkers = []\n", encoding="utf-8")
    assert main(tune("--space", str(space))) == 2
    assert "the search space is empty" in capsys.readouterr().err
    space.write_text('retrievers = ["hybrid:bm25+overlap"]\nalpha = [0, 1.5]\nsizes = [200]\n', encoding="utf-8")
    assert main(tune("--space", str(space))) == 2
    assert "field 'alpha': must be a list of numbers >= 0 and <= 1, got 1.5" in capsys.readouterr().err
    assert main(tune("--size", "200", "--hybrid-alpha", "0.5")) == 2
    assert "gives alphas but no hybrid retriever" in capsys.readouterr().err


def test_space_file_expands_alpha_and_top_k(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    space = tmp_path / "space.toml"
    space.write_text(
        'sizes = [300, 400]\nretrievers = ["bm25", "hybrid:bm25+overlap"]\nalpha = [0.0, 1.0]\ntop_k = [3, 5]\n',
        encoding="utf-8",
    )
    assert main([*tune("--space", str(space)), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["space"] == 2 * 3 * 2  # sizes x (bm25, hybrid alpha 0, hybrid alpha 1) x top-k


def test_inspect_opens_the_sweep_map_of_the_finalists(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from chunkscope.tui.app import ChunkscopeApp

    apps: list[ChunkscopeApp] = []
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: apps.append(self))
    report = tmp_path / "tune.json"
    assert main([*tune("--preset", "published", "--seed", "1"), "--inspect", "--json", str(report)]) == 0
    (app,) = apps
    finalists = [f["label"] for f in json.loads(report.read_text(encoding="utf-8"))["finalists"]]
    assert app.sweep is not None
    assert sorted(config.label for config in app.sweep.comparisons.configs) == sorted(finalists)
    assert main([*tune("--preset", "published"), "--inspect", "--json", "-"]) == 2
    assert "--inspect takes the terminal" in capsys.readouterr().err


def test_the_cache_never_appends_to_an_input_or_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from chunkscope.io.dataset import sample_paths

    questions = sample_paths()[1]
    before = questions.read_bytes()
    assert main([*tune("--preset", "published", "--cache", str(questions))]) == 2
    assert "refusing to use --cache" in capsys.readouterr().err
    assert questions.read_bytes() == before
    both = str(tmp_path / "x.json")
    assert main([*tune("--preset", "published", "--cache", both, "--json", both)]) == 2
    assert "--cache and --json both name" in capsys.readouterr().err
