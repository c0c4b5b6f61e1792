"""Our record history of imported runs against the record events the public KernelIndex exported.

Both replay a running minimum: eligible runs of one comparison group in observedAt order, each run
faster than the record so far becoming the record. The export's events are what its publication
appended (``ranking-v1``), ours are derived from the runs (``derive.history``). The histories of a
group agree exactly when both sides hold the same eligible runs; where they do not, the difference
is one of our eligibility rules (a run faster than the physical floor of our datasheets is
implausible here and never a record), or runs one side does not hold.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass
class Difference:
    key: str
    ours: list[str]  # run digests, oldest record first
    theirs: list[str]
    why: str


@dataclass
class Agreement:
    compared: int = 0
    identical: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def explained(self) -> Counter:
        return Counter(difference.why for difference in self.differences)


def export_histories(runs: Iterable[Mapping], events: Iterable[Mapping]) -> dict[str, list[str]]:
    """comparison key -> the run digests of the export's record events, in the order it replays them."""
    digest_of = {run.get("id"): run.get("runDigest") for run in runs}
    by_key: dict[str, list[Mapping]] = defaultdict(list)
    for event in events:
        if event.get("cause", "new_run") == "new_run" and event.get("runId") in digest_of:
            by_key[event["comparisonKey"]].append(event)
    return {key: [digest_of[event["runId"]] for event in sorted(group, key=lambda e: (str(e.get("at")), str(e.get("runId"))))]
            for key, group in by_key.items()}


def compare(ours: Mapping[str, list[str]], theirs: Mapping[str, list[str]],
            ineligible: Mapping[str, tuple[str, ...]], held: set[str]) -> Agreement:
    """``ours``/``theirs``: key -> record run digests; ``ineligible``: run digest -> our reasons it
    may not be ranked; ``held``: digests of the runs we hold. Only keys the export has are compared."""
    agreement = Agreement()
    for key, their_history in sorted(theirs.items()):
        agreement.compared += 1
        our_history = list(ours.get(key, []))
        if our_history == their_history:
            agreement.identical += 1
            continue
        missing = [digest for digest in their_history if digest not in our_history]
        if any(digest not in held for digest in missing):
            why = "a record run of theirs is not imported here"
        elif missing and all(ineligible.get(digest) for digest in missing):
            why = "ineligible here: " + ", ".join(sorted({reason for digest in missing for reason in ineligible[digest]}))
        else:
            why = "unexplained"
        agreement.differences.append(Difference(key, our_history, their_history, why))
    return agreement


def our_histories(board) -> tuple[dict[str, list[str]], dict[str, tuple[str, ...]], set[str]]:
    """From a Leaderboard: key -> record digests, digest -> ineligibility reasons, digests held."""
    histories = {key: [event.run.digest for event in cohort.history] for key, cohort in board.cohorts.items()}
    reasons = {board.runs[name].digest: codes for name, codes in board.reasons.items() if name in board.runs}
    return histories, reasons, {run.digest for run in board.runs.values()}
