"""Derived figures of the KernelBench pages: pure functions of run values, no I/O."""

from __future__ import annotations

import math
from collections.abc import Iterable

# The order configurations are shown in: eager first (the baseline), then torch.compile modes
# from the plainest to the most aggressive; configurations not listed follow by name.
CONFIG_ORDER = ("eager", "unrecorded", "default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune",
                "cudagraphs")
# GPUs from the oldest and smallest to the newest (T4 -> B200), by the datasheet or product name.
GPU_ORDER = ("t4", "a10g", "a10", "l4", "a100-40gb-sxm", "a100-80gb-sxm", "l40s", "h100-pcie", "h100-sxm", "h200",
             "b200")


def config_rank(mode: str) -> tuple[int, str]:
    return (CONFIG_ORDER.index(mode), mode) if mode in CONFIG_ORDER else (len(CONFIG_ORDER), mode)


def gpu_rank(datasheet: str | None, label: str) -> tuple[int, str]:
    return (GPU_ORDER.index(datasheet), label) if datasheet in GPU_ORDER else (len(GPU_ORDER), label)


def speedup(eager_ns: float, compiled_ns: float) -> float:
    """How many times faster the compiled model ran than eager: above 1 is faster, below slower."""
    if eager_ns <= 0 or compiled_ns <= 0:
        raise ValueError("times must be positive")
    return eager_ns / compiled_ns


def geometric_mean(values: Iterable[float]) -> float | None:
    """The geometric mean (the right average of ratios), or None for no values."""
    logs = [math.log(value) for value in values]
    return math.exp(sum(logs) / len(logs)) if logs else None
