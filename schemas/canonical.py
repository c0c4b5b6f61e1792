"""The canonical form: references replaced by digests. This is what digests cover and mirrors publish.

Only kinds that refer to other files differ from their authoring form; the others are canonical
as written (after normalisation: durations in ns, timestamps in UTC, set-like lists sorted).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .common import Digest, DType, Metadata, StrictModel, UtcDateTime
from .kinds import (
    Aggregation,
    BenchmarkProtocolSpec,
    BuildVariant,
    Callable,
    ConcreteTensor,
    Correctness,
    Envelope,
    Evidence,
    ExecutionEnvironmentSpec,
    HardwareSpec,
    ImplementationMetadata,
    KernelMetadata,
    Licensing,
    MeasurementValue,
    OperationSpecSpec,
    ProjectRevision,
    RunCorrectness,
    RunMetadata,
    RunPrecision,
    RunStatus,
    ScalarValue,
    SoftwareProjectSpec,
    SourceFile,
    SourceNative,
    SourceSpec,
    SuiteCase,
    Support,
    TensorData,
    Timing,
)


class CanonicalTensor(ConcreteTensor):
    data: TensorData | None = None


class CanonicalWorkloadCaseSpec(StrictModel):
    operationSpecDigest: Digest
    axes: dict[str, int]
    # The operation's inputs, with concrete shapes and dtypes (outputs follow from the operation).
    tensors: dict[str, CanonicalTensor]
    scalars: dict[str, ScalarValue] | None = None
    correctness: Correctness


class CanonicalWorkloadSuiteSpec(StrictModel):
    operationSpecDigest: Digest
    cases: list[SuiteCase]
    dtype: DType | None = None
    correctness: Correctness
    aggregation: Aggregation


class OperationRef(StrictModel):
    specDigest: Digest


class CanonicalImplementationRevisionSpec(StrictModel):
    # Absent when the authoring file names its project in metadata (kinds.ImplementationMetadata).
    projectDigest: Digest | None = None
    operation: OperationRef
    projectRevision: ProjectRevision
    callable: Callable
    support: Support | None = None
    source: SourceFile | None = None
    buildVariants: list[BuildVariant] | None = None
    licensing: Licensing


class CanonicalBenchmarkRunSpec(StrictModel):
    implementationDigest: Digest
    workloadDigest: Digest
    protocolDigest: Digest
    environmentDigest: Digest
    status: RunStatus
    timing: Timing | None = None
    measurements: list[MeasurementValue] | None = None
    sourceNative: SourceNative | None = None
    correctness: RunCorrectness | None = None
    evidence: Evidence | None = None
    supersedesDigest: Digest | None = None
    precision: RunPrecision | None = None
    observedAt: UtcDateTime


def _canonical(kind: str, spec: type[BaseModel], metadata: type[BaseModel] = Metadata) -> type[Envelope]:
    return type(
        f"Canonical{kind}",
        (Envelope,),
        {
            "__annotations__": {"kind": Literal[kind], "metadata": metadata, "spec": spec},  # type: ignore[valid-type]
            "__module__": __name__,
        },
    )


CANONICAL_MODELS: dict[str, type[Envelope]] = {
    "OperationSpec": _canonical("OperationSpec", OperationSpecSpec, KernelMetadata),
    "WorkloadCase": _canonical("WorkloadCase", CanonicalWorkloadCaseSpec),
    "WorkloadSuite": _canonical("WorkloadSuite", CanonicalWorkloadSuiteSpec),
    "SoftwareProject": _canonical("SoftwareProject", SoftwareProjectSpec),
    "ImplementationRevision": _canonical("ImplementationRevision", CanonicalImplementationRevisionSpec,
                                         ImplementationMetadata),
    "BenchmarkProtocol": _canonical("BenchmarkProtocol", BenchmarkProtocolSpec),
    "ExecutionEnvironment": _canonical("ExecutionEnvironment", ExecutionEnvironmentSpec),
    "BenchmarkRun": _canonical("BenchmarkRun", CanonicalBenchmarkRunSpec, RunMetadata),
    "Hardware": _canonical("Hardware", HardwareSpec),
    "Source": _canonical("Source", SourceSpec),
}

__all__ = ["CANONICAL_MODELS", "Field"]
