"""Kernel pages: one page per workload of every operation (the headline workload is the kernel's URL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from itertools import chain
from datetime import datetime

from .. import urls
from ..charts import scaling_chart
from ..derive.headline import fastest_by_language, headline, unsteady
from ..derive.leaderboard import Cohort
from ..derive.ranking import RankedRow
from ..derive.model import RunFacts, evidence_strength
from ..link import Entity
from ..page_views import (
    GpuRecord, GroupPage, HeadlineView, ImplementationRow, KernelPage, LanguageBestView, Page, PassedOver, WorkloadLink,
)
from .run import groups_and_runs
from .view_parts import KERNEL_PAGE_ROWS, SUITE, ViewFactory, workload_label

# Workloads a workload's page lists around its own (the kernel's page lists them all).
WORKLOAD_WINDOW = 15


def workloads_of(factory: ViewFactory) -> dict[str, list[Entity]]:
    """Workloads by operation: single cases ordered by their axes, then suites."""
    by_operation: dict[str, list[Entity]] = {name: [] for name in factory.catalog.operations}
    for workload in factory.workloads.values():
        by_operation[workload.refs["operation"].name].append(workload)
    for operation, workloads in by_operation.items():
        order = list(factory.catalog.operations[operation].spec.axes)
        workloads.sort(key=lambda w: _workload_order(w, order))
    return by_operation


def _workload_order(workload: Entity, axis_order: list[str]) -> tuple:
    if workload.kind == SUITE:
        return (1, (), "", workload.name)
    axes = tuple(workload.spec.axes.get(name, -1) for name in axis_order)
    return (0, axes, workload.spec.dtype.value if workload.spec.dtype else "", workload.name)


@dataclass(frozen=True)
class _KernelFacts:
    """What every workload page of one kernel shares, gathered once per kernel."""

    name: str
    headline_workload: str | None
    workloads: list[WorkloadLink]
    implementations: list[str]
    runs_by_implementation: dict[str, int]
    evidence_by_implementation: dict[str, str]  # the strongest level among eligible runs
    last_observed: datetime | None
    # Each implementation's fastest eligible latency over every workload and group (the public site's
    # "best latency"), so a submission measured on other workloads than the one shown still has a figure.
    best_anywhere: dict[str, RunFacts]
    # Per source the kernel's runs cite: when its newest run was observed (not when we fetched it).
    source_observed: dict[str, datetime]


def kernel_pages(factory: ViewFactory, operation: str, workloads: list[Entity], implementations: list[str],
                 superseded_by: dict[str, str]) -> list[Callable[[], tuple[Page, ...]]]:
    """What builds the pages of each workload of the kernel ``operation`` (``workloads_of``'s
    order): its page, then each of its comparison groups' page followed by the group's runs'
    pages, whose JSON is all in the workload page's mirror. ``implementations``: the kernel's, by
    name; ``superseded_by``: run -> the run that supersedes it."""
    # Gathered when the kernel's first page is built (in a render worker), not while the pages
    # are planned: a pass over all the kernel's runs.
    shared = cache(partial(_kernel_facts, factory, operation, workloads, implementations))
    # A declared kernel no source has measured yet still has its page (what it computes), so that
    # the index, search and sources never link to nothing.
    return [partial(_workload_pages, factory, shared, workload, superseded_by) for workload in workloads or [None]]


def _workload_pages(factory: ViewFactory, kernel: Callable[[], _KernelFacts], workload: Entity | None,
                    superseded_by: dict[str, str]) -> tuple[Page, ...]:
    """A workload's page first (its mirror holds the rest, or each group its own), then its groups'
    and runs' pages."""
    if workload is None:
        return (_kernel_page(factory, kernel(), None, {}),)
    mirror = urls.mirror(factory.workload_url(workload.name))
    groups = groups_and_runs(factory, workload.name, superseded_by, mirror)
    held = {urls.group_id(group.comparison.summary.key): group for group, _ in groups
            if urls.mirror_file(group.mirror) == mirror}
    return (_kernel_page(factory, kernel(), workload, held), *chain.from_iterable((group, *runs) for group, runs in groups))


def _kernel_facts(factory: ViewFactory, operation: str, workloads: list[Entity], implementations: list[str]) -> _KernelFacts:
    board = factory.board
    runs = board.operation_runs.get(operation, [])
    eligible_by_workload: dict[str, int] = {}
    counts: dict[str, int] = {}
    evidence: dict[str, str] = {}
    best: dict[str, RunFacts] = {}
    source_observed: dict[str, datetime] = {}
    for run in runs:
        counts[run.implementation] = counts.get(run.implementation, 0) + 1
        native = factory.catalog.runs[run.name].spec.sourceNative
        if native is not None and (native.source not in source_observed or run.observed_at > source_observed[native.source]):
            source_observed[native.source] = run.observed_at
        if run.name in board.reasons:
            continue
        if run.value_ns is not None and (run.implementation not in best or run.value_ns < best[run.implementation].value_ns):
            best[run.implementation] = run
        eligible_by_workload[run.workload] = eligible_by_workload.get(run.workload, 0) + 1
        if evidence_strength(run.evidence) > evidence_strength(evidence.get(run.implementation, "reported")):
            evidence[run.implementation] = run.evidence
    links = [WorkloadLink(
        name=w.name, label=workload_label(w), url=factory.workload_url(w.name),
        axes=dict(w.spec.axes) if w.kind != SUITE else {}, dtype=w.spec.dtype.value if w.spec.dtype else None,
        cases=len(w.spec.cases) if w.kind == SUITE else None, eligible_runs=eligible_by_workload.get(w.name, 0))
        for w in workloads]
    return _KernelFacts(operation, factory.headline_workload(operation), links, implementations, counts, evidence,
                        max((run.observed_at for run in runs), default=None), best, source_observed)


def _kernel_page(factory: ViewFactory, kernel: _KernelFacts, workload: Entity | None,
                 groups: dict[str, GroupPage]) -> KernelPage:
    board = factory.board
    operation = factory.operation(kernel.name)
    if workload is None:
        return KernelPage(
            **factory.page_fields("kernel", operation.title, urls.kernel(kernel.name)),
            operation=operation, eligible_runs=0, last_observed=None, headline_workload=None, workload=None,
            workloads=[], headline=None, cohorts=[], not_measured_on=[], comparison=None, scaling=None,
            implementations=_implementation_rows(factory, kernel, None),
        )
    cohorts = board.workload_cohorts.get(workload.name, [])
    selected = cohorts[0] if cohorts else None
    html = factory.workload_url(workload.name)
    headline_page = workload.name == kernel.headline_workload
    title = operation.title if headline_page else f"{operation.title} · {workload_label(workload)}"
    measured_gpus = {c.gpu.datasheet for c in cohorts if c.rows}
    first, listed = _workload_window(kernel.workloads, workload.name, whole=headline_page)
    charts = [scaling_chart(board.scaling(c), factory.implementation_titles, c.label) for c in _charted(board, cohorts, selected)]
    return KernelPage(
        **factory.page_fields("kernel", title, html),
        operation=operation,
        eligible_runs=board.eligible_count(kernel.name),
        last_observed=kernel.last_observed,
        headline_workload=kernel.headline_workload,
        workload=factory.workload(workload.name),
        workloads=listed,
        workload_count=len(kernel.workloads),
        workloads_first=first,
        headline=_headline(factory, selected),
        records_by_gpu=_records_by_gpu(factory, cohorts),
        cohorts=[factory.cohort_summary(c, selected=c is selected) for c in cohorts],
        not_measured_on=[label for name, label in board.priority_gpus.items() if name not in measured_gpus],
        comparison=factory.comparison(selected, limit=KERNEL_PAGE_ROWS) if selected else None,
        selected_group=urls.group_id(selected.key) if selected else None,
        scaling=charts[0] if charts and board.scaling(selected) is not None else None,
        more_scaling=charts[1:] if charts and board.scaling(selected) is not None else charts,
        implementations=_implementation_rows(factory, kernel, selected),
        sources_observed=kernel.source_observed,
        groups=groups,
    )


def _workload_window(workloads: list[WorkloadLink], selected: str, whole: bool) -> tuple[int, list[WorkloadLink]]:
    """(where the listed workloads start, the list): every workload on the kernel's own page, and
    on each workload's page the WORKLOAD_WINDOW around it. Each page listing all of its kernel's
    workloads would make a kernel's pages grow with the square of its workloads."""
    if whole or len(workloads) <= WORKLOAD_WINDOW:
        return 0, workloads
    at = next(number for number, link in enumerate(workloads) if link.name == selected)
    first = max(0, min(at - WORKLOAD_WINDOW // 2, len(workloads) - WORKLOAD_WINDOW))
    return first, workloads[first:first + WORKLOAD_WINDOW]


def _spread(factory: ViewFactory, row: RankedRow) -> tuple[str | None, float | None, float | None, float | None]:
    """(why the row may not headline, or None; its p20, p80 and fastest repetition in ns)."""
    timing = factory.catalog.runs[row.run.name].spec.timing
    if timing is None or row.run.value_ns is None:
        return None, None, None, None
    spread = timing.latencyNs
    return unsteady(row.value, spread.p20, spread.p80, spread.minimum), spread.p20, spread.p80, spread.minimum


def _charted(board, cohorts: list[Cohort], selected: Cohort | None) -> list[Cohort]:
    """The groups whose scaling lines the page draws: the selected group's (drawn beside its ranking),
    then the first group of each other GPU that has one, in page order. Each chart is of one group,
    so it shows the GPU, pass and protocol its title names, never a neighbour's numbers under
    another group's ranking."""
    charted: list[Cohort] = []
    seen_gpus: set[str] = set()
    for cohort in ([selected] if selected else []) + [c for c in cohorts if c is not selected]:
        if cohort.gpu.label in seen_gpus and cohort is not selected:
            continue
        if board.scaling(cohort) is not None:
            charted.append(cohort)
            seen_gpus.add(cohort.gpu.label)
    return charted


def _headline(factory: ViewFactory, cohort: Cohort | None) -> HeadlineView | None:
    if cohort is None or not cohort.rows:
        return None
    slot = headline(cohort.rows, lambda row: factory.board.usability(row.run),
                    steady=lambda row: _spread(factory, row)[0] is None)
    passed_over = []
    for row in slot.passed_over:
        why, p20, p80, minimum = _spread(factory, row)
        passed_over.append(PassedOver(row=factory.row(row.run), why=why, p20=p20, p80=p80, minimum=minimum))
    return HeadlineView(
        heading=slot.heading, usable_today=slot.usable_today, row=factory.row(slot.leader.run),
        vs_baseline=slot.vs_baseline, best_usable=factory.row(slot.best_usable.run) if slot.best_usable else None,
        by_language=[LanguageBestView(language=best.language, row=factory.row(best.row.run), vs_first=best.vs_first)
                     for best in fastest_by_language(cohort.rows)],
        passed_over=passed_over,
    )


def steady_leader(factory: ViewFactory, rows: list[RankedRow]) -> RankedRow:
    """The fastest row whose spread does not say noisy or host-bound, else the leader (``headline``)."""
    return next((row for row in rows if _spread(factory, row)[0] is None), rows[0])


def _records_by_gpu(factory: ViewFactory, cohorts: list[Cohort]) -> list[GpuRecord]:
    """Each GPU's record on this workload: the leader of its first latency group in page order (the
    largest), skipping rows whose spread says noisy or host-bound, as the headline does."""
    found: dict[str, GpuRecord] = {}
    for cohort in cohorts:
        if cohort.gpu.label in found or not cohort.is_latency or not cohort.rows:
            continue
        row = steady_leader(factory, cohort.rows)
        found[cohort.gpu.label] = GpuRecord(gpu=cohort.gpu.label, cohort=factory.cohort_link(cohort), row=factory.row(row.run))
    return sorted(found.values(), key=lambda record: (record.row.value, record.gpu))


def _implementation_rows(factory: ViewFactory, kernel: _KernelFacts, cohort: Cohort | None) -> list[ImplementationRow]:
    """Every implementation of the kernel; its best row is taken in the selected group only, so the
    multiples compare like with like (the public site mixed GPUs and workloads here)."""
    best = {}
    for row in cohort.rows if cohort else ():
        best.setdefault(row.run.implementation, row)
    rows = [ImplementationRow(implementation=factory.implementation(name),
                              evidence=kernel.evidence_by_implementation.get(name, "reported"),
                              runs=kernel.runs_by_implementation.get(name, 0),
                              best=factory.row(best[name].run) if name in best else None,
                              best_anywhere=factory.row(kernel.best_anywhere[name]) if name in kernel.best_anywhere else None,
                              best_anywhere_where=_where(factory, kernel.best_anywhere.get(name)))
            for name in kernel.implementations]
    rows.sort(key=lambda r: (r.best is None, r.best.value if r.best else 0,
                             r.best_anywhere is None, r.best_anywhere.value if r.best_anywhere else 0,
                             r.implementation.title, r.implementation.name))
    return rows


def _where(factory: ViewFactory, run: RunFacts | None) -> str | None:
    """"NVIDIA B200 · suite of 16 cases · mean latency": the GPU and workload of a best run."""
    if run is None:
        return None
    return f"{factory.board.gpus[run.environment].label} · {factory.workload_link(run.workload).title}"
