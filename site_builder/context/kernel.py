"""Kernel pages: one page per workload of every operation (the headline workload is the kernel's URL)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from datetime import datetime

from .. import urls
from ..charts import scaling_chart
from ..derive.headline import fastest_by_language, headline
from ..derive.leaderboard import Cohort
from ..derive.model import evidence_strength
from ..link import Entity
from ..views import (
    HeadlineView, ImplementationRow, KernelPage, LanguageBestView, WorkloadLink,
)
from .common import KERNEL_PAGE_ROWS, SUITE, ViewFactory, workload_label


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


def kernel_pages(factory: ViewFactory, operation: str, workloads: list[Entity],
                 implementations: list[str]) -> list[Callable[[], KernelPage]]:
    """What builds each page of the kernel ``operation``: one per workload (``workloads_of``'s order);
    ``implementations``: the kernel's, by name."""
    # Gathered when the kernel's first page is built (in a render worker), not while the pages
    # are planned: a pass over all the kernel's runs.
    shared = cache(partial(_kernel_facts, factory, operation, workloads, implementations))
    # A declared kernel no source has measured yet still has its page (what it computes), so that
    # the index, search and sources never link to nothing.
    return [partial(_kernel_page_with, factory, shared, workload) for workload in workloads or [None]]


def _kernel_page_with(factory: ViewFactory, kernel: Callable[[], _KernelFacts], workload: Entity | None) -> KernelPage:
    return _kernel_page(factory, kernel(), workload)


def _kernel_facts(factory: ViewFactory, operation: str, workloads: list[Entity], implementations: list[str]) -> _KernelFacts:
    board = factory.board
    runs = board.operation_runs.get(operation, [])
    eligible_by_workload: dict[str, int] = {}
    counts: dict[str, int] = {}
    evidence: dict[str, str] = {}
    for run in runs:
        counts[run.implementation] = counts.get(run.implementation, 0) + 1
        if run.name in board.reasons:
            continue
        eligible_by_workload[run.workload] = eligible_by_workload.get(run.workload, 0) + 1
        if evidence_strength(run.evidence) > evidence_strength(evidence.get(run.implementation, "reported")):
            evidence[run.implementation] = run.evidence
    links = [WorkloadLink(
        name=w.name, label=workload_label(w), url=factory.workload_url(w.name),
        axes=dict(w.spec.axes) if w.kind != SUITE else {}, dtype=w.spec.dtype.value if w.spec.dtype else None,
        cases=len(w.spec.cases) if w.kind == SUITE else None, eligible_runs=eligible_by_workload.get(w.name, 0))
        for w in workloads]
    return _KernelFacts(operation, factory.headline_workload(operation), links, implementations, counts, evidence,
                        max((run.observed_at for run in runs), default=None))


def _kernel_page(factory: ViewFactory, kernel: _KernelFacts, workload: Entity | None) -> KernelPage:
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
    # The selected group's scaling line, else the first group (in page order) that has one: a new
    # GPU measured on few shapes should not hide the sweep another GPU has.
    charted = next((c for c in cohorts if board.scaling(c) is not None), None)
    return KernelPage(
        **factory.page_fields("kernel", title, html),
        operation=operation,
        eligible_runs=board.eligible_count(kernel.name),
        last_observed=kernel.last_observed,
        headline_workload=kernel.headline_workload,
        workload=factory.workload(workload.name),
        workloads=kernel.workloads,
        headline=_headline(factory, selected),
        cohorts=[factory.cohort_summary(c, selected=c is selected) for c in cohorts],
        not_measured_on=[label for name, label in board.priority_gpus.items() if name not in measured_gpus],
        comparison=factory.comparison(selected, limit=KERNEL_PAGE_ROWS) if selected else None,
        scaling=scaling_chart(board.scaling(charted), factory.implementation_titles, charted.label) if charted else None,
        implementations=_implementation_rows(factory, kernel, selected),
    )


def _headline(factory: ViewFactory, cohort: Cohort | None) -> HeadlineView | None:
    if cohort is None or not cohort.rows:
        return None
    slot = headline(cohort.rows, lambda row: factory.board.usability(row.run))
    return HeadlineView(
        heading=slot.heading, usable_today=slot.usable_today, row=factory.row(slot.leader.run),
        vs_baseline=slot.vs_baseline, best_usable=factory.row(slot.best_usable.run) if slot.best_usable else None,
        by_language=[LanguageBestView(language=best.language, row=factory.row(best.row.run), vs_first=best.vs_first)
                     for best in fastest_by_language(cohort.rows)],
    )


def _implementation_rows(factory: ViewFactory, kernel: _KernelFacts, cohort: Cohort | None) -> list[ImplementationRow]:
    """Every implementation of the kernel; its best row is taken in the selected group only, so the
    multiples compare like with like (the public site mixed GPUs and workloads here)."""
    best = {}
    for row in cohort.rows if cohort else ():
        best.setdefault(row.run.implementation, row)
    rows = [ImplementationRow(implementation=factory.implementation(name),
                              evidence=kernel.evidence_by_implementation.get(name, "reported"),
                              runs=kernel.runs_by_implementation.get(name, 0),
                              best=factory.row(best[name].run) if name in best else None)
            for name in kernel.implementations]
    rows.sort(key=lambda r: (r.best is None, r.best.value if r.best else 0, r.implementation.title, r.implementation.name))
    return rows
