"""Comparison groups (cohorts): which runs may be ranked against each other.

Two runs are compared only when they share the operation, workload, protocol (so the same timed
pass), environment, correctness policy and metric. The implementation is deliberately not part of
the key: comparing implementations is the point. The key is the public KernelIndex's
``comparison_key``, so ours interoperates with its published keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from json.encoder import encode_basestring as _string

from schemas.digest import canonical_json, sha256_digest

from .model import RunFacts

COMPARISON_KEY_VERSION = 1


def correctness_digest(correctness: Mapping[str, Any]) -> str:
    return sha256_digest(canonical_json({"correctness": dict(correctness)}))


def comparison_key(*, operation: str, workload: str, protocol: str, environment: str,
                   correctness: Mapping[str, Any], metric: str | None) -> str:
    """sha256 of JCS {v, operation, workload, protocol, environment, correctness, metric}; inputs are digests."""
    return comparison_key_of(operation=operation, workload=workload, protocol=protocol, environment=environment,
                             policy_digest=correctness_digest(correctness), metric=metric)


def comparison_key_of(*, operation: str, workload: str, protocol: str, environment: str, policy_digest: str,
                      metric: str | None) -> str:
    """``comparison_key`` given the correctness policy's digest: a workload's policy is hashed once,
    not once for every (protocol, environment, metric) its runs fall into."""
    # canonical_json of {v, operation, workload, protocol, environment, correctness, metric}, written
    # directly (keys in sorted order; each string as json.dumps(ensure_ascii=False) writes it, which
    # is RFC 8785's form for strings): 63,000 groups at 100,000 runs. ``comparison_key_reference``
    # is the definition, and the tests hold this to it.
    if type(operation) is str and type(workload) is str and type(protocol) is str and type(environment) is str \
            and type(policy_digest) is str and (metric is None or type(metric) is str):
        return sha256_digest(
            f'{{"correctness":{_string(policy_digest)},"environment":{_string(environment)},"metric":{_string(metric or "none")},'
            f'"operation":{_string(operation)},"protocol":{_string(protocol)},"v":{COMPARISON_KEY_VERSION},'
            f'"workload":{_string(workload)}}}')
    return comparison_key_reference(operation=operation, workload=workload, protocol=protocol, environment=environment,
                                    policy_digest=policy_digest, metric=metric)


def comparison_key_reference(*, operation: str, workload: str, protocol: str, environment: str, policy_digest: str,
                             metric: str | None) -> str:
    """``comparison_key_of`` by its definition: sha256 of the canonical JSON of the key's fields."""
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


def primary_metric(timing: Mapping[str, Any] | None, measurements: Iterable[Mapping[str, Any]] | None
                   ) -> tuple[str | None, float | None]:
    """("<metric>:<statistic>:<unit>", value) that a run is ranked by, e.g. ("latency:median:ns", 81280).

    The timing block decides; without one, the first central (median or mean) measurement of a
    lower-is-better metric, such as a peak-memory run's median MiB.
    """
    if timing:
        statistic = timing["primaryStatistic"]
        latency = timing["latencyNs"]
        value = latency.get(statistic)
        if value is None:  # validation forbids this; keep the fallback the public site documents
            statistic = "median" if statistic == "mean" else "mean"
            value = latency.get(statistic)
        return f"latency:{statistic}:ns", value
    for measurement in measurements or ():
        if measurement["metric"] in LOWER_IS_BETTER and measurement["statistic"] in CENTRAL_STATISTICS:
            return f"{measurement['metric']}:{measurement['statistic']}:{measurement['unit']}", measurement["value"]
    return None, None


def group_by_cohort(runs: Iterable[RunFacts]) -> dict[str, list[RunFacts]]:
    """Runs by comparison key, each list in input order (one pass: the index every page reads)."""
    groups: dict[str, list[RunFacts]] = {}
    for run in runs:
        groups.setdefault(run.cohort, []).append(run)
    return groups
