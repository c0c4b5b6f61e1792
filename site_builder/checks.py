"""Checks that depend on a moment in time, kept apart from the schemas so they stay pure.

A run cannot have been observed after the moment the site describes. Which moment that is depends
on the caller:

- a build given ``--as-of`` or ``SOURCE_DATE_EPOCH`` passes that date (or moment): the data must
  not claim to be from after it;
- ``kernelindex validate`` writes nothing and has no as-of date, so it passes ``None`` and the
  wall clock is used. So does a build whose as-of date comes from git, because a run file that is
  not committed yet is legitimately newer than the last commit.

One day of slack absorbs time zones and clocks that are a little off. The other bound
(observedAt before 2000-01-01) needs no moment and lives in the schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta, timezone
from operator import attrgetter

from schemas.common import format_utc

from .load import Document
from .problems import Problem

FUTURE_SLACK = timedelta(days=1)
_observed_at = attrgetter("model.spec.observedAt")


def observed_at_limit(as_of: date | datetime | None = None) -> datetime:
    """The latest observedAt accepted: the as-of moment (or the wall clock) plus one day.

    A date stands for the whole of that day (a run at 23:00 on the as-of date is fine), so the
    limit is the end of the day after it.
    """
    if as_of is None:
        moment = datetime.now(timezone.utc)
    elif isinstance(as_of, datetime):
        moment = as_of if as_of.tzinfo else as_of.replace(tzinfo=timezone.utc)
    else:
        moment = datetime.combine(as_of + timedelta(days=1), time(), tzinfo=timezone.utc)
    return moment + FUTURE_SLACK


def future_observations(documents: Iterable[Document], as_of: date | datetime | None = None) -> list[Problem]:
    """One problem for every run observed after ``observed_at_limit(as_of)``."""
    limit = observed_at_limit(as_of)
    against = "the wall clock" if as_of is None else f"the as-of date {as_of.isoformat()}"
    runs = [document for document in documents if document.kind == "BenchmarkRun"]
    # Each run's moment read in C (100,000 at scale); the runs are looked at one by one only when
    # one of them is too late.
    observed = list(map(_observed_at, runs))
    if not observed or max(observed) <= limit:
        return []
    problems = []
    for document, observed_at in zip(runs, observed):
        if observed_at > limit:
            problems.append(document.problem(
                f"spec.observedAt: {format_utc(observed_at)} is in the future (more than a day after {against})",
                "spec", "observedAt"))
    return problems
