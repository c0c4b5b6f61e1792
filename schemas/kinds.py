"""The authoring form of every kind: what people write in ``data/``.

Files name each other by slug (``operation: llama4-rope``); the builder resolves those names and
produces the canonical form (``schemas.canonical``), where references are digests. Every model is
strict: unknown keys are errors.
"""

from __future__ import annotations

import functools
import math
from datetime import datetime, timezone
from enum import Enum
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import Field, field_validator, model_validator

from .common import (
    API_VERSION,
    DType,
    DurationNs,
    FiniteFloat,
    IsoDate,
    Metadata,
    Slug,
    StrictModel,
    Token,
    UtcDateTime,
    format_utc,
)
from .expressions import ExpressionError, parse_expression

AxisName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$", max_length=64)]
EARLIEST_OBSERVATION = datetime(2000, 1, 1, tzinfo=timezone.utc)
# Every URL is https: no javascript:, data: or plain http links can reach a page.
HTTPS_URL_PATTERN = r"^https://[^\s<>\"']+$"
HttpsUrl = Annotated[str, Field(pattern=HTTPS_URL_PATTERN, max_length=500)]
# Relative, and no segment starts with '.': a path can never climb out with '..' or be absolute.
RELATIVE_PATH_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$"


class LocatedValueError(ValueError):
    """A validator's error about one part of what it checked: ``location`` (keys and indexes below
    the validated object) lets the loader point at that part's line rather than the object's."""

    def __init__(self, message: str, *location: str | int):
        super().__init__(message)
        self.location = location


class Envelope(StrictModel):
    apiVersion: Literal["kernelindex.dev/v1alpha1"] = API_VERSION
    metadata: Metadata


# --------------------------------------------------------------------------------------------
# OperationSpec: a kernel


class AxisRole(str, Enum):
    constant = "constant"
    variable = "variable"
    derived = "derived"


class Axis(StrictModel):
    role: AxisRole
    type: Literal["integer"] = "integer"
    value: int | None = None
    minimum: int | None = None
    maximum: int | None = None
    expression: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _role_fields(self) -> "Axis":
        if self.role is AxisRole.constant and self.value is None:
            raise ValueError("a constant axis needs a value")
        if self.role is AxisRole.derived:
            if not self.expression:
                raise ValueError("a derived axis needs an expression")
            try:
                parse_expression(self.expression)
            except ExpressionError as error:
                raise ValueError(str(error)) from None
        if self.role is not AxisRole.derived and self.expression is not None:
            raise ValueError("only a derived axis has an expression")
        if self.role is not AxisRole.constant and self.value is not None:
            raise ValueError("only a constant axis has a value")
        return self


Dim = Union[Annotated[int, Field(ge=0)], AxisName]


class TensorDecl(StrictModel):
    shape: list[Dim] = Field(max_length=8)
    dtype: DType
    layout: Literal["row_major", "col_major", "contiguous", "strided"] | None = None


class ScalarDecl(StrictModel):
    dtype: DType


class Argument(StrictModel):
    name: AxisName
    tensor: TensorDecl | None = None
    scalar: ScalarDecl | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "Argument":
        if (self.tensor is None) == (self.scalar is None):
            raise ValueError("give exactly one of tensor or scalar")
        return self


class Semantics(StrictModel):
    expression: str | None = Field(default=None, max_length=2000)
    mutation: Literal["none", "in_place", "destination"] = "none"
    determinism: Literal["deterministic", "nondeterministic", "unspecified"] = "unspecified"


class ReferenceArtifact(StrictModel):
    uri: Annotated[str, Field(max_length=500)]
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None


class Reference(StrictModel):
    """The definition's reference implementation (its language; where it lives, when published)."""

    language: Token
    artifact: ReferenceArtifact | None = None


class OperationSpecSpec(StrictModel):
    family: Slug
    axes: dict[AxisName, Axis] = Field(max_length=64)
    inputs: list[Argument] = Field(min_length=1, max_length=64)
    outputs: list[Argument] = Field(min_length=1, max_length=64)
    semantics: Semantics = Field(default_factory=Semantics)
    reference: Reference | None = None

    @model_validator(mode="after")
    def _names_resolve(self) -> "OperationSpecSpec":
        names = [argument.name for argument in self.inputs + self.outputs]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"argument names used twice: {', '.join(duplicates)}")
        for argument in self.inputs + self.outputs:
            if argument.tensor:
                for dim in argument.tensor.shape:
                    if isinstance(dim, str) and dim not in self.axes:
                        raise ValueError(f"{argument.name}: shape names unknown axis {dim!r}")
        for name, axis in self.axes.items():
            if axis.expression:
                unknown = parse_expression(axis.expression).names - set(self.axes)
                if unknown:
                    raise ValueError(f"axis {name}: expression names unknown axis {', '.join(sorted(unknown))}")
        return self


class KernelMetadata(Metadata):
    """Kernel-page text that is not identity."""

    aliases: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=20)
    models: list[Slug] = Field(default_factory=list, max_length=20)
    headlineWorkload: Slug | None = None
    # Total floating-point operations of one call, as an axis expression; drives the arithmetic floor.
    flops: str | None = Field(default=None, max_length=200)
    # Which tensor-core class the FLOPs run on for the arithmetic floor (highest applicable peak).
    flopsDtype: Literal["bf16", "fp16", "tf32", "fp32", "fp8"] | None = None
    sources: list[Slug] = Field(default_factory=list, max_length=20)
    # The inputs the public KernelIndex declared for this operation, which its `headroom-v1` floor
    # counts; when absent, every input. (Its Llama 4 RoPE declares q and k but not freqs_cis.)
    headroomV1Inputs: list[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$")]] | None = None
    # Inputs the kernel need not read in full (an embedding's table: only the looked-up rows are
    # touched), which the truthful memory floor therefore leaves out so that it stays a lower bound.
    floorExcludes: list[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$")]] | None = None

    @field_validator("flops")
    @classmethod
    def _flops_parse(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_expression(value)
            except ExpressionError as error:
                raise ValueError(str(error)) from None
        return value


class OperationSpec(Envelope):
    kind: Literal["OperationSpec"]
    metadata: KernelMetadata
    spec: OperationSpecSpec


# --------------------------------------------------------------------------------------------
# Workloads


# Reduced-precision arithmetic a run may use instead of its dtype's own: TF32 matrix products on
# fp32 data, fp16 accumulation of fp16 products, bf16 reductions. A ranking keeps runs that used one
# apart from strict runs unless the workload's correctness policy admits it ("Precision lanes").
PrecisionMode = Literal["tf32", "fp16_accumulation", "bf16_reduction"]


class Correctness(StrictModel):
    comparator: Token
    maxAbsoluteError: Annotated[float, Field(ge=0)] | None = None
    maxRelativeError: Annotated[float, Field(ge=0)] | None = None
    requiredMatchedRatio: Annotated[float, Field(ge=0, le=1)] | None = None
    description: str | None = Field(default=None, max_length=2000)
    admittedModes: list[PrecisionMode] | None = Field(
        default=None, max_length=8,
        description="reduced-precision modes this policy accepts as equal to strict arithmetic: runs using them rank with strict runs")


class ConcreteTensor(StrictModel):
    shape: list[Annotated[int, Field(ge=0)]] = Field(max_length=8)
    dtype: DType

    @field_validator("dtype")
    @classmethod
    def _concrete(cls, value: DType) -> DType:
        if value is DType.float:
            raise ValueError("a workload tensor needs a concrete dtype, not 'float'")
        return value


class TensorData(StrictModel):
    """How a benchmark filled an input (``random``, ``safetensors`` for recorded tensors...)."""

    generator: Token


class ScalarValue(StrictModel):
    dtype: DType
    value: FiniteFloat


class WorkloadCaseSpec(StrictModel):
    operation: Slug
    # Variable axes; constant and derived ones may be written too (as the public KernelIndex's
    # workloads are), and must then equal the operation's values.
    axes: dict[AxisName, int] = Field(max_length=64)
    dtype: DType | None = Field(default=None, description="binds every `float` tensor of the operation")
    # Per input tensor, how its values were made: becomes that tensor's `data` in the canonical form.
    inputData: dict[AxisName, TensorData] | None = None
    # Scalar inputs' values, as the canonical form carries them.
    scalars: dict[AxisName, ScalarValue] | None = None
    correctness: Correctness


class WorkloadCase(Envelope):
    kind: Literal["WorkloadCase"]
    spec: WorkloadCaseSpec


class SuiteCase(StrictModel):
    externalId: str | None = Field(default=None, max_length=200)
    axes: dict[AxisName, int]


class Aggregation(StrictModel):
    metric: Token
    statistic: Token


class WorkloadSuiteSpec(StrictModel):
    operation: Slug
    cases: list[SuiteCase] = Field(min_length=1, max_length=1000)
    dtype: DType | None = None
    correctness: Correctness
    aggregation: Aggregation


class WorkloadSuite(Envelope):
    kind: Literal["WorkloadSuite"]
    spec: WorkloadSuiteSpec


# --------------------------------------------------------------------------------------------
# Software


class PackageRef(StrictModel):
    ecosystem: Token
    name: Annotated[str, Field(max_length=200)]


class ProjectHost(StrictModel):
    """Where the project lives by the host's own identifier (a leaderboard user, a repository)."""

    kind: Literal["github", "huggingface", "gitlab", "other"]
    id: Annotated[str, Field(max_length=300)]


class SoftwareProjectSpec(StrictModel):
    name: Annotated[str, Field(max_length=200)]
    kind: Literal["library", "individual", "vendor"] | None = None
    repository: HttpsUrl | None = None
    homepage: HttpsUrl | None = None
    host: ProjectHost | None = None
    packages: list[PackageRef] | None = None


class SoftwareProject(Envelope):
    kind: Literal["SoftwareProject"]
    spec: SoftwareProjectSpec


class ProjectRevision(StrictModel):
    repository: HttpsUrl | None = None
    commit: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] | None = None
    version: Annotated[str, Field(max_length=100)] | None = None


class Callable(StrictModel):
    language: Literal["triton", "python", "cuda", "cpp", "cute_dsl", "cutile", "tilelang", "unknown"]
    path: Annotated[str, Field(max_length=300)] | None = None
    symbol: Annotated[str, Field(max_length=200)] | None = None
    interface: Annotated[str, Field(max_length=100)] | None = None


class Support(StrictModel):
    hardwareArchitectures: list[Token] = Field(default_factory=list)
    dtypes: list[DType] = Field(default_factory=list)
    productsTested: list[Annotated[str, Field(max_length=200)]] | None = None


class SourceFile(StrictModel):
    """The identity of the implementation's source file (mirrored by its publisher): different code,
    a different revision."""

    contentDigest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]
    fileName: Annotated[str, Field(max_length=300)] | None = None
    sizeBytes: Annotated[int, Field(ge=0)] | None = None


class Install(StrictModel):
    kind: Literal["pip", "git", "package", "container", "source"]
    package: Annotated[str, Field(max_length=200)] | None = None
    version: Annotated[str, Field(max_length=100)] | None = None
    repository: HttpsUrl | None = None
    commit: Annotated[str, Field(max_length=64)] | None = None
    command: Annotated[str, Field(max_length=500)] | None = None


class BuildVariant(StrictModel):
    name: Token
    install: Install


class Licensing(StrictModel):
    declared: Annotated[str, Field(max_length=100)] | None = None
    concluded: Annotated[str, Field(max_length=100)] | None = None


class ImplementationRevisionSpec(StrictModel):
    # The project, as part of the revision's identity; or in metadata.project (see below).
    project: Slug | None = None
    operation: Slug
    projectRevision: ProjectRevision = Field(default_factory=ProjectRevision)
    callable: Callable
    support: Support | None = None
    source: SourceFile | None = None
    buildVariants: list[BuildVariant] | None = None
    licensing: Licensing = Field(default_factory=Licensing)


class ImplementationMetadata(Metadata):
    # The project when it is not part of the revision's identity: the public KernelIndex keeps an
    # implementation's project beside its manifest, so its digests cover no project, and an
    # imported revision names its project here to keep the export's digest.
    project: Slug | None = None


class ImplementationRevision(Envelope):
    kind: Literal["ImplementationRevision"]
    metadata: ImplementationMetadata
    spec: ImplementationRevisionSpec

    @model_validator(mode="after")
    def _one_project(self) -> "ImplementationRevision":
        if (self.spec.project is None) == (self.metadata.project is None):
            raise ValueError("name the project once: spec.project, or metadata.project to keep it out of the digest")
        return self

    @property
    def project_name(self) -> str:
        return self.spec.project or self.metadata.project  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# Protocols and environments


class Harness(StrictModel):
    name: Annotated[str, Field(max_length=200)]
    version: Annotated[str, Field(max_length=100)] | None = None
    repository: HttpsUrl | None = None
    commit: Annotated[str, Field(max_length=64)] | None = None


class Measurement(StrictModel):
    timer: Token
    primaryStatistic: Token
    synchronization: Token | None = None
    warmupIterations: Annotated[int, Field(ge=0)] | None = None
    measuredIterations: Annotated[int, Field(ge=1)] | None = None
    cacheFlush: Token | None = None
    cudaGraph: bool | None = None
    timedPass: Literal["forward", "backward", "full"] | None = None


class Comparability(StrictModel):
    family: Token
    notes: str | None = Field(default=None, max_length=4000)


class ProtocolCorrectness(StrictModel):
    reference: Annotated[str, Field(max_length=300)]
    comparator: Token


class BenchmarkProtocolSpec(StrictModel):
    harness: Harness
    measurement: Measurement
    correctness: ProtocolCorrectness | None = None
    comparability: Comparability | None = None


class BenchmarkProtocol(Envelope):
    kind: Literal["BenchmarkProtocol"]
    spec: BenchmarkProtocolSpec


class HardwareIdentity(StrictModel):
    vendor: Token
    product: Annotated[str, Field(max_length=200)]
    architecture: Token
    formFactor: Annotated[str, Field(max_length=100)] | None = None
    memoryBytes: Annotated[int, Field(ge=0)] | None = None
    count: Annotated[int, Field(ge=1)] | None = None


class Framework(StrictModel):
    name: Annotated[str, Field(max_length=100)]
    version: Annotated[str, Field(max_length=100)]


class Software(StrictModel):
    operatingSystem: Annotated[str, Field(max_length=200)] | None = None
    kernel: Annotated[str, Field(max_length=200)] | None = None
    driver: Annotated[str, Field(max_length=100)] | None = None
    cudaToolkit: Annotated[str, Field(max_length=100)] | None = None
    compiler: Annotated[str, Field(max_length=200)] | None = None
    framework: Framework | None = None
    libraries: dict[Token, Annotated[str, Field(max_length=100)]] | None = None


class ExecutionEnvironmentSpec(StrictModel):
    hardware: HardwareIdentity
    software: Software = Field(default_factory=Software)


class ExecutionEnvironment(Envelope):
    kind: Literal["ExecutionEnvironment"]
    spec: ExecutionEnvironmentSpec


# --------------------------------------------------------------------------------------------
# Runs

RUN_STATUSES = (
    "passed", "incorrect_shape", "incorrect_dtype", "incorrect_numerical", "compile_error",
    "runtime_error", "timeout", "resource_exceeded", "invalid_reference", "policy_violation",
    "suspected_reward_hack", "incomplete_evidence", "revoked",
)
RunStatus = Literal[
    "passed", "incorrect_shape", "incorrect_dtype", "incorrect_numerical", "compile_error",
    "runtime_error", "timeout", "resource_exceeded", "invalid_reference", "policy_violation",
    "suspected_reward_hack", "incomplete_evidence", "revoked",
]


class LatencyNs(StrictModel):
    median: DurationNs | None = None
    mean: DurationNs | None = None
    minimum: DurationNs | None = None
    maximum: DurationNs | None = None
    p20: DurationNs | None = None
    p80: DurationNs | None = None

    @model_validator(mode="after")
    def _ordered(self) -> "LatencyNs":
        if self.median is None and self.mean is None:
            raise ValueError("give a median or a mean")
        # Every run has one: test the order first, name the pair out of order only when it is not.
        values = [value for value in (self.minimum, self.p20, self.median, self.p80, self.maximum) if value is not None]
        if values == sorted(values):
            return self
        order = [("minimum", self.minimum), ("p20", self.p20), ("median", self.median), ("p80", self.p80), ("maximum", self.maximum)]
        present = [(name, value) for name, value in order if value is not None]
        for (low_name, low), (high_name, high) in zip(present, present[1:]):
            if low > high:
                raise LocatedValueError(f"{low_name} ({low} ns) is above {high_name} ({high} ns)", low_name)
        return self


class Timing(StrictModel):
    primaryStatistic: Literal["median", "mean"]
    latencyNs: LatencyNs
    samples: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _primary_present(self) -> "Timing":
        if getattr(self.latencyNs, self.primaryStatistic) is None:
            raise ValueError(f"primaryStatistic is {self.primaryStatistic} but latencyNs.{self.primaryStatistic} is missing")
        return self


class MeasurementValue(StrictModel):
    metric: Token
    statistic: Token
    unit: Annotated[str, Field(pattern=r"^[A-Za-z%/_]+$", max_length=20)]
    value: FiniteFloat
    sampleCount: Annotated[int, Field(ge=1)] | None = None

    @field_validator("value")
    @classmethod
    def _non_negative(cls, value: float) -> float:
        if value < 0:
            raise ValueError("a measurement cannot be negative")
        return value


class SourceNative(StrictModel):
    source: Slug
    benchmark: Annotated[str, Field(max_length=200)] | None = None
    externalId: Annotated[str, Field(max_length=300)] | None = None
    # Absent, not empty, when the source publishes none (as the public KernelIndex writes it).
    metrics: dict[Token, FiniteFloat] | None = None


class RunCorrectness(StrictModel):
    comparator: Token
    maximumAbsoluteError: Annotated[FiniteFloat, Field(ge=0)] | None = None
    maximumRelativeError: Annotated[FiniteFloat, Field(ge=0)] | None = None
    matchedRatio: Annotated[float, Field(ge=0, le=1)] | None = None
    inputsUnmodified: bool | None = None
    notes: str | None = Field(default=None, max_length=2000)


class Artifact(StrictModel):
    kind: Literal["log", "raw_samples", "trace", "source", "other"]
    url: HttpsUrl | None = None
    path: Annotated[str, Field(pattern=RELATIVE_PATH_PATTERN, max_length=300)] | None = None
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None


class LogReference(StrictModel):
    """A log kept by the publisher, by content digest (the public KernelIndex's failed-run logs)."""

    uri: Annotated[str, Field(max_length=500)]
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None


class Evidence(StrictModel):
    rawSamplesNs: list[Annotated[int, Field(ge=1)]] | None = Field(default=None, max_length=100_000)
    artifacts: list[Artifact] | None = None
    logs: LogReference | None = None


# Where a named statistic sits in a distribution (its percentile); the mean has no place and is
# only bounded by the extremes.
_PERCENTILE_NAMES = {"min": 0, "minimum": 0, "median": 50, "max": 100, "maximum": 100}
_TIMING_STATISTICS = (("minimum", "minimum"), ("p20", "p20"), ("median", "median"), ("p80", "p80"),
                      ("maximum", "maximum"), ("mean", "mean"))


@functools.lru_cache(maxsize=1024)  # every run names the same few statistics; a file can name at most a few hundred
def _percentile(statistic: str) -> float | None:
    if statistic in _PERCENTILE_NAMES:
        return _PERCENTILE_NAMES[statistic]
    if len(statistic) > 1 and statistic[0] == "p" and statistic[1:].replace("_", ".", 1).replace(".", "", 1).isdigit():
        value = float(statistic[1:].replace("_", "."))
        return value if 0 <= value <= 100 else None
    return None


def statistics_out_of_order(timing: "Timing | None",
                            measurements: Sequence["MeasurementValue"]) -> tuple[str, tuple[str | int, ...]] | None:
    """The first contradiction among one run's statistics of one (metric, unit), in words, with where
    the later of the two sits (keys and indexes below the run's spec); else None."""
    if not measurements and (timing is None or _mean_within_extremes(timing.latencyNs)):
        return None  # nearly every run: LatencyNs keeps its percentiles in order itself, which leaves its mean
    groups: dict[tuple[str, str], list[tuple[str, str, float]]] = {}  # (metric, unit) -> (where, statistic, value)
    if timing is not None:
        latency = timing.latencyNs
        for field_name, statistic in _TIMING_STATISTICS:
            value = getattr(latency, field_name)
            if value is not None:
                groups.setdefault(("latency", "ns"), []).append(
                (("timing", "latencyNs", field_name), statistic, value))
    for index, measurement in enumerate(measurements):
        groups.setdefault((measurement.metric, measurement.unit), []).append(
            (("measurements", index, "value"), measurement.statistic, measurement.value))
    for (metric, unit), entries in groups.items():
        if len(entries) < 2:
            continue
        ranked = sorted(((rank, where, statistic, value) for where, statistic, value in entries
                         if (rank := _percentile(statistic)) is not None), key=lambda item: item[0])
        if _inverted(ranked):
            return _first_inversion(metric, unit, ranked)
        lowest = [value for rank, _, _, value in ranked if rank == 0]
        highest = [value for rank, _, _, value in ranked if rank == 100]
        for where, statistic, value in entries:
            if statistic == "mean" and (any(value < low for low in lowest) or any(value > high for high in highest)):
                return f"{metric} mean ({value:g} {unit}, {_dotted(where)}) lies outside the run's minimum and maximum", where
    return None


def _mean_within_extremes(latency: LatencyNs) -> bool:
    mean = latency.mean
    return mean is None or ((latency.minimum is None or mean >= latency.minimum)
                            and (latency.maximum is None or mean <= latency.maximum))


def _inverted(ranked: list[tuple[float, tuple, str, float]]) -> bool:
    """Whether a lower percentile holds a larger value than a higher one, in one pass over entries
    sorted by percentile: every run is checked at every load, and nearly all are in order, so the
    pairwise search that names the first contradiction runs only when this finds one."""
    below = current = -math.inf  # the largest value of the lower percentiles; of this one
    rank_now = None
    for rank, _, _, value in ranked:
        if rank != rank_now:
            below, current, rank_now = max(below, current), value, rank
        else:
            current = max(current, value)
        if value < below:
            return True
    return False


def _first_inversion(metric: str, unit: str, ranked: list[tuple[float, tuple, str, float]]) -> tuple[str, tuple]:
    """The first pair of ``ranked`` (sorted by percentile) whose lower percentile holds the larger
    value, in words, with where the later of the two sits; ``_inverted`` said there is one."""
    for position, (low_rank, low_where, low_stat, low) in enumerate(ranked):
        for high_rank, high_where, high_stat, high in ranked[position + 1:]:
            if low_rank < high_rank and low > high:
                later = max(low_where, high_where, key=_position)
                return (f"{metric} {low_stat} ({low:g} {unit}, {_dotted(low_where)}) is above "
                        f"{metric} {high_stat} ({high:g} {unit}, {_dotted(high_where)})", later)
    raise AssertionError("_inverted found a pair out of order that the pairwise search did not")


def _dotted(where: tuple[str | int, ...]) -> str:
    return ".".join(f"[{part}]" if isinstance(part, int) else part for part in where).replace(".[", "[")


def _position(where: tuple[str | int, ...]) -> tuple[int, int]:
    # Timing comes before measurements in a run file; among measurements, file order.
    return (0, 0) if where[0] == "timing" else (1, where[1])  # type: ignore[return-value]


class RunPrecision(StrictModel):
    reducedModes: list[PrecisionMode] = Field(
        default_factory=list, max_length=8,
        description="the reduced-precision modes the run used (e.g. tf32 for TF32 matrix products on fp32 data); empty: strict")
    notes: str | None = Field(default=None, max_length=500, description="where the modes apply (which products)")


class BenchmarkRunSpec(StrictModel):
    implementation: Slug
    workload: Slug
    protocol: Slug
    environment: Slug
    status: RunStatus
    timing: Timing | None = None
    measurements: list[MeasurementValue] | None = None
    sourceNative: SourceNative | None = None
    correctness: RunCorrectness | None = None
    evidence: Evidence | None = None
    supersedes: Slug | None = None
    # Absent: not declared (most imported runs). The harness always declares it.
    precision: RunPrecision | None = None
    observedAt: UtcDateTime

    @model_validator(mode="after")
    def _statistics_ordered(self) -> "BenchmarkRunSpec":
        """One run's statistics of one quantity cannot contradict each other: a p20 above the median,
        a minimum above a p80 or a mean outside [minimum, maximum] is a typo or a swapped column.
        Timing counts as the quantity (latency, ns) alongside measurements of it."""
        problem = statistics_out_of_order(self.timing, self.measurements or ())
        if problem:
            message, where = problem
            raise LocatedValueError(message, *where)
        return self

    @field_validator("observedAt")
    @classmethod
    def _not_ancient(cls, value: datetime) -> datetime:
        # No GPU kernel benchmark predates 2000: such a date is a typo or an epoch of 0.
        if value < EARLIEST_OBSERVATION:
            raise ValueError(f"{format_utc(value)} is before {EARLIEST_OBSERVATION.date().isoformat()}: check the date")
        return value


class Attestation(StrictModel):
    kind: Literal["reproduced", "could_not_reproduce", "environment_note", "regression", "note"]
    author: Annotated[str, Field(max_length=100)]
    date: IsoDate
    note: str = Field(max_length=2000)


class Retraction(StrictModel):
    date: IsoDate
    reason: str = Field(max_length=2000)


class RunMetadata(Metadata):
    attestations: list[Attestation] = Field(default_factory=list, max_length=100)
    retraction: Retraction | None = None


class BenchmarkRun(Envelope):
    kind: Literal["BenchmarkRun"]
    metadata: RunMetadata
    spec: BenchmarkRunSpec


# --------------------------------------------------------------------------------------------
# Ours: hardware datasheets and sources


class Citation(StrictModel):
    source: Slug
    note: str | None = Field(default=None, max_length=500)


class CitedRate(StrictModel):
    value: Annotated[FiniteFloat, Field(gt=0)]
    cite: Citation


class HardwareMatch(StrictModel):
    product: Annotated[str, Field(max_length=200)]
    formFactor: Annotated[str, Field(max_length=100)] | None = None


class HardwareSpec(StrictModel):
    vendor: Token
    product: Annotated[str, Field(max_length=200)]
    architecture: Token
    memory: Annotated[str, Field(max_length=100)]
    # Environments whose hardware identity matches one of these use this datasheet for floors.
    matches: list[HardwareMatch] = Field(min_length=1)
    bandwidthGBps: CitedRate
    # Dense peaks (no 2:4 sparsity), TFLOP/s, per operand class.
    peakTflops: dict[Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4"], CitedRate]
    priority: bool = False


class Hardware(Envelope):
    kind: Literal["Hardware"]
    spec: HardwareSpec


class SourceSpec(StrictModel):
    title: Annotated[str, Field(max_length=300)]
    url: HttpsUrl
    license: Annotated[str, Field(max_length=100)] | None = None
    retrieved: IsoDate
    publisher: Annotated[str, Field(max_length=200)] | None = None
    # What the source's terms allow and ask, in its own words where it states them.
    terms: Annotated[str, Field(max_length=2000)] | None = None
    # The credit every page using the source's data shows.
    attribution: Annotated[str, Field(max_length=300)] | None = None


class Source(Envelope):
    kind: Literal["Source"]
    spec: SourceSpec


KIND_MODELS: dict[str, type[Envelope]] = {
    model.model_fields["kind"].annotation.__args__[0]: model  # type: ignore[union-attr]
    for model in (
        OperationSpec, WorkloadCase, WorkloadSuite, SoftwareProject, ImplementationRevision,
        BenchmarkProtocol, ExecutionEnvironment, BenchmarkRun, Hardware, Source,
    )
}

# The folder under data/ that holds each kind; a file elsewhere is an error.
KIND_FOLDERS: dict[str, str] = {
    "OperationSpec": "kernels",
    "WorkloadCase": "workloads",
    "WorkloadSuite": "workloads",
    "SoftwareProject": "projects",
    "ImplementationRevision": "implementations",
    "BenchmarkProtocol": "protocols",
    "ExecutionEnvironment": "environments",
    "BenchmarkRun": "runs",
    "Hardware": "hardware",
    "Source": "sources",
}


def model_for(kind: Any) -> type[Envelope] | None:
    return KIND_MODELS.get(kind) if isinstance(kind, str) else None
