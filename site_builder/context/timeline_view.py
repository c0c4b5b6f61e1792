"""View models of the history over time: a group's timeline and the regressions page.

The figures come from ``Leaderboard.timelines`` (``derive.timeline``); this only names things
(implementation titles, GPU, pass), links them, and builds the chart's spec.
"""

from __future__ import annotations

from .. import urls
from ..derive.leaderboard import Cohort
from ..derive.timeline import DetectedStep, Timeline
from ..page_views import Link, RegressionsPage, StepView, TimelinePointView, TimelineSeries, TimelineView
from .view_parts import ViewFactory, unchecked_page

# Upstream commit ranges for a step: only Liger's own snapshots name commits of one repository.
LIGER_COMPARE = "https://github.com/linkedin/Liger-Kernel/compare/{before}...{after}"


def pass_name(factory: ViewFactory, protocol: str) -> str:
    entity = factory.catalog.protocols[protocol]
    return entity.metadata.labels.get("pass") or protocol


def compare_url(step: DetectedStep) -> str | None:
    before, after = step.before.facts.commit, step.after.facts.commit
    if not before or not after or before == after:
        return None
    return LIGER_COMPARE.format(before=before, after=after)


def step_view(factory: ViewFactory, step: DetectedStep) -> StepView:
    cohort: Cohort = factory.board.cohorts[step.cohort]
    titles = factory.implementation_titles
    unit = step.after.run.unit or ""
    return StepView(
        group=Link(title=cohort.label or cohort.key, url=urls.group(cohort.key)),
        operation=factory.operation_link(cohort.operation),
        workload=factory.workload_link(cohort.workload).title,
        gpu=cohort.gpu.label,
        pass_name=pass_name(factory, cohort.protocol),
        implementation=titles.get(step.implementation, step.implementation),
        baseline=step.after.run.baseline,
        unit=unit,
        before=step.step.before,
        after=step.step.after,
        ratio=step.step.ratio,
        regression=step.regression,
        cause=step.cause,
        baselines=[titles.get(name, name) for name in step.baselines],
        from_place=step.before.facts.place,
        to_place=step.after.facts.place,
        from_run=Link(title=step.before.run.name, url=urls.run(step.before.run.name)),
        to_run=Link(title=step.after.run.name, url=urls.run(step.after.run.name)),
        observed_at=step.after.at,
        compare_url=compare_url(step),
    )


def timeline_view(factory: ViewFactory, cohort: Cohort) -> TimelineView | None:
    found: Timeline | None = factory.board.timelines.get(cohort.key)
    if found is None:
        return None
    titles = factory.implementation_titles
    series = [TimelineSeries(
        implementation=name, name=titles.get(name, name), baseline=bool(points and points[0].run.baseline),
        points=[TimelinePointView(observed_at=p.at, value=p.value, low=p.facts.low, high=p.facts.high, run=p.run.name,
                                  place=p.facts.place, release=p.facts.release)
                for p in points]) for name, points in found.series.items()]
    steps = [step_view(factory, step) for step in found.steps]
    unit = cohort.runs[0].unit or ""
    shown = sum(len(s.points) for s in series)
    caption = (f"{shown} measurements of {len(series)} implementation{'s' if len(series) != 1 else ''}: the median "
               f"at each observation, the band from p20 to p80; "
               + (f"{len(steps)} sustained step{'s' if len(steps) != 1 else ''} marked" if steps else "no sustained step"))
    return TimelineView(title="Over time", unit=unit, series=series, steps=steps, caption=caption)


def regressions_page(factory: ViewFactory) -> RegressionsPage:
    board = factory.board
    steps = [step_view(factory, step) for step in board.steps if not step.after.run.baseline]
    return unchecked_page(
        RegressionsPage,
        **factory.page_fields("regressions", "Regressions and improvements over time", urls.REGRESSIONS),
        steps=steps,
        groups_with_history=len(board.timelines),
        series=sum(len(line.series) for line in board.timelines.values()),
        feed=urls.REGRESSIONS_FEED,
    )
