"""Record history, scaling series, challenges and comparison-group labels."""

from datetime import datetime, timedelta, timezone

from site_builder.derive.challenges import (
    SINGLE_ENTRY, STALE_RECORD, UNBEATEN_BASELINE, cohort_challenges, coverage_gaps,
)
from site_builder.derive.history import record_history
from site_builder.derive.labels import CohortFacets, cohort_labels
from site_builder.derive.ranking import rank_runs
from site_builder.derive.scaling import MAX_SERIES, ScalingInput, choose_axis, scaling_series

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def test_record_history_is_the_running_minimum_in_observation_order(run):
    runs = [run("c", 90, observed_at=T0 + timedelta(days=3)), run("a", 100, observed_at=T0),
            run("b", 120, observed_at=T0 + timedelta(days=1)), run("d", 90, observed_at=T0 + timedelta(days=4)),
            run("e", 80, observed_at=T0 + timedelta(days=5))]
    events = record_history(runs)
    assert [e.run.name for e in events] == ["a", "c", "e"]  # b is slower, d only equals the record
    assert events[0].previous is None and events[0].improvement is None
    assert events[1].previous.name == "a" and abs(events[1].improvement - 0.1) < 1e-12
    assert record_history([]) == []


def _point(impl, value, **axes):
    return ScalingInput(axes={"seq": 2048, "hidden": 8192, **axes}, implementation=impl, value_ns=value,
                        run=f"{impl}-{axes}", workload=f"w-{axes}")


def test_scaling_picks_the_axis_with_most_values_and_keeps_the_best_per_workload():
    anchor = {"seq": 2048, "hidden": 8192}
    runs = [_point("liger", v, seq=s) for s, v in [(1024, 74), (2048, 81), (4096, 117), (8192, 216)]]
    runs += [_point("liger", 82, seq=2048)]  # a second, slower run of one workload: not drawn
    runs += [_point("hf", v, seq=s) for s, v in [(1024, 116), (2048, 206), (4096, 385)]]
    runs += [_point("liger", v, hidden=h) for h, v in [(512, 82), (2048, 81)]]  # 3 hidden values only
    runs += [_point("lonely", 50, seq=1024)]  # one point: dropped
    runs += [_point("liger", 10, seq=1024, hidden=512)]  # differs on two axes: not on the line
    scaling = scaling_series(anchor, runs, ["seq", "hidden"])
    assert scaling.axis == "seq" and scaling.fixed == {"hidden": 8192}
    assert [s.implementation for s in scaling.series] == ["liger", "hf"]  # rightmost point first
    assert [(p.x, p.value_ns) for p in scaling.series[0].points] == [(1024, 74), (2048, 81), (4096, 117), (8192, 216)]


def test_scaling_needs_three_values_and_caps_the_series():
    anchor = {"seq": 1, "hidden": 1}
    assert choose_axis(anchor, [{"seq": 1, "hidden": 1}, {"seq": 2, "hidden": 1}], ["seq", "hidden"]) is None
    assert choose_axis(anchor, [{"seq": s, "hidden": 1} for s in (1, 2, 3)] + [{"seq": 1, "hidden": h} for h in (1, 2, 3)],
                       ["hidden", "seq"]) == "hidden"  # a tie keeps the axis declared first
    runs = [ScalingInput({"seq": s, "hidden": 1}, f"impl{i}", 100 + i + s, f"r{i}{s}", f"w{s}") for i in range(7) for s in (1, 2, 3)]
    scaling = scaling_series(anchor, runs, ["seq", "hidden"])
    assert len(scaling.series) == MAX_SERIES and scaling.overflow == 2
    assert scaling_series(anchor, runs[:2], ["seq", "hidden"]) is None


def test_coverage_gaps():
    assert coverage_gaps({"rope", "gemm"}, {"h100", "b200"}, {("rope", "h100")}) == [
        ("gemm", "b200"), ("gemm", "h100"), ("rope", "b200")]


def test_cohort_challenges(run):
    lone = rank_runs([run("a", 10)])
    assert [c.kind for c in cohort_challenges("k", lone, holder_stale=False)] == [SINGLE_ENTRY]
    baseline = rank_runs([run("torch", 10, baseline=True), run("b", 20)])
    assert [c.kind for c in cohort_challenges("k", baseline, holder_stale=True)] == [UNBEATEN_BASELINE, STALE_RECORD]
    assert cohort_challenges("k", rank_runs([run("a", 10), run("b", 20)]), holder_stale=False) == []
    assert cohort_challenges("k", [], holder_stale=True) == []


def _facets(key, gpu, **values):
    names = ["pass", "form factor", "cuda", "protocol", "environment"]
    return CohortFacets(key, gpu, tuple((name, values.get(name.replace(" ", "_"), "")) for name in names))


def test_cohort_labels_name_what_differs():
    labels = cohort_labels([
        _facets("fwd", "H100", **{"pass": "forward", "protocol": "Liger fwd", "environment": "host"}),
        _facets("bwd", "H100", **{"pass": "backward", "protocol": "Liger bwd", "environment": "host"}),
        _facets("pcie", "H100 PCIe", **{"pass": "forward"}),
        _facets("cu1", "B200", cuda="CUDA 12.4", protocol="P", environment="env a"),
        _facets("cu2", "B200", cuda="CUDA 12.8", protocol="P", environment="env b"),
        _facets("same1", "A100", protocol="P", environment="E"),
        _facets("same2", "A100", protocol="P", environment="E"),
    ])
    assert labels["fwd"] == "H100 · forward" and labels["bwd"] == "H100 · backward"
    assert labels["pcie"] == "H100 PCIe"  # alone on its GPU: the GPU says it all
    assert labels["cu1"] == "B200 · CUDA 12.4" and labels["cu2"] == "B200 · CUDA 12.8"
    assert labels["same1"] != labels["same2"] and "env" not in labels["same1"]


def test_cohort_labels_add_a_second_facet_only_where_the_first_is_shared():
    names = ["pass", "metric", "protocol"]

    def facets(key, *values):
        return CohortFacets(key, "H100", tuple(zip(names, values)))

    labels = cohort_labels([facets("f", "forward", "latency", "P fwd"), facets("full", "full", "latency", "P full"),
                            facets("mem", "full", "memory", "P mem")])
    assert labels == {"f": "H100 · forward", "full": "H100 · full · latency", "mem": "H100 · full · memory"}


def _line_by_definition(anchor, runs, axis_order):
    """The axis (a scan of the runs per axis) and the best run per implementation and x along it."""
    def on_line(axes, axis):
        return axes.keys() == anchor.keys() and all(axes[name] == value for name, value in anchor.items() if name != axis)

    best_axis = None
    for axis in [name for name in axis_order if name in anchor]:
        distinct = {run.axes[axis] for run in runs if on_line(run.axes, axis)}
        if len(distinct) >= 3 and (best_axis is None or len(distinct) > best_axis[0]):
            best_axis = (len(distinct), axis)
    if best_axis is None:
        return None, {}
    axis = best_axis[1]
    best = {}
    for run in (run for run in runs if on_line(run.axes, axis)):
        key = (run.implementation, run.axes[axis])
        if key not in best or (run.value_ns, run.run) < (best[key].value_ns, best[key].run):
            best[key] = run
    return axis, best


def test_scaling_finds_the_lines_a_scan_per_axis_finds():
    """choose_axis and scaling_series look at each run once; a scan per axis is their definition."""
    import random

    rng = random.Random(8)
    chosen = set()
    for draw in range(600):
        names = rng.sample(["seq", "hidden", "batch"], rng.randint(1, 3))
        anchor = {name: rng.randint(1, 3) for name in names}
        order = rng.sample(["seq", "hidden", "batch"], 3)
        runs = [ScalingInput({name: rng.randint(1, 4) for name in (names if rng.random() < 0.9 else names[:-1] + ["other"])},
                             rng.choice("abc"), float(rng.randint(1, 9)), f"r{i}", f"w{i}") for i in range(rng.randint(0, 40))]
        axis, best = _line_by_definition(anchor, runs, order)
        assert choose_axis(anchor, [run.axes for run in runs], order) == axis
        scaling = scaling_series(anchor, runs, order)
        chosen.add(scaling.axis if scaling else None)
        if scaling is not None:
            assert scaling.axis == axis
            drawn = {(s.implementation, p.x): p.run for s in scaling.series for p in s.points}
            assert all(best[key].run == run for key, run in drawn.items())
    assert len(chosen) == 4  # draws with no line, and with a line along each axis
