"""The derive pass: the linked catalog and an as-of date in, every derived figure out.

Runs are indexed by comparison group once; pages then read groups, rows and floors from here
instead of scanning runs again, which keeps a build linear in the number of runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property, partial
from operator import itemgetter

from schemas.expressions import Expression, parse_expression

from ..gc_pause import paused_gc
from ..link import Catalog, Entity
from ..ownsource import OwnSource
from .challenges import CohortChallenge, cohort_challenges, coverage_gaps
from .eligibility import eligibility_reasons
from .facts import ImplementationFacts, datasheet_matches, implementation_facts, run_index
from schemas.shapes import BindingError, bind_axes, concrete_tensors

from .floors import (
    Floor, floor_for_pass, floor_of_bytes, match_datasheet, no_floor_reason, suite_floor, workload_bytes,
)
from .history import RecordEvent, record_history
from .labels import GroupLabeller
from .model import RunFacts
from .ranking import RankedRow, rank_runs
from .scaling import Scaling, ScalingInput, scaling_series
from .staleness import is_stale
from .timeline import MIN_POINTS, DetectedStep, PointFacts, Timeline, host_wide, timeline
from .usability import Usability, install_command, measured_version, usability


@dataclass(frozen=True, slots=True)
class Gpu:
    label: str  # what a reader calls it: the datasheet's title, else the environment's product
    datasheet: str | None  # the matched Hardware's name


@dataclass(slots=True)  # 57,000 groups at 100,000 runs: no dictionary each
class Cohort:
    """One comparison group with its ranked rows, its ineligible runs and its record history."""

    key: str
    operation: str
    workload: str
    protocol: str
    environment: str
    metric: str | None
    gpu: Gpu
    runs: list[RunFacts]
    rows: list[RankedRow]
    unranked: list[RunFacts]
    history: list[RecordEvent]
    label: str = ""
    floor: Floor | None = None  # what the group's times are held to (floor_for_pass of its workload's)
    no_floor: str | None = None  # why it has none, in words (no_floor_reason)
    precision: str = ""  # the precision lane of its runs ("tf32"); "" for strict runs

    @property
    def leader(self) -> RankedRow | None:
        return self.rows[0] if self.rows else None

    @property
    def last_observed(self) -> datetime:
        return max(run.observed_at for run in self.runs)

    @property
    def statistic(self) -> str | None:
        return self.metric.split(":")[1] if self.metric else None

    @property
    def is_latency(self) -> bool:
        return bool(self.metric) and self.metric.startswith("latency:")


@dataclass
class Leaderboard:
    catalog: Catalog
    as_of: date
    implementations: dict[str, ImplementationFacts]
    runs: dict[str, RunFacts]
    reasons: dict[str, tuple[str, ...]]  # only runs that may not be ranked
    cohorts: dict[str, Cohort]
    workload_cohorts: dict[str, list[Cohort]]  # the default (largest) group first
    gpus: dict[str, Gpu]  # by environment
    floors: dict[tuple[str, str], Floor | None]  # by (workload, environment)
    # (source, kernel) -> how many runs of the kernel the source published natively, in run order
    source_operations: Counter[tuple[str, str]] = field(default_factory=Counter)
    row_of: dict[str, RankedRow] = field(default_factory=dict)
    _usability: dict[str, Usability] = field(default_factory=dict)
    _scaling: dict[str, Scaling | None] = field(default_factory=dict)
    _lanes: dict[str, dict[tuple, list[ScalingInput]]] = field(default_factory=dict)  # by operation

    # -- per run ---------------------------------------------------------------------------------
    def is_stale(self, run: RunFacts) -> bool:
        return is_stale(run.observed_at, self.as_of)

    def usability(self, run: RunFacts) -> Usability:
        if run.name not in self._usability:
            implementation = self.implementations[run.implementation]
            labels = self.catalog.runs[run.name].metadata.labels
            recipe = implementation.recipe
            command, pinned = install_command(recipe, measured_version(recipe.package if recipe else None, labels))
            self._usability[run.name] = usability(public_source=implementation.source_url is not None,
                                                  license=implementation.license, install=command, pinned=pinned)
        return self._usability[run.name]

    def floor(self, run: RunFacts) -> Floor | None:
        return self.cohorts[run.cohort].floor

    # -- per operation and workload ----------------------------------------------------------------
    @cached_property
    def operation_runs(self) -> dict[str, list[RunFacts]]:
        by_operation: dict[str, list[RunFacts]] = {}
        for run in self.runs.values():
            by_operation.setdefault(run.operation, []).append(run)
        return by_operation

    def eligible_count(self, operation: str) -> int:
        return self._eligible_counts.get(operation, 0)

    @cached_property
    def _eligible_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for run in self.runs.values():
            if run.name not in self.reasons:
                counts[run.operation] = counts.get(run.operation, 0) + 1
        return counts

    def workload_run_count(self, workload: str) -> int:
        """How many runs the workload's groups hold, eligible or not."""
        return sum(len(cohort.runs) for cohort in self.workload_cohorts.get(workload, ()))

    def default_cohort(self, workload: str) -> Cohort | None:
        cohorts = self.workload_cohorts.get(workload)
        return cohorts[0] if cohorts else None

    def headline_workload(self, operation: Entity) -> str | None:
        """The workload a kernel page opens on: the declared one, else the one with most eligible runs,
        else (no run may be ranked: all failed, or all beat the floor) the one with most runs, else
        (workloads declared, none measured yet) the first by name: a kernel with workloads always
        has its page, which the index, search and GPU pages link."""
        if operation.metadata.headlineWorkload:
            return operation.metadata.headlineWorkload
        counts: dict[str, int] = {}
        every: dict[str, int] = {}
        for run in self.operation_runs.get(operation.name, ()):
            every[run.workload] = every.get(run.workload, 0) + 1
            if run.name not in self.reasons:
                counts[run.workload] = counts.get(run.workload, 0) + 1
        counts = counts or every
        if counts:
            return min(counts, key=lambda name: (-counts[name], name))
        return min((name for name, workload in self.catalog.workloads.items()
                    if workload.refs["operation"].name == operation.name), default=None)

    # -- history over time -----------------------------------------------------------------------
    @cached_property
    def timelines(self) -> dict[str, Timeline]:
        """Cohort key -> its timeline, for the groups where an implementation was measured twice or
        more (Liger's weekly CI series); computed once, before the pages are built. A step the
        group's own baselines do not explain is put down to the host when the baselines of its GPU
        as a whole moved the same way at that snapshot (``host_wide``)."""
        found: dict[str, Timeline] = {}
        for key, cohort in self.cohorts.items():
            if len(cohort.runs) < MIN_POINTS or len({run.implementation for run in cohort.runs}) == len(cohort.runs):
                continue
            facts = {run.name: self._point_facts(run) for run in cohort.runs}
            made = timeline(key, cohort.runs, facts)
            if made is not None:
                found[key] = made
        return host_wide(found, {key: self.cohorts[key].environment for key in found})

    @cached_property
    def steps(self) -> list[DetectedStep]:
        """Every detected step of every group, newest first (the regressions page and feed)."""
        every = [step for line in self.timelines.values() for step in line.steps]
        every.sort(key=lambda s: (s.after.at, s.cohort, s.implementation), reverse=True)
        return every

    def _point_facts(self, run: RunFacts) -> PointFacts:
        entity = self.catalog.runs[run.name]
        labels = entity.metadata.labels
        metric = run.metric.split(":")[0] if run.metric else None
        spread = {m.statistic: m.value for m in entity.spec.measurements or () if m.metric == metric}
        place = labels.get("liger_snapshot") or run.observed_at.strftime("%Y-%m-%d")
        return PointFacts(low=spread.get("p20"), high=spread.get("p80"), place=place,
                          commit=labels.get("liger_commit"), release=labels.get("liger_version"))

    # -- scaling ---------------------------------------------------------------------------------
    def scaling(self, cohort: Cohort) -> Scaling | None:
        if cohort.key not in self._scaling:
            self._scaling[cohort.key] = self._scaling_of(cohort)
        return self._scaling[cohort.key]

    def _scaling_of(self, cohort: Cohort) -> Scaling | None:
        workload = self.catalog.of("WorkloadCase").get(cohort.workload)
        if workload is None or not cohort.is_latency:  # a suite has no axes; only times are drawn
            return None
        lane = self._scaling_lanes(cohort.operation).get(
            (cohort.protocol, cohort.environment, cohort.metric, workload.spec.dtype), ())
        return scaling_series(workload.spec.axes, lane, list(workload.refs["operation"].spec.axes))

    def _scaling_lanes(self, operation: str) -> dict[tuple, list[ScalingInput]]:
        """One operation's eligible single-case runs by (protocol, environment, metric, dtype),
        gathered when one of its groups is first asked for its line: a rebuild draws one kernel's
        lines, and a render worker those of the kernels whose pages it builds."""
        lanes = self._lanes.get(operation)
        if lanes is None:
            lanes = self._lanes[operation] = {}
            for workload in self._cases_by_operation.get(operation, ()):
                for cohort in self.workload_cohorts.get(workload.name, ()):
                    if cohort.is_latency:
                        self._add_to_lane(lanes, cohort, workload)
        return lanes

    @staticmethod
    def _add_to_lane(lanes: dict[tuple, list[ScalingInput]], cohort: Cohort, workload: Entity) -> None:
        lane = lanes.setdefault((cohort.protocol, cohort.environment, cohort.metric, workload.spec.dtype), [])
        axes = workload.spec.axes  # read only: the runs of one workload share it
        for row in cohort.rows:
            lane.append(ScalingInput(axes, row.run.implementation, row.value, row.run.name, workload.name))

    @cached_property
    def _cases_by_operation(self) -> dict[str, list[Entity]]:
        by_operation: dict[str, list[Entity]] = {}
        for workload in self.catalog.of("WorkloadCase").values():
            by_operation.setdefault(workload.refs["operation"].name, []).append(workload)
        return by_operation

    # -- challenges --------------------------------------------------------------------------------
    @cached_property
    def priority_gpus(self) -> dict[str, str]:
        """Datasheet name -> label, for the GPUs every family should be measured on."""
        return {name: _hardware_label(hw) for name, hw in sorted(self.catalog.hardware.items()) if hw.spec.priority}

    @cached_property
    def gaps(self) -> list[tuple[str, str]]:
        covered = {(self.catalog.operations[c.operation].spec.family, c.gpu.datasheet)
                   for c in self.cohorts.values() if c.rows and c.gpu.datasheet}
        families = {operation.spec.family for operation in self.catalog.operations.values()}
        return coverage_gaps(families, self.priority_gpus, covered)

    @cached_property
    def cohort_challenges(self) -> list[CohortChallenge]:
        found = []
        for cohort in self.cohorts.values():
            leader = cohort.leader
            found.extend(cohort_challenges(cohort.key, cohort.rows, holder_stale=leader is not None and self.is_stale(leader.run)))
        return found


def _hardware_label(hardware: Entity) -> str:
    return hardware.metadata.title or hardware.spec.product


def _environment_gpus(catalog: Catalog) -> dict[str, Gpu]:
    matches = datasheet_matches(catalog)
    gpus = {}
    for name, environment in catalog.environments.items():
        identity = environment.spec.hardware
        datasheet = match_datasheet(identity.product, identity.formFactor, matches)
        label = _hardware_label(catalog.hardware[datasheet]) if datasheet else identity.product
        gpus[name] = Gpu(label, datasheet)
    return gpus


def _floors(catalog: Catalog, pairs: Iterable[tuple[str, str]], gpus: dict[str, Gpu]) -> dict[tuple[str, str], Floor | None]:
    """Floors of each (workload, environment) of ``pairs``, in that order: None where it is not a
    single-case workload on a GPU with a datasheet."""
    floors: dict[tuple[str, str], Floor | None] = {}
    cases, suites = catalog.of("WorkloadCase"), catalog.of("WorkloadSuite")
    # By workload: one count of tensor bytes and one FLOP count per workload, not per (workload, GPU).
    counts: dict[str, tuple[tuple[int, int], int | None, str | None]] = {}
    # By formula: one parse per FLOP formula, which the workloads of a kernel (and kernels of a family) share.
    formulas: dict[str, Expression] = {}
    # By datasheet: its bandwidth and dense peaks, read once for its 20,000 floors at 100,000 runs.
    sheets: dict[str, tuple[float, dict[str, float]]] = {}
    # A floor depends on the workload and the datasheet only: environments of one GPU share it.
    by_datasheet: dict[tuple[str, str], Floor] = {}
    for pair in pairs:
        name, environment = pair
        workload, datasheet = cases.get(name) or suites.get(name), gpus[environment].datasheet
        # Unknown GPUs have no datasheet; undeclared kernels no tensors.
        if workload is None or datasheet is None or not is_declared(workload.refs["operation"]):
            floors[pair] = None
            continue
        if name in suites:
            bandwidth, peaks = sheets.get(datasheet) or sheets.setdefault(datasheet, _sheet(catalog.hardware[datasheet]))
            floors[pair] = by_datasheet[(name, datasheet)] = _suite_floor(workload, datasheet, bandwidth, peaks, formulas)  # type: ignore[assignment]
            continue
        shared = by_datasheet.get((name, datasheet))
        if shared is not None:
            floors[pair] = shared
            continue
        byte_counts, flops, flops_dtype = counts.get(name) or counts.setdefault(name, _counts(workload, formulas))
        bandwidth, peaks = sheets.get(datasheet) or sheets.setdefault(datasheet, _sheet(catalog.hardware[datasheet]))
        floors[pair] = by_datasheet[(name, datasheet)] = floor_of_bytes(
            hardware=datasheet, bandwidth_gbps=bandwidth, byte_counts=byte_counts, flops=flops, flops_dtype=flops_dtype,
            peak_tflops=peaks)
    return floors


def _suite_floor(suite: Entity, datasheet: str, bandwidth: float, peaks: dict[str, float],
                 formulas: dict[str, Expression]) -> Floor | None:
    """A suite's floor: its cases' floors, combined as the suite combines their latencies."""
    operation = suite.refs["operation"]
    meta, spec = operation.metadata, operation.spec
    case_floors = []
    for case in suite.spec.cases:
        try:
            axes = bind_axes(spec, case.axes)
        except BindingError:
            # A case may leave sizes open (GPU MODE's grouped GEMM lists one m, n, k per group):
            # link accepts it as partial, but no bytes can be counted for it, so no floor.
            return None
        inputs = concrete_tensors(spec.inputs, axes, suite.spec.dtype)
        outputs = concrete_tensors(spec.outputs, axes, suite.spec.dtype)
        flops = _parsed(meta.flops, formulas).evaluate(axes) if meta.flops else None
        case_floors.append(floor_of_bytes(
            hardware=datasheet, bandwidth_gbps=bandwidth,
            byte_counts=workload_bytes(inputs, outputs, meta.headroomV1Inputs, meta.floorExcludes),
            flops=flops, flops_dtype=meta.flopsDtype, peak_tflops=peaks))
    aggregation = suite.spec.aggregation
    return suite_floor(case_floors, aggregation.statistic) if aggregation.metric == "latency" else None


def is_declared(operation: Entity) -> bool:
    """Whether a person has declared what the kernel computes (an importer's placeholder has not)."""
    return operation.metadata.labels.get("semantics") != "undeclared"


def _counts(workload: Entity, formulas: dict[str, Expression]) -> tuple[tuple[int, int], int | None, str | None]:
    """What a workload's floors count on any GPU: its ``workload_bytes``, its FLOPs and their dtype."""
    meta = workload.refs["operation"].metadata
    flops = _parsed(meta.flops, formulas).evaluate(workload.axes) if meta.flops else None
    return (workload_bytes(workload.inputs, workload.outputs, meta.headroomV1Inputs, meta.floorExcludes), flops,
            meta.flopsDtype)


def _sheet(hardware: Entity) -> tuple[float, dict[str, float]]:
    """A datasheet's bandwidth (GB/s) and dense peak (TFLOP/s) per operand class."""
    spec = hardware.spec
    return spec.bandwidthGBps.value, {dtype: rate.value for dtype, rate in spec.peakTflops.items()}


def _parsed(formula: str, formulas: dict[str, Expression]) -> Expression:
    if formula not in formulas:
        formulas[formula] = parse_expression(formula)
    return formulas[formula]


def precision_label(lane: str) -> str:
    """How a page names a precision lane: "TF32" for "tf32", "fp16 accumulation" for "fp16_accumulation"."""
    return " + ".join(PRECISION_NAMES.get(mode, mode.replace("_", " ")) for mode in lane.split("+")) if lane else ""


PRECISION_NAMES = {"tf32": "TF32"}


def _facets(catalog: Catalog, lane: tuple[str, str, str | None, str]) -> tuple[tuple[str, str], ...]:
    """What may tell groups on one GPU apart, for the groups of a lane (protocol, environment,
    metric, precision lane): a group's facets depend on nothing else."""
    protocol_name, environment_name, metric, precision = lane
    protocol, environment = catalog.protocols[protocol_name], catalog.environments[environment_name]
    measurement, hardware, software = protocol.spec.measurement, environment.spec.hardware, environment.spec.software
    harness = protocol.spec.harness
    facets = [
        ("precision", f"{precision_label(precision)} lane" if precision else ""),
        ("pass", measurement.timedPass or protocol.metadata.labels.get("pass", "")),
        ("metric", (metric or "no metric").split(":", 1)[0]),
        ("cuda graph", "CUDA graph replay" if measurement.cudaGraph else ""),
        ("cache", f"L2 {measurement.cacheFlush}" if measurement.cacheFlush else ""),
        ("form factor", hardware.formFactor or ""),
        ("cuda", f"CUDA {software.cudaToolkit}" if software.cudaToolkit else ""),
        ("driver", f"driver {software.driver}" if software.driver else ""),
        ("framework", f"{software.framework.name} {software.framework.version}" if software.framework else ""),
        ("libraries", ", ".join(f"{k} {v}" for k, v in sorted((software.libraries or {}).items()))),
        ("harness", " ".join(filter(None, [harness.name, harness.version]))),
        ("statistic", metric.split(":")[1] if metric else ""),
        ("protocol", protocol.metadata.title or protocol.name),
        ("environment", environment.metadata.title or environment.name),
    ]
    return tuple(facets)


def _default_first(cohort: Cohort) -> tuple:
    """A workload's groups in this order: latency groups first (the page leads with the fastest
    run, not the leanest), then the largest group; the faster record breaks a tie, and the key
    makes the order total."""
    rows = cohort.rows
    return (not cohort.is_latency, -len(rows), rows[0].run.value if rows else _NO_RECORD, cohort.key)


_NO_RECORD = float("inf")


def split_by_eligibility(runs: list[RunFacts], superseded: frozenset[str], floor_ns: float | None,
                         reasons: dict[str, tuple[str, ...]]) -> tuple[list[RunFacts], list[RunFacts]]:
    """The runs of one group that may be ranked and those that may not, each in the given order;
    ``reasons`` gets each of the latter's ``eligibility_reasons``. ``floor_ns``: the group's floor,
    or None where there is none or its runs' values are not times."""
    eligible: list[RunFacts] = []
    unranked: list[RunFacts] = []
    for run in runs:
        found = eligibility_reasons(run, superseded=run.name in superseded, floor_ns=floor_ns)
        if found:
            reasons[run.name] = found
            unranked.append(run)
        else:
            eligible.append(run)
    return eligible, unranked


def derive_leaderboard(catalog: Catalog, as_of: date, own: OwnSource | None = None) -> Leaderboard:
    # Derived facts hold no reference cycles, and the catalog behind them is millions of objects
    # that every full collection would walk again: at 10,000 runs the collector was half the time.
    with paused_gc(keep=True):  # the leaderboard lives as long as the build
        return _derive_leaderboard(catalog, as_of, own)


def _derive_leaderboard(catalog: Catalog, as_of: date, own: OwnSource | None) -> Leaderboard:
    implementations = {name: implementation_facts(entity, own) for name, entity in sorted(catalog.implementations.items())}
    index = run_index(catalog, implementations)
    gpus = _environment_gpus(catalog)
    floors = _floors(catalog, index.pairs, gpus)
    superseded = index.superseded
    suites = catalog.of("WorkloadSuite")
    passes: dict[str, str | None] = {}

    def timed_pass(protocol_name: str) -> str | None:
        if protocol_name not in passes:
            protocol = catalog.protocols[protocol_name]
            passes[protocol_name] = protocol.spec.measurement.timedPass or protocol.metadata.labels.get("pass")
        return passes[protocol_name]

    reasons: dict[str, tuple[str, ...]] = {}
    cohorts: dict[str, Cohort] = {}
    row_of: dict[str, RankedRow] = {}
    # By workload: each group with what orders it (``_default_first``), read while the group is at hand.
    by_workload: dict[str, list[tuple[tuple, Cohort]]] = {}
    for key, members in index.groups.items():
        first = members[0]
        metric = first.metric
        # The runs of a group share their workload, GPU and metric (the key has them): one floor
        # for all of them, held to their values where they are times (``RunFacts.value_ns``).
        is_time = metric is not None and metric.endswith(":ns")
        floor = floors.get((first.workload, first.environment)) if is_time else None
        if floor is not None:
            floor = floor_for_pass(floor, timed_pass(first.protocol))
        floor_ns = floor.truthful_ns if floor else None
        eligible, unranked = split_by_eligibility(members, superseded, floor_ns, reasons)
        rows = rank_runs(eligible)
        for row in rows:
            row_of[row.run.name] = row
        # Positional, in Cohort's order (key, operation, workload, protocol, environment, metric,
        # gpu, runs, rows, unranked, history): keywords cost more on 57,000 groups.
        cohorts[key] = cohort = Cohort(key, first.operation, first.workload, first.protocol, first.environment, metric,
                                       gpus[first.environment], members, rows, unranked, record_history(eligible))
        cohort.floor = floor
        if floor is None:
            gpu = gpus[first.environment]
            cohort.no_floor = no_floor_reason(
                metric=metric, suite=first.workload in suites, declared=is_declared(catalog.operations[first.operation]),
                datasheet=gpu.datasheet is not None, gpu=gpu.label)
        cohort.precision = first.lane
        by_workload.setdefault(first.workload, []).append((_default_first(cohort), cohort))
    reasons = dict(sorted(reasons.items()))  # in the runs' order (by name), not the groups'

    workload_cohorts: dict[str, list[Cohort]] = {}
    # A group's facets are those of its (protocol, environment, metric): 417 lanes at 100,000 runs.
    labeller = GroupLabeller(partial(_facets, catalog))
    for name, ordered in by_workload.items():
        ordered.sort(key=_FIRST)  # the orders end in the groups' keys: never equal
        workload_cohorts[name] = group = [cohort for _, cohort in ordered]
        labels = labeller.labels([(cohort.key, cohort.gpu.label,
                                   (cohort.protocol, cohort.environment, cohort.metric, cohort.precision))
                                  for cohort in group])
        for cohort in group:
            cohort.label = labels[cohort.key]

    board = Leaderboard(catalog=catalog, as_of=as_of, implementations=implementations, runs=index.facts, reasons=reasons,
                        cohorts=cohorts, workload_cohorts=workload_cohorts, gpus=gpus, floors=floors,
                        source_operations=index.sources)
    board.row_of = row_of
    return board


_FIRST = itemgetter(0)
