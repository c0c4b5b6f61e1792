"""View models: one per page, and the JSON mirror of that page.

A page's view model holds raw facts (nanoseconds, digests, ISO dates) and site-root paths; the
HTML templates format them and make links relative, and the JSON mirror is the same model dumped
as JSON. The published JSON Schemas are generated from these classes, so a page, its mirror and
the mirror's schema cannot drift apart.

Field names are snake_case here and camelCase in JSON, like the manifests the mirrors embed.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation
from pydantic.alias_generators import to_camel

MIRROR_VERSION = "1.0.0"


class KeptByIdentity:
    """Marks a field whose value many pages hold as one object: its texts are made once
    (render.mirror_json and the HTML keep them by identity)."""


# A canonical manifest that many pages embed (a protocol's, an environment's), as ViewFactory built
# it once: a page holds that very dict, where validating would check and copy it for every page.
SharedManifest = Annotated[dict[str, Any], SkipValidation, KeptByIdentity]


class View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=True,
                              validate_by_alias=True, serialize_by_alias=True)


class Link(View):
    title: str
    url: str  # a page path from the site root


# ------------------------------------------------------------------------------------------------
# Pieces shared by several pages


class ImplementationView(View):
    name: str
    title: str
    url: str
    project: str
    language: str
    baseline: bool
    source_url: str | None
    license: str | None = Field(description="a known SPDX expression; null when unknown")
    license_text: str | None = Field(description="the licence as the data states it, known or not")


class Availability(View):
    """Whether a reader can use the measured code today (install pinned to the measured release)."""

    usable: bool
    reasons: list[str]
    install: str | None
    pinned: bool


class RowView(View):
    """One run inside its comparison group: ranked, or with the reasons it may not be."""

    run: str
    url: str
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
    implementation: ImplementationView
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
    leader: RowView | None
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
    protocol: ProtocolView
    source_native: bool
    rows: list[RowView] = Field(description="the ranking, possibly only its top (summary.ranked says how many in all)")
    unranked: list[RowView]
    floor: FloorView | None


class LanguageBestView(View):
    language: str
    row: RowView
    vs_first: float


class HeadlineView(View):
    heading: str
    usable_today: bool
    row: RowView
    vs_baseline: float | None
    best_usable: RowView | None
    by_language: list[LanguageBestView]


class SeriesPoint(View):
    x: int | float | str
    value: float
    run: str
    url: str
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
    spec: dict[str, Any]


class SourceLink(View):
    name: str
    title: str
    url: str
    external_url: str
    license: str | None
    retrieved: date


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


class Page(View):
    """What every page and mirror carries."""

    kind: str
    title: str
    html: str
    mirror: str
    schema_url: str
    schema_version: str = MIRROR_VERSION
    as_of: date


class KernelPage(Page):
    kind: Literal["kernel"] = "kernel"
    operation: OperationView
    eligible_runs: int
    last_observed: datetime | None
    headline_workload: str | None
    workload: WorkloadView
    workloads: list[WorkloadLink]
    headline: HeadlineView | None
    cohorts: list[CohortSummary]
    not_measured_on: list[str] = Field(description="priority GPUs without a run of this workload")
    comparison: ComparisonView | None
    scaling: ChartView | None
    implementations: list[ImplementationRow]


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
    permalink: str
    digest: str
    accessed: date
    text: str


class RunDetails(View):
    name: str
    digest: str
    title: str
    row: RowView
    operation: Link
    workload: WorkloadView
    implementation: ImplementationView
    project: str
    revision: str | None
    cohort: CohortSummary
    group_size: int
    leader: RowView | None
    source: SourceLink | None
    benchmark: str | None
    external_id: str | None
    source_metrics: dict[str, float]
    measurements: list[MeasurementView]
    correctness: CorrectnessView
    protocol: ProtocolView
    environment: EnvironmentView
    artifacts: list[ArtifactView]
    attestations: list[AttestationView]
    floor: FloorView | None
    implausible: bool
    retraction: str | None
    superseded_by: Link | None
    supersedes: Link | None
    cite: Citation


class RunPage(Page):
    kind: Literal["run"] = "run"
    run: dict[str, Any] = Field(description="the canonical BenchmarkRun manifest")
    protocol: SharedManifest = Field(description="the canonical BenchmarkProtocol manifest")
    environment: SharedManifest = Field(description="the canonical ExecutionEnvironment manifest")
    details: RunDetails


class RecordEventView(View):
    row: RowView
    previous: RowView | None
    improvement: float | None


class GroupPage(Page):
    kind: Literal["group"] = "group"
    operation: Link
    workload: WorkloadView
    comparison: ComparisonView
    history: list[RecordEventView]
    history_chart: ChartView | None
    other_groups: int = Field(description="how many other comparison groups this workload has (listed on its page)")


# ------------------------------------------------------------------------------------------------
# Catalog pages


class EvidenceRow(View):
    operation: Link
    workload: Link
    cohort: Link
    gpu: str
    row: RowView
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


class FamilyView(View):
    family: str
    kernels: list[KernelSummary]


class IndexPage(Page):
    kind: Literal["index"] = "index"
    families: list[FamilyView]
    runs: int
    eligible_runs: int
    implementations: int
    gpus: int
    last_observed: datetime | None


class GapView(View):
    family: str
    gpu: str
    hardware: Link


class ChallengeRow(View):
    kind: str
    operation: Link
    workload: Link
    cohort: CohortSummary


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
    pages: list[Link] = Field(default_factory=list, description="a full list's pages, in order")


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
                  ListingPage, IndexPage, ChallengesPage, MethodologyPage)
}
