"""The correctness policy a workload and a run carry, from ``kernels/tolerances.py`` (the one place
tolerances are defined)."""

from __future__ import annotations

COMPARATOR = "allclose"


def tolerance(kernel: str, dtype: str) -> tuple[float, float]:
    from kernels.tolerances import get_tolerance

    return get_tolerance(kernel, dtype)


def rule_text(kernel: str, dtype: str) -> str:
    from kernels.tolerances import RULE

    atol, rtol = tolerance(kernel, dtype)
    return f"atol={atol:g}, rtol={rtol:g}: {RULE} (kernels/tolerances.py)"


def correctness_policy(kernel: str, dtype: str) -> dict:
    """The WorkloadCase ``correctness`` block for a case the harness adds."""
    atol, rtol = tolerance(kernel, dtype)
    return {"comparator": COMPARATOR, "maxAbsoluteError": atol, "maxRelativeError": rtol,
            "description": rule_text(kernel, dtype)}
