"""What a sweep measures: a list of tasks, each one (kernel, workload, implementation, pass, protocol).

A task is plain data (JSON-serialisable) so the parent process can hand it to a worker process on
another GPU and get a result back for the same key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PASSES = ("forward", "backward", "full")
PROTOCOL_BASE = "kernelindex-harness-v1"
HARNESS_SOURCE = "kernelindex-harness"


def protocol_name(timed_pass: str, cuda_graph: bool) -> str:
    """One protocol per timed pass and timing mode: the comparison group includes the protocol, so
    forward and backward (or event-timed and graph-replayed) runs are never ranked together."""
    name = PROTOCOL_BASE + ("-cudagraph" if cuda_graph else "")
    return name if timed_pass == "forward" else f"{name}-{timed_pass}"


@dataclass(frozen=True)
class Task:
    kernel: str              # OperationSpec slug == kernels.FAMILIES key
    workload: str            # WorkloadCase slug
    axes: dict               # family-level axes (constants included, data names aliased)
    dtype: str               # torch dtype name, e.g. "bfloat16"
    impl: str                # key in family.implementations, e.g. "liger"
    implementation: str      # ImplementationRevision slug, e.g. "liger-llama4-rope"
    timed_pass: str          # forward | backward | full
    cuda_graph: bool = False
    suite: str | None = None  # the WorkloadSuite this case belongs to, if any
    case_index: int | None = None
    variant: str = ""        # another precision setting of the implementation (kernels.precision.VARIANTS)

    @property
    def protocol(self) -> str:
        return protocol_name(self.timed_pass, self.cuda_graph)

    @property
    def key(self) -> str:
        key = f"{self.kernel}/{self.workload}/{self.implementation}/{self.protocol}"
        return f"{key}/{self.variant}" if self.variant else key

    @property
    def group(self) -> tuple[str, str, str, bool]:
        """Tasks of one group share compiled code (Triton JIT, torch.compile graphs): a worker that
        stays in one group compiles once."""
        return (self.kernel, self.impl, self.timed_pass, self.cuda_graph)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Task":
        return cls(**data)


@dataclass(frozen=True)
class SuiteRef:
    """A suite measured in this sweep: its cases' workloads, in the suite's order."""

    kernel: str
    suite: str
    cases: tuple[str, ...]
    statistic: str = "mean"


@dataclass
class TimingOptions:
    warmup: int = 5
    target_ms: float = 100.0   # samples per measurement fill about this much GPU time...
    min_reps: int = 20         # ...but never fewer than this many samples
    max_reps: int = 400
    max_rounds: int = 3        # extra rounds while the median's 95% interval is wider than...
    stable_rel: float = 0.01   # ...this fraction of the median
    flush_l2: bool = True
    # A GPU spin before every sample keeps the GPU busy while the host launches the call, so the
    # events bracket device time only (benchmarks/kernels_bench.py does the same): at least this
    # many µs, and at least spin_over_host times the call's measured host enqueue time.
    hide_host_us: float = 250.0
    spin_over_host: float = 3.0
    # Samples whose start event had already passed when the call was enqueued are host-bound: if
    # more than this fraction are, the measurement is repeated with twice the spin, up to...
    host_bound_rel: float = 0.05
    max_hide_host_us: float = 16000.0   # ...this spin; what remains is recorded on the run
    backend: str = "cuda"      # "cpu" only for tests and dry pipelines
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Plan:
    tasks: list[Task]
    suites: list[SuiteRef] = field(default_factory=list)
    timing: TimingOptions = field(default_factory=TimingOptions)
    # Workload cases the sweep needs that data/ lacks (suite cases): name -> file body.
    new_workloads: dict[str, dict] = field(default_factory=dict)
    # Implementations the sweep needs that data/ lacks: name -> file body.
    new_implementations: dict[str, dict] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)   # why something asked for is not measured
