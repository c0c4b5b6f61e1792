"""Synthetic results (no torch, no GPU) for testing what happens after measuring."""

from __future__ import annotations

from harness.measure import result_record
from harness.correctness import Verdict
from harness.plan import Task

FACTS = {"name": "NVIDIA H200", "major": 9, "minor": 0, "memory_bytes": 150_754_820_096, "cuda": "13.0",
         "torch": "2.11.0+cu130", "python": "3.12.3", "triton": "3.6.0", "driver": "580.159.04", "sm_count": 132,
         "versions": {"liger": "0.8.5"}}


def fake_result(task: Task, *, status: str = "passed", base_ns: int = 10_000, observed: str = "2026-11-29T12:00:00.000Z",
                changed=()) -> dict:
    verdict = Verdict(status, 0.001 if status != "runtime_error" else None, 0.002 if status != "runtime_error" else None,
                      changed_inputs=list(changed), notes=["No mutation or aliasing: wrote its inputs q"] if changed else [])
    timed = status in ("passed", "policy_violation")
    # Deterministic samples that depend on the task, so two sweeps of the same plan give the same numbers.
    seed = sum(map(ord, task.key)) % 97
    samples = [base_ns + seed + (i * 37) % 11 for i in range(25)] if timed else None
    record = result_record(task, verdict, {"samples_ns": samples} if timed else None,
                           {"before": {"sm_mhz": 1980, "memory_mhz": 3201}, "after": {"sm_mhz": 1965, "memory_mhz": 3201}}, 0.0)
    record["observed_at"] = observed
    record["wall_s"] = 0.5
    record["work"] = {"bytes": 1_000_000, "flops": 2_000_000} if task.timed_pass == "forward" else None
    return record
