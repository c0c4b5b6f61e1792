"""Table rows that several pages show, rendered once each and spliced into every such page.

A ledger row is on about four ledger pages (all records, its GPU's, its evidence levels'), in
folders of different depths, so its HTML differs from page to page only in its links, which climb
from the page to the site root. ``RowSplicer`` renders a row's template once with every link
left as a marker, then each page puts its own links between the pieces, escaped as the template
prints them. A row whose text holds the marker character itself (from the data) is rendered for
each page in full instead, so no text can be taken for a link.

A row template is an ordinary template of one row, ``r``: it prints ``url(...)`` as any page
does, and may use it in no other way (its value is the marker while the pieces are made).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from markupsafe import Markup

MARK = "\x00"
# Rows kept, with their pieces, before all are dropped at once: room for every ledger row of a site
# of 100,000 runs (some 70,000, in two variants at most: with and without "since beaten").
ROW_LIMIT = 150_000


class RowSplicer:
    def __init__(self, render: Callable[..., str], link: Callable[[str], str]):
        self._render = render  # a template by name, with variables
        self._link = link  # ``url(target)`` for the page being rendered, escaped as a template prints it
        self._kept: dict[tuple, tuple[Any, str, tuple[str, ...]]] = {}

    def rows(self, name: str, rows: Iterable[Any], **variables: Any) -> Markup:
        """``name`` rendered for each of ``rows`` (as ``r``, with ``variables``), joined, for the page
        being rendered."""
        link = self._link
        parts: list[str] = []
        for row in rows:
            text, targets = self._pieces(name, row, variables)
            if targets is None:
                parts.append(text)
                continue
            pieces = text.split(MARK)
            parts.append(pieces[0])
            for target, piece in zip(targets, pieces[1:]):
                parts.append(link(target))
                parts.append(piece)
        return Markup("".join(parts))

    def _pieces(self, name: str, row: Any, variables: dict[str, Any]) -> tuple[str, tuple[str, ...] | None]:
        """The row's text with a marker for each link, and the links' targets; or, for a row whose
        own text holds the marker, its text for this page and None."""
        key = (name, id(row), *sorted(variables.items()))
        found = self._kept.get(key)
        if found is not None and found[0] is row:  # the row is held with its text: its id is not reused
            return found[1], found[2]
        targets: list[str] = []

        def marker(target: str) -> str:
            targets.append(target)
            return MARK

        text = self._render(name, r=row, url=marker, **variables)
        if text.count(MARK) != len(targets):
            return self._render(name, r=row, **variables), None
        if len(self._kept) >= ROW_LIMIT:
            self._kept.clear()
        self._kept[key] = (row, text, tuple(targets))
        return text, tuple(targets)
