"""The records ledger: current records (one per comparison group), record breaks and the record
history across every kernel, newest first, and the filters that cut it (GPU, evidence, source).

Pure functions of groups and their record histories: one pass to collect, one sort (O(n log n)).
Groups and entries are named tuples, and the sorts and filters run on ``operator`` getters: made,
sorted and filtered by the ten thousand, a dataclass instance or a Python key per entry would be
most of their cost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import compress, islice
from operator import attrgetter, eq, itemgetter
from typing import Any, NamedTuple, TypeVar

from ..derive.history import RecordEvent
from ..derive.model import EVIDENCE_LEVELS, RunFacts

PAGE_SIZE = 200  # rows per ledger page
RECENT_BREAKS = 25  # record breaks on the ledger's first page
FEED_ENTRIES = 50  # entries per Atom feed


class LedgerGroup(NamedTuple):
    """What the ledger needs of one comparison group."""

    key: str
    gpu: str  # slug
    holder: RunFacts  # the group's #1 now
    history: tuple[RecordEvent, ...]  # record events in observed order (the last set the record)


class LedgerEntry(NamedTuple):
    group: LedgerGroup
    run: RunFacts  # the holder (current view) or the run that set this record (history)
    previous: RunFacts | None
    improvement: float | None
    set_at: datetime
    current: bool
    position: int  # the record event's place in the group's history (a current record: the last's)


# The ledger's orders: newest first, then by group (current records) or by run and group (history).
_SET_AT = attrgetter("set_at")
GROUP_KEY = attrgetter("group.key")
_DIGEST_AND_GROUP_KEY = attrgetter("run.digest", "group.key")


def current_records(groups: Iterable[LedgerGroup]) -> list[LedgerEntry]:
    """One entry per group: its holder, and the record event that set the value it holds; most recently set first."""
    entries = []
    for group in groups:
        last = group.history[-1] if group.history else None
        # Positional, in LedgerEntry's order (group, run, previous, improvement, set_at, current,
        # position): keywords cost more, once per ranked group.
        entries.append(LedgerEntry(group, group.holder, last.previous if last else None, last.improvement if last else None,
                                   last.run.observed_at if last else group.holder.observed_at, True,
                                   len(group.history) - 1))
    return newest_first(entries, _SET_AT, GROUP_KEY)


def record_events(groups: Iterable[LedgerGroup]) -> list[LedgerEntry]:
    """Every record event of every group, newest first (ties: the digest)."""
    entries = []
    for group in groups:
        last = len(group.history) - 1
        for position, event in enumerate(group.history):
            # Positional, in LedgerEntry's order: see current_records.
            entries.append(LedgerEntry(group, event.run, event.previous, event.improvement, event.run.observed_at,
                                       position == last, position))
    return newest_first(entries, _SET_AT, _DIGEST_AND_GROUP_KEY)


def record_breaks(events: Sequence[LedgerEntry]) -> list[LedgerEntry]:
    """Events that beat an earlier record (a group's first record breaks nothing)."""
    return [event for event in events if event.previous is not None]


T = TypeVar("T")


def newest_first(items: Sequence[T], when: Callable[[T], datetime], then: Callable[[T], Any],
                 count: int | None = None) -> list[T]:
    """``sorted(items, key=lambda item: (-when(item).timestamp(), then(item)))[:count]``, with no key
    made in Python per item: sorted newest first by ``when`` alone (an ``operator`` getter sorts in
    C), then each run of equal times among the first ``count`` (and those tied with the last of
    them) by ``then`` (comparing ``then``'s keys, run digests and group keys scattered over memory,
    cost more than the rest of the sort). Each item's time is read once, for the sort and the ties
    both, because each read goes from item to run to time scattered over memory. Aware datetimes
    sort as their timestamps do (both order instants, and a float's step near today is under a
    microsecond); naive ones, which ``timestamp()`` reads in local time, are sorted by that key
    itself."""
    times = list(map(when, items))
    try:  # stable: equal times keep the order of ``items``, as sorting ``items`` by time would
        order = sorted(range(len(times)), key=times.__getitem__, reverse=True)
    except TypeError:  # naive and aware datetimes do not compare
        order = []
    if not order or times[order[0]].utcoffset() is None:  # none, or naive (then every one is)
        return sorted(items, key=lambda item: (-when(item).timestamp(), then(item)))[:count]
    times = list(map(times.__getitem__, order))
    if count is not None:  # the first ``count``, and those tied with the last of them
        end = max(count, 0)
        while 0 < end < len(times) and times[end] == times[end - 1]:
            end += 1
        del order[end:], times[end:]
    ordered = list(map(items.__getitem__, order))
    # Where a time equals the next one: found in C, walked in Python (ties are few).
    runs: list[list[int]] = []  # the first and last position of each run of equal times
    for position in compress(range(len(times) - 1), map(eq, times, islice(times, 1, None))):
        if runs and runs[-1][1] == position:
            runs[-1][1] = position + 1
        else:
            runs.append([position, position + 1])
    for first, last in runs:
        ordered[first:last + 1] = sorted(ordered[first:last + 1], key=then)
    return ordered[:count]


def newest_breaks(cohorts: Iterable[Any], count: int, group_of: Callable[[Any], LedgerGroup]) -> list[LedgerEntry]:
    """``record_breaks(record_events(groups))[:count]`` without an entry for every event, where
    ``groups`` are ``group_of`` each of ``cohorts`` (which have the ``key`` and ``history`` of theirs):
    only the groups of the breaks chosen are made."""
    candidates = [(event.run.observed_at, event, cohort, position)
                  for cohort in cohorts
                  for position, event in enumerate(cohort.history) if event.previous is not None]
    chosen = newest_first(candidates, itemgetter(0), lambda c: (c[1].run.digest, c[2].key), count)
    return [LedgerEntry(group=group_of(cohort), run=event.run, previous=event.previous, improvement=event.improvement,
                        set_at=event.run.observed_at, current=position == len(cohort.history) - 1, position=position)
            for _, event, cohort, position in chosen]


# -- filters ---------------------------------------------------------------------------------------


def split_by_gpu(entries: Iterable[LedgerEntry]) -> dict[str, list[LedgerEntry]]:
    """The entries of each GPU (by slug), in their order: every GPU's filter from one pass."""
    found: dict[str, list[LedgerEntry]] = {}
    for entry in entries:
        found.setdefault(entry.group.gpu, []).append(entry)
    return found


@dataclass(frozen=True)
class FieldIn:
    """A predicate keeping the entries whose ``field`` is one of ``values``; ``kept`` filters a whole
    list in C (a Python call per entry, for each filter, would be most of planning the ledger's pages)."""

    field: Callable[[LedgerEntry], str]
    values: frozenset[str]

    def __call__(self, entry: LedgerEntry) -> bool:
        return self.field(entry) in self.values

    def kept(self, entries: Sequence[LedgerEntry], fields: Iterable[str] | None = None) -> list[LedgerEntry]:
        """The entries this predicate keeps, in order; ``fields``: each entry's ``field``, if read already."""
        read = map(self.field, entries) if fields is None else fields
        return list(compress(entries, map(self.values.__contains__, read)))


class FieldReads:
    """Each entry's field, read once per list and field for every filter of it: the evidence
    filters (a level each) read one field of the same lists, and reading it (from entry to run to
    field, scattered over memory) cost more than filtering on it."""

    def __init__(self) -> None:
        self._read: dict[tuple[int, Callable], tuple[Sequence[LedgerEntry], list[str]]] = {}

    def kept(self, predicate: FieldIn, entries: Sequence[LedgerEntry]) -> list[LedgerEntry]:
        """``predicate.kept(entries)``."""
        key = (id(entries), predicate.field)
        found = self._read.get(key)
        if found is None:  # the list is held with its fields, so its id is not reused meanwhile
            found = self._read[key] = (entries, list(map(predicate.field, entries)))
        return predicate.kept(entries, found[1])


_EVIDENCE = attrgetter("run.evidence")  # one getter for every level: FieldReads reads it once per list


def by_evidence(level: str) -> FieldIn:
    """At least this level (so "verified" keeps replicated records too)."""
    return FieldIn(_EVIDENCE, frozenset(EVIDENCE_LEVELS[EVIDENCE_LEVELS.index(level):]))


def by_source(with_source: Iterable[str]) -> FieldIn:
    """Records whose implementation publishes its source; ``with_source``: the names of those implementations."""
    return FieldIn(attrgetter("run.implementation"), frozenset(with_source))


def pages(entries: Sequence[LedgerEntry], size: int = PAGE_SIZE) -> list[Sequence[LedgerEntry]]:
    """Entries cut into pages; always at least one page (it may be empty)."""
    return [entries[start:start + size] for start in range(0, len(entries), size)] or [entries[:0]]
