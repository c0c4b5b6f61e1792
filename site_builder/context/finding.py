"""Finding pages (issue 9): search, the records ledger, GPUs, models and compare."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property, partial
from itertools import chain, islice, takewhile
from operator import attrgetter

from .. import urls
from ..gc_pause import paused_gc
from ..derive.leaderboard import Cohort
from ..derive.ranking import RankedRow
from ..derive.model import EVIDENCE_LEVELS, RunFacts
from ..discover.ledger import (
    GROUP_KEY, RECENT_BREAKS, FieldIn, FieldReads, LedgerEntry, by_evidence, by_source, pages,
)
from ..discover.gpus import GpuKey
from ..discover.state import Discovery, discovery
from ..discover.finding_views import (
    CompareFieldHelp, ComparePage, FacetHelp, FamilyCoverage, FamilyEntry, FilterLink, GpuEntry, GpuPage, GpuSummary,
    GpusPage, HolderCount, ModelCell, ModelEntry, ModelOperation, ModelPage, ModelsPage, OperationEntry, RecordRow,
    BrokenRecord, RecordRun, RecordsPage, SearchPage,
)
from ..search.compare import CONTEXT_FIELDS, MATERIAL_FIELDS, MAX_RUNS, MIN_RUNS
from ..search.index import AXIS_SYNONYMS
from ..page_views import Link, Page, PageLink
from .tasks import NOTHING, Nothing, Plan, PlannedPage, Shows
from .view_parts import PageTask, ViewFactory, as_float, on_index, pager, per_key, unchecked

FACETS = [
    FacetHelp(facet="kernel", example="llama4-rope, op:rope", meaning="an operation by name or alias"),
    FacetHelp(facet="family", example="rope, normalization", meaning="every operation of a family"),
    FacetHelp(facet="model", example="llama-4-scout", meaning="operations a model uses"),
    FacetHelp(facet="GPU", example="h100, pcie, rtx3090, gpu:b200", meaning="where it was measured (differs when another)"),
    FacetHelp(facet="dtype", example="bf16, fp32, bfloat16", meaning="the workload's dtype (differs when another)"),
    FacetHelp(facet="axis", example="seq=4096, hidden=8k, t:2048",
              meaning=f"an axis binding; short names answer too ({', '.join(f'{k}: {v[0]}' for k, v in list(AXIS_SYNONYMS.items())[:4])} …)"),
    FacetHelp(facet="pass", example="forward, backward, full", meaning="the timed pass (a filter)"),
    FacetHelp(facet="metric", example="latency, memory", meaning="the primary metric (a filter)"),
    FacetHelp(facet="language", example="triton, python", meaning="the implementation's language (a filter)"),
    FacetHelp(facet="license", example="mit, apache-2.0", meaning="a known SPDX licence (a filter)"),
    FacetHelp(facet="evidence", example="verified", meaning="at least this evidence level (a filter)"),
    FacetHelp(facet="availability", example="installable, source, usable", meaning="install recipe, public source, usable today"),
]


class DiscoverContext:
    """View helpers for the finding pages, on top of the shared ViewFactory."""

    def __init__(self, factory: ViewFactory):
        self.factory = factory
        self.board = factory.board
        self.catalog = factory.catalog
        self.found: Discovery = discovery(self.board)
        self._record_runs: dict[str, RecordRun] = {}
        self._record_rows: dict[tuple[str, str], RecordRow] = {}

    def page(self, kind: str, title: str, html: str) -> dict:
        return self.factory.page_fields(kind, title, html)

    @cached_property
    def families(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for name, operation in sorted(self.catalog.operations.items()):
            found.setdefault(operation.spec.family, []).append(name)
        return dict(sorted(found.items()))

    @cached_property
    def models(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for name, operation in sorted(self.catalog.operations.items()):
            for model in operation.metadata.models:
                found.setdefault(model, []).append(name)
        return dict(sorted(found.items()))

    @cached_property
    def workload_counts(self) -> Counter:
        return Counter(w.refs["operation"].name for w in self.catalog.workloads.values())

    def priority(self, slug: str) -> bool:
        key = self.found.gpu_by_slug[slug]
        return bool(key.datasheet and self.catalog.hardware[key.datasheet].spec.priority)

    @per_key
    def gpu_entry(self, slug: str) -> GpuEntry:
        """One per GPU: the search page and every model page list them, and each counts the GPU's rows."""
        key = self.found.gpu_by_slug[slug]
        cohorts = self.found.cohorts_by_gpu.get(slug, [])
        return GpuEntry(slug=slug, label=key.label, url=urls.gpu(slug), eligible_runs=sum(len(c.rows) for c in cohorts),
                        records=len(cohorts), priority=self.priority(slug))

    def record_run(self, run: RunFacts) -> RecordRun:
        found = self._record_runs.get(run.name)
        if found is None:
            implementation = self.factory.implementation(run.implementation)
            found = self._record_runs[run.name] = unchecked(
                RecordRun,
                run=run.name, value=as_float(run.value), unit=run.unit, statistic=run.statistic,
                implementation=self._implementation_link(run.implementation), baseline=implementation.baseline,
                evidence=run.evidence, source=implementation.source_url is not None, observed_at=run.observed_at)
        return found

    @staticmethod
    def _broken_record(run: RunFacts) -> BrokenRecord:
        return unchecked(BrokenRecord, run=run.name, value=as_float(run.value), unit=run.unit)

    @per_key
    def _implementation_link(self, name: str) -> Link:
        """One link per implementation, shared by all its runs' rows (and its JSON written once)."""
        implementation = self.factory.implementation(name)
        return Link(title=implementation.title, url=implementation.url)

    def record_row(self, entry: LedgerEntry) -> RecordRow:
        """One row per ledger entry, built once: a row appears on several filtered pages. It reads
        the entry, its group and data every page reads, and nothing else: a ledger page is signed
        by what ``page_signatures.RowSignatures.group`` hashes of each group it shows."""
        key = (entry.group.key, entry.run.name)
        found = self._record_rows.get(key)
        if found is None:
            cohort = self.board.cohorts[entry.group.key]
            factory = self.factory
            found = self._record_rows[key] = unchecked(
                RecordRow,
                operation=factory.operation_link(cohort.operation).title, workload=factory.workload_link(cohort.workload).title,
                cohort=factory.cohort_link(cohort), gpu=entry.group.gpu,
                gpu_label=self.found.gpu_by_slug[entry.group.gpu].label, row=self.record_run(entry.run),
                previous=self._broken_record(entry.previous) if entry.previous else None, improvement=entry.improvement,
                set_at=entry.set_at, current=entry.current, group_size=len(cohort.rows))
        return found

    @cached_property
    def workload_order(self) -> dict[str, int]:
        """Each group's place in its workload's default group order (by group key)."""
        return {cohort.key: number for cohorts in self.board.workload_cohorts.values()
                for number, cohort in enumerate(cohorts)}

    def has_source(self, implementation: str) -> bool:
        return implementation in self.with_source

    @cached_property
    def with_source(self) -> frozenset[str]:
        """The implementations that publish their source."""
        return frozenset(name for name, facts in self.board.implementations.items() if facts.source_url is not None)

    @cached_property
    def gpu_summaries(self) -> list[GpuSummary]:
        """Each GPU's line on the GPUs' list, in the order of ``found.gpus``."""
        return [gpu_summary(self, key) for key in self.found.gpus]

    @cached_property
    def cohorts_by_operation(self) -> dict[str, list[Cohort]]:
        """Every group (ranked or not) by its kernel, in the board's order."""
        found: dict[str, list[Cohort]] = {}
        for cohort in self.board.cohorts.values():
            found.setdefault(cohort.operation, []).append(cohort)
        return found


def discover_tasks(factory: ViewFactory) -> list[PageTask]:
    """The finding pages as tasks, one page each (the ledger's pages are many at scale), so the
    renderer can spread them over workers. What every task shares (the ledger, its filters) is
    derived here, before workers fork, so each worker starts with it. A ledger page's plan is made
    here too (``RecordsPlan``), a GPU's and a model's when first needed."""
    context = DiscoverContext(factory)
    plans = by_newest_row(records_plan(context))  # the ledger, every filter's entries
    # What the GPU and model pages share (the badges' and search index's counts are made after the pages).
    for shared in ("cohorts_by_gpu", "runs_by_gpu", "gpu_by_slug"):
        getattr(context.found, shared)
    tasks: list[PageTask] = [lambda: (search_page(context),)]
    tasks += [PlannedPage.made(_records_url(plan), plan, partial(records_page, context)) for plan in plans]
    tasks += gpu_tasks(context)
    tasks += model_tasks(context)
    tasks.append(lambda: (compare_page(context),))
    return tasks


def discover_pages(factory: ViewFactory) -> Iterator[Page]:
    for task in discover_tasks(factory):
        yield from task()


# ------------------------------------------------------------------------------------------------
# Search


def search_examples(context: DiscoverContext) -> list[str]:
    """Queries that answer on this data: an exact one, one that brackets an unmeasured shape, a filter."""
    found = context.found
    examples: list[str] = []
    # Kernels a model uses first (readers come with a model in mind), then any with a headline workload.
    operations = sorted((name for name, op in context.catalog.operations.items() if op.metadata.headlineWorkload),
                        key=lambda name: (not context.catalog.operations[name].metadata.models, name))
    for name in operations or sorted(context.catalog.operations):
        headline = context.factory.headline_workload(name)
        cohort = context.board.default_cohort(headline) if headline else None
        workload = context.catalog.of("WorkloadCase").get(headline or "")
        if cohort is None or workload is None or not cohort.rows:
            continue
        gpu = found.gpu_of(cohort)
        # The shortest alias with a letter and a digit ("h100", "rtx3090"), as a reader would type it.
        word = min((a for a in gpu.aliases if any(c.isdigit() for c in a) and any(c.isalpha() for c in a)),
                   key=lambda a: (len(a), a), default=gpu.slug)
        axes = [axis for axis, spec in context.catalog.operations[name].spec.axes.items() if spec.role.value == "variable"]
        dtype = workload.spec.dtype.value if workload.spec.dtype else ""
        measured = {}
        for other in context.board.workload_cohorts:
            other_workload = context.catalog.of("WorkloadCase").get(other)
            if other_workload is not None and other_workload.refs["operation"].name == name:
                for axis in axes:
                    measured.setdefault(axis, set()).add(other_workload.spec.axes.get(axis))
        axis = max(axes, key=lambda a: (len(measured.get(a, ())), -axes.index(a))) if axes else None
        base = " ".join(filter(None, [name, word, dtype]))
        if axis is not None:
            value = workload.spec.axes[axis]
            examples.append(f"{base} {axis}={value}")
            values = sorted(v for v in measured.get(axis, ()) if v is not None)
            above = [v for v in values if v > value]
            if above and above[0] - value > 1:
                examples.append(f"{base} {axis}={(value + above[0]) // 2}")
        else:
            examples.append(base)
        examples.append(f"{context.catalog.operations[name].spec.family} {word} usable")
        break
    examples.append("normalization triton memory")
    return examples


def search_page(context: DiscoverContext) -> SearchPage:
    board, factory = context.board, context.factory
    families = [FamilyEntry(family=family, operations=sorted((OperationEntry(
        operation=factory.operation_link(name), eligible_runs=board.eligible_count(name),
        workloads=context.workload_counts[name], models=list(context.catalog.operations[name].metadata.models))
        for name in names), key=lambda entry: (entry.operation.title.casefold(), entry.operation.url)))
        for family, names in context.families.items()]
    return SearchPage(
        **context.page("search", "Search", urls.SEARCH),
        index=urls.SEARCH_INDEX, index_script=urls.SEARCH_INDEX_SCRIPT, facets=FACETS,
        examples=search_examples(context), families=families,
        gpus=[context.gpu_entry(key.slug) for key in context.found.gpus],
        models=[ModelEntry(slug=model, url=urls.model(model), operations=len(names)) for model, names in context.models.items()],
    )


# ------------------------------------------------------------------------------------------------
# Records ledger

EVIDENCE_FILTERS = EVIDENCE_LEVELS[1:]  # "at least reported" is every record: the unfiltered ledger


def _filters(context: DiscoverContext, reads: FieldReads) -> list[tuple[FilterLink, FieldIn | None, Sequence[LedgerEntry]]]:
    """Every filter with its predicate and the current records it keeps (their count is on its
    link); a filter with none has no page. All records and a GPU's have no predicate (``_kept``)."""
    found = context.found
    current = found.current
    candidates: list[tuple[str, str | None, str, FieldIn | None]] = [("all", None, "All records", None)]
    candidates += [("gpu", key.slug, key.label, None) for key in found.gpus]
    candidates += [("evidence", level, f"{level.capitalize()} or stronger", by_evidence(level)) for level in EVIDENCE_FILTERS]
    candidates.append(("source", "available", "Source available", by_source(context.with_source)))
    filters = []
    for facet, value, title, predicate in candidates:
        kept = _kept(facet, value, predicate, current, found.current_by_gpu, reads)
        count = len(kept)
        # A page per GPU and per evidence level above "reported" (small sets); a filter that keeps
        # most records (source available, as a rule) would copy the ledger: records.js filters it.
        static = facet == "all" or (count and (facet != "source" or count <= len(current) // 2))
        url = urls.records("current", facet if facet != "all" else None, value) if static else None
        filters.append((FilterLink(facet=facet, value=value, title=title, url=url, count=count, selected=False),
                        predicate, kept))
    return filters


def _kept(facet: str, value: str | None, predicate: FieldIn | None, entries: Sequence[LedgerEntry],
          by_gpu: dict[str, list[LedgerEntry]], reads: FieldReads, limit: int | None = None) -> Sequence[LedgerEntry]:
    """What a filter keeps of ``entries`` (a list of the ledger), in order; the first ``limit`` if
    given. A GPU's entries are read from ``by_gpu``, the same list split by GPU in one pass: a pass
    per GPU over every entry would be most of planning the ledger; another filter's field
    from ``reads``, read once for every filter of it."""
    if facet == "gpu":
        kept: Sequence[LedgerEntry] = by_gpu.get(value or "", [])
    elif predicate is None:
        kept = entries
    elif limit is not None:
        return list(islice(filter(predicate, entries), limit))
    else:
        return reads.kept(predicate, entries)
    return kept if limit is None else kept[:limit]


@dataclass(frozen=True, slots=True)
class RecordsPlan(Plan):
    """One ledger page: a view of a filter, and the entries on it. The filter links are the same
    on every page of a view and filter, and made once for all of them; its pager is made from the
    page count and its number (``pager``) when the page is built."""

    view: str
    chosen: FilterLink
    filters: list[FilterLink]  # every filter, ``chosen`` marked selected
    total: int
    number: int
    page_count: int  # of this view and filter
    entries: Sequence[LedgerEntry]
    breaks: Sequence[LedgerEntry]

    def shows(self) -> Shows:
        """Its view, filter, counts and page number (its pager follows from them), and each row's
        group. A current record is its group's one: the group says it. A record of the history (or
        a break) is also its event's place in the group's history, which the group's runs decide,
        as they decide the rest of the row. Said here rather than field by field (``Plan.shows``):
        the ledger's pages together show every record many times over."""
        rows = [*self.entries, *self.breaks]
        events = rows if self.view == "history" else self.breaks
        return Shows((self.view, repr(self.chosen), str(self.total), str(self.number), str(self.page_count),
                      repr(self.filters), f"{len(self.entries)} rows, {len(self.breaks)} breaks",
                      ",".join(map(str, map(_POSITION, events)))),
                     list(map(GROUP_KEY, rows)))


def records_plan(context: DiscoverContext) -> list[RecordsPlan]:
    found, reads = context.found, FieldReads()
    filters = _filters(context, reads)
    links = [link for link, _, _ in filters]
    plans = []
    for chosen, predicate, current in filters:
        if chosen.url is None:
            continue
        selected = [link.model_copy(update={"selected": link is chosen}) for link in links]
        history = _kept(chosen.facet, chosen.value, predicate, found.events, found.events_by_gpu, reads)
        for view, chosen_entries in (("current", current), ("history", history)):
            breaks = [] if view == "history" else _kept(chosen.facet, chosen.value, predicate, found.breaks,
                                                        found.breaks_by_gpu, reads, limit=RECENT_BREAKS)
            cut = pages(chosen_entries)
            for number, entries_on_page in enumerate(cut, 1):
                plans.append(RecordsPlan(view, chosen, selected, len(chosen_entries), number, len(cut), entries_on_page,
                                         breaks if number == 1 else []))
    return plans


def by_newest_row(plans: list[RecordsPlan]) -> list[RecordsPlan]:
    """The ledger's pages by their newest row, newest first (ties, and pages without rows, in plan
    order). A record is on a page of every view and filter that keeps it, spread over the plan's
    order (by filter, then page); in this order those pages come close together, so that the render
    worker that takes them (``render_pool`` hands out consecutive tasks) makes the record's row,
    its JSON and its HTML once, where in plan order each worker would make most rows again."""
    return sorted(plans, key=lambda plan: -plan.entries[0].set_at.timestamp() if plan.entries else -math.inf)


_POSITION = attrgetter("position")


def _records_url(plan: RecordsPlan) -> str:
    return urls.records(plan.view, plan.chosen.facet if plan.chosen.facet != "all" else None, plan.chosen.value,
                        plan.number)


def records_page(context: DiscoverContext, plan: RecordsPlan) -> RecordsPage:
    chosen, view, number = plan.chosen, plan.view, plan.number
    facet = chosen.facet if chosen.facet != "all" else None
    what = "Current records" if view == "current" else "Record history"
    title = what if facet is None else f"{what} · {chosen.title}"
    if plan.page_count > 1:
        title += f" · page {number} of {plan.page_count}"
    # Rows hold no reference cycles, and most outlive the page (kept for the other pages that show
    # them): the collector, left on, walked them again and again while they were made.
    with paused_gc():
        rows = [context.record_row(e) for e in plan.entries]
        breaks = [context.record_row(e) for e in plan.breaks]
    return RecordsPage(
        **context.page("records", title, _records_url(plan)),
        view=view, filter=chosen.model_copy(update={"selected": True}), filters=plan.filters,
        views=[Link(title="Current records", url=urls.records("current", facet, chosen.value)),
               Link(title="Record history", url=urls.records("history", facet, chosen.value))],
        total=plan.total, page_number=number, page_count=plan.page_count,
        pages=pager(plan.page_count, number, lambda n: PageLink(number=n, title=str(n),
                                                                  url=urls.records(view, facet, chosen.value, n))),
        rows=rows, breaks=breaks, feed=urls.RECORDS_FEED,
    )


def records_pages(context: DiscoverContext) -> Iterator[RecordsPage]:
    for plan in records_plan(context):
        yield records_page(context, plan)


# ------------------------------------------------------------------------------------------------
# GPUs


def gpu_tasks(context: DiscoverContext) -> list[PageTask]:
    """The GPUs' list (``GpusPlan``) and a page per GPU (``GpuPlan``), one task each."""
    return [PlannedPage(urls.GPUS, lambda: GpusPlan(context.gpu_summaries), partial(gpus_page, context)),
            *(PlannedPage(urls.gpu(key.slug), partial(_gpu_plan, context, key), partial(gpu_page, context))
              for key in context.found.gpus)]


@dataclass(frozen=True)
class GpusPlan(Plan):
    """The GPUs' list shows, besides each GPU's name, architecture and priority (global), what it
    counts of the GPU's groups and runs."""

    summaries: list[GpuSummary]


@dataclass(frozen=True)
class GpuPlan(Plan):
    """A GPU's page shows how many runs it has, how many are eligible, when the newest was observed,
    and what its ranked groups add up to (by family: kernels measured, runs, holders of #1; the
    families, kernels and implementations shown are global)."""

    key: GpuKey
    runs: int
    eligible_runs: int
    last_observed: datetime | None
    cohorts: list[Cohort]


def _gpu_plan(context: DiscoverContext, key: GpuKey) -> GpuPlan:
    runs, reasons = context.found.runs_by_gpu.get(key.slug, []), context.board.reasons
    return GpuPlan(key, len(runs), sum(1 for run in runs if run.name not in reasons),
                   max(map(_OBSERVED_AT, runs), default=None), context.found.cohorts_by_gpu.get(key.slug, []))


def gpus_page(context: DiscoverContext, plan: GpusPlan) -> GpusPage:
    summaries = sorted(plan.summaries, key=lambda s: (-s.eligible_runs, s.label.casefold(), s.slug))
    return GpusPage(**context.page("gpus", "GPUs", urls.GPUS), gpus=summaries)


def gpu_summary(context: DiscoverContext, key: GpuKey) -> GpuSummary:
    cohorts = context.found.cohorts_by_gpu.get(key.slug, [])
    return GpuSummary(
        slug=key.slug, label=key.label, url=urls.gpu(key.slug),
        architecture=context.catalog.hardware[key.datasheet].spec.architecture if key.datasheet else None,
        priority=context.priority(key.slug), eligible_runs=context.gpu_entry(key.slug).eligible_runs,
        operations=len(set(map(_OPERATION, cohorts))), records=len(cohorts),
        last_observed=max((max(map(_OBSERVED_AT, c.runs)) for c in cohorts), default=None))


_OPERATION, _OBSERVED_AT, _RUNS, _ROWS = attrgetter("operation"), attrgetter("observed_at"), attrgetter("runs"), attrgetter("rows")
_RUN_IMPLEMENTATION = attrgetter("run.implementation")


def _first(row: RankedRow) -> bool:
    """Rows come in rank order: those ranked #1 first."""
    return row.rank == 1


def gpu_pages(context: DiscoverContext) -> Iterator[GpuPage]:
    for key in context.found.gpus:
        yield gpu_page(context, _gpu_plan(context, key))


def gpu_page(context: DiscoverContext, plan: GpuPlan) -> GpuPage:
    found, factory, key, cohorts = context.found, context.factory, plan.key, plan.cohorts
    by_operation: dict[str, list[Cohort]] = {}
    for cohort in cohorts:
        by_operation.setdefault(cohort.operation, []).append(cohort)
    coverage = []
    for family, names in context.families.items():
        family_cohorts = [c for name in names for c in by_operation.get(name, ())]
        # Read in C (map, attrgetter): a family's groups on a GPU run to thousands on a large site.
        implementations = list(map(_RUN_IMPLEMENTATION, chain.from_iterable(map(_ROWS, family_cohorts))))
        coverage.append(FamilyCoverage(
            family=family, operations=len(names),
            measured=[factory.operation_link(name) for name in names if name in by_operation],
            never_measured=[factory.operation_link(name) for name in names if name not in by_operation],
            eligible_runs=len(implementations), with_source=sum(map(context.with_source.__contains__, implementations)),
            records=len(family_cohorts),
            last_observed=max(map(_OBSERVED_AT, chain.from_iterable(map(_RUNS, family_cohorts))), default=None)))
    holders: Counter = Counter()
    for cohort in cohorts:
        holders.update({row.run.implementation for row in takewhile(_first, cohort.rows)})
    environments = sorted(env for env, gpu in found.gpu_of_environment.items() if gpu.slug == key.slug)
    return GpuPage(
        **context.page("gpu", key.label, urls.gpu(key.slug)),
        slug=key.slug, label=key.label, product=key.product, hardware=factory.hardware_link(key.datasheet),
        architecture=context.catalog.hardware[key.datasheet].spec.architecture if key.datasheet else None,
        priority=context.priority(key.slug), environments=[factory.environment_link(env) for env in environments],
        runs=plan.runs, eligible_runs=plan.eligible_runs, records=len(cohorts),
        holders=[HolderCount(implementation=Link(title=factory.implementation(name).title, url=urls.implementation(name)),
                             operation=factory.operation_link(context.catalog.implementations[name].refs["operation"].name),
                             records=count)
                 for name, count in sorted(holders.items(), key=lambda item: (-item[1], factory.implementation(item[0]).title, item[0]))],
        records_url=urls.records("current", "gpu", key.slug) if cohorts else None,
        # The index's GPU choice (context.site.IndexChoices) offers a GPU by its datasheet's slug once
        # one of its groups ranks latencies: a link never leads to an index that was not built (a GPU
        # whose groups rank only scores or memory, as GPU MODE's MI355X).
        fastest_url=urls.index_for(key.slug, None)
        if key.datasheet and any(c.is_latency and c.rows and on_index(context.catalog.operations[c.operation])
                                 for c in cohorts) else None,
        coverage=coverage, last_observed=plan.last_observed,
    )


# ------------------------------------------------------------------------------------------------
# Models


def _model_cell(context: DiscoverContext, operation: str, slug: str, cohorts: list[Cohort]) -> ModelCell:
    if not cohorts:
        return ModelCell(gpu=slug, cohort=None, workload=None, best=None, best_usable=None, groups=0)
    headline = context.factory.headline_workload(operation)
    # The kernel page's own choice: its headline workload, then the workload's default group order.
    order = context.workload_order
    cohort = min(cohorts, key=lambda c: (c.workload != headline, order[c.key], -len(c.rows), c.key))
    leader = cohort.rows[0]
    usable = None
    if not context.board.usability(leader.run).usable:
        usable = next((row for row in cohort.rows if context.board.usability(row.run).usable), None)
    factory = context.factory
    return ModelCell(gpu=slug, cohort=factory.cohort_link(cohort), workload=factory.workload_link(cohort.workload).title,
                     best=factory.row(leader.run), best_usable=factory.row(usable.run) if usable else None,
                     groups=len(cohorts))


def model_tasks(context: DiscoverContext) -> list[PageTask]:
    """The models' list (global: the kernels' models) and a page per model (``ModelPlan``), one task each."""
    return [PlannedPage.made(urls.MODELS, NOTHING, partial(models_page, context)),
            *(PlannedPage(urls.model(model), partial(_model_plan, context, model), partial(model_page, context))
              for model in context.models)]


@dataclass(frozen=True)
class ModelPlan(Plan):
    """A model's page shows, for each of its kernels and each GPU, one of the kernel's groups there,
    chosen by the kernel's headline workload and the group's place in its workload's order (which
    every group of the workload decides), its leader and best usable run; and each GPU it shows
    with what the GPU's ranked groups of every kernel add up to (``gpu_entry``)."""

    model: str
    cohorts: list[Cohort]  # every group of its kernels, each kernel's once
    gpus: list[GpuEntry]


def _model_plan(context: DiscoverContext, model: str) -> ModelPlan:
    cohorts = [cohort for name in dict.fromkeys(context.models[model]) for cohort in context.cohorts_by_operation.get(name, ())]
    return ModelPlan(model, cohorts, [context.gpu_entry(slug) for slug in _model_gpus(context, [c for c in cohorts if c.rows])])


def _model_gpus(context: DiscoverContext, ranked: list[Cohort]) -> list[str]:
    """The GPUs a model's page shows: where its kernels have ranked groups, and every priority GPU."""
    found = context.found
    return sorted({found.gpu_of(cohort).slug for cohort in ranked} | {key.slug for key in found.gpus if context.priority(key.slug)},
                  key=lambda slug: (found.gpu_by_slug[slug].label.casefold(), slug))


def model_pages(context: DiscoverContext) -> Iterator[ModelPage]:
    for model in context.models:
        yield model_page(context, _model_plan(context, model))


def model_page(context: DiscoverContext, plan: ModelPlan) -> ModelPage:
    found, model = context.found, plan.model
    operations = context.models[model]
    cells: dict[tuple[str, str], list[Cohort]] = {}
    for cohort in plan.cohorts:
        if cohort.rows:
            cells.setdefault((cohort.operation, found.gpu_of(cohort).slug), []).append(cohort)
    slugs = [entry.slug for entry in plan.gpus]
    rows = [ModelOperation(operation=context.factory.operation_link(name),
                           cells=[_model_cell(context, name, slug, cells.get((name, slug), [])) for slug in slugs])
            for name in operations]
    gaps = [f"{row.operation.title} · {found.gpu_by_slug[cell.gpu].label}" for row in rows for cell in row.cells
            if cell.cohort is None]
    return ModelPage(**context.page("model", model, urls.model(model)), slug=model,
                     gpus=plan.gpus, operations=rows, gaps=gaps)


def models_page(context: DiscoverContext, plan: Nothing = NOTHING) -> ModelsPage:
    return ModelsPage(**context.page("models", "Models", urls.MODELS),
                      models=[ModelEntry(slug=model, url=urls.model(model), operations=len(names))
                              for model, names in context.models.items()])


# ------------------------------------------------------------------------------------------------
# Compare


def compare_example(context: DiscoverContext) -> str | None:
    for cohort in context.found.ranked_cohorts:
        if len(cohort.rows) >= 2:
            return urls.compare([row.run.digest.removeprefix("sha256:")[:12] for row in cohort.rows[:2]])
    return None


def compare_page(context: DiscoverContext) -> ComparePage:
    fields = [CompareFieldHelp(name=name, title=title, material=True) for name, title in MATERIAL_FIELDS]
    fields += [CompareFieldHelp(name=name, title=title, material=False) for name, title in CONTEXT_FIELDS]
    return ComparePage(
        **context.page("compare", "Compare runs", urls.COMPARE), min_runs=MIN_RUNS, max_runs=MAX_RUNS, fields=fields,
        run_page=urls.run("<name>"), run_mirror=urls.run_mirror(urls.group_mirror("<workload mirror>", "<id>", 0), "<name>"),
        run_directory=urls.run_directory("<xx>"),
        result_schema=urls.schema("compare-result"), example=compare_example(context),
    )
