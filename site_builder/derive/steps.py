"""Sustained step changes in a series of measurements over time (pure functions).

A series is one implementation's median, snapshot after snapshot, of one kernel × workload × GPU
× pass × protocol. Liger's weekly CI series are noisy in two ways a detector must not mistake for
a change: single weeks that jump and come back (a softmax backward series swings 43 → 124 µs),
and a spread that differs a lot between series (about 6 % week to week typically, 35 % at the
90th percentile). So the detector works on log values (a step is a ratio), measures each series'
own noise robustly, and asks of a step that it is sustained, large beside that noise, and
consistent (most points on each side lie on their side of the step).

The approach, in the spirit of asv's step detection (a piecewise-constant fit whose every step
must pay for itself against the series' noise), written independently:

1. ``noise``: the series' spread, from the median absolute difference of successive log values
   (a step moves one difference only, so it barely moves this; a scaled MAD, so single wild weeks
   don't either).
2. Candidate splits: the piecewise-constant fit of the logs (least squares, each segment at least
   ``MIN_RUN`` points) with a penalty per split that grows with the noise (``_partition``).
3. Each candidate is judged against its neighbouring segments: the medians must differ by at least
   ``MIN_CHANGE`` and by ``Z`` standard errors of the noise, and at least ``CONSISTENCY`` of the
   points on each side must sit on their side of the midpoint. The weakest failing split is
   dropped and the rest judged again, until all pass; each is reported with the medians of the
   segments either side of it.

``attribute`` then says whether a step belongs to the implementation or to the host: when the
baseline implementations, measured in the same snapshots as the two levels either side of the
step, moved the same way, the benchmark host changed, not the code under test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

MIN_RUN = 3  # points each side of a step: two weeks in a row can still be one noisy fortnight
MIN_CHANGE = math.log(1.10)  # steps under 10 % are within what one host drifts between weeks
Z = 4.0  # standard errors of the level difference
CONSISTENCY = 0.75  # share of each side's points on that side of the midpoint between the levels
NOISE_FLOOR = 0.01  # log units: a series that never moves still has timer noise of about 1 %
PENALTY = 3.0  # × σ² × ln n per split in the fit: candidate splits only, each then judged as above


@dataclass(frozen=True)
class Step:
    index: int  # the first point after the step
    before: float  # median of the segment before (the series' own unit)
    after: float  # median of the segment after

    @property
    def ratio(self) -> float:
        return self.after / self.before



def noise(logs: Sequence[float]) -> float:
    """The series' week-to-week spread in log units: 1.4826 × the median |successive difference| / √2
    (the standard deviation of one point, for normal noise), at least ``NOISE_FLOOR``."""
    if len(logs) < 2:
        return NOISE_FLOOR
    differences = [abs(b - a) for a, b in zip(logs, logs[1:])]
    return max(1.4826 * median(differences) / math.sqrt(2), NOISE_FLOOR)


def _partition(logs: Sequence[float], min_run: int, penalty: float) -> list[int]:
    """Optimal partitioning: the split points (each segment at least ``min_run`` long) minimising the
    squared error of a constant level per segment plus ``penalty`` per split, by dynamic programming
    over prefix sums (O(n²): Liger's series have about 40 points)."""
    n = len(logs)
    prefix, squares = [0.0], [0.0]
    for value in logs:
        prefix.append(prefix[-1] + value)
        squares.append(squares[-1] + value * value)

    def cost(a: int, b: int) -> float:
        total = prefix[b] - prefix[a]
        return squares[b] - squares[a] - total * total / (b - a)

    best = [math.inf] * (n + 1)
    previous = [0] * (n + 1)
    best[0] = -penalty  # the first segment pays no split
    for end in range(min_run, n + 1):
        for start in range(0, end - min_run + 1):
            if best[start] == math.inf or (0 < start < min_run):
                continue
            candidate = best[start] + cost(start, end) + penalty
            if candidate < best[end] - 1e-15:
                best[end], previous[end] = candidate, start
    splits, end = [], n
    while end > 0:
        end = previous[end]
        if end > 0:
            splits.append(end)
    return sorted(splits)


def _strength(logs: Sequence[float], start: int, split: int, stop: int, sigma: float) -> float:
    """How far the level change at ``split`` (between the segments [start, split) and [split, stop))
    clears the bar: above 1 it is a step (see the module's rules); 0 when it is not consistent."""
    left, right = logs[start:split], logs[split:stop]
    low, high = median(left), median(right)
    change = high - low
    bar = max(MIN_CHANGE, Z * sigma * math.sqrt(1 / len(left) + 1 / len(right)))
    middle = (low + high) / 2
    if change > 0:
        on_side = sum(v < middle for v in left) / len(left), sum(v > middle for v in right) / len(right)
    else:
        on_side = sum(v > middle for v in left) / len(left), sum(v < middle for v in right) / len(right)
    return abs(change) / bar if min(on_side) >= CONSISTENCY else 0.0


def detect_steps(values: Sequence[float], min_run: int = MIN_RUN) -> list[Step]:
    """The sustained steps of ``values`` (positive, in time order), earliest first."""
    if len(values) < 2 * min_run or any(not (v > 0) for v in values):
        return []
    logs = [math.log(v) for v in values]
    sigma = noise(logs)
    splits = _partition(logs, min_run, PENALTY * sigma * sigma * math.log(len(logs)))
    # Drop the weakest split that does not clear the bar, and judge the others again against their
    # (now longer) neighbouring segments, until every split left is a step.
    while splits:
        bounds = [0, *splits, len(logs)]
        strengths = [_strength(logs, bounds[i], bounds[i + 1], bounds[i + 2], sigma) for i in range(len(splits))]
        weakest = min(range(len(splits)), key=lambda i: strengths[i])
        if strengths[weakest] >= 1:
            break
        del splits[weakest]
    bounds = [0, *splits, len(values)]
    return [Step(index=bounds[i + 1], before=median(values[bounds[i]:bounds[i + 1]]),
                 after=median(values[bounds[i + 1]:bounds[i + 2]]))
            for i in range(len(splits))]


@dataclass(frozen=True)
class Attributed:
    step: Step
    cause: str  # "implementation" or "host"
    baselines: tuple[str, ...]  # the baseline series that moved with it (names)


def level_change(before: Sequence[float], after: Sequence[float]) -> float | None:
    """log(median after / median before), or None when either side is empty."""
    if not before or not after:
        return None
    return math.log(median(after) / median(before))


def attribute(step: Step, baseline_changes: dict[str, float | None]) -> Attributed:
    """Who a step belongs to. ``baseline_changes``: for each baseline series of the same group, its
    own level change between the same snapshots as the step's two segments (``level_change``; None
    where it was not measured on both sides). When at least half of those measured moved the same
    way by at least half as much (and by ``MIN_CHANGE``), the host changed, not the implementation."""
    change = math.log(step.after / step.before)
    seen = {name: moved for name, moved in baseline_changes.items() if moved is not None}
    moved = tuple(sorted(name for name, other in seen.items()
                         if other * change > 0 and abs(other) >= max(abs(change) / 2, MIN_CHANGE)))
    if moved and len(moved) * 2 >= len(seen):
        return Attributed(step, "host", moved)
    return Attributed(step, "implementation", ())


HOST_WINDOW = 3  # points each side of a snapshot when asking whether a baseline moved there
HOST_SHARE = 0.2  # share of a GPU's baseline series that moved one way at one snapshot ...
HOST_SKEW = 4.0  # ... at least this many times the share that moved the other way


def moves_at(values: Sequence[float], window: int = HOST_WINDOW) -> list[tuple[int, float]]:
    """(index, log change of the median of ``window`` points from there on over the ``window``
    before) at every index with ``window`` points on each side: how a series moved at each point."""
    return [(index, level_change(values[index - window:index], values[index:index + window]))  # type: ignore[misc]
            for index in range(window, len(values) - window + 1)]


def host_shift(changes: Sequence[float]) -> int:
    """Whether the baselines of one GPU moved together at one snapshot, from each series' log change
    there: +1 (slower), -1 (faster) or 0. Code that did not change between two snapshots moves
    either way by noise alone, about as often up as down; when a fifth or more of the baselines
    moved one way by ``MIN_CHANGE`` and four times fewer the other way, the host changed."""
    if not changes:
        return 0
    up = sum(change >= MIN_CHANGE for change in changes) / len(changes)
    down = sum(change <= -MIN_CHANGE for change in changes) / len(changes)
    if up >= HOST_SHARE and up >= HOST_SKEW * down:
        return 1
    if down >= HOST_SHARE and down >= HOST_SKEW * up:
        return -1
    return 0
