"""Comparison groups (cohorts): which runs may be ranked against each other.

Two runs are compared only when they share the operation, workload, protocol (so the same timed
pass), environment, correctness policy and metric. The implementation is deliberately not part of
the key: comparing implementations is the point. The key is the public KernelIndex's
``comparison_key``, so ours interoperates with its published keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from schemas.digest import canonical_json, sha256_digest

from .model import RunFacts

if TYPE_CHECKING:
    from schemas.kinds import BenchmarkRunSpec

COMPARISON_KEY_VERSION = 1


def correctness_digest(correctness: Mapping[str, Any]) -> str:
    """The digest of a workload's correctness policy: the key's "correctness" part."""
    return sha256_digest(canonical_json({"correctness": dict(correctness)}))


def comparison_key(*, operation: str, workload: str, protocol: str, environment: str, policy_digest: str,
                   metric: str | None) -> str:
    """sha256 of the canonical JSON of {v, operation, workload, protocol, environment, correctness,
    metric}: the digests of the run's operation, workload, protocol and environment, the digest of
    its workload's correctness policy (``correctness_digest``) and its primary metric ("none" when
    it has none)."""
    return sha256_digest(canonical_json({
        "v": COMPARISON_KEY_VERSION,
        "operation": operation,
        "workload": workload,
        "protocol": protocol,
        "environment": environment,
        "correctness": policy_digest,
        "metric": metric or "none",
    }))


# Metrics where less is better, so a group can rank them ascending; a throughput could not be.
LOWER_IS_BETTER = ("latency", "memory")
CENTRAL_STATISTICS = ("median", "mean")
# A measurement in a unit of time is lower-is-better whatever its metric or statistic is called:
# GPU MODE's leaderboard "score" is an aggregate, in seconds, of a submission's times over the
# suite (a geometric mean, or an aggregate its leaderboard does not name: "unspecified").
TIME_UNITS = ("ns", "us", "ms", "s")
# The metric of a run with a timing block, for each primary statistic ``Timing`` allows: one string
# that every such run's facts share rather than one copy per run.
LATENCY_METRICS = {statistic: f"latency:{statistic}:ns" for statistic in ("median", "mean")}


def primary_metric(spec: BenchmarkRunSpec) -> tuple[str | None, float | None]:
    """("<metric>:<statistic>:<unit>", value) that a run is ranked by, e.g. ("latency:median:ns", 81280).

    ``spec``: a validated run. The timing block decides (validation holds it to a
    value for the statistic it names); without one, the first central (median or mean) measurement
    of a lower-is-better metric, such as a peak-memory run's median MiB, or the first measurement in
    a unit of time, such as GPU MODE's leaderboard score in seconds.
    """
    timing = spec.timing
    if timing is not None:
        statistic = timing.primaryStatistic
        return LATENCY_METRICS[statistic], getattr(timing.latencyNs, statistic)
    for measurement in spec.measurements or ():
        if (measurement.metric in LOWER_IS_BETTER and measurement.statistic in CENTRAL_STATISTICS) \
                or measurement.unit in TIME_UNITS:
            return f"{measurement.metric}:{measurement.statistic}:{measurement.unit}", measurement.value
    return None, None


def group_by_cohort(runs: Iterable[RunFacts]) -> dict[str, list[RunFacts]]:
    """Runs by comparison key, each list in input order (one pass: the index every page reads)."""
    groups: dict[str, list[RunFacts]] = {}
    for run in runs:
        groups.setdefault(run.cohort, []).append(run)
    return groups
