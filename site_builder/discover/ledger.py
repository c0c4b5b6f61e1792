"""The records ledger: current records (one per comparison group), record breaks and the record
history across every kernel, newest first, and the filters that cut it (GPU, evidence, source).

Pure functions of groups and their record histories: one pass to collect, one sort (O(n log n)).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any, TypeVar

from ..derive.history import RecordEvent
from ..derive.model import EVIDENCE_LEVELS, RunFacts

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
        # Positional, in LedgerEntry's order (group, run, previous, improvement, set_at, current):
        # keywords cost more on 55,000 groups.
        entries.append(LedgerEntry(group, group.holder, last.previous if last else None, last.improvement if last else None,
                                   last.run.observed_at if last else group.holder.observed_at, True))
    entries.sort(key=lambda e: (-e.set_at.timestamp(), e.group.key))
    return entries


def record_events(groups: Iterable[LedgerGroup]) -> list[LedgerEntry]:
    """Every record event of every group, newest first (ties: the digest)."""
    entries = []
    for group in groups:
        last = len(group.history) - 1
        for position, event in enumerate(group.history):
            # Positional, in LedgerEntry's order: see current_records.
            entries.append(LedgerEntry(group, event.run, event.previous, event.improvement, event.run.observed_at,
                                       position == last))
    entries.sort(key=lambda e: (-e.set_at.timestamp(), e.run.digest, e.group.key))
    return entries


def record_breaks(events: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    """Events that beat an earlier record (a group's first record breaks nothing)."""
    return [event for event in events if event.previous is not None]


T = TypeVar("T")


def newest(items: Sequence[T], count: int, when: Callable[[T], datetime], key: Callable[[T], Any]) -> list[T]:
    """``sorted(items, key=key)[:count]``, for a ``key`` that orders by ``-when(item).timestamp()``
    first, without ``key`` on every item: the items are sorted newest first by ``when`` alone (an
    ``operator`` getter sorts in C), and only the first ``count`` and those tied with the last of
    them are sorted by ``key``. Aware datetimes sort as their timestamps do (both order instants,
    and a float's step near today is under a microsecond); naive ones are sorted by ``key``, as
    ``timestamp()`` reads them in local time."""
    if count <= 0:
        return []
    if len(items) <= count:
        return sorted(items, key=key)
    try:
        by_time = sorted(items, key=when, reverse=True)
    except TypeError:  # naive and aware datetimes do not compare
        return sorted(items, key=key)[:count]
    if when(by_time[0]).utcoffset() is None:  # naive (then every one is: a mix would not have sorted)
        return sorted(items, key=key)[:count]
    cutoff, end = when(by_time[count - 1]), count
    while end < len(by_time) and when(by_time[end]) == cutoff:
        end += 1
    return sorted(by_time[:end], key=key)[:count]


def newest_breaks(cohorts: Iterable[Any], count: int, group_of: Callable[[Any], LedgerGroup]) -> list[LedgerEntry]:
    """``record_breaks(record_events(groups))[:count]`` without an entry for every event, where
    ``groups`` are ``group_of`` each of ``cohorts`` (which have the ``key`` and ``history`` of theirs):
    only the groups of the breaks chosen are made."""
    candidates = [(event.run.observed_at, event, cohort, position)
                  for cohort in cohorts
                  for position, event in enumerate(cohort.history) if event.previous is not None]
    chosen = newest(candidates, count, itemgetter(0), lambda c: (-c[0].timestamp(), c[1].run.digest, c[2].key))
    return [LedgerEntry(group=group_of(cohort), run=event.run, previous=event.previous, improvement=event.improvement,
                        set_at=event.run.observed_at, current=position == len(cohort.history) - 1)
            for _, event, cohort, position in chosen]


# -- filters ---------------------------------------------------------------------------------------
Predicate = Callable[[LedgerEntry], bool]


def split_by_gpu(entries: Iterable[LedgerEntry]) -> dict[str, list[LedgerEntry]]:
    """The entries of each GPU (by slug), in their order: every GPU's filter from one pass."""
    found: dict[str, list[LedgerEntry]] = {}
    for entry in entries:
        found.setdefault(entry.group.gpu, []).append(entry)
    return found


def by_evidence(level: str) -> Predicate:
    """At least this level (so "verified" keeps replicated records too)."""
    kept = frozenset(EVIDENCE_LEVELS[EVIDENCE_LEVELS.index(level):])
    return lambda entry: entry.run.evidence in kept


def by_source(has_source: Callable[[str], bool]) -> Predicate:
    """Records whose implementation publishes its source; ``has_source`` takes an implementation name."""
    return lambda entry: has_source(entry.run.implementation)


def pages(entries: Sequence[LedgerEntry], size: int = PAGE_SIZE) -> list[Sequence[LedgerEntry]]:
    """Entries cut into pages; always at least one page (it may be empty)."""
    return [entries[start:start + size] for start in range(0, len(entries), size)] or [entries[:0]]
