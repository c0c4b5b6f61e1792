"""The evidence ladder: reported < reproducible < verified < replicated.

Derived from facts only. Attestations (notes from readers) never change it; only a run measured by
the KernelIndex harness under its own protocol can be "verified".
"""

from __future__ import annotations

HARNESS_SOURCE = "kernelindex-harness"
# What our harness calls itself in the protocols it writes.
HARNESS_NAMES = ("KernelIndex", "KernelIndex harness")
# Independent verifications needed for "replicated".
REPLICATIONS_NEEDED = 2


def is_kernelindex_measurement(source: str | None, harness_name: str) -> bool:
    return source == HARNESS_SOURCE and harness_name in HARNESS_NAMES


def evidence_level(*, verified: bool, verified_count: int, public_source: bool, raw_evidence: bool) -> str:
    """``verified_count``: verified runs of the same implementation in the same comparison group."""
    if verified and verified_count >= REPLICATIONS_NEEDED:
        return "replicated"
    if verified:
        return "verified"
    if public_source and raw_evidence:
        return "reproducible"
    return "reported"
