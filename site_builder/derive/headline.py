"""The answer at the top of a kernel page: the fastest run, and whether a reader can use it today."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .ranking import RankedRow
from .usability import Usability

HEADINGS = {
    "reported": "Fastest reported",
    "reproducible": "Fastest reproducible",
    "verified": "Fastest verified",
    "replicated": "Fastest replicated",
}


@dataclass(frozen=True, slots=True)
class Headline:
    leader: RankedRow
    heading: str  # "Fastest reported · usable today", or without the suffix
    usable_today: bool
    vs_baseline: float | None
    # When the leader is not usable: the fastest row that is, and how much slower it is.
    best_usable: RankedRow | None = None
    # Faster rows not featured because their spread says they were noisy or host-bound (``steady``).
    passed_over: tuple[RankedRow, ...] = ()


# A run's spread says it was noisy when its p20-p80 band is wider than this share of its median
# (the bundled well-behaved runs sit under 5 %), and host-bound when its fastest repetition took
# under this share of its median: the GPU can do the work that fast, so the median timed the host.
NOISY_SPREAD = 0.25
HOST_BOUND_MINIMUM = 0.5


def unsteady(median: float, p20: float | None, p80: float | None, minimum: float | None) -> str | None:
    """Why a run's spread disqualifies it from a headline ("noisy", "host-bound"), or None when it
    does not (or publishes no spread to judge by)."""
    if median <= 0:
        return None
    if minimum is not None and minimum < HOST_BOUND_MINIMUM * median:
        return "host-bound"
    if p20 is not None and p80 is not None and p80 - p20 > NOISY_SPREAD * median:
        return "noisy"
    return None


def headline(rows: Sequence[RankedRow], usability_of: Callable[[RankedRow], Usability],
             steady: Callable[[RankedRow], bool] = lambda row: True) -> Headline | None:
    """The featured row is the fastest ``steady`` one (the leader itself unless its spread says it was
    noisy or host-bound); when none is steady the leader is featured anyway, and the page says so."""
    if not rows:
        return None
    first_steady = next((index for index, row in enumerate(rows) if steady(row)), 0)
    leader, passed_over = rows[first_steady], tuple(rows[:first_steady])
    vs_baseline = None if leader.run.baseline else leader.vs_baseline
    heading = HEADINGS[leader.run.evidence]
    if usability_of(leader).usable:
        return Headline(leader, f"{heading} · usable today", True, vs_baseline, passed_over=passed_over)
    best_usable = next((row for row in rows[first_steady + 1:] if usability_of(row).usable), None)
    return Headline(leader, heading, False, vs_baseline, best_usable, passed_over)


@dataclass(frozen=True, slots=True)
class LanguageBest:
    language: str
    row: RankedRow
    vs_first: float  # this row's value over the first language's


def fastest_by_language(rows: Sequence[RankedRow]) -> list[LanguageBest]:
    """The best row per language, shown only when at least two languages are present."""
    best: dict[str, RankedRow] = {}
    for row in rows:
        language = row.run.language
        if language and language != "unknown" and language not in best:
            best[language] = row
    if len(best) < 2:
        return []
    first = next(iter(best.values())).value
    return [LanguageBest(language, row, row.value / first) for language, row in best.items()]
