"""``--executor dask://``: the same reports as a local run, from a two-worker cluster the test starts."""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.pipeline import distributed

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="dask.distributed (chunkscope[dask]) not installed"
)


@pytest.fixture(scope="module")
def executor() -> Iterator[str]:
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
    try:
        yield cluster.scheduler_address.replace("tcp://", "dask://")
    finally:
        cluster.close()


def reports(tmp_path: Path, name: str, command: list[str], *where: str) -> bytes:
    path = tmp_path / f"{name}.json"
    assert main([*command, *where, "--json", str(path)]) == 0
    return path.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ["sweep", "--permutations", "500"],
        ["compare", "paragraph", "fixed:size=400,overlap=80", "--permutations", "500"],
        ["tune", "--preset", "published", "--permutations", "500", "--min-questions", "10", "--seed", "2"],
    ],
    ids=["sweep", "compare", "tune"],
)
def test_reports_are_byte_identical_to_a_local_run(tmp_path: Path, executor: str, command: list[str]) -> None:
    local = reports(tmp_path, "local", command, "--jobs", "1")
    remote = reports(tmp_path, "remote", command, "--executor", executor)
    assert remote == local


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_unreachable_scheduler_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT_S", 1)
    address = f"dask://127.0.0.1:{free_port()}"
    report = tmp_path / "sweep.json"
    assert main(["sweep", "--executor", address, "--json", str(report)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--executor {address}: cannot reach the Dask scheduler" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "dask://127.0.0.1", "dask://127.0.0.1:99999", "ray://h:1"])
def test_malformed_addresses(capsys: pytest.CaptureFixture[str], address: str) -> None:
    assert main(["compare", "paragraph", "fixed:size=200", "--executor", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected dask://HOST:PORT" in err
