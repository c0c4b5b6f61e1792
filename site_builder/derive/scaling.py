"""Scaling series: how each implementation's time grows along one workload axis.

Everything but one axis is held fixed: the cohort's protocol and environment, the metric, the
dtype and every other bound axis. The axis drawn is the one with the most distinct measured values
(at least three); on a tie the axis the operation declares first wins. One series per
implementation, its best run per workload, at most five series.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MIN_DISTINCT_VALUES = 3
MAX_SERIES = 5
MIN_POINTS_PER_SERIES = 2


@dataclass(frozen=True, slots=True)
class ScalingInput:
    """One eligible run already known to share the anchor's protocol, environment, metric and dtype."""

    axes: Mapping[str, int]  # the workload's bound axes
    implementation: str
    value_ns: float
    run: str
    workload: str


@dataclass(frozen=True, slots=True)
class ScalingPoint:
    x: int
    value_ns: float
    run: str
    workload: str


@dataclass(frozen=True, slots=True)
class ScalingSeries:
    implementation: str
    points: tuple[ScalingPoint, ...]  # ascending x


@dataclass(frozen=True, slots=True)
class Scaling:
    axis: str
    fixed: dict[str, int]  # the other axes, at the anchor's values
    series: tuple[ScalingSeries, ...]
    overflow: int  # series left out beyond MAX_SERIES


def _differing_axes(axes: Mapping[str, int], anchor: Mapping[str, int]) -> list[str] | None:
    """The axes on which a workload differs from the anchor; None when it binds other axes."""
    if axes.keys() != anchor.keys():
        return None
    return [name for name, value in anchor.items() if axes[name] != value]


def choose_axis(anchor: Mapping[str, int], measured: Sequence[Mapping[str, int]], axis_order: Sequence[str]) -> str | None:
    candidates = [name for name in axis_order if name in anchor]
    # The values measured along each axis with every other axis at the anchor's, in one pass over
    # the runs (a lane has hundreds at scale, and each page asks for its groups' lines).
    distinct: dict[str, set[int]] = {name: set() for name in candidates}
    for axes in measured:
        differing = _differing_axes(axes, anchor)
        if differing is None or len(differing) > 1:
            continue
        for axis in differing or candidates:  # the anchor's own workload lies on every axis' line
            if axis in distinct:
                distinct[axis].add(axes[axis])
    best: tuple[int, str] | None = None
    for axis in candidates:
        if len(distinct[axis]) >= MIN_DISTINCT_VALUES and (best is None or len(distinct[axis]) > best[0]):
            best = (len(distinct[axis]), axis)
    return best[1] if best else None


def scaling_series(anchor: Mapping[str, int], runs: Iterable[ScalingInput], axis_order: Sequence[str]) -> Scaling | None:
    # Only a run that differs from the anchor on one axis at most lies on a line through it: found
    # once here, as every group of a lane asks for its line and a lane has up to hundreds of runs.
    near = [(run, differing) for run in runs
            if (differing := _differing_axes(run.axes, anchor)) is not None and len(differing) <= 1]
    if len(near) < MIN_DISTINCT_VALUES:  # most lanes: too few runs for any line, whatever the axis
        return None
    axis = choose_axis(anchor, [run.axes for run, _ in near], axis_order)
    if axis is None:
        return None
    best: dict[str, dict[int, ScalingInput]] = {}
    for run, differing in near:
        if differing and differing[0] != axis:  # on another axis' line
            continue
        by_x = best.setdefault(run.implementation, {})
        x = run.axes[axis]
        current = by_x.get(x)
        if current is None or (run.value_ns, run.run) < (current.value_ns, current.run):
            by_x[x] = run
    series = [
        ScalingSeries(implementation, tuple(ScalingPoint(x, r.value_ns, r.run, r.workload) for x, r in sorted(by_x.items())))
        for implementation, by_x in best.items()
        if len(by_x) >= MIN_POINTS_PER_SERIES
    ]
    if not any(len(s.points) >= MIN_DISTINCT_VALUES for s in series):
        return None
    # The legend reads top to bottom like the lines at their right ends: fastest at the largest x first.
    series.sort(key=lambda s: (-s.points[-1].x, s.points[-1].value_ns, s.implementation))
    fixed = {name: value for name, value in anchor.items() if name != axis}
    return Scaling(axis, fixed, tuple(series[:MAX_SERIES]), max(0, len(series) - MAX_SERIES))
