"""Physical floors: how fast a workload could possibly run on a GPU, from its datasheet.

Two floors, kept apart on purpose:

* ``headroom-v1`` reproduces the public KernelIndex's published estimate exactly. Its text says
  every declared tensor crosses memory once, but it counts only the inputs the public site
  declared (seed: 41,943,040 B of q and k over 3,350 GB/s = 12.5 µs for Llama 4 RoPE). We publish
  it as is, so figures can be compared with theirs, and say what it counts.
* The truthful floor counts every input and every output once, and takes the larger of that
  memory time and the arithmetic time (FLOPs over the dense peak) where the kernel declares a FLOP
  formula. It is the floor used to flag implausible runs.

Bytes over GB/s is nanoseconds directly (1 GB/s = 1 B/ns).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from schemas.shapes import tensor_bytes

HEADROOM_POLICY = "headroom-v1"


def total_bytes(tensors: Iterable[Mapping]) -> int:
    return int(sum(tensor_bytes(tensor) for tensor in tensors))


def headroom_v1_inputs(names: Iterable[str], declared: Sequence[str] | None) -> list[str]:
    """The inputs of ``names`` (in their order) that headroom-v1 counts: those the public KernelIndex
    declared (``headroomV1Inputs``), or every one where it declared none."""
    return [name for name in names if declared is None or name in declared]


def headroom_v1_bytes(inputs: Mapping[str, Mapping], declared: Sequence[str] | None) -> int:
    """Bytes of the inputs headroom-v1 counts (``headroom_v1_inputs``)."""
    return total_bytes(inputs[name] for name in headroom_v1_inputs(inputs, declared))


def memory_floor_ns(byte_count: int, bandwidth_gbps: float) -> float:
    return byte_count / bandwidth_gbps


def arithmetic_floor_ns(flops: int, peak_tflops: float) -> float:
    """FLOPs over the dense peak; 1 TFLOP/s = 1,000 FLOP/ns."""
    return flops / (peak_tflops * 1e3)


@dataclass(unsafe_hash=True, slots=True)  # not frozen: 20,000 floors at 100,000 runs (see RunFacts)
class Floor:
    """The floors of one workload on one datasheet, unrounded (pages round when they print)."""

    hardware: str  # the datasheet's name
    bandwidth_gbps: float
    headroom_v1_bytes: int
    headroom_v1_ns: int  # rounded, exactly as the public site publishes it (``headroom_v1_unrounded_ns``)
    bytes: int  # inputs and outputs once
    memory_ns: float
    flops: int | None = None
    flops_dtype: str | None = None
    peak_tflops: float | None = None
    arithmetic_ns: float | None = None

    @property
    def headroom_v1_unrounded_ns(self) -> float:
        """headroom-v1 before the public site's rounding: what "record N× above it" divides by."""
        return memory_floor_ns(self.headroom_v1_bytes, self.bandwidth_gbps)

    @property
    def truthful_ns(self) -> float:
        return max(self.memory_ns, self.arithmetic_ns or 0.0)

    @property
    def bound(self) -> str:
        return "arithmetic" if self.arithmetic_ns is not None and self.arithmetic_ns >= self.memory_ns else "memory"


def workload_bytes(inputs: Mapping[str, Mapping], outputs: Mapping[str, Mapping], headroom_inputs: Sequence[str] | None,
                   excluded: Sequence[str] | None = None) -> tuple[int, int]:
    """(headroom-v1 bytes, bytes of every input and output): what a workload's floors count of its
    tensors on any GPU (one count per workload, not per workload and GPU). ``excluded``: inputs the
    kernel need not read in full (a gather's table), left out so the floor stays a lower bound."""
    skip = set(excluded or ())
    counted = [tensor for name, tensor in inputs.items() if name not in skip] + list(outputs.values())
    return headroom_v1_bytes(inputs, headroom_inputs), total_bytes(counted)


def floor_of_bytes(*, hardware: str, bandwidth_gbps: float, byte_counts: tuple[int, int], flops: int | None = None,
                   flops_dtype: str | None = None, peak_tflops: Mapping[str, float] | None = None) -> Floor:
    """Both floors of a single-case workload, given its ``workload_bytes``. ``peak_tflops``: dense
    peak per operand class."""
    v1_bytes, all_bytes = byte_counts
    peak = (peak_tflops or {}).get(flops_dtype) if flops is not None and flops_dtype else None
    # Positional, in Floor's order (hardware, bandwidth, headroom-v1 bytes and ns, bytes, memory ns,
    # flops, their dtype, peak, arithmetic ns): 20,000 floors at 100,000 runs.
    return Floor(hardware, bandwidth_gbps, v1_bytes, round(memory_floor_ns(v1_bytes, bandwidth_gbps)), all_bytes,
                 memory_floor_ns(all_bytes, bandwidth_gbps), flops, flops_dtype, peak,
                 arithmetic_floor_ns(flops, peak) if flops is not None and peak else None)


# How a suite's case floors bound its primary value. A sum of the cases' latencies is at least the
# sum of their floors. A "mean" is held only to its smallest case floor: whatever average a source
# takes (arithmetic, geometric, harmonic, a median), it is no less than its smallest term, and
# SOL-ExecBench, whose suites are nearly all of ours, does not document which one its suite
# latency is (the public KernelIndex calls it a mean; 45 of its record runs sat under the
# arithmetic mean of their cases' floors, as a geometric mean can). A weak floor, but a true one.
SUITE_COMBINERS = {"mean": min, "sum": sum}


def suite_floor(case_floors: list[Floor], statistic: str) -> Floor | None:
    """One floor for a suite aggregated by ``statistic`` from its cases' floors (``SUITE_COMBINERS``);
    None where the statistic has no combiner. Memory and arithmetic floors are combined apart, and
    the truthful floor is the larger of the two combinations: no more than the combination of each
    case's larger floor, so still a lower bound."""
    combine = SUITE_COMBINERS.get(statistic)
    if combine is None or not case_floors:
        return None
    first = case_floors[0]
    v1_bytes = round(combine([floor.headroom_v1_bytes for floor in case_floors]))
    arithmetic = [floor.arithmetic_ns for floor in case_floors]
    flops = [floor.flops for floor in case_floors]
    return Floor(first.hardware, first.bandwidth_gbps, v1_bytes, round(memory_floor_ns(v1_bytes, first.bandwidth_gbps)),
                 round(combine([floor.bytes for floor in case_floors])),
                 combine([floor.memory_ns for floor in case_floors]),
                 round(combine(flops)) if None not in flops else None, first.flops_dtype, first.peak_tflops,
                 combine(arithmetic) if None not in arithmetic else None)


def floor_for_pass(floor: Floor, timed_pass: str | None) -> Floor:
    """The floor a group timing ``timed_pass`` is held to.

    Floors count the operation's forward computation: its tensors and its FLOPs. A forward or a
    full pass (forward then backward) does at least that. A backward pass alone need not: Liger's
    fused losses compute the gradient GEMMs inside the forward and their backward only hands them
    back, so the forward's arithmetic does not bound it. It keeps the memory floor (its inputs and
    outputs cross memory once, as the gradients of the same shapes must) and drops the arithmetic.
    """
    if timed_pass != "backward" or floor.flops is None:
        return floor
    return Floor(floor.hardware, floor.bandwidth_gbps, floor.headroom_v1_bytes, floor.headroom_v1_ns, floor.bytes,
                 floor.memory_ns)


def no_floor_reason(*, metric: str | None, suite: bool, declared: bool, datasheet: bool, gpu: str,
                    byte_count: int | None = None) -> str | None:
    """Why a comparison group has no floor, in words a reader can act on; None when it has one."""
    if metric is None:
        return "the group's runs publish no primary value to hold to a floor"
    if not metric.endswith(":ns"):
        return f"the group ranks {metric.split(':', 1)[0]}, not a time; floors are times"
    if suite:
        return "the workload is a suite whose cases leave sizes open or combine by a statistic no floor combines through"
    if not declared:
        return "the kernel awaits a declaration: its tensors and their shapes are unknown, so there is nothing to count"
    if not datasheet:
        return f"no datasheet matches {gpu}, so there is no bandwidth or peak to divide by"
    if byte_count == 0:
        return "the kernel's declared tensors hold no bytes"
    return None


def times_above(value_ns: float, floor_ns: float) -> float:
    """"record N× above it", from unrounded values."""
    return value_ns / floor_ns


@dataclass(frozen=True, slots=True)
class DatasheetMatch:
    name: str
    product: str
    form_factor: str | None


def match_datasheet(product: str, form_factor: str | None, matches: Iterable[DatasheetMatch]) -> str | None:
    """The datasheet for a GPU identity: product must match (case-insensitive), and a match that
    names a form factor beats one that does not (so an H100 PCIe never gets the SXM bandwidth)."""
    best: tuple[int, str] | None = None
    for match in matches:
        if match.product.casefold() != product.casefold():
            continue
        if match.form_factor is not None:
            if form_factor is None or match.form_factor.casefold() != form_factor.casefold():
                continue
            specificity = 2
        else:
            specificity = 1
        if best is None or (specificity, match.name) > best:
            best = (specificity, match.name)
    return best[1] if best else None
