"""A headless Chromium driven by Selenium, for the HTML report tests.

Chromium and chromedriver come from the system (Debian: ``apt-get install chromium chromium-driver``;
``.ci/run`` installs them). Without them the browser tests skip with the reason, except in CI
(``CI`` set), where they must run and fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
"""Where the screenshots for docs/html.md are kept: written there only with ``CHUNKSCOPE_SCREENSHOTS=1`` (so that a
test run leaves the checkout as it was), else to a temporary folder."""


def screenshot_folder() -> Path:
    """docs/img when the screenshots are asked for (``CHUNKSCOPE_SCREENSHOTS=1``), else a temporary folder."""
    if os.environ.get("CHUNKSCOPE_SCREENSHOTS") == "1":
        return DOCS_IMG
    return Path(tempfile.gettempdir()) / "chunkscope-screenshots"


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session, with a fresh profile, logging the console and the network."""
    try:
        from selenium import webdriver
    except ImportError:
        _missing("selenium is not installed (it is in the test extra)")
    binary = next((found for name in CHROMIUM_NAMES if (found := shutil.which(name))), None)
    driver_binary = shutil.which("chromedriver")
    if binary is None or driver_binary is None:
        _missing("chromium or chromedriver not found (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chunkscope-chromium-")
    options = Options()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = str(binary)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(driver_binary)))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """A report opened in the browser, with what it logged and requested while loading and afterwards."""

    def __init__(self, driver: Any, path: Path) -> None:
        self.driver = driver
        self.url = path.resolve().as_uri()
        driver.get("about:blank")
        driver.get_log("browser")  # drop what came before this page
        driver.get_log("performance")
        driver.get(self.url)
        ready = driver.execute_script("return document.body.getAttribute('data-ready')")
        assert ready == "1", "the page's script did not finish"

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def press(self, key: str) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.TAG_NAME, "body").send_keys(key)

    def selected_id(self) -> str:
        """The id of the row drawn as selected (it is always scrolled into the list's view)."""
        ids = self.js("return [...document.querySelectorAll('#qlist .qrow.selected')].map(row => row.dataset.id)")
        assert len(ids) == 1 and ids[0] == self.js("return window.chunkscopeReport.selectedId()")
        return str(ids[0])

    def shown_ids(self) -> list[str]:
        """The ids the list holds, in order; the rows drawn (the list is virtual) are the ones in view of them."""
        ids = list(self.js("return window.chunkscopeReport.shownIds()"))
        drawn = self.js("return [...document.querySelectorAll('#qlist .qrow')].map(row => row.dataset.id)")
        assert len(drawn) <= len(ids) and (not ids or drawn)
        start = ids.index(drawn[0]) if drawn else 0
        assert ids[start : start + len(drawn)] == drawn
        return ids

    def assert_quiet(self) -> None:
        """No console message at warning or error level, and no request but the file itself."""
        logged = [entry for entry in self.driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
        assert logged == []
        requested = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requested.append(message["params"]["request"]["url"])
        assert requested and set(requested) == {self.url}

    def screenshot(self, name: str, section: str | None = None) -> None:
        """A screenshot for the docs, NAME.png (see ``screenshot_folder``), scrolled to ``section`` (an element id)."""
        self.js("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        if section is not None:
            self.js("document.getElementById(arguments[0]).scrollIntoView()", section)
        folder = screenshot_folder()
        folder.mkdir(parents=True, exist_ok=True)
        assert self.driver.save_screenshot(str(folder / f"{name}.png"))
        self.js("window.scrollTo(0, 0)")


@pytest.fixture
def open_page(browser: Any) -> Any:
    """``open_page(path)``: the report at ``path`` loaded in the browser."""
    return lambda path: Page(browser, path)
