"""Record history: the runs that set a new running minimum, in the order they were observed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter

from .model import RunFacts


@dataclass(unsafe_hash=True, slots=True)  # not frozen: see RunFacts
class RecordEvent:
    run: RunFacts
    previous: RunFacts | None

    @property
    def improvement(self) -> float | None:
        """Fraction of the previous record's time saved: (previous - new) / previous."""
        if self.previous is None:
            return None
        return (self.previous.value - self.run.value) / self.previous.value  # type: ignore[operator]


_OBSERVED_AT_AND_DIGEST = attrgetter("observed_at", "digest")  # a key made in C, not per run in Python


def record_history(eligible: Iterable[RunFacts]) -> list[RecordEvent]:
    """Replays eligible runs by observedAt (digest breaks ties); a run equal to the record is no new record."""
    ordered = list(eligible)
    if len(ordered) < 2:  # most groups have one run: it set the record, breaking none
        return [RecordEvent(ordered[0], None)] if ordered else []  # not a comprehension, a call of its own
    ordered.sort(key=_OBSERVED_AT_AND_DIGEST)
    events: list[RecordEvent] = []
    holder: RunFacts | None = None
    for run in ordered:
        if holder is None or run.value < holder.value:  # type: ignore[operator]
            events.append(RecordEvent(run, holder))
            holder = run
    return events
