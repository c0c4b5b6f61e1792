"""Challenges: the open gaps a contributor could fill, derived from the records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .ranking import RankedRow

GAP = "gap"
SINGLE_ENTRY = "single_entry"
UNBEATEN_BASELINE = "unbeaten_baseline"
STALE_RECORD = "stale_record"

CHALLENGE_TITLES = {
    GAP: "Not measured on a priority GPU",
    SINGLE_ENTRY: "Comparison groups with one entry",
    UNBEATEN_BASELINE: "Unbeaten baselines",
    STALE_RECORD: "Records not re-observed in 180 days",
}


def coverage_gaps(families: Iterable[str], gpus: Iterable[str], covered: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Priority (family, GPU) cells with no eligible run."""
    gpus = sorted(gpus)
    return [(family, gpu) for family in sorted(families) for gpu in gpus if (family, gpu) not in covered]


@dataclass(frozen=True, slots=True)
class CohortChallenge:
    kind: str
    cohort: str
    holder: RankedRow


def cohort_challenges(cohort: str, rows: Sequence[RankedRow], *, holder_stale: bool) -> list[CohortChallenge]:
    """What is open about one comparison group: a lone entry, a baseline nobody beat, a stale record."""
    if not rows:
        return []
    holder = rows[0]
    found = []
    if holder.run.baseline:
        found.append(CohortChallenge(UNBEATEN_BASELINE, cohort, holder))
    elif len(rows) == 1:
        found.append(CohortChallenge(SINGLE_ENTRY, cohort, holder))
    if holder_stale:
        found.append(CohortChallenge(STALE_RECORD, cohort, holder))
    return found
