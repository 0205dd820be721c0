"""``chunkscope serve``: the inspector served by textual-serve, loaded over HTTP and its websocket, then stopped."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.cli.serve_cmd import inspect_command, is_loopback

CHUNKSCOPE = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """``chunkscope serve`` on a free port of 127.0.0.1; interrupted (Ctrl+C) and waited for afterwards."""
    pytest.importorskip("textual_serve")
    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    process = subprocess.Popen(
        [*CHUNKSCOPE, "serve", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, text=True, env=environment
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert process.poll() is None, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
        yield process, port
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


async def _screen_text(port: int, needle: str, seconds: float) -> str:
    """What the served inspector writes to a 140x40 terminal over the websocket, escapes removed."""
    import aiohttp

    received = []
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://127.0.0.1:{port}/ws?width=140&height=40") as websocket,
    ):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                message = await websocket.receive(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT):
                data = message.data
                received.append(data.decode("utf-8", "replace") if isinstance(data, bytes) else data)
                if needle in ESCAPES.sub("", "".join(received)):
                    break
            else:
                break
    return ESCAPES.sub("", "".join(received))


def test_serve_shows_the_inspector_in_a_browser_page(served: tuple[subprocess.Popen[str], int]) -> None:
    process, port = served
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
        page = response.read().decode("utf-8")
    assert response.status == 200 and "textual.js" in page and f"127.0.0.1:{port}" in page
    # The inspector's header line: the data set and the configuration it shows.
    screen = asyncio.run(_screen_text(port, "fixed:size=200/bm25", 60))
    assert "sample data" in screen and "fixed:size=200/bm25" in screen
    assert process.poll() is None


def test_the_address_decides_the_warning() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.8.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")


def test_each_tab_runs_inspect_with_the_arguments_after_the_separator() -> None:
    command = inspect_command(["--", "--corpus", "my docs", "--chunker", "fixed:size=300"])
    assert command.endswith("inspect --corpus 'my docs' --chunker fixed:size=300")


def test_a_bad_inspect_option_fails_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("textual_serve")
    with pytest.raises(SystemExit) as done:
        main(["serve", "--", "--top-k", "many"])
    assert done.value.code == 2
    assert "--top-k" in capsys.readouterr().err


@pytest.mark.parametrize(("host", "warned"), [("127.0.0.1", False), ("localhost", False), ("0.0.0.0", True)])
def test_any_address_but_loopback_warns_that_the_corpus_can_be_read(
    host: str, warned: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = pytest.importorskip("textual_serve.server")
    bound = []

    class Recorded:
        def __init__(self, command: str, host: str, port: int, title: str) -> None:
            bound.append((command, host, port))

        def serve(self) -> None:
            return None

    monkeypatch.setattr(server, "Server", Recorded)
    assert main(["serve", "--host", host, "--port", "8123"]) == 0
    assert [(h, p) for _, h, p in bound] == [(host, 8123)]
    err = capsys.readouterr().err
    assert ("whoever reaches this address can read the corpus" in err) is warned
