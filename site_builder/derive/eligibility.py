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


# What each run status other than "passed" means, in a reader's words. The harness sets
# policy_violation when a kernel writes its inputs in place or returns them as outputs (the
# kernel's "no mutation or aliasing" contract), so that is what it says.
STATUS_TEXT = {
    "incorrect_shape": "its output has the wrong shape",
    "incorrect_dtype": "its output has the wrong dtype",
    "incorrect_numerical": "its results are wrong (outside the tolerance)",
    "compile_error": "it failed to compile",
    "runtime_error": "it failed while running",
    "timeout": "it timed out",
    "resource_exceeded": "it ran out of memory or another resource",
    "invalid_reference": "its reference output was invalid",
    "policy_violation": "it writes its inputs in place (or returns them as outputs), which this kernel forbids",
    "suspected_reward_hack": "it is suspected of gaming the correctness check",
    "incomplete_evidence": "its evidence is incomplete",
    "revoked": "it was revoked",
}


def reason_text(code: str) -> str:
    if code.startswith("STATUS_"):
        status = code[len("STATUS_"):].lower()
        return STATUS_TEXT.get(status, "status " + status.replace("_", " "))
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
