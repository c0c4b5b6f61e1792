"""Step detection (derive.steps) and group timelines (derive.timeline), on hand-made series and on
series taken from Liger's published CI snapshots."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from site_builder.derive.steps import MIN_RUN, Step, attribute, detect_steps, host_shift, level_change, moves_at, noise
from site_builder.derive.timeline import PointFacts, host_wide, timeline

from conftest import make_run

# Liger softmax backward, M=2048 N=128 fp32, on the H100: µs per gh-pages snapshot in time order
# (shared/data/liger-gh-pages). The weeks swing 41 -> 140 µs and back; PyTorch beside it swings too.
SOFTMAX_LIGER = [47, 43, 50, 84, 102, 45, 82, 80, 82, 53, 57, 48, 69, 76, 91, 87, 76, 76, 46, 41, 44, 53, 72, 110,
                 78, 73, 65, 140, 134, 121, 70]
SOFTMAX_TORCH = [10, 10, 10, 41, 47, 10, 36, 34, 36, 15, 20, 20, 34, 37, 45, 45, 36, 39, 15, 11, 11, 18, 37, 57, 40, 45,
                 26, 66, 76, 59, 36]


def test_a_clean_sustained_step_is_found_where_it_is():
    values = [100, 101, 99, 100, 102, 150, 151, 149, 150, 152]
    [step] = detect_steps(values)
    assert step.index == 5 and step.before == 100 and step.after == 150 and step.ratio == 1.5


def test_a_flat_noisy_series_has_no_step():
    wobble = [100 * (1 + 0.06 * math.sin(i * 2.1)) for i in range(40)]  # ±6 %, the typical week-to-week spread
    assert detect_steps(wobble) == []


def test_single_wild_weeks_are_not_steps():
    values = [50, 51, 49, 124, 50, 52, 48, 50, 130, 49, 51, 50]
    assert detect_steps(values) == []


def test_two_weeks_are_not_sustained():
    assert detect_steps([100, 100, 100, 100, 200, 200, 100, 100, 100, 100]) == []
    assert MIN_RUN == 3


def test_a_small_change_within_the_noise_is_not_a_step():
    # 8 % is under MIN_CHANGE however quiet the series.
    assert detect_steps([100.0] * 6 + [108.0] * 6) == []


def test_two_steps_in_one_series_are_both_found():
    values = [10] * 5 + [20] * 5 + [10] * 5
    assert [(s.index, s.before, s.after) for s in detect_steps(values)] == [(5, 10, 20), (10, 20, 10)]


def test_a_protocol_change_sized_jump_is_found_but_splits_keep_it_out_of_one_series():
    # dpo_loss forward at B=2 before and after its script changed (ms): one series would show a step,
    # which is why the importer puts the later rows on a protocol version of their own.
    [step] = detect_steps([1564.6, 1541.9, 1548.1, 1802.7, 3.09, 3.07, 3.10, 3.41])
    assert step.index == 4 and step.ratio < 0.01


def test_noise_is_robust_to_one_outlier():
    logs = [math.log(v) for v in [100, 101, 99, 100, 1000, 100, 101, 99]]
    assert noise(logs) < 0.05


def test_the_liger_softmax_swings_are_not_a_liger_regression():
    steps = detect_steps(SOFTMAX_LIGER)
    torch_places = list(range(len(SOFTMAX_TORCH)))
    for step in steps:
        before = [SOFTMAX_TORCH[i] for i in torch_places if i < step.index][-MIN_RUN:]
        after = [SOFTMAX_TORCH[i] for i in torch_places if i >= step.index][:MIN_RUN]
        verdict = attribute(step, {"torch": level_change(before, after)})
        assert verdict.cause == "host", (step, verdict)


def test_attribution_needs_the_baselines_to_move_the_same_way():
    step = Step(index=5, before=100.0, after=150.0)
    assert attribute(step, {"torch": math.log(1.4), "hf": math.log(1.35)}).cause == "host"
    assert attribute(step, {"torch": math.log(1.4), "hf": 0.0, "x": 0.01}).cause == "implementation"
    assert attribute(step, {"torch": math.log(0.7)}).cause == "implementation"  # the other way
    assert attribute(step, {"torch": None}).cause == "implementation"  # not measured on both sides
    assert attribute(step, {}).cause == "implementation"


def _series(implementation: str, values: list[float], baseline: bool = False):
    start = datetime(2025, 6, 1, tzinfo=timezone.utc)
    runs, facts = [], {}
    for week, value in enumerate(values):
        name = f"{implementation}-{week}"
        runs.append(make_run(name, value * 1000.0, implementation=implementation, baseline=baseline,
                             observed_at=start + timedelta(days=7 * week, minutes=1 if baseline else 0)))
        facts[name] = PointFacts(low=value * 990.0, high=value * 1010.0, place=f"snap{week:02d}", commit=f"c{week:02d}",
                                 release="0.6.0" if week < 20 else "0.7.0")
    return runs, facts


def test_timeline_orders_points_and_attributes_a_shared_step_to_the_host():
    liger, liger_facts = _series("liger", [50.0] * 8 + [80.0] * 8)
    torch, torch_facts = _series("torch", [20.0] * 8 + [33.0] * 8, baseline=True)
    line = timeline("c", torch + liger[::-1], {**liger_facts, **torch_facts})
    assert list(line.series) == ["liger", "torch"]
    assert [p.run.name for p in line.series["liger"]] == [f"liger-{i}" for i in range(16)]
    liger_step = next(s for s in line.steps if s.implementation == "liger")
    assert liger_step.cause == "host" and liger_step.baselines == ("torch",) and liger_step.regression
    assert (liger_step.before.facts.place, liger_step.after.facts.place) == ("snap07", "snap08")


def test_timeline_keeps_a_step_of_the_implementation_alone_as_its_own():
    liger, liger_facts = _series("liger", [50.0] * 8 + [35.0] * 8)
    torch, torch_facts = _series("torch", [20.0] * 16, baseline=True)
    line = timeline("c", liger + torch, {**liger_facts, **torch_facts})
    [step] = line.steps
    assert step.implementation == "liger" and step.cause == "implementation" and not step.regression


def test_a_group_measured_once_per_implementation_has_no_timeline():
    liger, facts = _series("liger", [50.0])
    torch, more = _series("torch", [20.0], baseline=True)
    assert timeline("c", liger + torch, {**facts, **more}) is None


@pytest.mark.parametrize("values", [[0.0] * 8, [1.0, -1.0] * 4])
def test_non_positive_values_have_no_steps(values):
    assert detect_steps(values) == []


def test_moves_at_compares_the_windows_either_side_of_each_point():
    moves = moves_at([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    assert moves == [(3, pytest.approx(math.log(2)))]


def test_host_shift_needs_many_baselines_moving_one_way():
    up, flat, down = math.log(1.3), 0.0, math.log(0.7)
    assert host_shift([up] * 3 + [flat] * 7) == 1  # 30 % up, none down
    assert host_shift([down] * 3 + [flat] * 7) == -1
    assert host_shift([up] * 3 + [down] * 3 + [flat] * 4) == 0  # noise moves both ways
    assert host_shift([up] * 1 + [flat] * 9) == 0  # 10 %: too few
    assert host_shift([]) == 0


def test_host_wide_reattributes_a_lone_step_when_the_gpus_baselines_moved():
    liger, liger_facts = _series("liger", [50.0] * 8 + [80.0] * 8)  # a group without baselines
    torch, torch_facts = _series("torch", [20.0] * 8 + [30.0] * 8, baseline=True)  # another group
    alone = timeline("a", liger, liger_facts)
    other = timeline("b", torch, torch_facts)
    assert alone.steps[0].cause == "implementation"
    moved = host_wide({"a": alone, "b": other}, {"a": "h100", "b": "h100"})
    assert moved["a"].steps[0].cause == "host-wide"
    elsewhere = host_wide({"a": alone, "b": other}, {"a": "h100", "b": "a100"})  # another GPU's host
    assert elsewhere["a"].steps[0].cause == "implementation"
