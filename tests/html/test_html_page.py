"""The HTML page as text: the data embedded once and safely, the policy that forbids every fetch."""

from __future__ import annotations

import base64
import hashlib
import json
import re

from chunkscope.html.render import embedded_json, render_page

HOSTILE = {
    "kind": "eval",
    "text": '</script><script>alert(1)</script> & <!-- \u2028\u2029 </textarea> "quoted" 日本語',
    "nested": ["<b>", {"</SCRIPT >": "&amp;"}],
}


def test_embedded_json_reads_back_the_same_values_and_holds_no_markup_character() -> None:
    text = embedded_json(HOSTILE)
    for character in "<>&\u2028\u2029":
        assert character not in text
    assert json.loads(text) == HOSTILE


def _page(data: dict[str, object]) -> str:
    return render_page({"format": "x", "version": 1, "kind": "eval", "generated": "now", "report": data})


def test_the_data_is_embedded_once_and_nothing_ends_its_script_element_early() -> None:
    page = _page(HOSTILE)
    # Exactly two script elements: the data and the page's code; neither is ended by text from the data.
    assert len(re.findall(r"<script\b", page, flags=re.IGNORECASE)) == 2
    assert len(re.findall(r"</script", page, flags=re.IGNORECASE)) == 2
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, flags=re.DOTALL)
    assert data is not None
    assert json.loads(data.group(1))["report"] == HOSTILE
    assert page.count("alert(1)") == 1


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_policy_allows_only_the_page_own_style_and_script_and_fetches_nothing() -> None:
    page = _page({"a": 1})
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert policy is not None
    directives = dict(part.strip().split(" ", 1) for part in policy.group(1).split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    style = re.search(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    script = re.search(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert style is not None and script is not None
    assert directives["style-src"] == _sha256(style.group(1))
    assert directives["script-src"] == _sha256(script.group(1))
    # Nothing that would load from elsewhere: no src/href attributes, no url() in the style, no import.
    assert not re.search(r"\s(src|href)=", page)
    assert "url(" not in style.group(1)
    assert "@import" not in style.group(1)


def test_corpus_text_is_only_ever_inserted_as_text() -> None:
    """The page's script never parses a string as markup (innerHTML and its relatives)."""
    page = _page({"a": 1})
    script = re.search(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    assert script is not None
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script.group(1)
