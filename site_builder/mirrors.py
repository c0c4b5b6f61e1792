"""The JSON API around the mirrors: published JSON Schemas and the index document listing everything."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

from . import urls
from .discover.views import DISCOVER_PAGE_MODELS
from .render import to_json
from .search.schema import DATA_SCHEMAS
from .views import PAGE_MODELS, ApiIndex, ApiIndexKind, ApiIndexPart, ApiIndexPartDocument, MirrorEntry, Page

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
PART_SCHEMA_KIND = "index-part"
# Documents per index part: ~270 bytes an entry, so a part stays near half a megabyte.
PART_SIZE = 2000


def _page_models() -> dict[str, type[Page]]:
    return {**PAGE_MODELS, **DISCOVER_PAGE_MODELS}


def schema_kinds() -> list[str]:
    """Every kind with a published schema: page mirrors and the data documents (search index …)."""
    return sorted({*_page_models(), *DATA_SCHEMAS})


def page_schemas() -> dict[str, str]:
    """Output path -> JSON Schema text, one per kind of page, generated from the view models."""
    schemas = {}
    for kind, model in sorted(_page_models().items()):
        schema = model.model_json_schema(mode="serialization", by_alias=True)
        schema["$schema"] = SCHEMA_DIALECT
        schema["title"] = f"KernelIndex {kind} page mirror"
        schemas[urls.schema(kind)] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    for kind, document in sorted(DATA_SCHEMAS.items()):
        schemas[urls.schema(kind)] = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    for kind, model, title in (("index-document", ApiIndex, "KernelIndex API index"),
                               (PART_SCHEMA_KIND, ApiIndexPartDocument, "KernelIndex API index part")):
        schema = {**model.model_json_schema(mode="serialization", by_alias=True), "$schema": SCHEMA_DIALECT, "title": title}
        schemas[urls.schema(kind)] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return schemas


class MirrorIndex:
    """Collects one entry per mirror as pages are written, then renders the API index.

    ``api/v1/index.json`` names each kind and the parts that list its documents, never the
    documents themselves: a site of 100,000 runs would make a list of every mirror a 40 MB file.
    Each part lists at most ``PART_SIZE`` documents of one kind, in mirror-path order.

    The parts are rendered once every document is known (``discover_outputs`` yields them after
    registering its own documents); the index is frozen then, so a document added later fails the
    build instead of going unlisted.
    """

    def __init__(self) -> None:
        self.entries: list[MirrorEntry] = []
        self._kinds: list[ApiIndexKind] | None = None

    def add(self, page: Page) -> None:
        self.add_document(page.kind, page.title, page.html, page.mirror)

    def add_document(self, kind: str, title: str, html: str, mirror: str) -> None:
        """A JSON document that is not a page's mirror (the search index …); ``html`` is the page it serves."""
        if self._kinds is not None:
            raise RuntimeError(f"API index already rendered; {mirror} would go unlisted")
        self.entries.append(MirrorEntry(kind=kind, title=title, html=html, mirror=mirror))

    def parts(self, as_of: date) -> Iterator[tuple[str, str, str]]:
        """(path, JSON text, what made it) of every index part; freezes the index."""
        if self._kinds is not None:
            raise RuntimeError("API index parts rendered twice")
        by_kind: dict[str, list[MirrorEntry]] = {}
        for entry in self.entries:
            by_kind.setdefault(entry.kind, []).append(entry)
        kinds = []
        for kind, entries in sorted(by_kind.items()):
            entries.sort(key=lambda e: e.mirror)
            pages = [entries[i:i + PART_SIZE] for i in range(0, len(entries), PART_SIZE)]
            listed = []
            for number, page in enumerate(pages, start=1):
                path = urls.api_index_part(kind, number)
                part = ApiIndexPartDocument(as_of=as_of, kind=kind, part=number, parts=len(pages), index=urls.API_INDEX,
                                            documents=page)
                yield path, to_json(part.model_dump(mode="json")), f"API index part {kind} {number}"
                listed.append(ApiIndexPart(index=path, documents=len(page), first=page[0].mirror, last=page[-1].mirror))
            kinds.append(ApiIndexKind(kind=kind, documents=len(entries), parts=listed))
        self._kinds = kinds

    def document(self, as_of: date) -> str:
        """``api/v1/index.json``; call after ``parts``."""
        if self._kinds is None:
            raise RuntimeError("render the API index parts (discover_outputs does) before the index")
        index = ApiIndex(as_of=as_of, kinds=self._kinds, schemas={kind: urls.schema(kind) for kind in schema_kinds()},
                         part_schema=urls.schema(PART_SCHEMA_KIND))
        return to_json(index.model_dump(mode="json"))


def listed_documents(read: Callable[[str], Any]) -> Iterator[dict[str, Any]]:
    """Every document the API index lists, for a client that can read a site path as JSON: the
    index, then each part it names."""
    index = read(urls.API_INDEX)
    for kind in index["kinds"]:
        for part in kind["parts"]:
            yield from read(part["index"])["documents"]
