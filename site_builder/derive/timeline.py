"""Each comparison group's measurements over time, and the sustained steps in them.

A group (kernel × workload × protocol × GPU × metric) that was measured again and again, as
Liger's weekly CI series are, has a timeline: per implementation, its median at each observation
with the p20–p80 spread and the release and snapshot it came from. ``steps`` finds the sustained
step changes of each implementation's series (``derive.steps``) and says, for each, whether the
baselines measured beside it stepped at the same snapshot too (then the host changed).

Pure given the run facts and what their files say (``PointFacts``), so it is tested without a build.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from .eligibility import eligibility_reasons
from .model import RunFacts
from .steps import Step, attribute, detect_steps, host_shift, level_change, moves_at

MIN_POINTS = 2  # a timeline needs one implementation measured at two moments at least


@dataclass(frozen=True, slots=True)
class PointFacts:
    """What a run's file says beyond its facts: the spread and where the measurement came from."""

    low: float | None  # p20, in the run's unit
    high: float | None  # p80
    place: str  # the snapshot that first published it (its label), else the observation day
    commit: str | None  # the upstream source commit benchmarked
    release: str | None  # the release the measurement ran (label liger_version)


@dataclass(frozen=True, slots=True)
class TimelinePoint:
    run: RunFacts
    value: float
    facts: PointFacts

    @property
    def at(self) -> datetime:
        return self.run.observed_at


@dataclass(frozen=True, slots=True)
class DetectedStep:
    cohort: str
    implementation: str
    step: Step
    before: TimelinePoint  # the last point before the step
    after: TimelinePoint  # the first point after it
    cause: str  # "implementation", "host" (the group's baselines moved too) or "host-wide" (the GPU's did)
    baselines: tuple[str, ...]  # baseline implementations of the group that moved with it

    @property
    def regression(self) -> bool:
        """Slower (or more memory): the value went up."""
        return self.step.after > self.step.before


@dataclass(frozen=True, slots=True)
class Timeline:
    cohort: str
    series: dict[str, list[TimelinePoint]]  # implementation -> points in time order
    steps: list[DetectedStep]  # of every implementation, baselines included, in time order


def _ordered(points: Iterable[TimelinePoint]) -> list[TimelinePoint]:
    return sorted(points, key=lambda p: (p.at, p.run.digest))


def timeline(cohort: str, runs: Iterable[RunFacts], facts: Mapping[str, PointFacts]) -> Timeline | None:
    """The group's timeline, or None when no implementation was measured twice."""
    series: dict[str, list[TimelinePoint]] = {}
    for run in runs:
        # Every measurement its source stands by (the eligibility rules less supersession and the
        # floor): those two decide what may be ranked, not whether a measurement was made then.
        if eligibility_reasons(run, superseded=False, floor_ns=None):
            continue
        series.setdefault(run.implementation, []).append(TimelinePoint(run, run.value, facts[run.name]))
    series = {name: _ordered(points) for name, points in sorted(series.items())}
    if not any(len(points) >= MIN_POINTS for points in series.values()):
        return None
    found = {name: detect_steps([p.value for p in points]) for name, points in series.items()}
    baselines = sorted(name for name, points in series.items() if points[0].run.baseline)
    steps = []
    for name, points in series.items():
        bounds = [0, *(step.index for step in found[name]), len(points)]
        for number, step in enumerate(found[name]):
            earlier = {p.facts.place for p in points[bounds[number]:step.index]}
            later = {p.facts.place for p in points[step.index:bounds[number + 2]]}
            changes = {other: level_change([p.value for p in series[other] if p.facts.place in earlier],
                                           [p.value for p in series[other] if p.facts.place in later])
                       for other in baselines if other != name}
            verdict = attribute(step, changes)
            before, after = points[step.index - 1], points[step.index]
            steps.append(DetectedStep(cohort, name, step, before, after, verdict.cause, verdict.baselines))
    steps.sort(key=lambda s: (s.after.at, s.implementation))
    return Timeline(cohort, series, steps)


def host_wide(timelines: dict[str, Timeline], environments: Mapping[str, str]) -> dict[str, Timeline]:
    """The timelines with each step that only its implementation made (as far as its own group
    can tell) put down to the host when the baselines of every group on the same environment moved
    the same way at the same snapshot (``steps.host_shift``). Times and memory are judged apart:
    memory, which barely moves, would hide a shift of the times among its unmoving series."""
    changes: dict[tuple[str, str, str | None], list[float]] = {}
    for key, line in timelines.items():
        for points in line.series.values():
            if not points[0].run.baseline:
                continue
            for index, change in moves_at([p.value for p in points]):
                changes.setdefault((environments[key], points[index].facts.place, points[0].run.unit), []).append(change)
    shifts = {place: host_shift(found) for place, found in changes.items()}
    result = {}
    for key, line in timelines.items():
        steps = []
        for step in line.steps:
            direction = 1 if step.regression else -1
            where = (environments[key], step.after.facts.place, step.after.run.unit)
            if step.cause == "implementation" and shifts.get(where) == direction:
                step = replace(step, cause="host-wide")
            steps.append(step)
        result[key] = replace(line, steps=steps)
    return result
