"""The facts about a run that derived figures depend on, independent of how the data is stored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# The evidence ladder, weakest first: a level is derived from facts, never chosen by a submitter.
EVIDENCE_LEVELS = ("reported", "reproducible", "verified", "replicated")


_STRENGTH = {level: strength for strength, level in enumerate(EVIDENCE_LEVELS)}


def evidence_strength(level: str) -> int:
    """The level's place on the ladder (a dictionary: ranking and planning ask 100,000s of times)."""
    return _STRENGTH[level]


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which made a RunFacts
# nine times dearer to build (1.8 us, 0.16 s at 100,000 runs). Nothing changes one once made, and
# unsafe_hash keeps the hash a frozen one has (by value). RankedRow and RecordEvent, made per row,
# are built the same way.
@dataclass(unsafe_hash=True, slots=True)
class RunFacts:
    """One run, reduced to what ranking, eligibility, history and challenges need."""

    name: str
    digest: str
    operation: str
    workload: str
    implementation: str
    protocol: str
    environment: str
    cohort: str  # the comparison key
    status: str
    value: float | None  # the primary value, in the metric's unit; None when the run publishes none
    metric: str | None  # "<metric>:<statistic>:<unit>", e.g. latency:median:ns or memory:median:MiB
    observed_at: datetime
    language: str = "unknown"
    baseline: bool = False
    evidence: str = "reported"
    retracted: bool = False
    supersedes: str | None = None  # name of the run this one replaces
    # Reduced-precision modes the run declares (spec.precision.reducedModes); None: not declared.
    precision: tuple[str, ...] | None = None
    # Its precision lane: the declared modes its workload's policy does not admit, joined by "+"
    # ("tf32"); "" for strict runs, admitted modes and runs that declare nothing. Runs of different
    # lanes are never ranked together ("Precision lanes" in DESIGN.md).
    lane: str = ""

    @property
    def statistic(self) -> str | None:
        return self.metric.split(":")[1] if self.metric else None

    @property
    def unit(self) -> str | None:
        return self.metric.rsplit(":", 1)[1] if self.metric else None

    @property
    def value_ns(self) -> float | None:
        """The primary value when it is a time in nanoseconds (floors and latencies); else None."""
        # The unit is the metric's last part: read without splitting, 100,000 runs are checked against floors.
        return self.value if self.metric is not None and self.metric.endswith(":ns") else None
