"""Statistics of one measurement: samples in ns, the summary a run records, and when to stop.

``harness.timing.summarize`` defines median/p20/p80 (linear interpolation, numpy's default),
mean, min and count; this module converts them to the integer nanoseconds run files hold.
"""

from __future__ import annotations

import math
from typing import Sequence


def to_ns(samples_ms: Sequence[float]) -> list[int]:
    """CUDA events report milliseconds as floats (0.5 µs resolution); run files hold integer ns >= 1."""
    return [max(1, int(round(ms * 1e6))) for ms in samples_ms]


def summary_ns(samples_ns: Sequence[int]) -> dict[str, int]:
    """median, p20, p80, mean, minimum, maximum (integer ns) and count."""
    from .timing import summarize

    stats = summarize(samples_ns)
    rounded = {key: max(1, int(round(stats[key]))) for key in ("median", "p20", "p80", "mean")}
    return {**rounded, "minimum": int(min(samples_ns)), "maximum": int(max(samples_ns)), "count": len(samples_ns)}


def median_interval(samples: Sequence[float], z: float = 1.96) -> tuple[float, float]:
    """Distribution-free ~95% interval of the median from order statistics (no normality assumed:
    GPU timings are skewed, with a long tail from clock changes and interference)."""
    xs = sorted(samples)
    n = len(xs)
    if n < 3:
        return (xs[0], xs[-1]) if xs else (math.nan, math.nan)
    half = z * math.sqrt(n) / 2
    lo = max(0, int(math.floor(n / 2 - half)))
    hi = min(n - 1, int(math.ceil(n / 2 + half)))
    return xs[lo], xs[hi]


def median_is_stable(samples: Sequence[float], rel: float) -> bool:
    """True when the median's interval is narrower than ``rel`` of the median."""
    lo, hi = median_interval(samples)
    xs = sorted(samples)
    if not xs:
        return False
    median = xs[len(xs) // 2]
    return median > 0 and (hi - lo) / median <= rel


def suite_mean_ns(case_medians_ns: Sequence[int]) -> int:
    """A suite's latency: the mean over its cases of each case's median (SOL-ExecBench's aggregate)."""
    return max(1, int(round(sum(case_medians_ns) / len(case_medians_ns))))
