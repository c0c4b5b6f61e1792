"""View models: one per page, and the JSON mirror of that page.

A page's view model holds raw facts (nanoseconds, digests, ISO dates) and site-root paths; the
HTML templates format them and make links relative, and the JSON mirror is the same model dumped
as JSON. The published JSON Schemas are generated from these classes, so a page, its mirror and
the mirror's schema cannot drift apart.

Field names are snake_case here and camelCase in JSON, like the manifests the mirrors embed.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer
from pydantic.alias_generators import to_camel

from . import urls
from .derive.eligibility import SUPERSEDED
from .derive.floors import memory_floor_ns

# 2.0.0: a run mirror refers to its protocol, environment and workload (digest and mirror) instead
# of embedding them (``SharedDocument`` says why).
# 3.0.0: rows of long lists refer rather than repeat (issue 24): a ledger row names its kernel and
# workload by title and the record it broke by run and value (``BrokenRecord``); a challenge row
# names its group by ``GroupLink`` and its record by ``RunRef``; an implementation page's run row
# carries the run's ``RunStanding``; a citation drops the permalink and digest its page gives.
# 4.0.0: a run's JSON is part of its group's (``GroupPage.runs``, its facts the group shares once in
# ``run_shared``), and a group's part of its workload's mirror (``KernelPage.groups``): no document
# per run or per group (issue 24).
# 5.0.0: a group says once what its runs share (no ``runShared``: its ``protocol``, ``environment``
# and ``sources`` beside its operation, workload and comparison); a run's details name its source
# and the runs it supersedes or is superseded by, and leave its source's benchmark, id and metrics
# to its manifest; a view that names a run (a ranking row, a leader, a chart's point) names it by
# ``run`` alone, its page being runs/<name>.html (``NamesRun``), and an implementation by ``name``
# alone (``NamesImplementation``) (issue 24).
# 5.1.0: a comparison says how many of its runs are superseded (``superseded``); a superseded run's
# page redirects to its entry among its group page's earlier runs (issue 24).
# 6.0.0: a chart's mirror is its data (``series``), without a Vega-Lite spec (``ChartView.spec`` is
# the page's, and only a scaling chart has one); a group's timeline has none. A row names its
# implementation by reference (``ImplementationNamed``). A run in its group's document has no
# ``html`` (its page is runs/<name>.html), and the API index counts runs without listing them in
# parts: each group's document lists its runs. A kernel's document that holds its groups leaves out
# ``cohorts`` and ``comparison`` (``Page.said_elsewhere``); ``selectedGroup`` names the group its
# page ranks (issue 24).
# 7.0.0: a superseded run in its group's document has no manifest (``GroupRun.run`` is null: it is
# the run's file in the data repository) and every run there says its ``status``; a correctness
# check all of a group's runs share is said once, by the group (``GroupPage.correctness``) (issue 24).
MIRROR_VERSION = "7.0.0"


class KeptByIdentity:
    """Marks a field whose value many pages hold as one object: its texts are made once
    (render.mirror_json and the HTML keep them by identity)."""




class View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=True,
                              validate_by_alias=True, serialize_by_alias=True)


class Link(View):
    title: str
    url: str  # a page path from the site root


class PageLink(Link):
    """A page of a list that runs to many pages, as its pager links it."""

    number: int


class NamesImplementation:
    """A view of an implementation, named by ``name``: its page's path follows from the name
    (``urls.implementation``: implementations/<name>.html), so pages read ``url`` and mirrors
    leave it out (most rows name their implementation). (Each view declares its ``name`` field.)"""

    @property
    def url(self) -> str:
        return urls.implementation(self.name)


class NamesRun:
    """A view that names a run by ``run``. Its page's path follows from the name (``urls.run``:
    runs/<name>.html), so pages read ``url`` and mirrors leave it out: a run is named in many rows,
    and with the history each path is about 100 bytes. (Each view declares its ``run`` field.)"""

    @property
    def url(self) -> str:
        return urls.run(self.run)


# ------------------------------------------------------------------------------------------------
# Pieces shared by several pages


class ImplementationView(NamesImplementation, View):
    name: str
    title: str
    project: str
    language: str
    baseline: bool
    source_url: str | None
    license: str | None = Field(description="a known SPDX expression; null when unknown")
    license_text: str | None = Field(description="the licence as the data states it, known or not")


class ImplementationRef(NamesImplementation, View):
    name: str
    title: str
    project: str
    baseline: bool


def implementation_ref(view: ImplementationView) -> ImplementationRef:
    """The reference a row's mirror writes for its implementation (its page, and the document of it,
    have its language, licence and source)."""
    return _implementation_ref(view.name, view.title, view.project, view.baseline)


@cache
def _implementation_ref(name: str, title: str, project: str, baseline: bool) -> ImplementationRef:
    # One object per implementation, so the mirror writer keeps its JSON by identity and makes it once.
    return ImplementationRef(name=name, title=title, project=project, baseline=baseline)


# An implementation in full for a page's templates, and named by reference in its mirror: rows are
# on many pages and in many mirrors, and each repeated its language, licence and source.
ImplementationNamed = Annotated[ImplementationView, PlainSerializer(implementation_ref, return_type=ImplementationRef)]


class Availability(View):
    """Whether a reader can use the measured code today (install pinned to the measured release)."""

    usable: bool
    reasons: list[str]
    install: str | None
    pinned: bool


class RowView(NamesRun, View):
    """One run inside its comparison group: ranked, or with the reasons it may not be."""

    run: str
    digest: str
    rank: int | None
    value: float | None = Field(description="the primary value, in `unit`")
    unit: str | None
    statistic: str | None
    vs_leader: float | None
    vs_baseline: float | None = Field(description="the fastest baseline's value over this one")
    sol_score: float | None = Field(description="the source's own SOL score (a fraction), where it publishes one")
    evidence: Literal["reported", "reproducible", "verified", "replicated"]
    observed_at: datetime
    stale: bool
    implementation: ImplementationNamed
    availability: Availability
    reasons: list[str] = Field(description="eligibility reason codes; empty for ranked rows")
    precision: list[str] | None = Field(
        default=None, description="reduced-precision modes the run declares (e.g. tf32); empty: strict; null: not declared")
    lane: str = Field(default="", description="its precision lane: declared modes its workload's policy does not admit, "
                                              "joined by '+'; runs of different lanes are ranked apart")


class HeadroomV1(View):
    policy: Literal["headroom-v1"] = "headroom-v1"
    ns: int = Field(description="rounded to an integer, exactly as the public KernelIndex publishes it")
    bytes: int
    inputs: list[str] = Field(description="the tensors it counts")
    times_above: float | None = Field(description="the record over the unrounded floor")


class TruthfulFloor(View):
    ns: float = Field(description="the larger of the memory and arithmetic floors, unrounded")
    bytes: int = Field(description="every input and output once")
    memory_ns: float
    arithmetic_ns: float | None
    flops: int | None
    flops_dtype: str | None
    peak_tflops: float | None
    bound: Literal["memory", "arithmetic"]
    times_above: float | None


class FloorView(View):
    hardware: Link
    bandwidth_gbps: float
    headroom_v1: HeadroomV1
    truthful: TruthfulFloor
    excluded: list[str] = Field(default_factory=list,
                                description="inputs the truthful floor leaves out: the kernel need not read them in full")
    note: str | None = Field(default=None, description="what this group's floor leaves out, and why (a backward pass)")

    @property
    def headroom_v1_unrounded_ns(self) -> float | None:
        """headroom-v1's bytes over the bandwidth, unrounded (pages print it: the published whole
        nanoseconds read "0 ns" for a tiny workload); None when it counts no input. Not in the
        mirror, which keeps the published ``headroom_v1.ns``."""
        return memory_floor_ns(self.headroom_v1.bytes, self.bandwidth_gbps) if self.headroom_v1.bytes else None


class SharedDocument(View):
    """A document many runs share (their protocol, environment, workload), referred to rather than
    copied into each run's page and mirror: on a large site a copy per run would be most of it.
    ``mirror`` is its JSON mirror (the protocol's and environment's hold the canonical ``manifest``);
    ``digest`` is that manifest's, the one the run's own manifest names."""

    name: str
    title: str
    url: str
    mirror: str
    digest: str


class ProtocolRef(SharedDocument):
    harness: str
    timed_pass: str | None


class EnvironmentRef(SharedDocument):
    gpu: str
    hardware: Link | None
    architecture: str


class WorkloadRef(SharedDocument):
    label: str
    correctness: dict[str, Any] = Field(description="the workload's correctness policy")


class RunRef(NamesRun, View):
    """A run as another page names it: which run, its implementation and its value."""

    run: str
    digest: str
    implementation: ImplementationRef
    value: float | None
    unit: str | None
    observed_at: datetime


class CohortSummary(View):
    """A comparison group as one line of "Current records"."""

    key: str
    label: str
    url: str
    gpu: str
    hardware: Link | None
    environment: Link
    protocol: Link
    metric: str | None
    ranked: int
    runs: int
    leader: RunRef | None = Field(description="the group's #1 (its row in the group's ranking says the rest)")
    last_observed: datetime
    selected: bool = False


class ProtocolView(View):
    name: str
    title: str
    harness: str
    harness_version: str | None
    harness_repository: str | None
    timer: str
    statistic: str
    timed_pass: str | None
    family: str | None
    notes: str | None


class ComparisonView(View):
    """The selected comparison group: facts line, floors and the ranking table."""

    summary: CohortSummary
    protocol: ProtocolView = Field(exclude=True, description=(
        "page only: the protocol's facts, which its own document has (the summary's `protocol` links it, and "
        "a group's document names it by digest and mirror)"))
    source_native: bool
    rows: list[RowView] = Field(description="the ranking, possibly only its top (summary.ranked says how many in all)")
    unranked: list[RowView]
    superseded: int = Field(default=0, description="how many of `unranked` (all of them, where it is cut short) are "
                                                   "superseded by a newer run; the group page lists each")
    floor: FloorView | None
    no_floor: str | None = Field(default=None, description="why the group has no floor; null when it has one")

    @property
    def not_ranked(self) -> list[RowView]:
        """The unranked rows a ranking table lists: all but the superseded, which are the group's history."""
        return [row for row in self.unranked if SUPERSEDED not in row.reasons]


class LanguageBestView(View):
    language: str
    row: RowView
    vs_first: float


class PassedOver(View):
    """A faster row the headline does not feature, and why: its spread says it was noisy or host-bound."""

    row: RowView
    why: Literal["noisy", "host-bound"]
    p20: float | None
    p80: float | None
    minimum: float | None


class HeadlineView(View):
    heading: str
    usable_today: bool
    row: RowView
    vs_baseline: float | None
    best_usable: RowView | None
    by_language: list[LanguageBestView]
    passed_over: list[PassedOver] = Field(default_factory=list, description="faster rows not featured, fastest first")


class GpuRecord(View):
    """One GPU's record for the page's workload: the fastest steady row of its first group in page order."""

    gpu: str
    cohort: Link = Field(description="the group: GPU, pass and protocol")
    row: RowView


class SeriesPoint(NamesRun, View):
    x: int | float | str
    value: float
    run: str
    label: str | None = Field(default=None, description="who set this point, where the series does not say")


class Series(View):
    name: str
    points: list[SeriesPoint]


class ChartView(View):
    """A chart: its Vega-Lite spec (rendered to SVG at build time) and the series its table lists."""

    kind: Literal["scaling", "history"]
    title: str
    x_title: str
    y_title: str
    unit: str = Field(description="the unit of every point's value")
    series: list[Series]
    caption: str
    overflow: int = 0
    spec: dict[str, Any] | None = Field(default=None, exclude=True, description=(
        "a scaling chart's Vega-Lite spec, which its page holds inline for charts.js; a mirror has the chart's "
        "data as `series`"))


class SourceLink(View):
    name: str
    title: str
    url: str
    external_url: str
    license: str | None
    retrieved: date
    # The credit the source asks for, shown wherever its data is (None: it asks for none).
    attribution: str | None = None


# ------------------------------------------------------------------------------------------------
# Kernels and workloads


class ArgumentView(View):
    name: str
    kind: Literal["tensor", "scalar"]
    dtype: str
    shape: list[int | str]


class AxisView(View):
    name: str
    role: Literal["constant", "variable", "derived"]
    value: int | None
    expression: str | None
    minimum: int | None
    maximum: int | None


class OperationView(View):
    name: str
    title: str
    url: str
    family: str
    description: str | None = Field(description="Markdown")
    aliases: list[str]
    models: list[str]
    digest: str
    inputs: list[ArgumentView]
    outputs: list[ArgumentView]
    axes: list[AxisView]
    mutation: str
    determinism: str
    expression: str | None
    flops: str | None
    sources: list[SourceLink]


class TensorView(View):
    name: str
    role: Literal["input", "output"]
    shape: list[int]
    dtype: str
    bytes: int


class SuiteCaseView(View):
    external_id: str | None
    axes: dict[str, int]


class WorkloadView(View):
    name: str
    title: str
    label: str
    url: str
    kind: Literal["case", "suite"]
    digest: str
    axes: dict[str, int] = Field(description="the bound (variable) axes")
    dtype: str | None
    tensors: list[TensorView]
    cases: list[SuiteCaseView]
    aggregation: str | None
    correctness: dict[str, Any]


class WorkloadLink(View):
    name: str
    label: str
    url: str
    axes: dict[str, int]
    dtype: str | None
    cases: int | None
    eligible_runs: int


class ImplementationRow(View):
    implementation: ImplementationView
    evidence: str
    runs: int = Field(description="runs of this kernel, every workload and group")
    best: RowView | None = Field(description="its best row in the selected comparison group")
    best_anywhere: RowView | None = Field(default=None, description="its fastest eligible latency over every workload and group")
    best_anywhere_where: str | None = Field(default=None, description="that run's GPU and workload")


class Page(View):
    """What every page and mirror carries."""

    kind: str
    title: str
    html: str
    mirror: str
    schema_url: str
    schema_version: str = MIRROR_VERSION
    as_of: date

    @property
    def template(self) -> str:
        """The template that renders it: its kind's."""
        return f"{self.kind}.html"

    def said_elsewhere(self) -> frozenset[str]:
        """The fields its mirror leaves out because the mirror says the same elsewhere (the page
        still shows them); ``render.mirror_json`` and a plain ``model_dump`` leave out the same."""
        return frozenset()


class KernelPage(Page):
    kind: Literal["kernel"] = "kernel"
    operation: OperationView
    eligible_runs: int
    last_observed: datetime | None
    headline_workload: str | None
    workload: WorkloadView | None = Field(description="the workload shown; null for a declared kernel with no workloads yet")
    workloads: list[WorkloadLink] = Field(description="the kernel's workloads: all of them on the kernel's own page, a "
                                                      "window around the selected one on a workload's page")
    workload_count: int = Field(default=0, description="how many workloads the kernel has")
    workloads_first: int = Field(default=0, description="the position (from 0) of the first listed in the kernel's order")
    headline: HeadlineView | None
    records_by_gpu: list[GpuRecord] = Field(default_factory=list, description="per GPU, its first latency group's leader")
    cohorts: list[CohortSummary] = Field(default_factory=list, description=(
        "the workload's comparison groups, the selected first; absent where `groups` holds them (each group's "
        "`comparison.summary`)"))
    not_measured_on: list[str] = Field(description="priority GPUs without a run of this workload")
    comparison: ComparisonView | None = Field(default=None, description=(
        "the selected group's comparison (its top rows); absent where `groups` holds that group "
        "(`groups.<selectedGroup>.comparison`)"))
    selected_group: str | None = Field(default=None, description=(
        "the id of the group the page ranks (16 hex digits of its key): `groups.<id>` where this document "
        "holds its groups, else api/v1/groups/<id>.json; null without one"))
    scaling: ChartView | None = Field(description="the selected group's scaling line, drawn beside its ranking")
    more_scaling: list[ChartView] = Field(default_factory=list, description="other GPUs' groups, one chart each")
    implementations: list[ImplementationRow]
    sources_observed: dict[str, datetime] = Field(default_factory=dict, description="per source, when its newest run of this kernel was observed")
    groups: dict[str, GroupPage] = Field(default_factory=dict, description=(
        "the workload's comparison groups by id (16 hex digits of the key), each with its runs: a group's mirror is "
        "`#/groups/<id>` of this document, a run's `#/groups/<id>/runs/<name>`"))

    def said_elsewhere(self) -> frozenset[str]:
        """A document that holds its workload's groups says each group's summary and the selected
        group's comparison there: its `cohorts` and `comparison` would say them twice."""
        return frozenset({"cohorts", "comparison"}) if self.groups else frozenset()


# ------------------------------------------------------------------------------------------------
# Runs and groups


class MeasurementView(View):
    metric: str
    statistic: str
    unit: str
    value: float


class CorrectnessView(View):
    summary: str
    comparator: str | None
    maximum_absolute_error: float | None
    maximum_relative_error: float | None
    matched_ratio: float | None
    inputs_unmodified: bool | None
    notes: str | None


class EnvironmentView(View):
    name: str
    title: str
    url: str
    gpu: str
    hardware: Link | None
    vendor: str
    product: str
    architecture: str
    form_factor: str | None
    software: dict[str, str]


class ArtifactView(View):
    kind: str
    url: str | None
    path: str | None
    digest: str | None


class AttestationView(View):
    kind: str
    author: str
    date: date
    note: str


class Citation(View):
    """How to cite the run; its permalink and digest are the page's ``html`` and ``details.digest``."""

    accessed: date
    text: str


class RunStanding(View):
    """A run within its comparison group, on its own page: a group row (RowView) without what the
    run page names elsewhere (its name, URL and digest) or what the implementation's page says."""

    rank: int | None
    value: float | None = Field(description="the primary value, in `unit`")
    unit: str | None
    statistic: str | None
    vs_leader: float | None
    vs_baseline: float | None = Field(description="the fastest baseline's value over this one")
    sol_score: float | None = Field(description="the source's own SOL score (a fraction), where it publishes one")
    evidence: Literal["reported", "reproducible", "verified", "replicated"]
    observed_at: datetime
    stale: bool
    reasons: list[str] = Field(description="eligibility reason codes; empty for ranked runs")
    precision: list[str] | None = Field(
        default=None, description="reduced-precision modes the run declares (e.g. tf32); empty: strict; null: not declared")
    lane: str = Field(default="", description="its precision lane: declared modes its workload's policy does not admit, "
                                              "joined by '+'; runs of different lanes are ranked apart")


class GroupRef(View):
    """The run's comparison group, as the run page names it (the group's page and mirror say the rest)."""

    key: str
    label: str
    url: str
    gpu: str
    metric: str | None
    ranked: int
    runs: int


class RunShared(View):
    """What a run page shows of its comparison group, the same for every run of the group. The
    group's document says each once (``GroupPage``: its operation, workload, protocol, environment,
    sources, and its comparison's summary, leader and floor), so a run's part of it need not."""

    operation: Link
    workload: WorkloadRef
    cohort: GroupRef
    leader: RunRef | None
    protocol: ProtocolRef
    environment: EnvironmentRef
    floor: FloorView | None
    no_floor: str | None = Field(default=None, description="why the run's group has no floor; null when it has one")
    sources: dict[str, SourceLink] = Field(description="the sources the group's runs were published by, by name")


class RunOwn(View):
    """A run's own facts, as its group's document holds them (``GroupRun.details``): those its
    manifest (``run``: its source's benchmark, id and metrics among them) and its group's ranking
    rows do not already say. Other runs and its source are named, not copied."""

    title: str
    revision: str | None
    source: str | None = Field(description="the source that published it, by name (`sources.<name>` of its group's "
                                           "document has its title, licence and attribution)")
    correctness: CorrectnessView
    artifacts: list[ArtifactView]
    attestations: list[AttestationView]
    implausible: bool
    retraction: str | None
    superseded_by: str | None = Field(description="the run that supersedes it, by name (its page: runs/<name>.html)")
    supersedes: str | None = Field(description="the run it supersedes, by name")


class RunRepeated(View):
    """What a run page shows that its group's document holds elsewhere: the run's ranking row
    (``comparison.rows`` or ``unranked``, with its implementation) and its manifest's measurements,
    and the citation made from them."""

    name: str
    digest: str
    row: RunStanding
    implementation: ImplementationRef
    measurements: list[MeasurementView]
    cite: Citation


class RunDetails(RunOwn, RunShared, RunRepeated):
    """Everything a run page shows: the run's own facts, its group's, and its row's (the page is
    built from all three; its mirror is a part of its group's, which holds each once)."""


class EarlierRun(RunOwn, RunRepeated):
    """A superseded run as its group's page shows it, in full: its own facts, its row, its
    measurements and citation. Its run page redirects there (``run_moved.html``): a superseded run is
    its series' history, and a page of its own for each of them repeated the group's facts that
    many times (73,362 of the 102,944 runs of Liger-Kernel's published history are superseded)."""


class GroupRunOwn(RunOwn):
    """A run's own facts in its group's document: its correctness check is left to the group's
    where every run of the group says the same (``GroupPage.correctness``)."""

    correctness: CorrectnessView | None = Field(description="null where it is its group's `correctness`")


class GroupRun(View):
    """A run in its group's document, at ``runs/<name>`` (``urls.run_mirror``): with what the group
    says once for all its runs (``RunShared``) and its ranking row, it is all its run page shows.
    Its page is ``runs/<name>.html`` (``urls.run``), named by its key in ``runs``.

    A superseded run's manifest is left out: it is the group's history, which its rows, its
    measurements over time (``GroupPage.timeline``) and its own facts here say, and its manifest,
    1.6 KB on average, was more than half of a site of Liger-Kernel's published history (73,362
    of its 102,944 runs are superseded). The manifest is the run's file in the data repository,
    with its references by name where the manifest has the digests of the documents they name
    (``tests/site/test_earlier_runs.py`` checks a reader can verify the run's digest from them)."""

    run: dict[str, Any] | None = Field(description=(
        "the canonical BenchmarkRun manifest; null for a superseded run (`details.supersededBy`): its manifest is "
        "its file in the data repository, with its references (implementation, workload, protocol, environment, "
        "supersedes) by name; with each replaced by the digest of the document it names, its spec hashes to its "
        "digest (its row's `digest`: RFC 8785 JSON of {apiVersion, kind, spec})"))
    status: str = Field(description="the manifest's `spec.status` (passed, failed, …), said for every run because a "
                                    "superseded run's manifest is not")
    details: GroupRunOwn


class RunPage(Page):
    """A run's page (seed 001). Its JSON is part of its group's, in its workload's mirror
    (``mirror`` is a JSON Pointer into it): a document per run would be a file per run."""

    kind: Literal["run"] = "run"
    run: dict[str, Any] = Field(description="the canonical BenchmarkRun manifest")
    details: RunDetails

    @property
    def template(self) -> str:
        """A superseded run's page redirects to its entry among its group's earlier runs (``EarlierRun``)."""
        return "run_moved.html" if self.details.superseded_by else "run.html"

    @property
    def alone(self) -> bool:
        """Whether it is the only run of its group, whose page redirects here (``GroupPage.template``)."""
        return is_alone(self.details.cohort.runs, superseded=bool(self.details.superseded_by))


class RecordEventView(NamesRun, View):
    """A record the group's history holds: the run that set it, and the one it beat, named by run
    (the ranking below, and the run pages, say the rest of each)."""

    run: str
    implementation: ImplementationRef
    value: float | None
    unit: str | None
    observed_at: datetime
    previous: RunRef | None
    improvement: float | None


class TimelinePointView(NamesRun, View):
    observed_at: datetime
    value: float = Field(description="the run's primary value (median), in the timeline's unit")
    low: float | None = Field(description="p20, where the run publishes it")
    high: float | None = Field(description="p80, where the run publishes it")
    run: str
    place: str = Field(description="the snapshot that first published the run, else the day it was observed")
    release: str | None


class TimelineSeries(View):
    implementation: str
    name: str
    baseline: bool
    points: list[TimelinePointView]


class StepView(View):
    """A sustained step in one implementation's series (derive.steps)."""

    group: Link
    operation: Link
    workload: str
    gpu: str
    pass_name: str
    implementation: str
    baseline: bool
    unit: str
    before: float = Field(description="median of the series' segment before the step")
    after: float = Field(description="median of the segment after it")
    ratio: float = Field(description="after / before: above 1 is slower (or more memory)")
    regression: bool
    cause: str = Field(description="implementation, or host when the baselines stepped at the same snapshot")
    baselines: list[str] = Field(description="the baseline implementations that stepped with it")
    from_place: str
    to_place: str
    from_run: Link
    to_run: Link
    observed_at: datetime = Field(description="when the first measurement after the step was made")
    compare_url: str | None = Field(description="the upstream commit range between the two snapshots, where both are known")


class TimelineView(View):
    """A group's measurements over time: per implementation the median with its p20-p80 band."""

    title: str
    unit: str
    series: list[TimelineSeries]
    steps: list[StepView]
    caption: str


class GroupPage(Page):
    kind: Literal["group"] = "group"
    operation: Link
    workload: WorkloadRef
    comparison: ComparisonView
    history: list[RecordEventView]
    history_chart: ChartView | None
    other_groups: int = Field(description="how many other comparison groups this workload has (listed on its page)")
    timeline: TimelineView | None = Field(default=None, description="the group's measurements over time, "
                                          "where an implementation was measured more than once")
    protocol: ProtocolRef = Field(description="the runs' protocol, by digest and mirror")
    environment: EnvironmentRef = Field(description="the runs' environment, by digest and mirror")
    sources: dict[str, SourceLink] = Field(description="the sources the runs were published by, by name")
    correctness: CorrectnessView | None = Field(default=None, description=(
        "the correctness check of every run of the group, where all say the same (each run's `details.correctness` "
        "is then null); null where they differ"))
    runs: dict[str, GroupRun] = Field(description="each run of the group by name: its manifest and own facts "
                                                  "(a run's mirror is `runs/<name>` under this group's)")
    earlier: list[EarlierRun] = Field(default_factory=list, exclude=True, description=(
        "page only: the group's superseded runs, newest first, each a row of its page (its JSON is `runs` and "
        "`comparison.unranked`)"))

    @property
    def template(self) -> str:
        """A group of one run is that run: its page redirects to the run's, which shows its floors in full."""
        return "group_alone.html" if is_alone(len(self.runs), superseded=bool(self.earlier)) else "group.html"

    @property
    def earlier_by_run(self) -> dict[str, EarlierRun]:
        """The earlier runs by name: the chart over time's table marks its points that are earlier runs."""
        return {run.name: run for run in self.earlier}

    @property
    def earlier_untimed(self) -> list[EarlierRun]:
        """The earlier runs that the chart over time does not draw (all of them, without a chart): a
        table of their own lists them, while each drawn one is a row of the chart's table."""
        drawn = {point.run for line in self.timeline.series for point in line.points} if self.timeline else set()
        return [run for run in self.earlier if run.name not in drawn]

    @property
    def earlier_shared(self) -> EarlierShared:
        """What every earlier run has in common, said once on the page rather than in each row."""
        def one(values: set) -> Any:
            return next(iter(values)) if len(values) == 1 else None
        return EarlierShared(correctness=one({run.correctness.summary for run in self.earlier}),
                             evidence=one({run.row.evidence for run in self.earlier}),
                             source=one({run.source for run in self.earlier}))


class EarlierShared(View):
    """What all of a group's earlier runs share, each field null where they differ (``source``: also
    where they have none)."""

    correctness: str | None
    evidence: str | None
    source: str | None


def is_alone(runs: int, superseded: bool) -> bool:
    """Whether a group's page is its one run's: a group of a single run that nothing supersedes (a
    superseded run's own page leads to its group's, which lists it among the earlier runs)."""
    return runs == 1 and not superseded


KernelPage.model_rebuild()  # its groups are GroupPages, defined after it


class RegressionsPage(Page):
    """Every detected step, newest first: regressions and improvements, with their likely cause."""

    kind: Literal["regressions"] = "regressions"
    steps: list[StepView]
    groups_with_history: int
    series: int
    feed: str


# ------------------------------------------------------------------------------------------------
# Catalog pages


class EvidenceRow(NamesRun, View):
    """A run on its implementation's page: where it stands, without the implementation (the page's
    own) or its availability, which every row of the page would repeat."""

    workload: Link
    cohort: Link
    gpu: str
    run: str
    standing: RunStanding
    group_size: int


class ImplementationPage(Page):
    kind: Literal["implementation"] = "implementation"
    implementation: ImplementationView
    description: str | None
    digest: str
    operation: Link
    project_repository: str | None
    version: str | None
    commit: str | None
    verdict: str
    availability: Availability | None = Field(description="pinned to the newest measured release")
    runs: list[EvidenceRow] = Field(description="newest first, at most a few hundred")
    runs_total: int
    sources: list[SourceLink] = Field(default_factory=list, description="the sources that published its runs")


class CitedRateView(View):
    value: float
    source: Link
    note: str | None


class RecordHeld(View):
    operation: Link
    workload: Link
    cohort: Link
    row: RowView


class HardwarePage(Page):
    kind: Literal["hardware"] = "hardware"
    name: str
    description: str | None
    vendor: str
    product: str
    architecture: str
    memory: str
    priority: bool
    matches: list[dict[str, str]]
    bandwidth_gbps: CitedRateView
    peak_tflops: dict[str, CitedRateView]
    environments: list[Link]
    runs: int
    records: list[RecordHeld] = Field(description="newest first, at most a few hundred")
    records_total: int


class EnvironmentPage(Page):
    kind: Literal["environment"] = "environment"
    environment: EnvironmentView
    description: str | None
    digest: str
    manifest: dict[str, Any]
    runs: int
    cohorts: list[Link] = Field(description="at most a few hundred")
    cohorts_total: int


class ProtocolPage(Page):
    kind: Literal["protocol"] = "protocol"
    protocol: ProtocolView
    description: str | None
    digest: str
    manifest: dict[str, Any]
    runs: int
    cohorts: list[Link] = Field(description="at most a few hundred")
    cohorts_total: int


class SourcePage(Page):
    kind: Literal["source"] = "source"
    name: str
    description: str | None
    external_url: str
    license: str | None
    retrieved: date
    publisher: str | None
    terms: str | None = None
    attribution: str | None = None
    runs: int
    kernels: list[Link]
    cited_by: list[Link] = Field(description="hardware datasheets that cite it")


class ListItem(View):
    title: str
    url: str
    detail: str
    count: int | None


class ListingPage(Page):
    kind: Literal["listing"] = "listing"
    intro: str
    items: list[ListItem]


class KernelSummary(View):
    operation: Link
    description: str | None
    eligible_runs: int
    workloads: int
    last_observed: datetime | None
    record: RowView | None
    record_gpu: str | None
    record_workload: str | None
    record_group: Link | None = Field(default=None, description="the group the record leads")
    record_pass: str | None = Field(default=None, description="the timed pass of the record's protocol")


class Choice(View):
    """One option of a selector that works without JavaScript: a link to the page that shows it."""

    title: str
    url: str
    selected: bool


class FamilyView(View):
    family: str
    kernels: list[KernelSummary]


class CollectionView(View):
    """A set of kernels with an index of its own (KernelBench's problems), listed as one entry."""

    title: str
    url: str
    kernels: int
    note: str


class IndexPage(Page):
    kind: Literal["index"] = "index"
    gpu: str | None = Field(default=None, description="the GPU this index is for (its label); null: every GPU")
    timed_pass: str | None = Field(default=None, description="the timed pass this index is for; null: any")
    gpu_choices: list[Choice] = Field(default_factory=list)
    pass_choices: list[Choice] = Field(default_factory=list)
    families: list[FamilyView]
    awaiting: list[Link] = Field(default_factory=list,
                                 description="kernels awaiting a declaration: imported, but not on the record tables")
    collections: list[CollectionView] = Field(default_factory=list, description="kernel sets indexed on pages of their own")
    runs: int
    eligible_runs: int
    implementations: int
    gpus: int
    last_observed: datetime | None


class GapView(View):
    family: str
    gpu: str
    hardware: Link


class GroupLink(Link):
    """A comparison group as a list names it: its key, label (``title``) and page."""

    key: str


class ChallengeRow(View):
    """A group a challenge list names, with its record (the group's page and mirror have the rest:
    lists of challenges run to thousands of rows)."""

    kind: str
    operation: Link
    workload: Link
    cohort: GroupLink
    record: RunRef | None = Field(description="the group's #1")


class CoverageCell(View):
    gpu: str
    eligible_runs: int


class CoverageRow(View):
    family: str
    cells: list[CoverageCell]


class ChallengesPage(Page):
    """challenges.html: coverage, gaps and, per kind, the most recent challenges with a link to the
    full list; challenges/<kind>.html (then …/<kind>/page-<n>.html): one kind's full list, paged."""

    kind: Literal["challenges"] = "challenges"
    view: str | None = Field(default=None, description="null on the overview; the challenge kind a full list shows")
    gpus: list[Link]
    coverage: list[CoverageRow]
    gaps: list[GapView]
    groups: dict[str, list[ChallengeRow]] = Field(
        description="per kind, the most recently observed first: capped on the overview, one page of a full list")
    totals: dict[str, int]
    full_lists: dict[str, str] = Field(default_factory=dict, description="per kind, the first page of its full list")
    page_number: int = 1
    page_count: int = 1
    pages: list[PageLink] = Field(default_factory=list, description=(
        "a full list's pager: its first and last pages and those near this one, in order (each page's pager links "
        "the next)"))


class MethodologyPage(Page):
    kind: Literal["methodology"] = "methodology"
    markdown: str


class MirrorEntry(View):
    kind: str
    title: str
    html: str
    mirror: str


class ApiIndexPart(View):
    """One part of the API index: a page of one kind's documents, sorted by mirror path."""

    index: str = Field(description="the part's path (api/v1/index/<kind>.json, then …/<kind>/page-<n>.json)")
    documents: int = Field(description="how many documents the part lists")
    first: str = Field(description="the first mirror path listed (parts are in mirror-path order)")
    last: str = Field(description="the last mirror path listed")


class ApiIndexKind(View):
    kind: str
    documents: int = Field(description="how many documents of this kind the site has, over all its parts")
    parts: list[ApiIndexPart]


class ApiIndex(View):
    """``api/v1/index.json``: every kind of document, with its count, its schema and the parts that
    list its documents. It names parts, not documents, so it stays small however many runs there are."""

    schema_version: str = MIRROR_VERSION
    as_of: date
    kinds: list[ApiIndexKind]
    schemas: dict[str, str] = Field(description="kind -> the JSON Schema its documents validate against")
    part_schema: str = Field(description="the JSON Schema of the index parts")
    references: dict[str, str] = Field(description="where a document refers to another rather than copying it: "
                                                   "the field, and how a reader gets what it refers to")


class ApiIndexPartDocument(View):
    """``api/v1/index/<kind>.json`` (and ``…/<kind>/page-<n>.json``): one page of a kind's documents."""

    schema_version: str = MIRROR_VERSION
    as_of: date
    kind: str
    part: int = Field(description="1-based position among the kind's parts")
    parts: int
    index: str = Field(description="the API index that lists every part (api/v1/index.json)")
    documents: list[MirrorEntry]


PAGE_MODELS: dict[str, type[Page]] = {
    model.model_fields["kind"].default: model
    for model in (KernelPage, RunPage, GroupPage, ImplementationPage, HardwarePage, EnvironmentPage, ProtocolPage, SourcePage,
                  ListingPage, IndexPage, ChallengesPage, MethodologyPage, RegressionsPage)
}
