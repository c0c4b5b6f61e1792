"""Run facts read from a real catalog (evidence levels that need the other runs: "replicated") and
from run models (the primary metric, held to a reference that reads the run's fields as written)."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from schemas.kinds import BenchmarkRunSpec
from site_builder.derive.comparison import LATENCY_METRICS, primary_metric
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.repository import load_catalog
from tests.bundled import bundled_data

REPO = Path(__file__).resolve().parents[2]
HARNESS_RUNS = REPO / "data" / "runs" / "kernelindex-harness" / "llama4-rope"
AS_OF = date(2027, 1, 1)  # after every observation in the repository's data
RUN = "llama4-rope-kernelindex-pytorch-reference-b1-s1024-h8192-q32-kv8-bf16-backward-h200-3484a9c5"
SIBLING = "llama4-rope-kernelindex-pytorch-reference-b1-s1024-h8192-q32-kv8-bf16-forward-h200-3484a9c5"


def test_a_second_verified_run_of_one_implementation_in_one_group_makes_both_replicated(tmp_path):
    data = tmp_path / "data"
    # Everything but the runs, and one kernel's harness runs (the whole folder loads slowly).
    shutil.copytree(REPO / "data", data, ignore=shutil.ignore_patterns("*.csv", "*.md", "runs"))
    shutil.copytree(HARNESS_RUNS, data / "runs" / "kernelindex-harness" / "llama4-rope")
    text = (HARNESS_RUNS / f"{RUN}.yaml").read_text(encoding="utf-8")
    # A second measurement of the same group: another name, source id and median (so another digest).
    import re

    median = int(re.search(r"median: (\d+)", text).group(1))
    again = (text.replace(f"name: {RUN}", f"name: {RUN}-again").replace(f"median: {median}", f"median: {median + 1}", 1)
             .replace("externalId: llama4-rope/", "externalId: again/llama4-rope/"))
    assert "-again" in again and f"median: {median + 1}" in again and "again/" in again
    (data / "runs" / "kernelindex-harness" / "llama4-rope" / f"{RUN}-again.yaml").write_text(again, encoding="utf-8")

    board = derive_leaderboard(load_catalog(data, AS_OF, cache=False), AS_OF)

    assert board.runs[RUN].cohort == board.runs[f"{RUN}-again"].cohort
    assert board.runs[RUN].evidence == board.runs[f"{RUN}-again"].evidence == "replicated"
    assert board.runs[SIBLING].evidence == "verified"  # the forward pass is another group
    assert list(board.runs) == sorted(board.runs)  # facts in name order, the replicated ones in place
    assert not any(hasattr(cohort, "__dict__") for cohort in board.cohorts.values())  # slotted: 57,000 at 100k runs


def primary_metric_as_written(timing: dict | None, measurements: list[dict] | None) -> tuple[str | None, float | None]:
    """The reference for ``primary_metric``: the rule as the public KernelIndex documents it, read
    from a run's fields as written (JSON) rather than from its validated model, with the fallback
    its documentation gives for a timing that lacks its primary statistic (which our validation
    refuses, so ``primary_metric`` has none)."""
    if timing:
        statistic = timing["primaryStatistic"]
        value = timing["latencyNs"].get(statistic)
        if value is None:
            statistic = "median" if statistic == "mean" else "mean"
            value = timing["latencyNs"].get(statistic)
        return f"latency:{statistic}:ns", value
    for measurement in measurements or ():
        if (measurement["metric"] in ("latency", "memory") and measurement["statistic"] in ("median", "mean")) \
                or measurement["unit"] in ("ns", "us", "ms", "s"):
            return f"{measurement['metric']}:{measurement['statistic']}:{measurement['unit']}", measurement["value"]
    return None, None


@pytest.mark.parametrize("timing", [
    {"primaryStatistic": "median", "latencyNs": {"median": 81280, "mean": 81300, "minimum": 80000}},
    {"primaryStatistic": "mean", "latencyNs": {"median": 81280, "mean": 81300}},
    {"primaryStatistic": "mean", "latencyNs": {"mean": 5}},
    {"primaryStatistic": "median", "latencyNs": {"median": 7, "p20": 6}},
    None,
])
@pytest.mark.parametrize("measurements", [
    None, [], [{"metric": "throughput", "statistic": "median", "unit": "GBps", "value": 9.0},
               {"metric": "memory", "statistic": "mean", "unit": "MiB", "value": 12.5}],
    [{"metric": "score", "statistic": "geomean", "unit": "s", "value": 0.0021}],
])
def test_primary_metric_is_the_rule_applied_to_the_fields_as_written(timing, measurements):
    spec = BenchmarkRunSpec(implementation="i", workload="w", protocol="p", environment="e", status="passed",
                            observedAt="2025-01-01T00:00:00Z", timing=timing, measurements=measurements)
    dumped = spec.model_dump()
    assert primary_metric(spec) == primary_metric_as_written(dumped["timing"], dumped["measurements"])
    if timing is not None:
        assert primary_metric(spec)[0] is LATENCY_METRICS[timing["primaryStatistic"]]  # one string for every run


def test_every_bundled_runs_primary_metric_is_the_rule_applied_to_its_fields_as_written():
    """On the bundled data (every source's runs: harness timings, KernelBench means, GPU MODE's
    scores in seconds, failed runs without a value): the facts the board ranks by are the reference's."""
    catalog = load_catalog(bundled_data())
    board = derive_leaderboard(catalog, AS_OF)
    kinds = set()
    for name, run in catalog.runs.items():
        dumped = run.spec.model_dump()
        expected = primary_metric_as_written(dumped["timing"], dumped["measurements"])
        assert (board.runs[name].metric, board.runs[name].value) == expected, name
        kinds.add(expected[0].split(":", 1)[0] if expected[0] else None)
    assert {"latency", None} <= kinds and len(kinds) >= 3, kinds  # times, another metric, and runs without one
