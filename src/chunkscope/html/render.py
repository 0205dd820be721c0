"""One self-contained HTML file from the data of :func:`chunkscope.reports.html_data.html_data`.

Inline CSS, JavaScript and SVG only; a Content-Security-Policy allows nothing but the page's own
style and script (by their SHA-256) and ``data:`` images, so the page fetches nothing. The data is
embedded once as JSON in a ``<script type="application/json">``, with ``<``, ``>``, ``&``, U+2028 and
U+2029 escaped so that text from the corpus cannot end that element; the page's script renders each
question's detail on demand and inserts every text as text.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from chunkscope.errors import ChunkscopeError

_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
"""Each character and its JSON escape (str.replace, one pass each, is many times faster than str.translate)."""


def embedded_json(data: Mapping[str, Any]) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: no ``<``, ``>``, ``&``, U+2028 or U+2029 left.

    The escapes are JSON string escapes, so ``JSON.parse`` reads back the same values.
    """
    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        raise ChunkscopeError("the report holds a number that is not finite (NaN or infinity): not written") from None
    for character, escape in _ESCAPES:
        text = text.replace(character, escape)
    return text


SCRIPTS = ("answers.js", "page.js")
"""The page's script, one inline element made of these files in order: answers.js defines what page.js calls."""


def _asset(name: str) -> str:
    return resources.files("chunkscope.html").joinpath(name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(style: str, script: str) -> str:
    """The page's policy: nothing fetched; only the given inline style and script run."""
    return (
        f"default-src 'none'; style-src {_digest(style)}; script-src {_digest(script)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def render_page(data: Mapping[str, Any]) -> str:
    """The HTML page of ``data`` (a report's embedded data), as one string."""
    style = _asset("page.css")
    script = "\n".join(_asset(name) for name in SCRIPTS)
    policy = content_security_policy(style, script)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>chunkscope {data['kind']} report</title>\n"
        f"<style>{style}</style>\n</head>\n<body>\n"
        f"<header><h1>chunkscope {data['kind']} report</h1></header>\n<main>\n"
        + "".join(
            f'<section id="{name}" hidden></section>\n'
            for name in (
                "provenance",
                "metrics",
                "buckets",
                "causes",
                "transitions",
                "answers",
                "sweepmap",
                "questions",
            )
        )
        + "</main>\n"
        f'<script type="application/json" id="report-data">{embedded_json(data)}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
