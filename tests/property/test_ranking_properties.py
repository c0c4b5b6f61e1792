"""Ranking invariants, for any comparison group: rank 1 holds the minimum, "vs #1" is at least 1,
ranks are dense and shared by equal values, the order never depends on input order, a record
history only ever goes down, and staleness only grows with the as-of date."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from site_builder.derive.eligibility import BELOW_PHYSICAL_FLOOR, eligibility_reasons
from site_builder.derive.history import record_history
from site_builder.derive.model import EVIDENCE_LEVELS, RunFacts
from site_builder.derive.ranking import leader_vs_baseline, rank_runs
from site_builder.derive.staleness import is_stale

# A few distinct values, so ties are common; floats and ints both occur in real data.
values = st.one_of(st.sampled_from([81_300, 81_300.0, 100_000, 206_500, 5_050]),
                   st.integers(min_value=1, max_value=60_000_000_000),
                   st.floats(min_value=0.5, max_value=6e10, allow_nan=False))
# Latencies mostly; a ranked memory figure (MiB) now and then: ranking is by value whatever the unit.
metrics = st.sampled_from(["latency:median:ns"] * 4 + ["memory:median:MiB"])
moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1)).map(
    lambda d: d.replace(tzinfo=timezone.utc))


@st.composite
def run(draw, index: int, digest: int | None = None) -> RunFacts:
    # Two runs never share a digest (the linker refuses duplicate content), so the order is total.
    digest = draw(st.integers(0, 2**64)) if digest is None else digest
    return RunFacts(
        name=f"run-{index}", digest=f"sha256:{digest:064x}", operation="op", workload="w",
        implementation=f"impl-{draw(st.integers(0, 4))}", protocol="p", environment="e", cohort="c",
        status="passed", value=draw(values), metric=draw(metrics), observed_at=draw(moments),
        baseline=draw(st.booleans()), evidence=draw(st.sampled_from(EVIDENCE_LEVELS)),
    )


@st.composite
def cohort(draw) -> list[RunFacts]:
    digests = draw(st.lists(st.integers(0, 2**64), min_size=1, max_size=12, unique=True))
    return [draw(run(index, digest)) for index, digest in enumerate(digests)]


@given(cohort())
def test_rank_one_holds_the_minimum(runs):
    rows = rank_runs(runs)
    smallest = min(r.value for r in runs)
    assert rows[0].rank == 1 and rows[0].value == smallest
    assert all(row.value == smallest for row in rows if row.rank == 1)
    assert len(rows) == len(runs)


@given(cohort())
def test_vs_leader_is_at_least_one(runs):
    rows = rank_runs(runs)
    assert all(row.vs_leader >= 1 for row in rows)
    assert all(row.vs_leader == 1 for row in rows if row.rank == 1)


@given(cohort())
def test_ranks_are_dense_and_shared_by_equal_values(runs):
    rows = rank_runs(runs)
    ranks = [row.rank for row in rows]
    assert ranks == sorted(ranks)
    assert set(ranks) == set(range(1, max(ranks) + 1))
    for a in rows:
        for b in rows:
            assert (a.rank == b.rank) == (a.value == b.value)
            assert (a.rank < b.rank) == (a.value < b.value)


@given(cohort(), st.integers(min_value=0, max_value=2**32 - 1))
def test_order_never_depends_on_input_order(runs, seed):
    shuffled = list(runs)
    random.Random(seed).shuffle(shuffled)
    assert [(r.run.name, r.rank) for r in rank_runs(shuffled)] == [(r.run.name, r.rank) for r in rank_runs(runs)]


@given(cohort())
def test_baseline_ratio(runs):
    rows = rank_runs(runs)
    baselines = [r.value for r in runs if r.baseline]
    for row in rows:
        if row.run.baseline or not baselines:
            assert row.vs_baseline is None
        else:
            assert row.vs_baseline == min(baselines) / row.value
    headline = leader_vs_baseline(rows)
    if rows[0].run.baseline or not baselines:
        assert headline is None  # suppressed when the leader is the baseline
    else:
        assert headline == min(baselines) / rows[0].value >= 1


@given(cohort())
def test_record_history_only_goes_down_and_ends_at_the_leader(runs):
    events = record_history(runs)
    values = [event.run.value for event in events]
    assert all(later < earlier for earlier, later in zip(values, values[1:]))
    assert values[-1] == min(r.value for r in runs)
    times = [event.run.observed_at for event in events]
    assert times == sorted(times)


@given(moments, st.dates(min_value=date(2000, 1, 1), max_value=date(2032, 1, 1)), st.integers(min_value=0, max_value=5000))
def test_staleness_is_monotone_in_the_as_of_date(observed, as_of, later_by):
    if is_stale(observed, as_of):
        assert is_stale(observed, as_of + timedelta(days=later_by))
    if not is_stale(observed, as_of + timedelta(days=later_by)):
        assert not is_stale(observed, as_of)


@given(moments)
def test_stale_after_180_days(observed):
    day = observed.date()
    assert not is_stale(observed, day + timedelta(days=180))
    assert is_stale(observed, day + timedelta(days=181))


@given(run(0), st.floats(min_value=1, max_value=1e9, allow_nan=False))
def test_below_the_floor_is_never_eligible(facts, floor):
    # The floor is a time: it flags latencies below it, and never a figure in another unit.
    reasons = eligibility_reasons(facts, superseded=False, floor_ns=floor)
    is_latency = facts.metric.endswith(":ns")
    assert (BELOW_PHYSICAL_FLOOR in reasons) == (is_latency and facts.value < floor)
    assert reasons == () or reasons == (BELOW_PHYSICAL_FLOOR,)
