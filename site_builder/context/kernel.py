"""Kernel pages: one page per workload of every operation (the headline workload is the kernel's URL)."""

from __future__ import annotations

from collections.abc import Iterator

from ..charts import scaling_chart
from ..derive.headline import fastest_by_language, headline
from ..derive.leaderboard import Cohort
from ..derive.model import evidence_strength
from ..link import Entity
from ..views import (
    HeadlineView, ImplementationRow, KernelPage, LanguageBestView, WorkloadLink,
)
from .common import SUITE, ViewFactory, workload_label


def workloads_of(factory: ViewFactory) -> dict[str, list[Entity]]:
    """Workloads by operation: single cases ordered by their axes, then suites."""
    by_operation: dict[str, list[Entity]] = {name: [] for name in factory.catalog.operations}
    for workload in factory.catalog.workloads.values():
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


def kernel_pages(factory: ViewFactory) -> Iterator[KernelPage]:
    board = factory.board
    implementations_by_operation: dict[str, list[str]] = {}
    for name, implementation in sorted(factory.catalog.implementations.items()):
        implementations_by_operation.setdefault(implementation.refs["operation"].name, []).append(name)
    for operation_name, workloads in workloads_of(factory).items():
        runs = board.operation_runs.get(operation_name, [])
        eligible_by_workload: dict[str, int] = {}
        for run in runs:
            if run.name not in board.reasons:
                eligible_by_workload[run.workload] = eligible_by_workload.get(run.workload, 0) + 1
        headline_workload = factory.headline_workload(operation_name)
        for workload in workloads:
            links = [WorkloadLink(
                name=w.name, label=workload_label(w), url=factory.workload_url(w.name),
                axes=dict(w.spec.axes) if w.kind != SUITE else {}, dtype=w.spec.dtype.value if w.spec.dtype else None,
                cases=len(w.spec.cases) if w.kind == SUITE else None, eligible_runs=eligible_by_workload.get(w.name, 0),
                selected=w.name == workload.name) for w in workloads]
            yield _kernel_page(factory, operation_name, workload, headline_workload, links,
                               implementations_by_operation.get(operation_name, []))


def _kernel_page(factory: ViewFactory, operation_name: str, workload: Entity, headline_workload: str | None,
                 links: list[WorkloadLink], implementation_names: list[str]) -> KernelPage:
    board = factory.board
    operation = factory.operation(operation_name)
    cohorts = board.workload_cohorts.get(workload.name, [])
    selected = cohorts[0] if cohorts else None
    runs = board.operation_runs.get(operation_name, [])
    html = factory.workload_url(workload.name)
    title = operation.title if workload.name == headline_workload else f"{operation.title} · {workload_label(workload)}"
    measured_gpus = {c.gpu.datasheet for c in cohorts if c.rows}
    # The selected group's scaling line, else the first group (in page order) that has one: a new
    # GPU measured on few shapes should not hide the sweep another GPU has.
    charted = next((c for c in cohorts if board.scaling(c) is not None), None)
    return KernelPage(
        **factory.page_fields("kernel", title, html),
        operation=operation,
        eligible_runs=board.eligible_count(operation_name),
        last_observed=max((run.observed_at for run in runs), default=None),
        headline_workload=headline_workload,
        workload=factory.workload(workload.name),
        workloads=links,
        headline=_headline(factory, selected),
        cohorts=[factory.cohort_summary(c, selected=c is selected) for c in cohorts],
        not_measured_on=[label for name, label in board.priority_gpus.items() if name not in measured_gpus],
        comparison=factory.comparison(selected) if selected else None,
        scaling=scaling_chart(board.scaling(charted), factory.implementation_titles, charted.label) if charted else None,
        implementations=_implementation_rows(factory, implementation_names, runs, selected),
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


def _implementation_rows(factory: ViewFactory, names: list[str], runs, cohort: Cohort | None) -> list[ImplementationRow]:
    """Every implementation of the kernel; its best row is taken in the selected group only, so the
    multiples compare like with like (the public site mixed GPUs and workloads here)."""
    counts: dict[str, int] = {}
    evidence: dict[str, str] = {}
    for run in runs:
        counts[run.implementation] = counts.get(run.implementation, 0) + 1
        if run.name not in factory.board.reasons and evidence_strength(run.evidence) > evidence_strength(evidence.get(run.implementation, "reported")):
            evidence[run.implementation] = run.evidence
    best = {}
    for row in cohort.rows if cohort else ():
        best.setdefault(row.run.implementation, row)
    rows = [ImplementationRow(implementation=factory.implementation(name), evidence=evidence.get(name, "reported"),
                              runs=counts.get(name, 0), best=factory.row(best[name].run) if name in best else None)
            for name in names]
    rows.sort(key=lambda r: (r.best is None, r.best.value if r.best else 0, r.implementation.title, r.implementation.name))
    return rows

