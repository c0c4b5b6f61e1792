"""The JSON API around the mirrors: published JSON Schemas and the index document listing everything."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from operator import attrgetter
from typing import Any

from . import urls
from .discover.finding_views import DISCOVER_PAGE_MODELS
from .kernelbench.problem_views import KERNELBENCH_PAGE_MODELS
from .incremental.site_manifest import PageRecord
from .render import to_json
from .search.compare import pointed
from .search.schema import DATA_SCHEMAS
from .page_views import (
    MIRROR_VERSION, PAGE_MODELS, ApiIndex, ApiIndexKind, ApiIndexPart, ApiIndexPartDocument, GroupRun, MirrorEntry,
    Page, View,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
PART_SCHEMA_KIND = "index-part"
# What documents refer to rather than copy (on a large site a copy per run would be most of it),
# and how a reader gets it: published in the API index (ApiIndex.references).
REFERENCES = {
    "group": "a comparison group's JSON is part of its workload's document (the kernel page's mirror for that "
             "workload): `mirror` is <workload mirror>#/groups/<id>, a JSON Pointer to `groups.<id>`; a group of a "
             f"workload of more than {urls.WORKLOAD_HOLDS_GROUPS_UP_TO} runs has a document of its own "
             "(api/v1/groups/<id>.json). The page of a group of one run (groups/<id>.html) leads to its run's page",
    "run": "a run's JSON is part of its comparison group's: <group mirror>/runs/<name> (a JSON Pointer to the run's "
           "manifest and own details; #/runs/<name> in a group's own document), and its page is runs/<name>.html. "
           "The index counts runs but lists none: each group's document lists its runs (`runs`), and "
           "api/v1/runs/by-digest/ finds a run by its digest. The group says "
           "once what its runs share: its `operation`, `workload`, `protocol`, `environment` and `sources`, and in "
           "`comparison` its summary (the group itself), leader and floor; its `comparison.rows` or `unranked` hold "
           "the run's ranking row with its implementation; its `correctness` is null where it is the group's "
           "`correctness`, which every run of the group shares then. The run's whole document joins the three "
           "(site_builder/search/compare.py: run_document). A superseded run's `run` is null: its manifest is its "
           "file in the data repository, with references by name where the manifest has their digests",
    "group.protocol": "the runs' BenchmarkProtocol: `mirror` is the protocol's document, whose `manifest` is the "
                      "canonical manifest with digest `digest` (= run.spec.protocolDigest)",
    "group.environment": "the runs' ExecutionEnvironment: `mirror` is the environment's document, whose `manifest` "
                         "is the canonical manifest with digest `digest` (= run.spec.environmentDigest)",
    "group.workload": "the runs' workload: `mirror` is its kernel page's document for that workload (tensors, axes, "
                      "correctness policy); `digest` = run.spec.workloadDigest",
    "group.runs.*.details.source, .supersedes, .supersededBy": "named, not copied: a source by name (the group's "
                                                               "`sources.<name>`), a run by name (its page is "
                                                               "runs/<name>.html; a superseded run's page leads to its "
                                                               "row on its group's page)",
    "*.implementation": "an implementation named by `name` (with its title, project and whether it is a baseline): "
                        "its page is implementations/<name>.html, whose document (api/v1/implementations/<name>.json) "
                        "has its language, licence, source and install recipe",
    "kernel.cohorts, kernel.comparison": "left out of a kernel's (or workload's) document that holds its groups: "
                                         "each group's summary is its `comparison.summary`, and the ranked group "
                                         "is `groups.<selectedGroup>`",
    "*.spec, timeline": "a chart's JSON is its data (`series`, and a timeline's `steps`): the Vega-Lite spec a "
                        "scaling chart is drawn from is in its page (script.chart-spec), and a group's charts over "
                        "time are drawn without one",
    "seed 002 shape": "{run, protocol, environment} of a run not superseded = its `run` in its group's document, "
                      "and the `manifest` of the documents that its group's protocol.mirror and environment.mirror name",
    "*.leader, group.history[].previous": "a run named by `run` and `digest`, with its implementation and value: "
                                          "its group's ranking row, and its part of the group's document, have the "
                                          "rest",
    "*.run": "a run named by its name (in ranking rows, leaders, record events, chart points, ledger rows): its "
             "page is runs/<name>.html",
}
# Documents per index part: ~270 bytes an entry, so a part stays near half a megabyte.
PART_SIZE = 2000
# Kinds counted but not listed in parts: their documents are listed by others (a run by its group's
# document, REFERENCES["run"]), and a part entry per run repeated its name in two paths for every run.
LISTED_ELSEWHERE = frozenset({"run"})


def _document_models() -> dict[str, type[View]]:
    """Per kind, the model of its documents: a page's mirror, or for a run, its part of its group's
    mirror (``GroupRun``, at ``urls.run_mirror``)."""
    return {**PAGE_MODELS, **DISCOVER_PAGE_MODELS, **KERNELBENCH_PAGE_MODELS, "run": GroupRun}


def schema_kinds() -> list[str]:
    """Every kind with a published schema: page mirrors and the data documents (search index …)."""
    return sorted({*_document_models(), *DATA_SCHEMAS})


def page_schemas() -> dict[str, str]:
    """Output path -> JSON Schema text, one per kind of document, generated from the view models."""
    schemas = {}
    for kind, model in sorted(_document_models().items()):
        schema = model.model_json_schema(mode="serialization", by_alias=True)
        schema["$schema"] = SCHEMA_DIALECT
        schema["title"] = ("KernelIndex run, as its group's mirror holds it" if kind == "run"
                           else f"KernelIndex {kind} page mirror")
        schemas[urls.schema(kind)] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    for kind, document in sorted(DATA_SCHEMAS.items()):
        schemas[urls.schema(kind)] = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    for kind, model, title in (("index-document", ApiIndex, "KernelIndex API index"),
                               (PART_SCHEMA_KIND, ApiIndexPartDocument, "KernelIndex API index part")):
        schema = {**model.model_json_schema(mode="serialization", by_alias=True), "$schema": SCHEMA_DIALECT, "title": title}
        schemas[urls.schema(kind)] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return schemas


# One listed document: the fields of ``views.MirrorEntry``, which the parts' schema publishes. A
# manifest records a signed page by the same fields, so the build keeps one record per page for both.
Entry = PageRecord


_JSON_STRING = json.encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str
_BY_MIRROR = attrgetter("mirror")


def part_json(as_of: date, kind: str, number: int, parts: int, entries: list[Entry]) -> str:
    """An index part as ``to_json(ApiIndexPartDocument(...).model_dump(mode="json"))`` writes it, byte
    for byte (keys sorted, no whitespace), without a model per entry, because there is one entry
    per page of the site. ``test_mirror_index`` holds the two to the same bytes."""
    kind_json = _JSON_STRING(kind)
    documents = ",".join([f'{{"html":{_JSON_STRING(e.html)},"kind":{kind_json},"mirror":{_JSON_STRING(e.mirror)},'
                          f'"title":{_JSON_STRING(e.title)}}}' for e in entries])
    return (f'{{"asOf":"{as_of.isoformat()}","documents":[{documents}],"index":{_JSON_STRING(urls.API_INDEX)},'
            f'"kind":{kind_json},"part":{number},"parts":{parts},"schemaVersion":{_JSON_STRING(MIRROR_VERSION)}}}\n')


class MirrorIndex:
    """Collects one entry per mirror as pages are written, then renders the API index.

    ``api/v1/index.json`` names each kind and the parts that list its documents, never the
    documents themselves: on a large site a list of every mirror would be tens of megabytes,
    fetched whole by a reader who wants one kind.
    Each part lists at most ``PART_SIZE`` documents of one kind, in mirror-path order.

    The parts are rendered once every document is known (``discover_outputs`` yields them after
    registering its own documents); the index is frozen then, so a document added later fails the
    build instead of going unlisted. The parts of the kinds known so far may be rendered earlier
    (``parts(final=False)``: the pages' parts while the search index is being made); those kinds
    are closed then, and a document added to one fails the build the same way.
    """

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._listed: dict[str, ApiIndexKind] = {}  # kinds whose parts are rendered, closed to new documents
        self._unlisted_from = 0  # entries before this position are in rendered parts
        self._kinds: list[ApiIndexKind] | None = None

    def add(self, page: Page) -> None:
        self.add_document(page.kind, page.title, page.html, page.mirror)

    def add_document(self, kind: str, title: str, html: str, mirror: str, charts: tuple[str, ...] = ()) -> Entry:
        """A JSON document (a page's mirror, or another: the search index …); ``html`` is the page it
        serves, and ``charts`` the chart drawings that page shows (kept with its record, not listed)."""
        if self._kinds is not None:
            raise RuntimeError(f"API index already rendered; {mirror} would go unlisted")
        if self._listed and kind in self._listed:
            raise RuntimeError(f"API index parts of {kind} already rendered; {mirror} would go unlisted")
        if type(kind) is type(title) is type(html) is type(mirror) is str:
            entry = Entry(kind, title, html, mirror, " ".join(charts))
        else:  # anything but plain strings is validated (and coerced, or refused) as the published model says
            valid = MirrorEntry(kind=kind, title=title, html=html, mirror=mirror)
            entry = Entry(valid.kind, valid.title, valid.html, valid.mirror, " ".join(charts))
        self.entries.append(entry)
        return entry

    def add_entries(self, entries: Sequence[Entry]) -> None:
        """Documents listed before, as ``add_document`` made them (a previous build's page records)."""
        if self._kinds is not None:
            raise RuntimeError(f"API index already rendered; {len(entries)} documents would go unlisted")
        if self._listed and any(entry.kind in self._listed for entry in entries):
            raise RuntimeError(f"API index parts of {', '.join(sorted(self._listed))} already rendered; "
                               f"{len(entries)} documents would go unlisted")
        self.entries.extend(entries)

    def parts(self, as_of: date, *, final: bool = True) -> Iterator[tuple[str, str, str]]:
        """(path, JSON text, what made it) of every index part of the kinds not rendered yet.
        ``final``: no document comes after these, and the index is frozen; else only the kinds
        rendered now are closed."""
        if self._kinds is not None:
            raise RuntimeError("API index parts rendered twice")
        by_kind: dict[str, list[Entry]] = {}
        for entry in self.entries[self._unlisted_from:]:
            if entry.kind in by_kind:
                by_kind[entry.kind].append(entry)
            else:
                by_kind[entry.kind] = [entry]
        self._unlisted_from = len(self.entries)
        for kind, entries in sorted(by_kind.items()):
            self._listed[kind] = ApiIndexKind(kind=kind, documents=len(entries), parts=[])  # closed from now on
            if kind in LISTED_ELSEWHERE:
                continue
            entries.sort(key=_BY_MIRROR)
            pages = [entries[i:i + PART_SIZE] for i in range(0, len(entries), PART_SIZE)]
            listed = []
            for number, page in enumerate(pages, start=1):
                path = urls.api_index_part(kind, number)
                yield path, part_json(as_of, kind, number, len(pages), page), f"API index part {kind} {number}"
                listed.append(ApiIndexPart(index=path, documents=len(page), first=page[0].mirror, last=page[-1].mirror))
            self._listed[kind] = ApiIndexKind(kind=kind, documents=len(entries), parts=listed)
        if final:
            self._kinds = [self._listed[kind] for kind in sorted(self._listed)]

    def document(self, as_of: date) -> str:
        """``api/v1/index.json``; call after ``parts``."""
        if self._kinds is None:
            raise RuntimeError("render the API index parts (discover_outputs does) before the index")
        index = ApiIndex(as_of=as_of, kinds=self._kinds, schemas={kind: urls.schema(kind) for kind in schema_kinds()},
                         part_schema=urls.schema(PART_SCHEMA_KIND), references=REFERENCES)
        return to_json(index.model_dump(mode="json"))


def listed_documents(read: Callable[[str], Any]) -> Iterator[dict[str, Any]]:
    """Every document the API index lists, for a client that can read a site path as JSON: the
    index, then each part it names, and each group's runs as its document lists them (with the
    fields of an index entry; a run's title is its details' ``title``)."""
    index = read(urls.API_INDEX)
    last: dict[str, Any] = {}  # a part lists groups in mirror order: a workload's groups one after another
    for kind in index["kinds"]:
        for part in kind["parts"]:
            for entry in read(part["index"])["documents"]:
                yield entry
                if entry["kind"] == "group":
                    path = urls.mirror_file(entry["mirror"])
                    if path not in last:
                        last.clear()
                        last[path] = read(path)
                    yield from _group_runs(last[path], entry["mirror"])


def _group_runs(document: Any, mirror: str) -> Iterator[dict[str, Any]]:
    group = pointed(document, mirror.partition("#")[2])
    for name, run in group["runs"].items():
        yield {"html": urls.run(name), "kind": "run", "mirror": urls.run_mirror(mirror, name),
               "title": run["details"]["title"]}
