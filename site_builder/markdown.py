"""Markdown from contributors and from our own methodology page, rendered safely.

Raw HTML is off (it is shown as text), and a link or image may only point at http(s), mailto, a
fragment or a relative path: ``javascript:`` and ``data:`` URLs are refused and stay plain text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
ALLOWED_SCHEMES = {"http", "https", "mailto"}


def safe_link(url: str) -> bool:
    # Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"): drop them first.
    compact = re.sub(r"[\x00-\x20\x7f]", "", url)
    match = _SCHEME.match(compact)
    return match is None or match.group(1).lower() in ALLOWED_SCHEMES


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    parser.validateLink = safe_link
    parser.core.ruler.push("th_scope", _scope_headers)
    return parser


def _scope_headers(state) -> None:
    # A Markdown table's header cells head its columns: say so, for screen readers (scope="col").
    for token in state.tokens:
        if token.type == "th_open":
            token.attrSet("scope", "col")


def render_markdown(text: str | None) -> Markup:
    if not text:
        return Markup("")
    return Markup(_parser().render(text))
