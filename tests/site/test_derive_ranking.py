"""Comparison keys, eligibility, ranking, baseline ratios, evidence and staleness."""

from dataclasses import replace
from datetime import date, datetime, timezone

import pytest

from schemas.digest import sha256_digest
from schemas.kinds import BenchmarkRunSpec
from site_builder.derive.comparison import comparison_key, correctness_digest, group_by_cohort, primary_metric
from site_builder.derive.eligibility import (
    BELOW_PHYSICAL_FLOOR, MISSING_PRIMARY_METRIC, RETRACTED, SUPERSEDED, eligibility_reasons, reason_text,
    superseded_names,
)
from site_builder.derive.evidence import evidence_level, is_kernelindex_measurement
from site_builder.derive.history import record_history
from site_builder.derive.ranking import fastest_baseline, leader_vs_baseline, rank_runs
from site_builder.derive.staleness import is_stale

KEY_PARTS = dict(operation="sha256:" + "1" * 64, workload="sha256:" + "2" * 64, protocol="sha256:" + "3" * 64,
                 environment="sha256:" + "4" * 64, policy_digest=correctness_digest({"comparator": "not_asserted"}),
                 metric="latency:median:ns")


def test_comparison_key_is_deterministic_and_sensitive_to_every_part():
    key = comparison_key(**KEY_PARTS)
    assert key == comparison_key(**dict(reversed(list(KEY_PARTS.items()))))
    assert key.startswith("sha256:") and len(key) == 71
    for part, other in [("operation", "sha256:" + "9" * 64), ("workload", "sha256:" + "9" * 64),
                        ("protocol", "sha256:" + "9" * 64), ("environment", "sha256:" + "9" * 64),
                        ("policy_digest", correctness_digest({"comparator": "allclose"})), ("metric", "latency:mean:ns")]:
        assert comparison_key(**{**KEY_PARTS, part: other}) != key, part


def test_comparison_key_hashes_the_canonical_json_of_its_parts():
    """The key as the public KernelIndex defines it, written out: keys sorted, no whitespace, and
    "none" for a run without a metric."""
    written = ('{"correctness":"%s","environment":"%s","metric":"%s","operation":"%s","protocol":"%s","v":1,'
               '"workload":"%s"}')
    parts = KEY_PARTS
    assert comparison_key(**parts) == sha256_digest(written % (
        parts["policy_digest"], parts["environment"], "latency:median:ns", parts["operation"], parts["protocol"],
        parts["workload"]))
    assert comparison_key(**{**parts, "metric": None}) == sha256_digest(written % (
        parts["policy_digest"], parts["environment"], "none", parts["operation"], parts["protocol"], parts["workload"]))
    assert correctness_digest({"comparator": "not_asserted"}) == sha256_digest('{"correctness":{"comparator":"not_asserted"}}')


def _spec(timing=None, measurements=None) -> BenchmarkRunSpec:
    return BenchmarkRunSpec(implementation="i", workload="w", protocol="p", environment="e", status="passed",
                            observedAt="2025-01-01T00:00:00Z", timing=timing, measurements=measurements)


def test_primary_metric_prefers_timing_then_lower_is_better_measurements():
    timing = {"primaryStatistic": "mean", "latencyNs": {"mean": 166200, "median": 160000}}
    assert primary_metric(_spec(timing)) == ("latency:mean:ns", 166200)
    measurements = [{"metric": "throughput", "statistic": "mean", "unit": "GB/s", "value": 3.0},
                    {"metric": "memory", "statistic": "p20", "unit": "MiB", "value": 10.0},
                    {"metric": "memory", "statistic": "median", "unit": "MiB", "value": 12.0}]
    assert primary_metric(_spec(None, measurements)) == ("memory:median:MiB", 12.0)  # a throughput cannot rank ascending
    assert primary_metric(_spec(None, measurements[:2])) == (None, None)


def test_run_units_and_the_floor_apply_to_latencies_only(run):
    memory = run("mem", 12.0, metric="memory:median:MiB")
    assert memory.unit == "MiB" and memory.statistic == "median" and memory.value_ns is None
    assert eligibility_reasons(memory, superseded=False, floor_ns=1000.0) == ()


def test_group_by_cohort_keeps_input_order(run):
    runs = [run("a", cohort="x"), run("b", cohort="y"), run("c", cohort="x")]
    assert {key: [r.name for r in group] for key, group in group_by_cohort(runs).items()} == {"x": ["a", "c"], "y": ["b"]}


def test_eligibility_reason_codes(run):
    assert eligibility_reasons(run("ok"), superseded=False, floor_ns=10.0) == ()
    assert eligibility_reasons(run("bad", status="incorrect_numerical"), superseded=False, floor_ns=None) == (
        "STATUS_INCORRECT_NUMERICAL",)
    assert eligibility_reasons(run("r", retracted=True), superseded=True, floor_ns=None) == (RETRACTED, SUPERSEDED)
    assert eligibility_reasons(run("none", value_ns=None), superseded=False, floor_ns=10.0) == (MISSING_PRIMARY_METRIC,)
    assert eligibility_reasons(run("fast", value_ns=9.0), superseded=False, floor_ns=10.0) == (BELOW_PHYSICAL_FLOOR,)
    assert "implausible" in reason_text(BELOW_PHYSICAL_FLOOR)
    assert reason_text("STATUS_RUNTIME_ERROR") == "it failed while running"
    assert "writes its inputs in place" in reason_text("STATUS_POLICY_VIOLATION")
    assert "POLICY" not in reason_text("STATUS_POLICY_VIOLATION")


def test_superseded_names(run):
    assert superseded_names([run("new", supersedes="old"), run("old")]) == {"old"}


def test_ranking_seed_000_figures(run):
    # Seed 000: Liger 81.3 µs and 81.8 µs, Transformers (baseline) 206.5 µs and 206.6 µs.
    runs = [run("hf1", 206496, baseline=True, language="python"), run("l1", 81280, language="triton"),
            run("hf2", 206624, baseline=True), run("l2", 81760)]
    rows = rank_runs(runs)
    assert [(r.run.name, r.rank) for r in rows] == [("l1", 1), ("l2", 2), ("hf1", 3), ("hf2", 4)]
    assert f"{rows[2].vs_leader:.2f}" == "2.54"
    assert f"{rows[0].vs_baseline:.2f}" == "2.54" and f"{rows[1].vs_baseline:.2f}" == "2.53"
    assert rows[2].vs_baseline is None and rows[3].vs_baseline is None  # baseline rows state no ratio
    assert fastest_baseline(rows).run.name == "hf1"
    assert f"{leader_vs_baseline(rows):.2f}" == "2.54"


def test_equal_values_share_a_rank_and_ties_order_by_evidence_then_newer_then_digest(run):
    old, new = datetime(2025, 1, 1, tzinfo=timezone.utc), datetime(2025, 6, 1, tzinfo=timezone.utc)
    runs = [run("a", 100, observed_at=old, digest="sha256:" + "b" * 64), run("b", 100, observed_at=new),
            run("c", 100, evidence="verified", observed_at=old), run("d", 100, observed_at=old, digest="sha256:" + "a" * 64),
            run("e", 150)]
    rows = rank_runs(runs)
    assert [r.run.name for r in rows] == ["c", "b", "d", "a", "e"]
    assert [r.rank for r in rows] == [1, 1, 1, 1, 2]  # dense: the next distinct value is #2


def test_baseline_ratio_suppressed_when_the_baseline_leads(run):
    rows = rank_runs([run("torch", 100, baseline=True), run("fancy", 120)])
    assert leader_vs_baseline(rows) is None
    assert f"{rows[1].vs_baseline:.2f}" == "0.83"  # slower than the baseline
    assert rank_runs([]) == [] and leader_vs_baseline([]) is None


def test_a_lone_run_leads_its_group_and_set_its_record(run):
    """Most groups have one run (a path of its own): #1, level with itself, never "vs the baseline"."""
    for lone in (run("a", 81280.5), run("torch", 100, baseline=True), run("mem", 512, metric="memory:median:MiB")):
        [row] = rank_runs([lone])
        assert (row.run, row.rank, row.vs_leader, row.vs_baseline) == (lone, 1, 1.0, None)
        assert leader_vs_baseline([row]) is None
        [event] = record_history([lone])
        assert (event.run, event.previous, event.improvement) == (lone, None, None)
    assert record_history([]) == []


def test_no_baseline_in_the_group(run):
    rows = rank_runs([run("a", 100), run("b", 200)])
    assert all(r.vs_baseline is None for r in rows) and fastest_baseline(rows) is None


@pytest.mark.parametrize("verified, count, public, raw, level", [
    (False, 0, False, False, "reported"),
    (False, 0, True, False, "reported"),  # public source alone is not enough
    (False, 0, False, True, "reported"),
    (False, 0, True, True, "reproducible"),
    (True, 1, False, False, "verified"),
    (True, 2, True, True, "replicated"),
])
def test_evidence_ladder(verified, count, public, raw, level):
    assert evidence_level(verified=verified, verified_count=count, public_source=public, raw_evidence=raw) == level


def test_only_the_kernelindex_harness_verifies():
    assert is_kernelindex_measurement("kernelindex-harness", "KernelIndex")
    assert is_kernelindex_measurement("kernelindex-harness", "KernelIndex harness")
    assert not is_kernelindex_measurement("kernelindex-harness", "Liger-Kernel benchmark scripts")
    assert not is_kernelindex_measurement("liger-kernel-bench", "KernelIndex")


def test_staleness_is_against_the_as_of_date():
    observed = datetime(2025, 8, 7, 21, 42, tzinfo=timezone.utc)
    assert not is_stale(observed, date(2026, 2, 3))  # 180 days later: not yet
    assert is_stale(observed, date(2026, 2, 4))  # 181 days


def test_run_facts_rows_and_records_compare_and_hash_by_value(run):
    """Built as plain slotted dataclasses (cheaper than frozen ones), they still behave as values."""
    a, b = run("a", 100), run("b", 120)
    assert replace(a) == a and hash(replace(a)) == hash(a) and replace(a, value=101) != a
    assert len({a: 1, replace(a): 2}) == 1
    rows = rank_runs([a, b])
    assert rank_runs([b, a]) == rows and hash(tuple(rank_runs([b, a]))) == hash(tuple(rows))
    assert {tuple(record_history([a, b])): 1}[tuple(record_history([b, a]))] == 1
    assert not hasattr(a, "__dict__")  # slots: 100,000 of them stay small
