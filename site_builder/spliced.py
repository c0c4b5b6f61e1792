"""Table rows that several pages show, rendered once each and spliced into every such page.

A ledger row is on about four ledger pages (all records, its GPU's, its evidence levels'), in
folders of different depths, so its HTML differs from page to page only in its links, which climb
from the page to the site root (``urls.relative``: the same climb before every site path, none
before a link elsewhere). ``RowSplicer`` renders a row's template once with a marker where the
climb goes, and each page puts its own climb in place of the markers. A row whose text holds the
marker character itself (from the data) is rendered for each page in full instead, so no text can
be taken for a link.

A row template is an ordinary template of one row, ``r``: it prints ``url(...)`` as any page
does, and may use it in no other way (while the row is rendered once, it marks the climb).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from markupsafe import Markup

MARK = "\x00"
# Rows kept, with their pieces, before all are dropped at once: room for every ledger row of a site
# of 100,000 runs (some 70,000; a row reads the same in every view, so each is kept once).
ROW_LIMIT = 100_000


class RowSplicer:
    def __init__(self, render: Callable[..., str], url: Callable[[str, str], str]):
        self._render = render  # a template by name, with variables
        self._url = url  # ``urls.relative``: a site path as a link from a page
        self._kept: dict[tuple, tuple[Any, str]] = {}

    def rows(self, name: str, rows: Iterable[Any], page: str, **variables: Any) -> Markup:
        """``name`` rendered for each of ``rows`` (as ``r``, with ``variables``), joined, for ``page``."""
        climb = self._url("", page)
        parts = []
        for row in rows:
            marked = self._marked(name, row, variables)
            parts.append(marked.replace(MARK, climb) if marked is not None else self._render(name, r=row, **variables))
        return Markup("".join(parts))

    def _marked(self, name: str, row: Any, variables: dict[str, Any]) -> str | None:
        """The row's text with a marker where its links climb to the site root; None for a row whose
        own text holds the marker."""
        key = (name, id(row), *sorted(variables.items()))
        found = self._kept.get(key)
        if found is not None and found[0] is row:  # the row is held with its text: its id is not reused
            return found[1]
        marked = 0

        def marker(target: str) -> str:
            nonlocal marked
            if self._url(target, "a/b.html") == target:  # a link elsewhere: the same from every page
                return target
            marked += 1
            return MARK + target

        text = self._render(name, r=row, url=marker, **variables)
        if text.count(MARK) != marked:
            return None
        if len(self._kept) >= ROW_LIMIT:
            self._kept.clear()
        self._kept[key] = (row, text)
        return text
