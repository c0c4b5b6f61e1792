"""Views shared by several pages (rows, groups, floors, workloads), each built once per build."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import cached_property, partial, wraps
from typing import Any, TypeVar

from schemas.shapes import tensor_bytes

from .. import urls
from ..derive.eligibility import BELOW_PHYSICAL_FLOOR, SUPERSEDED
from ..derive.floors import headroom_v1_inputs, times_above
from ..derive.leaderboard import Cohort, Leaderboard, is_declared
from ..derive.model import RunFacts
from ..library_speedups import unchecked, unchecked_page  # noqa: F401 - views made without checks, for context/
from ..link import Entity
from ..page_views import (
    ArgumentView, Availability, AxisView, CohortSummary, ComparisonView, EnvironmentRef, EnvironmentView, FloorView,
    GroupRef, HeadroomV1, ImplementationRef, ImplementationView, RunRef, Link, OperationView, Page, PageLink, ProtocolRef,
    ProtocolView, RowView, RunStanding, SourceLink, SuiteCaseView, TensorView, TruthfulFloor, WorkloadRef, WorkloadView,
)

SUITE = "WorkloadSuite"
# Lists that grow with the data (a GPU's records, an implementation's runs) show this many, newest
# first, and say how many there are: a page must stay readable, and small, at 100,000 runs.
LIST_LIMIT = 200
# A kernel page shows the top of its group's ranking; the group page has every row.
KERNEL_PAGE_ROWS = 25
T = TypeVar("T")


# Views kept per cache before it is emptied. Each render worker fills its own caches, and a site
# of 100,000 runs has that many rows and 60,000 groups: unbounded, the caches held hundreds of MB
# per worker (peak memory is a target). Pages that share views come close together in the
# page order, so a cache emptied now and then keeps nearly all its hits.
CACHE_LIMIT = 20_000


def on_index(operation: Entity) -> bool:
    """Whether the kernels index lists this kernel with its record: the index and its GPU choices
    (and a GPU page's link to them) share this rule. KernelBench's problems have an index of their
    own (by level and family), and an undeclared kernel holds no record yet."""
    return "kernelbench_level" not in operation.metadata.labels and is_declared(operation)


def kept(cache: dict, key: Any, make: Callable[[], T]) -> T:
    """``cache[key]``, made by ``make`` when missing; the cache is emptied once it holds ``CACHE_LIMIT``."""
    found = cache.get(key, _MISSING)
    if found is _MISSING:
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        found = cache[key] = make()
    return found


_MISSING = object()


def as_float(value: float | int | None) -> float | None:
    """What a ``float | None`` field makes of a number when it is checked: an int becomes a float
    (a run's latency is an int of nanoseconds; its row's value is a float)."""
    return value if value is None or type(value) is float else float(value)


def per_key(method: Callable[..., T]) -> Callable[..., T]:
    """Cache a one-argument method per instance (functools.cache would keep every build alive)."""
    slot = f"_cache_{method.__name__}"

    @wraps(method)
    def cached(self, key):
        cache = self.__dict__.setdefault(slot, {})
        found = cache.get(key, _MISSING)  # a hit (most calls) makes no closure
        return found if found is not _MISSING else kept(cache, key, lambda: method(self, key))

    return cached


# Pages either side of the current one that a pager links (besides the first and the last).
PAGER_REACH = 2


def pager(count: int, number: int, link: Callable[[int], PageLink]) -> list[PageLink]:
    """The pager of page ``number`` of ``count``: the first and last pages and those within
    ``PAGER_REACH`` of this one, in order. A pager that links every page makes a list of N pages
    hold N² links: the ledger's and challenge lists' pagers were most of their pages."""
    near = range(max(1, number - PAGER_REACH), min(count, number + PAGER_REACH) + 1)
    return [link(n) for n in sorted({1, count, *near})]


# What builds pages when called: one page, or a few small ones.
PageTask = Callable[[], Iterable[Page]]


def one_page(build: Callable[[], Page]) -> Callable[[], tuple[Page]]:
    """A task of one page: what ``build`` makes, as the one page of a task."""
    return partial(_build_one, build)


def _build_one(build: Callable[[], Page]) -> tuple[Page]:
    return (build(),)


def workload_label(workload: Entity) -> str:
    """"seq = 2048 · hidden = 8192 · bf16", or "suite of 16 cases · mean latency"."""
    spec = workload.spec
    if workload.kind == SUITE:
        count = len(spec.cases)
        return f"suite of {count} case{'s' if count != 1 else ''} · {spec.aggregation.statistic} {spec.aggregation.metric}"
    order = list(workload.refs["operation"].spec.axes)
    parts = [f"{name} = {spec.axes[name]}" for name in sorted(spec.axes, key=order.index)]
    if spec.dtype is not None:
        parts.append(spec.dtype.value)
    return " · ".join(parts)


class ViewFactory:
    """Builds (and caches) the views every page reuses, from the derived leaderboard."""

    def __init__(self, board: Leaderboard):
        self.board = board
        self.catalog = board.catalog
        # Catalog.workloads merges cases and suites on every call: take the merged dict once.
        self.workloads = board.catalog.workloads

    # -- pages ---------------------------------------------------------------------------------
    def page_fields(self, kind: str, title: str, html: str) -> dict:
        return {"kind": kind, "title": title, "html": html, "mirror": urls.mirror(html),
                "schema_url": urls.schema(kind), "as_of": self.board.as_of}

    # -- links ---------------------------------------------------------------------------------
    def headline_workload(self, operation: str) -> str | None:
        return self._headlines.get(operation)

    @cached_property
    def _headlines(self) -> dict[str, str | None]:
        return {name: self.board.headline_workload(op) for name, op in self.catalog.operations.items()}

    def workload_url(self, workload: str) -> str:
        operation = self.workloads[workload].refs["operation"].name
        return urls.workload(operation, workload, self.headline_workload(operation))

    @per_key
    def operation_link(self, name: str) -> Link:
        operation = self.catalog.operations[name]
        return Link(title=operation.metadata.title or name, url=urls.kernel(name))

    @per_key
    def workload_link(self, name: str) -> Link:
        return Link(title=workload_label(self.workloads[name]), url=self.workload_url(name))

    @per_key
    def hardware_link(self, name: str | None) -> Link | None:
        if name is None:
            return None
        hardware = self.catalog.hardware[name]
        return Link(title=hardware.metadata.title or hardware.spec.product, url=urls.hardware(name))

    @per_key
    def environment_link(self, name: str) -> Link:
        environment = self.catalog.environments[name]
        return Link(title=environment.metadata.title or name, url=urls.environment(name))

    @per_key
    def protocol_link(self, name: str) -> Link:
        protocol = self.catalog.protocols[name]
        return Link(title=protocol.metadata.title or protocol.spec.harness.name, url=urls.protocol(name))

    @per_key
    def source_link(self, name: str) -> SourceLink:
        source = self.catalog.sources[name]
        return SourceLink(name=name, title=source.metadata.title or source.spec.title, url=urls.source(name),
                          external_url=source.spec.url, license=source.spec.license, retrieved=source.spec.retrieved,
                          attribution=source.spec.attribution)

    def cohort_link(self, cohort: Cohort) -> Link:
        # One per group: an implementation page links a group from each of its runs there, and
        # the ledger from each of its rows (unchecked: two texts, made for most groups twice).
        return kept(self.__dict__.setdefault("_cache_cohort_link", {}), cohort.key,
                    lambda: unchecked(Link, title=cohort.label, url=urls.group(cohort.key)))

    # -- implementations and rows ----------------------------------------------------------------
    @per_key
    def implementation(self, name: str) -> ImplementationView:
        entity = self.catalog.implementations[name]
        facts = self.board.implementations[name]
        project = entity.refs["project"]
        title = _plain_title(entity)
        if (entity.refs["operation"].name, title) in self._shared_titles:
            title = f"{title} ({name})"  # eight submissions all called "Geometric" must still be told apart
        return ImplementationView(
            name=name, title=title,
            project=project.metadata.title or project.spec.name, language=facts.language, baseline=facts.baseline,
            source_url=facts.source_url, license=facts.license, license_text=facts.license_text,
        )

    @cached_property
    def _shared_titles(self) -> set[tuple[str, str]]:
        """(kernel, title) pairs that more than one implementation of that kernel goes by."""
        counts = Counter((entity.refs["operation"].name, _plain_title(entity))
                         for entity in self.catalog.implementations.values())
        return {pair for pair, count in counts.items() if count > 1}

    @cached_property
    def implementation_titles(self) -> dict[str, str]:
        return {name: self.implementation(name).title for name in self.catalog.implementations}

    def availability(self, run: RunFacts) -> Availability:
        # One view per distinct verdict: the runs of an implementation (thousands) mostly share one.
        found = self.board.usability(run)
        return kept(self.__dict__.setdefault("_cache_availability", {}), found, lambda: Availability(
            usable=found.usable, reasons=list(found.reasons), install=found.install, pinned=found.pinned))

    def row(self, run: RunFacts) -> RowView:
        # Kept by the run's name: hashing the RunFacts itself hashes every one of its fields.
        return kept(self.__dict__.setdefault("_cache_row", {}), run.name, lambda: self._row(run))

    def standing(self, run: RunFacts) -> RunStanding:
        """The run's row without what its own page or its implementation's page says elsewhere."""
        row = self.row(run)
        return unchecked(RunStanding, **{name: getattr(row, name) for name in RunStanding.model_fields})

    def _row(self, run: RunFacts) -> RowView:
        ranked = self.board.row_of.get(run.name)
        native = self.catalog.runs[run.name].spec.sourceNative
        # Unchecked: facts already checked, numbers made floats as checking would; a row is made
        # for every run, and again on the pages of its group and kernel, and the lists that show it.
        return unchecked(
            RowView,
            run=run.name, digest=run.digest,
            rank=ranked.rank if ranked else None, value=as_float(run.value), unit=run.unit,
            statistic=run.statistic, vs_leader=as_float(ranked.vs_leader) if ranked else None,
            vs_baseline=as_float(ranked.vs_baseline) if ranked else None,
            sol_score=as_float((native.metrics or {}).get("sol_score")) if native else None,
            evidence=run.evidence, observed_at=run.observed_at, stale=self.board.is_stale(run),
            implementation=self.implementation(run.implementation), availability=self.availability(run),
            reasons=list(self.board.reasons.get(run.name, ())),
            precision=list(run.precision) if run.precision is not None else None, lane=run.lane,
        )

    # -- groups ------------------------------------------------------------------------------------
    def cohort_summary(self, cohort: Cohort, selected: bool = False) -> CohortSummary:
        # Built once per group and flag: every run page of a group shows it (and its mirror's
        # JSON is then written once, render.mirror_json).
        return kept(self.__dict__.setdefault("_cache_cohort_summary", {}), (cohort.key, selected),
                    lambda: self._cohort_summary(cohort, selected))

    def _cohort_summary(self, cohort: Cohort, selected: bool) -> CohortSummary:
        return unchecked(  # facts already checked, made for every group (and again per page kind)
            CohortSummary,
            key=cohort.key, label=cohort.label, url=urls.group(cohort.key), gpu=cohort.gpu.label,
            hardware=self.hardware_link(cohort.gpu.datasheet), environment=self.environment_link(cohort.environment),
            protocol=self.protocol_link(cohort.protocol), metric=cohort.metric, ranked=len(cohort.rows),
            runs=len(cohort.runs), leader=self.leader_ref(cohort),
            last_observed=cohort.last_observed, selected=selected,
        )

    # -- what a run page refers to rather than copies (views.SharedDocument) ----------------------
    @per_key
    def protocol_ref(self, name: str) -> ProtocolRef:
        protocol = self.catalog.protocols[name]
        html = urls.protocol(name)
        return ProtocolRef(
            name=name, title=protocol.metadata.title or protocol.spec.harness.name, url=html, mirror=urls.mirror(html),
            digest=protocol.digest, harness=protocol.spec.harness.name,
            timed_pass=protocol.spec.measurement.timedPass or protocol.metadata.labels.get("pass"),
        )

    @per_key
    def environment_ref(self, name: str) -> EnvironmentRef:
        entity = self.catalog.environments[name]
        gpu = self.board.gpus[name]
        html = urls.environment(name)
        return EnvironmentRef(
            name=name, title=entity.metadata.title or name, url=html, mirror=urls.mirror(html), digest=entity.digest,
            gpu=gpu.label, hardware=self.hardware_link(gpu.datasheet), architecture=entity.spec.hardware.architecture,
        )

    @per_key
    def workload_ref(self, name: str) -> WorkloadRef:
        entity = self.workloads[name]
        html = self.workload_url(name)
        return WorkloadRef(
            name=name, title=entity.metadata.title or name, url=html, mirror=urls.mirror(html), digest=entity.digest,
            label=workload_label(entity), correctness=entity.canonical_spec["correctness"],
        )

    @per_key
    def implementation_ref(self, name: str) -> ImplementationRef:
        view = self.implementation(name)
        return ImplementationRef(name=name, title=view.title, project=view.project, baseline=view.baseline)

    def group_ref(self, cohort: Cohort) -> GroupRef:
        return kept(self.__dict__.setdefault("_cache_group_ref", {}), cohort.key, lambda: unchecked(
            GroupRef, key=cohort.key, label=cohort.label, url=urls.group(cohort.key), gpu=cohort.gpu.label,
            metric=cohort.metric, ranked=len(cohort.rows), runs=len(cohort.runs)))

    def leader_ref(self, cohort: Cohort) -> RunRef | None:
        return self.run_ref(cohort.leader.run) if cohort.leader else None

    def run_ref(self, run: RunFacts) -> RunRef:
        """A run as another page names it: which run, its implementation and its value."""
        return kept(self.__dict__.setdefault("_cache_run_ref", {}), run.name, lambda: unchecked(
            RunRef, run=run.name, digest=run.digest,
            implementation=self.implementation_ref(run.implementation), value=as_float(run.value), unit=run.unit,
            observed_at=run.observed_at))

    @per_key
    def protocol(self, name: str) -> ProtocolView:
        protocol = self.catalog.protocols[name]
        spec, meta = protocol.spec, protocol.metadata
        return ProtocolView(
            name=name, title=meta.title or spec.harness.name, harness=spec.harness.name,
            harness_version=spec.harness.version, harness_repository=spec.harness.repository,
            timer=spec.measurement.timer, statistic=spec.measurement.primaryStatistic,
            timed_pass=spec.measurement.timedPass or meta.labels.get("pass"),
            family=spec.comparability.family if spec.comparability else None,
            notes=spec.comparability.notes if spec.comparability else None,
        )

    def floor(self, cohort: Cohort) -> FloorView | None:
        """A group's floors, built once per group (every run page of the group shows them)."""
        return kept(self.__dict__.setdefault("_cache_floor", {}), cohort.key, lambda: self._floor(cohort))

    def _floor(self, cohort: Cohort) -> FloorView | None:
        floor = cohort.floor  # None for groups whose values are not times, and where none is derived
        if floor is None:
            return None
        record = cohort.leader.value_ns if cohort.leader else None
        workload = self.workloads[cohort.workload]
        operation = workload.refs["operation"]
        names = list(workload.inputs) or [argument.name for argument in operation.spec.inputs if argument.tensor]
        inputs = headroom_v1_inputs(names, operation.metadata.headroomV1Inputs)
        excluded = list(operation.metadata.floorExcludes or ())
        note = None
        if workload.kind == "WorkloadSuite":
            statistic = workload.spec.aggregation.statistic
            held_to = ("the sum of the cases' floors (bytes, FLOPs and times)" if statistic == "sum" else
                       "the smallest of the cases' floors: any average of the cases, whichever the source takes, "
                       "is at least that")
            note = (f"The workload is a suite of {len(workload.spec.cases)} cases whose latency is the {statistic} "
                    f"of theirs; it is held to {held_to}.")
        elif floor.flops is None and operation.metadata.flops:
            note = ("The timed pass is backward alone: the kernel's FLOP count is the forward's, and a backward "
                    "that hands back gradients the forward already computed (as Liger's fused losses do) is not "
                    "bound by it, so this group's floor is the memory floor only.")
        # Unchecked (derived facts, numbers made floats as checking would): a group's run pages
        # share its floors, but the group, its runs and its kernel page fall in different chunks.
        return unchecked(
            FloorView,
            hardware=self.hardware_link(floor.hardware),
            bandwidth_gbps=as_float(floor.bandwidth_gbps),
            headroom_v1=unchecked_page(
                HeadroomV1,
                ns=floor.headroom_v1_ns, bytes=floor.headroom_v1_bytes, inputs=inputs,
                times_above=as_float(times_above(record, floor.headroom_v1_unrounded_ns))
                if record and floor.headroom_v1_bytes else None),
            truthful=unchecked(
                TruthfulFloor,
                ns=as_float(floor.truthful_ns), bytes=floor.bytes, memory_ns=as_float(floor.memory_ns),
                arithmetic_ns=as_float(floor.arithmetic_ns), flops=floor.flops, flops_dtype=floor.flops_dtype,
                peak_tflops=as_float(floor.peak_tflops), bound=floor.bound,
                times_above=as_float(times_above(record, floor.truthful_ns)) if record and floor.truthful_ns > 0 else None),
            excluded=excluded,
            note=note,
        )

    def comparison(self, cohort: Cohort, selected: bool = True, limit: int | None = None) -> ComparisonView:
        return unchecked(  # views already checked, on every group and kernel page
            ComparisonView,
            summary=self.cohort_summary(cohort, selected),
            protocol=self.protocol(cohort.protocol),
            source_native=any(self.catalog.runs[run.name].spec.sourceNative is not None for run in cohort.runs),
            rows=[self.row(row.run) for row in cohort.rows[:limit]],
            unranked=[self.row(run) for run in sorted(cohort.unranked, key=self._unranked_order)[:limit]],
            superseded=sum(SUPERSEDED in self.board.reasons.get(run.name, ()) for run in cohort.unranked),
            floor=self.floor(cohort),
            no_floor=cohort.no_floor,
        )

    def _unranked_order(self, run: RunFacts) -> tuple:
        # Implausible runs first: a reader should see why the fastest number is not #1.
        implausible = BELOW_PHYSICAL_FLOOR in self.board.reasons.get(run.name, ())
        return (not implausible, run.value if run.value is not None else float("inf"), run.name)

    # -- workloads and operations ----------------------------------------------------------------------
    @per_key
    def workload(self, name: str) -> WorkloadView:
        entity = self.workloads[name]
        spec = entity.spec
        tensors = [TensorView(name=n, role=role, shape=t["shape"], dtype=t["dtype"], bytes=int(tensor_bytes(t)))
                   for role, group in (("input", entity.inputs), ("output", entity.outputs)) for n, t in group.items()]
        suite = entity.kind == SUITE
        return WorkloadView(
            name=name, title=entity.metadata.title or name, label=workload_label(entity), url=self.workload_url(name),
            kind="suite" if suite else "case", digest=entity.digest, axes={} if suite else dict(spec.axes),
            dtype=spec.dtype.value if spec.dtype else None, tensors=tensors,
            cases=[SuiteCaseView(external_id=case.externalId, axes=dict(case.axes)) for case in spec.cases] if suite else [],
            aggregation=f"{spec.aggregation.statistic} {spec.aggregation.metric}" if suite else None,
            correctness=entity.canonical_spec["correctness"],
        )

    @per_key
    def operation(self, name: str) -> OperationView:
        entity = self.catalog.operations[name]
        spec, meta = entity.spec, entity.metadata
        return OperationView(
            name=name, title=meta.title or name, url=urls.kernel(name), family=spec.family, description=meta.description,
            aliases=list(meta.aliases), models=list(meta.models), digest=entity.digest,
            inputs=[_argument(a) for a in spec.inputs], outputs=[_argument(a) for a in spec.outputs],
            axes=[AxisView(name=n, role=a.role.value, value=a.value, expression=a.expression, minimum=a.minimum,
                           maximum=a.maximum) for n, a in spec.axes.items()],
            mutation=spec.semantics.mutation, determinism=spec.semantics.determinism,
            expression=spec.semantics.expression, flops=meta.flops,
            sources=[self.source_link(source) for source in meta.sources],
        )

    @per_key
    def environment(self, name: str) -> EnvironmentView:
        entity = self.catalog.environments[name]
        hardware, software = entity.spec.hardware, entity.spec.software
        flat: dict[str, str] = {}
        for key, value in software.model_dump(exclude_none=True).items():
            if key == "framework":
                flat["framework"] = f"{value['name']} {value['version']}"
            elif key == "libraries":
                flat.update({f"library {lib}": version for lib, version in sorted(value.items())})
            else:
                flat[key] = str(value)
        gpu = self.board.gpus[name]
        return EnvironmentView(
            name=name, title=entity.metadata.title or name, url=urls.environment(name), gpu=gpu.label,
            hardware=self.hardware_link(gpu.datasheet), vendor=hardware.vendor, product=hardware.product,
            architecture=hardware.architecture, form_factor=hardware.formFactor, software=flat,
        )


def _plain_title(implementation: Entity) -> str:
    return implementation.metadata.title or implementation.refs["project"].metadata.title or implementation.name


def _argument(argument) -> ArgumentView:
    if argument.tensor is not None:
        return ArgumentView(name=argument.name, kind="tensor", dtype=argument.tensor.dtype.value,
                            shape=list(argument.tensor.shape))
    return ArgumentView(name=argument.name, kind="scalar", dtype=argument.scalar.dtype.value, shape=[])


