"""Record history: the runs that set a new running minimum, in the order they were observed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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


def record_history(eligible: Iterable[RunFacts]) -> list[RecordEvent]:
    """Replays eligible runs by observedAt (digest breaks ties); a run equal to the record is no new record."""
    events: list[RecordEvent] = []
    holder: RunFacts | None = None
    ordered = list(eligible)
    if len(ordered) > 1:  # most groups have one run: no key to work out
        ordered.sort(key=lambda r: (r.observed_at, r.digest))
    for run in ordered:
        if holder is None or run.value < holder.value:  # type: ignore[operator]
            events.append(RecordEvent(run, holder))
            holder = run
    return events
