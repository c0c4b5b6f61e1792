"""Pages of the things runs refer to: implementations, hardware, environments, protocols, sources,
and a list page for each kind."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cached_property, partial
from operator import attrgetter

from .. import urls
from ..derive.model import RunFacts
from ..formatting import number
from ..views import (
    CitedRateView, EnvironmentPage, EvidenceRow, HardwarePage, ImplementationPage, Link, ListingPage, ListItem,
    ProtocolPage, RecordHeld, SourcePage,
)
from .common import LIST_LIMIT, ViewFactory, unchecked


class CatalogIndex:
    """Runs and groups by the entity they refer to, each index gathered on its first use: by the
    render workers, after they fork, rather than while the pages are planned (one core working,
    the other waiting), and a rebuild that builds no implementation page does not gather that one."""

    def __init__(self, factory: ViewFactory):
        self.factory = factory
        self._runs_by: dict[str, dict[str, list[RunFacts]]] = {}

    def runs(self, kind: str, name: str) -> list[RunFacts]:
        """The runs (in the board's order) whose ``kind`` ("implementation", "environment",
        "protocol", "source" or "hardware") is ``name``."""
        found = self._runs_by.get(kind)
        if found is None:
            found = self._runs_by[kind] = _runs_by(self.factory.board.runs.values(), self._key(kind))
        return found.get(name, [])

    def _key(self, kind: str) -> Callable[[RunFacts], str | None]:
        board, run_files = self.factory.board, self.factory.catalog.runs
        if kind == "source":
            return lambda run: getattr(run_files[run.name].spec.sourceNative, "source", None)
        if kind == "hardware":
            return lambda run: board.gpus[run.environment].datasheet
        return attrgetter(kind)

    @cached_property
    def cohorts_by_environment(self) -> dict[str, list]:
        found: dict[str, list] = {}
        for cohort in self.factory.board.cohorts.values():
            found.setdefault(cohort.environment, []).append(cohort)
        return found

    @cached_property
    def cohorts_by_protocol(self) -> dict[str, list]:
        found: dict[str, list] = {}
        for cohort in self.factory.board.cohorts.values():
            found.setdefault(cohort.protocol, []).append(cohort)
        return found

    def cohort_links(self, cohorts) -> list[Link]:
        factory = self.factory
        ordered = sorted(cohorts, key=lambda c: (c.operation, c.workload, c.label, c.key))[:LIST_LIMIT]
        return [Link(title=f"{factory.operation_link(c.operation).title} · {factory.workload_link(c.workload).title} · {c.label}",
                     url=urls.group(c.key)) for c in ordered]


def _runs_by(runs: Iterable[RunFacts], key: Callable[[RunFacts], str | None]) -> dict[str, list[RunFacts]]:
    """``runs`` by their ``key``, in order; a run without one (None) is left out."""
    found: dict[str, list[RunFacts]] = {}
    for run in runs:
        value = key(run)
        if value:
            found.setdefault(value, []).append(run)
    return found


def _evidence_row(factory: ViewFactory, run: RunFacts) -> EvidenceRow:
    # Unchecked: every field is a view or fact already checked, and a site of 100,000 runs has
    # some 80,000 of these rows on its implementation pages.
    cohort = factory.board.cohorts[run.cohort]
    return unchecked(EvidenceRow, operation=factory.operation_link(run.operation),
                     workload=factory.workload_link(run.workload), cohort=factory.cohort_link(cohort),
                     gpu=cohort.gpu.label, row=factory.row(run), group_size=len(cohort.rows))


def implementation_page(factory: ViewFactory, index: CatalogIndex, name: str) -> ImplementationPage:
    entity = factory.catalog.implementations[name]
    view = factory.implementation(name)
    facts = factory.board.implementations[name]
    runs = sorted(index.runs("implementation", name), key=_newest_first)
    newest = runs[0] if runs else None
    availability = factory.availability(newest) if newest else None
    revision = entity.spec.projectRevision
    if facts.recipe is not None:
        pinned = availability.pinned if availability else False
        verdict = f"Installable · {facts.recipe.kind} · " + ("pinned to the measured release" if pinned else "unpinned")
    elif facts.source_url:
        verdict = "Source available upstream · no install recipe"
    else:
        verdict = "Benchmark submission only · no public source"
    return ImplementationPage(
        **factory.page_fields("implementation", view.title, view.url),
        implementation=view, description=entity.metadata.description, digest=entity.digest,
        operation=factory.operation_link(entity.refs["operation"].name),
        project_repository=entity.refs["project"].spec.repository, version=revision.version, commit=revision.commit,
        verdict=verdict, availability=availability, runs=[_evidence_row(factory, run) for run in runs[:LIST_LIMIT]],
        runs_total=len(runs),
    )


def _newest_first(run: RunFacts) -> tuple:
    return (-run.observed_at.timestamp(), run.name)


def hardware_pages(factory: ViewFactory, index: CatalogIndex) -> Iterator[HardwarePage]:
    board = factory.board
    held: dict[str, list] = {}
    for cohort in board.cohorts.values():
        if cohort.leader and cohort.gpu.datasheet:
            held.setdefault(cohort.gpu.datasheet, []).append(cohort)
    for name, entity in sorted(factory.catalog.hardware.items()):
        spec = entity.spec
        records = sorted(held.get(name, []), key=lambda c: (_newest_first(c.leader.run), c.key))
        link = factory.hardware_link(name)
        yield HardwarePage(
            **factory.page_fields("hardware", link.title, link.url),
            name=name, description=entity.metadata.description, vendor=spec.vendor, product=spec.product,
            architecture=spec.architecture, memory=spec.memory, priority=spec.priority,
            matches=[match.model_dump(exclude_none=True) for match in spec.matches],
            bandwidth_gbps=_rate(factory, spec.bandwidthGBps),
            peak_tflops={dtype: _rate(factory, rate) for dtype, rate in spec.peakTflops.items()},
            environments=[factory.environment_link(env) for env, gpu in sorted(board.gpus.items()) if gpu.datasheet == name],
            runs=len(index.runs("hardware", name)),
            records=[RecordHeld(operation=factory.operation_link(c.operation), workload=factory.workload_link(c.workload),
                                cohort=factory.cohort_link(c), row=factory.row(c.leader.run)) for c in records[:LIST_LIMIT]],
            records_total=len(records),
        )


def _rate(factory: ViewFactory, rate) -> CitedRateView:
    source = factory.source_link(rate.cite.source)
    return CitedRateView(value=rate.value, source=Link(title=source.title, url=source.url), note=rate.cite.note)


def environment_pages(factory: ViewFactory, index: CatalogIndex) -> Iterator[EnvironmentPage]:
    for name, entity in sorted(factory.catalog.environments.items()):
        view = factory.environment(name)
        yield EnvironmentPage(
            **factory.page_fields("environment", view.title, view.url),
            environment=view, description=entity.metadata.description, digest=entity.digest, manifest=entity.manifest(),
            runs=len(index.runs("environment", name)),
            cohorts=index.cohort_links(index.cohorts_by_environment.get(name, [])),
            cohorts_total=len(index.cohorts_by_environment.get(name, [])),
        )


def protocol_pages(factory: ViewFactory, index: CatalogIndex) -> Iterator[ProtocolPage]:
    for name, entity in sorted(factory.catalog.protocols.items()):
        view = factory.protocol(name)
        yield ProtocolPage(
            **factory.page_fields("protocol", view.title, urls.protocol(name)),
            protocol=view, description=entity.metadata.description, digest=entity.digest, manifest=entity.manifest(),
            runs=len(index.runs("protocol", name)),
            cohorts=index.cohort_links(index.cohorts_by_protocol.get(name, [])),
            cohorts_total=len(index.cohorts_by_protocol.get(name, [])),
        )


def source_pages(factory: ViewFactory, index: CatalogIndex) -> Iterator[SourcePage]:
    catalog = factory.catalog
    for name, entity in sorted(catalog.sources.items()):
        runs = index.runs("source", name)
        operations = {run.operation for run in runs}
        operations |= {op for op, entity_ in catalog.operations.items() if name in entity_.metadata.sources}
        cited_by = sorted(hw for hw, e in catalog.hardware.items()
                          if name in {e.spec.bandwidthGBps.cite.source, *(r.cite.source for r in e.spec.peakTflops.values())})
        yield SourcePage(
            **factory.page_fields("source", entity.metadata.title or entity.spec.title, urls.source(name)),
            name=name, description=entity.metadata.description, external_url=entity.spec.url, license=entity.spec.license,
            retrieved=entity.spec.retrieved, publisher=entity.spec.publisher, runs=len(runs),
            kernels=[factory.operation_link(op) for op in sorted(operations)],
            cited_by=[factory.hardware_link(hw) for hw in cited_by],
        )


def listing_pages(factory: ViewFactory, index: CatalogIndex) -> Iterator[ListingPage]:
    catalog = factory.catalog

    def listing(section: str, title: str, intro: str, items: list[ListItem]) -> ListingPage:
        return ListingPage(**factory.page_fields("listing", title, urls.listing(section)), intro=intro,
                           items=sorted(items, key=lambda item: (item.title.casefold(), item.url)))

    yield listing("implementations", "Implementations", "Every implementation with runs or records here.", [
        ListItem(title=view.title, url=view.url, count=len(index.runs("implementation", name)),
                 detail=" · ".join(filter(None, [view.project, view.language, view.license or "license unknown",
                                                 "baseline" if view.baseline else ""])))
        for name, view in ((name, factory.implementation(name)) for name in sorted(catalog.implementations))])
    yield listing("hardware", "Hardware", "GPU datasheets: the bandwidth and dense peaks every floor is computed from, "
                  "each cited. Absence of a GPU is not evidence about its performance.", [
        ListItem(title=link.title, url=link.url, count=len(index.runs("hardware", name)),
                 detail=f"{number(entity.spec.bandwidthGBps.value)} GB/s · {entity.spec.architecture}"
                        + (" · priority" if entity.spec.priority else ""))
        for name, entity in sorted(catalog.hardware.items()) for link in [factory.hardware_link(name)]])
    yield listing("environments", "Environments", "The machines runs were measured on, as their sources describe them.", [
        ListItem(title=view.title, url=view.url, count=len(index.runs("environment", name)), detail=view.gpu)
        for name in sorted(catalog.environments) for view in [factory.environment(name)]])
    yield listing("protocols", "Protocols", "How runs were timed. Runs under different protocols are never ranked together.", [
        ListItem(title=view.title, url=urls.protocol(name), count=len(index.runs("protocol", name)),
                 detail=f"{view.harness} · {view.timer} · {view.statistic}")
        for name in sorted(catalog.protocols) for view in [factory.protocol(name)]])
    yield listing("sources", "Sources", "Where the data comes from, with licences and retrieval dates.", [
        ListItem(title=entity.metadata.title or entity.spec.title, url=urls.source(name),
                 count=len(index.runs("source", name)),
                 detail=" · ".join(filter(None, [entity.spec.publisher, entity.spec.license, f"retrieved {entity.spec.retrieved}"])))
        for name, entity in sorted(catalog.sources.items())])
