"""Eligibility: which runs may be ranked, and the reason codes for those that may not.

One predicate backs every public count ("N eligible runs", ranks, records, history). A run that
reports a latency below the physical floor of its workload on its GPU is flagged as implausible
rather than ranked: no kernel moves its tensors faster than the memory allows.
"""

from __future__ import annotations

from collections.abc import Iterable

from .model import RunFacts

RETRACTED = "RETRACTED"
SUPERSEDED = "SUPERSEDED"
MISSING_PRIMARY_METRIC = "MISSING_PRIMARY_METRIC"
BELOW_PHYSICAL_FLOOR = "BELOW_PHYSICAL_FLOOR"

# What each reason code means, for the run page and the methodology page.
REASON_TEXT = {
    RETRACTED: "retracted",
    SUPERSEDED: "superseded by a newer run",
    MISSING_PRIMARY_METRIC: "publishes no primary value",
    BELOW_PHYSICAL_FLOOR: "faster than the physical floor of its workload on its GPU (implausible)",
}


def status_reason(status: str) -> str:
    return f"STATUS_{status.upper()}"


def reason_text(code: str) -> str:
    if code.startswith("STATUS_"):
        return "status " + code[len("STATUS_"):].lower().replace("_", " ")
    return REASON_TEXT[code]


def superseded_names(runs: Iterable[RunFacts]) -> frozenset[str]:
    """Names of runs that another run supersedes."""
    return frozenset(run.supersedes for run in runs if run.supersedes)


def eligibility_reasons(run: RunFacts, *, superseded: bool, floor_ns: float | None) -> tuple[str, ...]:
    """Every reason the run may not be ranked; empty when it is eligible. The floor applies to latencies."""
    reasons = []
    if run.status != "passed":
        reasons.append(status_reason(run.status))
    if run.retracted:
        reasons.append(RETRACTED)
    if superseded:
        reasons.append(SUPERSEDED)
    if run.value is None:
        reasons.append(MISSING_PRIMARY_METRIC)
    elif floor_ns is not None and (value_ns := run.value_ns) is not None and value_ns < floor_ns:
        reasons.append(BELOW_PHYSICAL_FLOOR)
    return tuple(reasons)
