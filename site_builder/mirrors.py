"""The JSON API around the mirrors: published JSON Schemas and the index document listing everything."""

from __future__ import annotations

import json
from datetime import date

from . import urls
from .discover.views import DISCOVER_PAGE_MODELS
from .render import to_json
from .search.schema import DATA_SCHEMAS
from .views import PAGE_MODELS, ApiIndex, MirrorEntry, Page

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


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
    schemas[urls.schema("index-document")] = json.dumps(
        {**ApiIndex.model_json_schema(mode="serialization", by_alias=True), "$schema": SCHEMA_DIALECT,
         "title": "KernelIndex API index"}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return schemas


class MirrorIndex:
    """Collects one entry per mirror as pages are written, then renders ``api/v1/index.json``."""

    def __init__(self) -> None:
        self.entries: list[MirrorEntry] = []

    def add(self, page: Page) -> None:
        self.entries.append(MirrorEntry(kind=page.kind, title=page.title, html=page.html, mirror=page.mirror))

    def add_document(self, kind: str, title: str, html: str, mirror: str) -> None:
        """A JSON document that is not a page's mirror (the search index …); ``html`` is the page it serves."""
        self.entries.append(MirrorEntry(kind=kind, title=title, html=html, mirror=mirror))

    def document(self, as_of: date) -> str:
        index = ApiIndex(as_of=as_of, documents=sorted(self.entries, key=lambda e: e.mirror),
                         schemas={kind: urls.schema(kind) for kind in schema_kinds()})
        return to_json(index.model_dump(mode="json"))
