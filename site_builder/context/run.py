"""Run pages (seed 001) and the comparison-group pages with their record history."""

from __future__ import annotations

from typing import TypeVar

from .. import urls
from ..charts import history_chart
from ..derive.eligibility import BELOW_PHYSICAL_FLOOR
from ..derive.leaderboard import Cohort
from ..formatting import day, measure
from ..link import Entity
from ..page_views import (
    ArtifactView, AttestationView, Citation, CorrectnessView, EarlierRun, GroupPage, GroupRun, GroupRunOwn, MeasurementView,
    RecordEventView, RunDetails, RunOwn, RunPage, RunRepeated, RunShared, View,
)
from .view_parts import ViewFactory, as_float, unchecked, unchecked_page
from .timeline_view import timeline_view

V = TypeVar("V", bound=View)

# Timing statistics in the order a reader scans them.
LATENCY_STATISTICS = ("median", "mean", "p20", "p80", "minimum", "maximum")


def _run_shared(factory: ViewFactory, cohort: Cohort) -> RunShared:
    """What every run page of ``cohort`` shows of it (its group's document says each once)."""
    sources = sorted({spec.sourceNative.source for spec in (factory.catalog.runs[run.name].spec for run in cohort.runs)
                      if spec.sourceNative})
    return unchecked(
        RunShared,
        operation=factory.operation_link(cohort.operation), workload=factory.workload_ref(cohort.workload),
        cohort=factory.group_ref(cohort), leader=factory.leader_ref(cohort),
        protocol=factory.protocol_ref(cohort.protocol), environment=factory.environment_ref(cohort.environment),
        floor=factory.floor(cohort), no_floor=cohort.no_floor,
        sources={name: factory.source_link(name) for name in sources},
    )


def _run_own(factory: ViewFactory, entity: Entity, superseded_by: str | None, shared: RunShared) -> RunOwn:
    board, catalog = factory.board, factory.catalog
    facts = board.runs[entity.name]
    spec = entity.spec
    revision = catalog.implementations[facts.implementation].spec.projectRevision
    return unchecked(
        RunOwn,
        title=entity.metadata.title or _run_title(entity, factory.implementation(facts.implementation), shared),
        revision=revision.version or (revision.commit[:12] if revision.commit else None),
        source=spec.sourceNative.source if spec.sourceNative else None,
        correctness=_correctness(entity, shared.workload.correctness),
        artifacts=[ArtifactView(kind=a.kind, url=a.url, path=a.path, digest=a.digest)
                   for a in (spec.evidence.artifacts if spec.evidence and spec.evidence.artifacts else [])],
        attestations=[AttestationView(kind=a.kind, author=a.author, date=a.date, note=a.note)
                      for a in entity.metadata.attestations],
        implausible=BELOW_PHYSICAL_FLOOR in board.reasons.get(entity.name, ()),
        retraction=(f"{entity.metadata.retraction.date.isoformat()}: {entity.metadata.retraction.reason}"
                    if entity.metadata.retraction else None),
        superseded_by=superseded_by, supersedes=facts.supersedes,
    )


def _run_repeated(factory: ViewFactory, entity: Entity, shared: RunShared) -> RunRepeated:
    board = factory.board
    facts = board.runs[entity.name]
    implementation = factory.implementation(facts.implementation)
    return unchecked(
        RunRepeated,
        name=entity.name, digest=entity.digest, row=factory.standing(facts),
        implementation=factory.implementation_ref(facts.implementation), measurements=_measurements(entity),
        cite=unchecked(
            Citation,
            accessed=board.as_of,
            text=(f"KernelIndex, {implementation.title} · {shared.operation.title} · {shared.workload.label}: "
                  f"{measure(facts.value, facts.unit)} {facts.statistic or ''} on {shared.cohort.gpu}, observed "
                  f"{day(facts.observed_at)}. Run {entity.digest}. Accessed {board.as_of.isoformat()}."),
        ),
    )


def _run_title(entity: Entity, implementation, shared: RunShared) -> str:
    return f"Run {entity.digest.removeprefix('sha256:')[:8]} · {implementation.title} · {shared.operation.title}"


def _run_page(factory: ViewFactory, entity: Entity, own: RunOwn, repeated: RunRepeated, shared: RunShared,
              mirror: str) -> RunPage:
    implementation = factory.implementation(factory.board.runs[entity.name].implementation)
    details = _joined(RunDetails, shared, own, repeated)
    fields = factory.page_fields("run", _run_title(entity, implementation, shared), urls.run(entity.name))
    fields["mirror"] = mirror  # its part of its group's JSON (``urls.run_mirror``)
    return unchecked_page(RunPage, **fields, run=entity.manifest(), details=details)


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


def groups_and_runs(factory: ViewFactory, workload: str, superseded_by: dict[str, str], workload_mirror: str
                    ) -> list[tuple[GroupPage, list[RunPage]]]:
    """Each comparison group of ``workload`` (its default, largest group first) with its runs'
    pages (by name); their JSON is part of the workload's mirror (``workload_mirror``) or, for a
    workload of many runs, each group's a file of its own (``urls.group_mirror``), so a rebuild
    renders them again exactly when that changed. ``superseded_by``: run -> the run that supersedes it."""
    board = factory.board
    cohorts = board.workload_cohorts.get(workload) or []
    count = board.workload_run_count(workload)
    return [_group_and_runs(factory, cohort, cohorts, superseded_by, urls.group_mirror(workload_mirror, cohort.key, count))
            for cohort in cohorts]


def _group_and_runs(factory: ViewFactory, cohort: Cohort, siblings: list[Cohort], superseded_by: dict[str, str],
                    mirror: str) -> tuple[GroupPage, list[RunPage]]:
    run_files = factory.catalog.runs
    shared = _run_shared(factory, cohort)
    entities = [run_files[name] for name in sorted(run.name for run in cohort.runs)]
    own = [_run_own(factory, entity, superseded_by.get(entity.name), shared) for entity in entities]
    repeated = [_run_repeated(factory, entity, shared) for entity in entities]
    checks = {details.correctness for details in own}
    correctness = next(iter(checks)) if len(checks) == 1 else None  # said once, by the group
    runs = {entity.name: unchecked(GroupRun, run=None if details.superseded_by else entity.manifest(),
                                   status=entity.spec.status, details=_group_run_own(details, correctness))
            for entity, details in zip(entities, own)}
    earlier = sorted((_joined(EarlierRun, details, also) for details, also in zip(own, repeated) if details.superseded_by),
                     key=lambda run: (run.row.observed_at, run.name), reverse=True)
    group = _group_page(factory, cohort, siblings, shared, runs, earlier, mirror, correctness)
    return group, [_run_page(factory, entity, details, also, shared, urls.run_mirror(mirror, entity.name))
                   for entity, details, also in zip(entities, own, repeated)]


def _joined(cls: type[V], *parts: View) -> V:
    """A view made of the fields of others (a run page's details: its group's, its own and its
    row's; an earlier run's: its own and its row's), in the model's order, as checking them would
    make it (``tests/site/test_unchecked_views.py``)."""
    fields: dict = {}
    for part in parts:
        fields.update(part.__dict__)
    return unchecked(cls, **{name: fields[name] for name in cls.model_fields})


def _group_run_own(own: RunOwn, group_says: CorrectnessView | None) -> GroupRunOwn:
    """The run's own facts as its group's document holds them: without the correctness check the group says."""
    fields = own.__dict__
    return unchecked(GroupRunOwn, **{**fields, "correctness": None if group_says is not None else fields["correctness"]})


def _group_page(factory: ViewFactory, cohort: Cohort, siblings: list[Cohort], shared: RunShared,
                runs: dict[str, GroupRun], earlier: list[EarlierRun], mirror: str,
                correctness: CorrectnessView | None) -> GroupPage:
    workload = factory.workload_ref(cohort.workload)
    operation = factory.operation_link(cohort.operation)
    fields = factory.page_fields("group", f"{operation.title} · {workload.label} · {cohort.label}", urls.group(cohort.key))
    fields["mirror"] = mirror  # its part of the workload's mirror, or its own file (``urls.group_mirror``)
    # Unchecked: views and facts already checked, for every one of the groups.
    return unchecked_page(
        GroupPage,
        **fields,
        operation=operation,
        workload=workload,
        comparison=factory.comparison(cohort),
        history=[_record_event(factory, event) for event in cohort.history],
        history_chart=history_chart(cohort.history, factory.implementation_titles),
        other_groups=len(siblings) - 1,
        timeline=timeline_view(factory, cohort),
        protocol=shared.protocol,
        environment=shared.environment,
        sources=shared.sources,
        correctness=correctness,
        runs=runs,
        earlier=earlier,
    )


def _record_event(factory: ViewFactory, event) -> RecordEventView:
    run = event.run
    return unchecked(
        RecordEventView, run=run.name, implementation=factory.implementation_ref(run.implementation),
        value=as_float(run.value), unit=run.unit, observed_at=run.observed_at,
        previous=factory.run_ref(event.previous) if event.previous else None, improvement=as_float(event.improvement))
