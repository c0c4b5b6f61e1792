"""Markdown from strangers (descriptions, notes) renders inert: no script, no javascript:/data: links."""

from __future__ import annotations

import html
import re

import pytest
from bs4 import BeautifulSoup

from site_builder.markdown import render_markdown

HOSTILE = [
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](<java\nscript:alert(1)>)",
    "[x](&#106;avascript:alert(1))",
    "[x](javascript&#58;alert(1))",
    "[x](%6Aavascript:alert(1))",
    "[x]( javascript:alert(1))",
    "[x](\x01javascript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "<javascript:alert(1)>",
    "[x][ref]\n\n[ref]: javascript:alert(1)",
    "[x](file:///etc/passwd)",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<iframe src=\"https://evil.invalid\"></iframe>",
    "<svg><script>alert(1)</script></svg>",
    "`<script>`",
    "[<script>alert(1)</script>](https://example.invalid/)",
    '[x](https://example.invalid/" onclick="alert(1))',
    "<style>body{display:none}</style>",
]

SAFE_SCHEMES = ("http:", "https:", "mailto:")


def _scheme(url: str) -> str | None:
    # What a browser would see: entities decoded, control characters and spaces dropped, lower case.
    compact = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(url)).lower()
    match = re.match(r"^([a-z][a-z0-9+.-]*):", compact)
    return match.group(1) + ":" if match else None


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_renders_inert(text):
    rendered = str(render_markdown(text))
    soup = BeautifulSoup(rendered, "html.parser")
    assert soup.find(["script", "iframe", "style", "svg", "object", "embed", "form"]) is None, rendered
    for tag in soup.find_all(True):
        for attribute, value in tag.attrs.items():
            assert not attribute.startswith("on"), rendered
            if attribute in ("href", "src", "action", "formaction", "xlink:href"):
                assert _scheme(value) in SAFE_SCHEMES + (None,), rendered


@pytest.mark.parametrize("text", ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>"])
def test_raw_html_is_shown_as_text(text):
    rendered = str(render_markdown(text))
    assert html.escape(text, quote=False) in rendered or html.escape(text) in rendered
    assert BeautifulSoup(rendered, "html.parser").get_text().strip() == text


def test_safe_links_still_work():
    soup = BeautifulSoup(str(render_markdown("[paper](https://arxiv.org/abs/1) and [local](../x/) and [mail](mailto:a@b.c)")),
                         "html.parser")
    assert [a["href"] for a in soup.find_all("a")] == ["https://arxiv.org/abs/1", "../x/", "mailto:a@b.c"]


def test_markdown_table_headers_have_scope():
    # Found by the accessibility checks on the methodology page: header cells need scope="col".
    soup = BeautifulSoup(str(render_markdown("| code | meaning |\n| --- | --- |\n| A | b |")), "html.parser")
    assert [th.get("scope") for th in soup.find_all("th")] == ["col", "col"]
