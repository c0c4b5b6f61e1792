"""The records ledger: current records (one per comparison group), record breaks and the record
history across every kernel, newest first, and the filters that cut it (GPU, evidence, source).

Pure functions of groups and their record histories: one pass to collect, one sort (O(n log n)).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..derive.history import RecordEvent
from ..derive.model import EVIDENCE_LEVELS, RunFacts, evidence_strength

PAGE_SIZE = 200  # rows per ledger page
RECENT_BREAKS = 25  # record breaks on the ledger's first page
FEED_ENTRIES = 50  # entries per Atom feed


@dataclass(frozen=True, slots=True)
class LedgerGroup:
    """What the ledger needs of one comparison group."""

    key: str
    gpu: str  # slug
    holder: RunFacts  # the group's #1 now
    history: tuple[RecordEvent, ...]  # record events in observed order (the last set the record)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    group: LedgerGroup
    run: RunFacts  # the holder (current view) or the run that set this record (history)
    previous: RunFacts | None
    improvement: float | None
    set_at: datetime
    current: bool


def current_records(groups: Iterable[LedgerGroup]) -> list[LedgerEntry]:
    """One entry per group: its holder, and the record event that set the value it holds; most recently set first."""
    entries = []
    for group in groups:
        last = group.history[-1] if group.history else None
        entries.append(LedgerEntry(
            group=group, run=group.holder, previous=last.previous if last else None,
            improvement=last.improvement if last else None,
            set_at=last.run.observed_at if last else group.holder.observed_at, current=True))
    entries.sort(key=lambda e: (-e.set_at.timestamp(), e.group.key))
    return entries


def record_events(groups: Iterable[LedgerGroup]) -> list[LedgerEntry]:
    """Every record event of every group, newest first (ties: the digest)."""
    entries = []
    for group in groups:
        for position, event in enumerate(group.history):
            entries.append(LedgerEntry(
                group=group, run=event.run, previous=event.previous, improvement=event.improvement,
                set_at=event.run.observed_at, current=position == len(group.history) - 1))
    entries.sort(key=lambda e: (-e.set_at.timestamp(), e.run.digest, e.group.key))
    return entries


def record_breaks(events: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    """Events that beat an earlier record (a group's first record breaks nothing)."""
    return [event for event in events if event.previous is not None]


# -- filters ---------------------------------------------------------------------------------------
Predicate = Callable[[LedgerEntry], bool]


def by_gpu(slug: str) -> Predicate:
    return lambda entry: entry.group.gpu == slug


def by_evidence(level: str) -> Predicate:
    """At least this level (so "verified" keeps replicated records too)."""
    minimum = EVIDENCE_LEVELS.index(level)
    return lambda entry: evidence_strength(entry.run.evidence) >= minimum


def by_source(has_source: Callable[[str], bool]) -> Predicate:
    """Records whose implementation publishes its source; ``has_source`` takes an implementation name."""
    return lambda entry: has_source(entry.run.implementation)


def pages(entries: Sequence[LedgerEntry], size: int = PAGE_SIZE) -> list[Sequence[LedgerEntry]]:
    """Entries cut into pages; always at least one page (it may be empty)."""
    return [entries[start:start + size] for start in range(0, len(entries), size)] or [entries[:0]]
