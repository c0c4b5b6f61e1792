"""Run files: they validate against the schema and loader, names are stable, writing is idempotent."""

from pathlib import Path

from harness.datarepo import read_data
from harness.devices import Outcome
from harness.runfiles import run_name
from harness.selection import select
from harness.sweep import SweepResult, assemble, write

from .synthetic import FACTS, fake_result
from .test_selection import FAMILIES


def _sweep(data: Path, *, statuses=None, devices=(0,), facts_by_device=None):
    index = read_data(data)
    plan = select(index, FAMILIES, passes=["forward", "backward"])
    outcome = Outcome()
    for i, task in enumerate(plan.tasks):
        status = (statuses or {}).get(task.key, "passed")
        changed = ("q",) if task.impl == "liger" else ()
        if changed and status == "passed":
            status = "policy_violation"
        outcome.results[task.key] = fake_result(task, status=status, changed=changed)
        outcome.measured_on[task.key] = devices[i % len(devices)]
    for device in devices:
        outcome.facts[device] = dict((facts_by_device or {}).get(device, FACTS), physical_index=device)
    result = assemble(plan, SweepResult(outcome=outcome, wall_s=1.0), index)
    return plan, result, index


def _validate(data: Path):
    from site_builder.repository import load_catalog

    return load_catalog(data)


def test_written_files_validate_and_carry_the_harness_source(tiny_data):
    plan, result, index = _sweep(tiny_data)
    report = write(plan, result, tiny_data, index)
    catalog = _validate(tiny_data)
    runs = {name: e for name, e in catalog.runs.items() if e.spec.sourceNative and e.spec.sourceNative.source == "kernelindex-harness"}
    assert len(runs) == len(plan.tasks) + 3  # + one suite-mean run per implementation of the M-RoPE suite
    assert len(report.runs) == len(runs)
    liger = [e for e in runs.values() if e.spec.implementation == "kernelindex-liger-llama4-rope" and e.spec.protocol == "kernelindex-harness-v1"]
    assert liger and liger[0].spec.status == "policy_violation"
    assert liger[0].spec.correctness.inputsUnmodified is False and "No mutation or aliasing" in liger[0].spec.correctness.notes
    assert liger[0].metadata.labels["liger_version"] == "0.8.5"
    ours = next(e for e in runs.values() if e.spec.implementation == "kernelindex-triton-llama4-rope" and e.spec.protocol == "kernelindex-harness-v1")
    spec = ours.spec
    assert spec.timing.primaryStatistic == "median" and spec.timing.samples == 25
    assert len(spec.evidence.rawSamplesNs) == 25
    assert spec.correctness.comparator == "allclose" and spec.correctness.maximumAbsoluteError == 0.001
    assert "atol=1e-05, rtol=1e-05" in spec.correctness.notes
    assert spec.sourceNative.metrics["sm_clock_mhz_before"] == 1980 and spec.sourceNative.metrics["device_index"] == 0
    assert {m.metric for m in spec.measurements} == {"bandwidth", "throughput"}
    assert all(Path(p).parent.name in FAMILIES and Path(p).parent.parent.name == "kernelindex-harness" for p in report.runs)
    assert all(len(e.name) <= 100 for e in runs.values())
    protocol = catalog.protocols["kernelindex-harness-v1"].spec
    assert protocol.harness.name == "KernelIndex harness" and protocol.measurement.timer == "cuda_events"
    assert protocol.measurement.timedPass == "forward" and protocol.measurement.cacheFlush
    assert catalog.protocols["kernelindex-harness-v1-backward"].spec.measurement.timedPass == "backward"


def test_suite_mean_run_is_the_mean_of_case_medians_and_fails_with_a_case(tiny_data):
    plan, result, index = _sweep(tiny_data)
    write(plan, result, tiny_data, index)
    catalog = _validate(tiny_data)
    suite_runs = [e for e in catalog.runs.values() if e.spec.workload == "mrope-tiny-suite"]
    assert len(suite_runs) == 3
    mean = suite_runs[0].spec.timing
    assert mean.primaryStatistic == "mean" and mean.samples == 2 and mean.latencyNs.median is None

    failing = next(t.key for t in plan.tasks if t.workload.endswith("seqlen12-batchsize2") and t.impl == "kernelindex-triton")
    plan2, result2, index2 = _sweep(tiny_data, statuses={failing: "incorrect_numerical"})
    write(plan2, result2, tiny_data, index2)
    catalog = _validate(tiny_data)
    ours = next(e for e in catalog.runs.values() if e.spec.workload == "mrope-tiny-suite" and e.spec.implementation.startswith("kernelindex-triton"))
    assert ours.spec.status == "incorrect_numerical" and ours.spec.timing is None
    assert "Failed cases: mrope-tiny-suite-seqlen12-batchsize2 (incorrect_numerical)" in ours.spec.correctness.notes


def test_same_results_same_files_and_rerun_replaces(tiny_data):
    plan, result, index = _sweep(tiny_data)
    first = write(plan, result, tiny_data, index)
    snapshot = {p: p.read_bytes() for p in (tiny_data / "runs").rglob("*.yaml")}
    plan, result, index = _sweep(tiny_data)
    second = write(plan, result, tiny_data, read_data(tiny_data))
    assert second.written == [] and len(second.unchanged) >= len(first.runs)
    assert {p: p.read_bytes() for p in (tiny_data / "runs").rglob("*.yaml")} == snapshot
    # a re-run with new numbers rewrites the same paths: no duplicates
    index = read_data(tiny_data)
    plan = select(index, FAMILIES, passes=["forward", "backward"])
    outcome = Outcome(facts={0: dict(FACTS, physical_index=0)})
    for task in plan.tasks:
        outcome.results[task.key] = fake_result(task, base_ns=20_000, observed="2026-11-30T12:00:00.000Z")
        outcome.measured_on[task.key] = 0
    third = write(plan, assemble(plan, SweepResult(outcome=outcome, wall_s=1.0), index), tiny_data, index)
    assert set(third.runs) == set(first.runs)
    assert set((tiny_data / "runs").rglob("*.yaml")) == set(snapshot)
    _validate(tiny_data)


def test_failed_run_is_recorded_not_dropped(tiny_data):
    plan, _, _ = _sweep(tiny_data)
    broken = next(t.key for t in plan.tasks if t.impl == "pytorch-reference")
    plan, result, index = _sweep(tiny_data, statuses={broken: "runtime_error"})
    write(plan, result, tiny_data, index)
    catalog = _validate(tiny_data)
    run = next(e for e in catalog.runs.values() if e.spec.sourceNative.externalId.startswith(broken.rsplit("/", 1)[0]) and
               e.spec.protocol == broken.rsplit("/", 1)[1])
    assert run.spec.status == "runtime_error" and run.spec.timing is None and run.spec.evidence is None


def _cohorts(catalog):
    """(workload, protocol) -> {device index: comparison keys} for the harness's runs."""
    from site_builder.derive.comparison import comparison_key, correctness_digest, primary_metric

    groups = {}
    for run in catalog.runs.values():
        spec = run.spec
        if spec.timing is None or spec.sourceNative.metrics.get("device_index") is None:
            continue
        workload, protocol, environment = run.refs["workload"], run.refs["protocol"], run.refs["environment"]
        key = comparison_key(operation=workload.refs["operation"].digest, workload=workload.digest, protocol=protocol.digest,
                             environment=environment.digest,
                             policy_digest=correctness_digest(workload.canonical_spec["correctness"]),
                             metric=primary_metric(spec)[0])
        device = int(spec.sourceNative.metrics["device_index"])
        groups.setdefault((spec.workload, spec.protocol), {}).setdefault(device, set()).add(key)
    return groups


def test_two_gpus_with_one_environment_share_comparison_groups_and_differing_ones_do_not(tiny_data, tmp_path):
    from .conftest import make_data

    plan, result, index = _sweep(tiny_data, devices=(0, 1))
    assert len(set(result.device_environment.values())) == 1
    assert {m.device for m in result.measured} == {0, 1}
    write(plan, result, tiny_data, index)
    mixed = [g for g in _cohorts(_validate(tiny_data)).values() if len(g) == 2]
    assert mixed and all(len(g[0] | g[1]) == 1 for g in mixed)  # both GPUs' runs in one comparison group

    other_data = make_data(tmp_path / "other")
    plan2, result2, index2 = _sweep(other_data, devices=(0, 1), facts_by_device={1: dict(FACTS, driver="575.51.03")})
    assert len(set(result2.device_environment.values())) == 2
    write(plan2, result2, other_data, index2)
    catalog = _validate(other_data)
    assert len(catalog.environments) == 2
    split = [g for g in _cohorts(catalog).values() if len(g) == 2]
    assert split and all(not (g[0] & g[1]) for g in split)  # different environments: never ranked together
    # a suite whose cases ran on GPUs with different environments gets no mean at all
    assert not [e for e in catalog.runs.values() if e.spec.workload == "mrope-tiny-suite"]


def test_run_names_are_stable_and_short():
    name = run_name("kernelindex-triton-multimodal-rotary-embedding-attention", "multimodal-rotary-embedding-attention",
                    "multimodal-rotary-embedding-attention-sol-execbench-16-cases-seqlen4096-batchsize1", "forward", True,
                    "kernelindex-nvidia-h200-0123abcd")
    assert len(name) <= 100 and name == run_name("kernelindex-triton-multimodal-rotary-embedding-attention",
                                                  "multimodal-rotary-embedding-attention",
                                                  "multimodal-rotary-embedding-attention-sol-execbench-16-cases-seqlen4096-batchsize1",
                                                  "forward", True, "kernelindex-nvidia-h200-0123abcd")
    assert run_name("liger-llama4-rope", "llama4-rope", "llama4-rope-b1-s2048-h8192-q32-kv8-bf16", "forward", False,
                    "kernelindex-nvidia-h200-0123abcd") == "llama4-rope-liger-b1-s2048-h8192-q32-kv8-bf16-forward-h200-0123abcd"
