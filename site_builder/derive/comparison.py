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
        return comparison_key_of_quoted(operation=quote(operation), workload=quote(workload), protocol=quote(protocol),
                                        environment=quote(environment), policy_digest=quote(policy_digest),
                                        metric=quote_metric(metric))
    return comparison_key_reference(operation=operation, workload=workload, protocol=protocol, environment=environment,
                                    policy_digest=policy_digest, metric=metric)


def quote(text: str) -> str:
    """A string as the canonical JSON of a comparison key writes it (``comparison_key_of_quoted``)."""
    return _string(text)


def quote_metric(metric: str | None) -> str:
    """A metric as a comparison key writes it: "none" for no metric."""
    return _QUOTED_METRICS.get(metric) or _string(metric or "none")


def comparison_key_of_quoted(*, operation: str, workload: str, protocol: str, environment: str, policy_digest: str,
                             metric: str) -> str:
    """``comparison_key_of`` given each part already written as a JSON string (``quote``,
    ``quote_metric``): lanes that share a workload, protocol or environment share its string."""
    return sha256_digest(
        f'{{"correctness":{policy_digest},"environment":{environment},"metric":{metric},"operation":{operation},'
        f'"protocol":{protocol},"v":{COMPARISON_KEY_VERSION},"workload":{workload}}}')


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


_QUOTED_METRICS = {metric: _string(metric or "none") for metric in (None, "latency:median:ns", "latency:mean:ns")}

# Metrics where less is better, so a group can rank them ascending; a throughput could not be.
LOWER_IS_BETTER = ("latency", "memory")
CENTRAL_STATISTICS = ("median", "mean")
# A measurement in a unit of time is lower-is-better whatever its metric or statistic is called:
# GPU MODE's leaderboard "score" is an aggregate, in seconds, of a submission's times over the
# suite (a geometric mean, or an aggregate its leaderboard does not name: "unspecified").
TIME_UNITS = ("ns", "us", "ms", "s")


def primary_metric(timing: Mapping[str, Any] | None, measurements: Iterable[Mapping[str, Any]] | None
                   ) -> tuple[str | None, float | None]:
    """("<metric>:<statistic>:<unit>", value) that a run is ranked by, e.g. ("latency:median:ns", 81280).

    The timing block decides; without one, the first central (median or mean) measurement of a
    lower-is-better metric, such as a peak-memory run's median MiB, or the first measurement in a
    unit of time, such as GPU MODE's leaderboard score in seconds.
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
        if (measurement["metric"] in LOWER_IS_BETTER and measurement["statistic"] in CENTRAL_STATISTICS) \
                or measurement["unit"] in TIME_UNITS:
            return f"{measurement['metric']}:{measurement['statistic']}:{measurement['unit']}", measurement["value"]
    return None, None


def group_by_cohort(runs: Iterable[RunFacts]) -> dict[str, list[RunFacts]]:
    """Runs by comparison key, each list in input order (one pass: the index every page reads)."""
    groups: dict[str, list[RunFacts]] = {}
    for run in runs:
        groups.setdefault(run.cohort, []).append(run)
    return groups
