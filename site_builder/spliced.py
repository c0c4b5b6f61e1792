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
# Rows kept, with their pieces, before all are dropped at once: room for every ledger row of the
# largest site the builder is sized for (a row reads the same in every view, so each is kept once).
ROW_LIMIT = 100_000


class RowSplicer:
    def __init__(self, render: Callable[..., str], url: Callable[[str, str], str]):
        self._render = render  # a template by name, with variables
        self._url = url  # ``urls.relative``: a site path as a link from a page
        # Per template and variables: each row's marked text, with the row, by the row's id.
        self._kept: dict[tuple, dict[int, tuple[Any, str]]] = {}

    def rows(self, name: str, rows: Iterable[Any], page: str, **variables: Any) -> Markup:
        """``name`` rendered for each of ``rows`` (as ``r``, with ``variables``), joined, for ``page``.
        The marked texts of consecutive rows are joined first and their markers replaced in one
        pass: a ledger page has hundreds of rows, and a call per row cost more than the replacing."""
        climb = self._url("", page)
        kept = self._kept.setdefault((name, *sorted(variables.items())), {})
        parts: list[str] = []
        marked: list[str] = []
        for row in rows:
            found = kept.get(id(row))
            text = found[1] if found is not None and found[0] is row else self._marked(kept, name, row, variables)
            if text is not None:
                marked.append(text)
                continue
            parts.append("".join(marked).replace(MARK, climb))
            marked = []
            parts.append(self._render(name, r=row, **variables))
        parts.append("".join(marked).replace(MARK, climb))
        return Markup("".join(parts))

    def _marked(self, kept: dict[int, tuple[Any, str]], name: str, row: Any, variables: dict[str, Any]) -> str | None:
        """The row's text with a marker where its links climb to the site root, kept in ``kept`` (the
        row is held with its text, so its id is not reused while kept); None for a row whose own
        text holds the marker."""
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
        if len(kept) >= ROW_LIMIT:
            kept.clear()
        kept[id(row)] = (row, text)
        return text
