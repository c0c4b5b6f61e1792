"""Pages of the things runs refer to: implementations, hardware, environments, protocols, sources,
and a list page for each kind."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from operator import attrgetter
from typing import TypeVar

from .. import urls
from ..derive.leaderboard import Cohort
from ..derive.model import RunFacts
from ..discover.ledger import newest_first
from ..formatting import number
from ..page_views import (
    CitedRateView, EnvironmentPage, EvidenceRow, HardwarePage, ImplementationPage, Link, ListingPage, ListItem,
    ProtocolPage, RecordHeld, SourcePage,
)
from .tasks import Plan, PlannedPage, Shows
from .view_parts import LIST_LIMIT, ViewFactory, unchecked

T = TypeVar("T")


class CatalogIndex:
    """Runs and groups by the entity they refer to, each index gathered on its first use: by the
    render workers, after they fork, rather than while the pages are planned (one core working,
    the other waiting), and a rebuild that builds no implementation page does not gather that one.
    A page that shows how many runs refer to something counts them (``run_count``): a count per
    name, made in one pass in C, where a list of every run per name would take a pass in Python."""

    def __init__(self, factory: ViewFactory):
        self.factory = factory
        self._runs_by: dict[str, dict[str, list[RunFacts]]] = {}
        self._counts: dict[str, Counter[str]] = {}
        self._cohorts_by: dict[str, dict[str, list[Cohort]]] = {}

    def runs(self, kind: str, name: str) -> list[RunFacts]:
        """The runs (in the board's order) whose ``kind`` ("implementation", "environment" or
        "protocol") is ``name``."""
        found = self._runs_by.get(kind)
        if found is None:
            found = self._runs_by[kind] = _by(self.factory.board.runs.values(), attrgetter(kind))
        return found.get(name, [])

    def run_count(self, kind: str, name: str) -> int:
        """How many runs refer to ``name``, of ``kind`` (as ``run_counts``)."""
        return self.run_counts(kind).get(name, 0)

    def run_counts(self, kind: str) -> Counter[str]:
        """How many runs refer to each implementation, environment, protocol, source (that
        published them natively) or hardware (their environment's datasheet), by ``kind``."""
        found = self._counts.get(kind)
        if found is None:
            found = self._counts[kind] = self._count(kind)
        return found

    def _count(self, kind: str) -> Counter[str]:
        if kind == "source":
            found: Counter[str] = Counter()
            for (source, _), count in self.source_operations.items():
                found[source] += count
            return found
        if kind == "hardware":  # the runs of a GPU's environments
            found, gpus = Counter(), self.factory.board.gpus
            for environment, count in self.run_counts("environment").items():
                if gpus[environment].datasheet:
                    found[gpus[environment].datasheet] += count
            return found
        return Counter(map(attrgetter(kind), self.factory.board.runs.values()))

    @property
    def source_operations(self) -> Counter[tuple[str, str]]:
        """(source, operation) -> how many runs of the kernel the source published natively: counted
        by derive, in its pass over the runs, rather than by a second pass over every run file
        here, which a rebuild's signing would wait for."""
        return self.factory.board.source_operations

    def cohorts(self, kind: str, name: str) -> list[Cohort]:
        """The groups (in the board's order) whose ``kind`` ("environment", "protocol" or
        "hardware") is ``name``."""
        found = self._cohorts_by.get(kind)
        if found is None:
            key = (lambda cohort: cohort.gpu.datasheet) if kind == "hardware" else attrgetter(kind)
            found = self._cohorts_by[kind] = _by(self.factory.board.cohorts.values(), key)
        return found.get(name, [])


def cohort_links(factory: ViewFactory, cohorts: list[Cohort]) -> list[Link]:
    """Links to groups, by kernel, workload and label: the first ``LIST_LIMIT`` in that order."""
    ordered = sorted(cohorts, key=attrgetter("operation", "workload", "label", "key"))[:LIST_LIMIT]
    return [Link(title=f"{factory.operation_link(c.operation).title} · {factory.workload_link(c.workload).title} · {c.label}",
                 url=urls.group(c.key)) for c in ordered]


def _by(items: Iterable[T], key: Callable[[T], str | None]) -> dict[str, list[T]]:
    """``items`` (runs or groups) by their ``key``, in order; one without (None) is left out."""
    found: dict[str, list[T]] = {}
    for item in items:
        value = key(item)
        if value:
            found.setdefault(value, []).append(item)
    return found


def _evidence_row(factory: ViewFactory, run: RunFacts) -> EvidenceRow:
    # Unchecked: every field is a view or fact already checked, and the implementation pages have
    # a row for most runs, each of which would be validated again for nothing.
    cohort = factory.board.cohorts[run.cohort]
    row = factory.row(run)
    return unchecked(EvidenceRow, workload=factory.workload_link(run.workload), cohort=factory.cohort_link(cohort),
                     gpu=cohort.gpu.label, run=row.run, standing=factory.standing(run),
                     group_size=len(cohort.rows))


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
        runs_total=len(runs), sources=[factory.source_link(source) for source in _run_sources(factory, runs)],
    )


def _run_sources(factory: ViewFactory, runs: list[RunFacts]) -> list[str]:
    """The sources whose data the page shows: those that published the runs (their attribution)."""
    catalog_runs = factory.catalog.runs
    natives = (catalog_runs[run.name].spec.sourceNative for run in runs)
    return sorted({native.source for native in natives if native is not None})


def _newest_first(run: RunFacts) -> tuple:
    return (-run.observed_at.timestamp(), run.name)


def hardware_tasks(factory: ViewFactory, index: CatalogIndex) -> list[PlannedPage]:
    """One page per datasheet: besides the datasheet and its environments (global), how many runs
    were measured on the GPU, and its groups' leaders (``HardwarePlan``)."""
    return [PlannedPage(urls.hardware(name), partial(_hardware_plan, index, name), partial(hardware_page, factory))
            for name in sorted(factory.catalog.hardware)]


@dataclass(frozen=True)
class HardwarePlan(Plan):
    """A hardware page shows how many runs were measured on the GPU and the groups it leads (those
    on it with a ranked run), newest first, each with its label, its kernel's headline workload
    (the workload's URL) and its leader's row."""

    name: str
    runs: int
    led: list[Cohort]


def _hardware_plan(index: CatalogIndex, name: str) -> HardwarePlan:
    return HardwarePlan(name, index.run_count("hardware", name),
                        [cohort for cohort in index.cohorts("hardware", name) if cohort.rows])


def hardware_page(factory: ViewFactory, plan: HardwarePlan) -> HardwarePage:
    board, name, led = factory.board, plan.name, plan.led
    entity = factory.catalog.hardware[name]
    spec = entity.spec
    records = newest_first(led, _LEADER_OBSERVED_AT, _leader_then_group, LIST_LIMIT)
    link = factory.hardware_link(name)
    return HardwarePage(
        **factory.page_fields("hardware", link.title, link.url),
        name=name, description=entity.metadata.description, vendor=spec.vendor, product=spec.product,
        architecture=spec.architecture, memory=spec.memory, priority=spec.priority,
        matches=[match.model_dump(exclude_none=True) for match in spec.matches],
        bandwidth_gbps=_rate(factory, spec.bandwidthGBps),
        peak_tflops={dtype: _rate(factory, rate) for dtype, rate in spec.peakTflops.items()},
        environments=[factory.environment_link(env) for env, gpu in sorted(board.gpus.items()) if gpu.datasheet == name],
        runs=plan.runs,
        records=[RecordHeld(operation=factory.operation_link(c.operation), workload=factory.workload_link(c.workload),
                            cohort=factory.cohort_link(c), row=factory.row(c.leader.run)) for c in records],
        records_total=len(led),
    )


_LEADER_OBSERVED_AT = attrgetter("leader.run.observed_at")


def _leader_then_group(cohort: Cohort) -> tuple[str, str]:
    """What orders groups whose leaders were observed at the same time."""
    return cohort.leader.run.name, cohort.key  # type: ignore[union-attr]


def _rate(factory: ViewFactory, rate) -> CitedRateView:
    source = factory.source_link(rate.cite.source)
    return CitedRateView(value=rate.value, source=Link(title=source.title, url=source.url), note=rate.cite.note)


def environment_tasks(factory: ViewFactory, index: CatalogIndex) -> list[PlannedPage]:
    """One page per environment: besides the environment itself (global), how many runs were
    measured there and links to its groups (``GroupsPlan``)."""
    return [PlannedPage(urls.environment(name), partial(_groups_plan, index, "environment", name),
                        partial(environment_page, factory))
            for name in sorted(factory.catalog.environments)]


@dataclass(frozen=True)
class GroupsPlan(Plan):
    """An environment's or a protocol's page shows how many runs refer to it and links its groups,
    by their kernel, workload (titles: global) and label: a group is shown by its key and label,
    not by its runs."""

    name: str
    runs: int
    cohorts: list[Cohort]

    def shows(self) -> Shows:
        return Shows((self.name, str(self.runs), "\0".join(map(_KEY, self.cohorts)), "\0".join(map(_LABEL, self.cohorts))))


def _groups_plan(index: CatalogIndex, kind: str, name: str) -> GroupsPlan:
    return GroupsPlan(name, index.run_count(kind, name), index.cohorts(kind, name))


_KEY, _LABEL = attrgetter("key"), attrgetter("label")


def environment_page(factory: ViewFactory, plan: GroupsPlan) -> EnvironmentPage:
    name, cohorts = plan.name, plan.cohorts
    entity = factory.catalog.environments[name]
    view = factory.environment(name)
    return EnvironmentPage(
        **factory.page_fields("environment", view.title, view.url),
        environment=view, description=entity.metadata.description, digest=entity.digest, manifest=entity.manifest(),
        runs=plan.runs, cohorts=cohort_links(factory, cohorts), cohorts_total=len(cohorts),
    )


def protocol_tasks(factory: ViewFactory, index: CatalogIndex) -> list[PlannedPage]:
    """One page per protocol, planned as an environment's (``GroupsPlan``)."""
    return [PlannedPage(urls.protocol(name), partial(_groups_plan, index, "protocol", name), partial(protocol_page, factory))
            for name in sorted(factory.catalog.protocols)]


def protocol_page(factory: ViewFactory, plan: GroupsPlan) -> ProtocolPage:
    name, cohorts = plan.name, plan.cohorts
    entity = factory.catalog.protocols[name]
    view = factory.protocol(name)
    return ProtocolPage(
        **factory.page_fields("protocol", view.title, urls.protocol(name)),
        protocol=view, description=entity.metadata.description, digest=entity.digest, manifest=entity.manifest(),
        runs=plan.runs, cohorts=cohort_links(factory, cohorts), cohorts_total=len(cohorts),
    )


def source_tasks(factory: ViewFactory, index: CatalogIndex) -> list[PlannedPage]:
    """One page per source: besides the source, the kernels that cite it and the datasheets that
    cite it (global), how many runs it published and their kernels (``SourcePlan``)."""
    return [PlannedPage(urls.source(name), partial(_source_plan, index, name), partial(source_page, factory))
            for name in sorted(factory.catalog.sources)]


@dataclass(frozen=True)
class SourcePlan(Plan):
    """A source's page shows how many runs it published and the kernels they are of."""

    name: str
    runs: int
    published: list[str]  # the kernels it published runs of


def _source_plan(index: CatalogIndex, name: str) -> SourcePlan:
    return SourcePlan(name, index.run_count("source", name),
                      sorted({operation for (by, operation) in index.source_operations if by == name}))


def source_page(factory: ViewFactory, plan: SourcePlan) -> SourcePage:
    catalog, name = factory.catalog, plan.name
    entity = catalog.sources[name]
    operations = set(plan.published)
    operations |= {op for op, entity_ in catalog.operations.items() if name in entity_.metadata.sources}
    cited_by = sorted(hw for hw, e in catalog.hardware.items()
                      if name in {e.spec.bandwidthGBps.cite.source, *(r.cite.source for r in e.spec.peakTflops.values())})
    return SourcePage(
        **factory.page_fields("source", entity.metadata.title or entity.spec.title, urls.source(name)),
        name=name, description=entity.metadata.description, external_url=entity.spec.url, license=entity.spec.license,
        retrieved=entity.spec.retrieved, publisher=entity.spec.publisher, terms=entity.spec.terms,
        attribution=entity.spec.attribution, runs=plan.runs,
        kernels=[factory.operation_link(op) for op in sorted(operations)],
        cited_by=[factory.hardware_link(hw) for hw in cited_by],
    )


def listing_tasks(factory: ViewFactory, index: CatalogIndex) -> list[PlannedPage]:
    """One page per list: besides the catalog (global), how many runs refer to each of its items
    (``ListingPlan``)."""
    return [PlannedPage(urls.listing(section), partial(_listing_plan, index, section), partial(listing_page, factory))
            for section in LISTINGS]


@dataclass(frozen=True)
class ListingPlan(Plan):
    """A list page shows how many runs refer to each of its items."""

    section: str
    counts: dict[str, int]  # runs by item, in order of name


def _listing_plan(index: CatalogIndex, section: str) -> ListingPlan:
    return ListingPlan(section, dict(sorted(index.run_counts(LISTINGS[section][0]).items())))


def listing_page(factory: ViewFactory, plan: ListingPlan) -> ListingPage:
    _, title, intro, items = LISTINGS[plan.section]
    return ListingPage(**factory.page_fields("listing", title, urls.listing(plan.section)), intro=intro,
                       items=sorted(items(factory, Counter(plan.counts)), key=lambda item: (item.title.casefold(), item.url)))


def _implementation_items(factory: ViewFactory, counts: Counter[str]) -> list[ListItem]:
    return [ListItem(title=view.title, url=view.url, count=counts[name],
                     detail=" · ".join(filter(None, [view.project, view.language, view.license or "license unknown",
                                                     "baseline" if view.baseline else ""])))
            for name, view in ((name, factory.implementation(name)) for name in sorted(factory.catalog.implementations))]


def _hardware_items(factory: ViewFactory, counts: Counter[str]) -> list[ListItem]:
    return [ListItem(title=link.title, url=link.url, count=counts[name],
                     detail=f"{number(entity.spec.bandwidthGBps.value)} GB/s · {entity.spec.architecture}"
                            + (" · priority" if entity.spec.priority else ""))
            for name, entity in sorted(factory.catalog.hardware.items()) for link in [factory.hardware_link(name)]]


def _environment_items(factory: ViewFactory, counts: Counter[str]) -> list[ListItem]:
    return [ListItem(title=view.title, url=view.url, count=counts[name], detail=view.gpu)
            for name in sorted(factory.catalog.environments) for view in [factory.environment(name)]]


def _protocol_items(factory: ViewFactory, counts: Counter[str]) -> list[ListItem]:
    return [ListItem(title=view.title, url=urls.protocol(name), count=counts[name],
                     detail=f"{view.harness} · {view.timer} · {view.statistic}")
            for name in sorted(factory.catalog.protocols) for view in [factory.protocol(name)]]


def _source_items(factory: ViewFactory, counts: Counter[str]) -> list[ListItem]:
    return [ListItem(title=entity.metadata.title or entity.spec.title, url=urls.source(name), count=counts[name],
                     detail=" · ".join(filter(None, [entity.spec.publisher, entity.spec.license,
                                                     f"retrieved {entity.spec.retrieved}"])))
            for name, entity in sorted(factory.catalog.sources.items())]


# The list pages, in order: section -> (the kind whose runs each item counts, title, intro, items).
LISTINGS: dict[str, tuple[str, str, str, Callable[[ViewFactory, Counter[str]], list[ListItem]]]] = {
    "implementations": ("implementation", "Implementations", "Every implementation with runs or records here.",
                        _implementation_items),
    "hardware": ("hardware", "Hardware", "GPU datasheets: the bandwidth and dense peaks every floor is computed from, "
                 "each cited. Absence of a GPU is not evidence about its performance.", _hardware_items),
    "environments": ("environment", "Environments", "The machines runs were measured on, as their sources describe them.",
                     _environment_items),
    "protocols": ("protocol", "Protocols", "How runs were timed. Runs under different protocols are never ranked together.",
                  _protocol_items),
    "sources": ("source", "Sources", "Where the data comes from, with licences and retrieval dates.", _source_items),
}
