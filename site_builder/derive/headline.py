"""The answer at the top of a kernel page: the fastest run, and whether a reader can use it today."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .ranking import RankedRow, leader_vs_baseline
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


def headline(rows: Sequence[RankedRow], usability_of: Callable[[RankedRow], Usability]) -> Headline | None:
    if not rows:
        return None
    leader = rows[0]
    heading = HEADINGS[leader.run.evidence]
    if usability_of(leader).usable:
        return Headline(leader, f"{heading} · usable today", True, leader_vs_baseline(rows))
    best_usable = next((row for row in rows[1:] if usability_of(row).usable), None)
    return Headline(leader, heading, False, leader_vs_baseline(rows), best_usable)


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
