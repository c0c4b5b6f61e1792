"""The authoring form of every kind: what people write in ``data/``.

Files name each other by slug (``operation: llama4-rope``); the builder resolves those names and
produces the canonical form (``schemas.canonical``), where references are digests. Every model is
strict: unknown keys are errors.
"""

from __future__ import annotations

from datetime import datetime, timezone
from enum import Enum
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


class OperationSpecSpec(StrictModel):
    family: Slug
    axes: dict[AxisName, Axis] = Field(max_length=64)
    inputs: list[Argument] = Field(min_length=1, max_length=64)
    outputs: list[Argument] = Field(min_length=1, max_length=64)
    semantics: Semantics = Field(default_factory=Semantics)

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


class Correctness(StrictModel):
    comparator: Token
    maxAbsoluteError: Annotated[float, Field(ge=0)] | None = None
    maxRelativeError: Annotated[float, Field(ge=0)] | None = None
    requiredMatchedRatio: Annotated[float, Field(ge=0, le=1)] | None = None
    description: str | None = Field(default=None, max_length=2000)


class ConcreteTensor(StrictModel):
    shape: list[Annotated[int, Field(ge=0)]] = Field(max_length=8)
    dtype: DType

    @field_validator("dtype")
    @classmethod
    def _concrete(cls, value: DType) -> DType:
        if value is DType.float:
            raise ValueError("a workload tensor needs a concrete dtype, not 'float'")
        return value


class WorkloadCaseSpec(StrictModel):
    operation: Slug
    axes: dict[AxisName, int] = Field(max_length=64)
    dtype: DType | None = Field(default=None, description="binds every `float` tensor of the operation")
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


class SoftwareProjectSpec(StrictModel):
    name: Annotated[str, Field(max_length=200)]
    kind: Literal["library", "individual", "vendor"] | None = None
    repository: HttpsUrl | None = None
    homepage: HttpsUrl | None = None
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
    project: Slug
    operation: Slug
    projectRevision: ProjectRevision = Field(default_factory=ProjectRevision)
    callable: Callable
    support: Support | None = None
    buildVariants: list[BuildVariant] | None = None
    licensing: Licensing = Field(default_factory=Licensing)


class ImplementationRevision(Envelope):
    kind: Literal["ImplementationRevision"]
    spec: ImplementationRevisionSpec


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


class BenchmarkProtocolSpec(StrictModel):
    harness: Harness
    measurement: Measurement
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
                raise ValueError(f"{low_name} ({low} ns) is above {high_name} ({high} ns)")
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
    metrics: dict[Token, FiniteFloat] = Field(default_factory=dict)


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


class Evidence(StrictModel):
    rawSamplesNs: list[Annotated[int, Field(ge=1)]] | None = Field(default=None, max_length=100_000)
    artifacts: list[Artifact] | None = None


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
    observedAt: UtcDateTime

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
