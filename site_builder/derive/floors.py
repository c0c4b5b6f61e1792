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


def headroom_v1_bytes(inputs: Mapping[str, Mapping], declared: Sequence[str] | None) -> int:
    """Bytes of the inputs the public KernelIndex declared (all inputs when it declared them all)."""
    names = list(inputs) if declared is None else [name for name in declared if name in inputs]
    return total_bytes(inputs[name] for name in names)


def headroom_v1_ns(inputs: Mapping[str, Mapping], declared: Sequence[str] | None, bandwidth_gbps: float) -> int:
    """headroom-v1 as published: rounded to an integer number of nanoseconds."""
    return round(headroom_v1_bytes(inputs, declared) / bandwidth_gbps)


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
    headroom_v1_ns: int  # rounded, exactly as the public site publishes it
    bytes: int  # inputs and outputs once
    memory_ns: float
    flops: int | None = None
    flops_dtype: str | None = None
    peak_tflops: float | None = None
    arithmetic_ns: float | None = None

    @property
    def truthful_ns(self) -> float:
        return max(self.memory_ns, self.arithmetic_ns or 0.0)

    @property
    def bound(self) -> str:
        return "arithmetic" if self.arithmetic_ns is not None and self.arithmetic_ns >= self.memory_ns else "memory"


def workload_floor(*, hardware: str, bandwidth_gbps: float, inputs: Mapping[str, Mapping], outputs: Mapping[str, Mapping],
                   headroom_inputs: Sequence[str] | None, flops: int | None = None, flops_dtype: str | None = None,
                   peak_tflops: Mapping[str, float] | None = None) -> Floor:
    """Both floors of a single-case workload. ``peak_tflops``: dense peak per operand class."""
    return floor_of_bytes(hardware=hardware, bandwidth_gbps=bandwidth_gbps,
                          byte_counts=workload_bytes(inputs, outputs, headroom_inputs),
                          flops=flops, flops_dtype=flops_dtype, peak_tflops=peak_tflops)


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
    """``workload_floor`` given the workload's ``workload_bytes``."""
    v1_bytes, all_bytes = byte_counts
    peak = (peak_tflops or {}).get(flops_dtype) if flops is not None and flops_dtype else None
    # Positional, in Floor's order (hardware, bandwidth, headroom-v1 bytes and ns, bytes, memory ns,
    # flops, their dtype, peak, arithmetic ns): 20,000 floors at 100,000 runs.
    return Floor(hardware, bandwidth_gbps, v1_bytes, round(v1_bytes / bandwidth_gbps), all_bytes,
                 memory_floor_ns(all_bytes, bandwidth_gbps), flops, flops_dtype, peak,
                 arithmetic_floor_ns(flops, peak) if flops is not None and peak else None)


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
