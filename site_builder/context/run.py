"""Run pages (seed 001) and the comparison-group pages with their record history."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import urls
from ..charts import history_chart
from ..derive.eligibility import BELOW_PHYSICAL_FLOOR
from ..derive.leaderboard import Cohort
from ..formatting import day, measure
from ..link import Entity
from ..page_views import (
    ArtifactView, AttestationView, Citation, CorrectnessView, GroupPage, Link, MeasurementView, RecordEventView,
    RunDetails, RunPage,
)
from .view_parts import ViewFactory, as_float, unchecked, unchecked_page
from .timeline_view import timeline_view

# Timing statistics in the order a reader scans them.
LATENCY_STATISTICS = ("median", "mean", "p20", "p80", "minimum", "maximum")


def run_pages(factory: ViewFactory, names: list[str], superseded_by: dict[str, str]) -> list[Callable[[], RunPage]]:
    """What builds the page of each run of ``names``; ``superseded_by``: run -> the run that supersedes it."""
    run_files = factory.catalog.runs
    return [partial(_run_page, factory, run_files[name], superseded_by.get(name)) for name in names]


def _run_page(factory: ViewFactory, entity: Entity, superseded_by: str | None) -> RunPage:
    board, catalog = factory.board, factory.catalog
    facts = board.runs[entity.name]
    spec = entity.spec
    cohort = board.cohorts[facts.cohort]
    implementation = factory.implementation(facts.implementation)
    standing = factory.standing(facts)
    workload = factory.workload_ref(facts.workload)
    operation = factory.operation_link(facts.operation)
    hex8 = entity.digest.removeprefix("sha256:")[:8]
    title = f"Run {hex8} · {implementation.title} · {operation.title}"
    native = spec.sourceNative
    revision = catalog.implementations[facts.implementation].spec.projectRevision
    html = urls.run(entity.name)
    # Unchecked, as the page itself: views and facts already checked, for every one of the runs.
    details = unchecked(
        RunDetails,
        name=entity.name, digest=entity.digest, title=entity.metadata.title or title, row=standing, operation=operation,
        workload=workload, implementation=factory.implementation_ref(facts.implementation),
        revision=revision.version or (revision.commit[:12] if revision.commit else None),
        cohort=factory.group_ref(cohort), leader=factory.leader_ref(cohort),
        source=factory.source_link(native.source) if native else None,
        benchmark=native.benchmark if native else None, external_id=native.externalId if native else None,
        source_metrics={name: as_float(value) for name, value in (native.metrics or {}).items()} if native else {},
        measurements=_measurements(entity),
        correctness=_correctness(entity, workload.correctness),
        protocol=factory.protocol_ref(facts.protocol),
        environment=factory.environment_ref(facts.environment),
        artifacts=[ArtifactView(kind=a.kind, url=a.url, path=a.path, digest=a.digest)
                   for a in (spec.evidence.artifacts if spec.evidence and spec.evidence.artifacts else [])],
        attestations=[AttestationView(kind=a.kind, author=a.author, date=a.date, note=a.note)
                      for a in entity.metadata.attestations],
        floor=factory.floor(cohort),
        no_floor=cohort.no_floor,
        implausible=BELOW_PHYSICAL_FLOOR in board.reasons.get(entity.name, ()),
        retraction=(f"{entity.metadata.retraction.date.isoformat()}: {entity.metadata.retraction.reason}"
                    if entity.metadata.retraction else None),
        superseded_by=Link(title=superseded_by, url=urls.run(superseded_by)) if superseded_by else None,
        supersedes=Link(title=facts.supersedes, url=urls.run(facts.supersedes)) if facts.supersedes else None,
        cite=unchecked(
            Citation,
            accessed=board.as_of,
            text=(f"KernelIndex, {implementation.title} · {operation.title} · {workload.label}: "
                  f"{measure(facts.value, facts.unit)} {facts.statistic or ''} on {cohort.gpu.label}, observed "
                  f"{day(facts.observed_at)}. Run {entity.digest}. Accessed {board.as_of.isoformat()}."),
        ),
    )
    return unchecked_page(
        RunPage,
        **factory.page_fields("run", title, html),
        run=entity.manifest(),
        details=details,
    )


def _measurements(entity: Entity) -> list[MeasurementView]:
    spec = entity.spec
    found = []
    if spec.timing:
        for statistic in LATENCY_STATISTICS:
            value = getattr(spec.timing.latencyNs, statistic)
            if value is not None:
                found.append(unchecked(MeasurementView, metric="latency", statistic=statistic, unit="ns",
                                       value=as_float(value)))
    seen = {(m.metric, m.statistic, m.unit) for m in found}
    for m in spec.measurements or ():
        if (m.metric, m.statistic, m.unit) not in seen:
            found.append(unchecked(MeasurementView, metric=m.metric, statistic=m.statistic, unit=m.unit,
                                   value=as_float(m.value)))
    return found


def _correctness(entity: Entity, policy: dict) -> CorrectnessView:
    spec = entity.spec
    checked = spec.correctness
    if checked is not None:
        summary = f"Checked against the reference ({checked.comparator})."
    elif spec.status != "passed":
        summary = f"Status {spec.status.replace('_', ' ')}."
    elif policy.get("comparator") == "not_asserted":
        summary = "Marked passed by the source; the correctness policy was not published."
    else:
        summary = f"Marked passed by the source under the workload's policy ({policy.get('comparator')})."
    return unchecked(
        CorrectnessView,
        summary=summary, comparator=checked.comparator if checked else policy.get("comparator"),
        maximum_absolute_error=as_float(checked.maximumAbsoluteError) if checked else None,
        maximum_relative_error=as_float(checked.maximumRelativeError) if checked else None,
        matched_ratio=as_float(checked.matchedRatio) if checked else None,
        inputs_unmodified=checked.inputsUnmodified if checked else None,
        notes=checked.notes if checked else None,
    )


def group_pages(factory: ViewFactory, workloads: list[str]) -> list[Callable[[], GroupPage]]:
    """What builds the page of each comparison group of ``workloads``, in order, each workload's
    default (largest) group first."""
    workload_cohorts = factory.board.workload_cohorts
    return [partial(_group_page, factory, cohort, cohorts)
            for cohorts in map(workload_cohorts.get, workloads) if cohorts for cohort in cohorts]


def _group_page(factory: ViewFactory, cohort: Cohort, siblings: list[Cohort]) -> GroupPage:
    workload = factory.workload_ref(cohort.workload)
    operation = factory.operation_link(cohort.operation)
    # Unchecked: views and facts already checked, for every one of the groups.
    return unchecked_page(
        GroupPage,
        **factory.page_fields("group", f"{operation.title} · {workload.label} · {cohort.label}", urls.group(cohort.key)),
        operation=operation,
        workload=workload,
        comparison=factory.comparison(cohort),
        history=[_record_event(factory, event) for event in cohort.history],
        history_chart=history_chart(cohort.history, factory.implementation_titles),
        other_groups=len(siblings) - 1,
        timeline=timeline_view(factory, cohort),
    )


def _record_event(factory: ViewFactory, event) -> RecordEventView:
    run = event.run
    return unchecked(
        RecordEventView, run=run.name, url=urls.run(run.name), implementation=factory.implementation_ref(run.implementation),
        value=as_float(run.value), unit=run.unit, observed_at=run.observed_at,
        previous=factory.run_ref(event.previous) if event.previous else None, improvement=as_float(event.improvement))
