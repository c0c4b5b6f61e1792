"""End to end on the CPU: `kernelindex bench --backend cpu` on tiny workloads through Triton's
interpreter, then the files validate; a re-run replaces files instead of adding new ones."""

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.kernels,
              # the M-RoPE kernel's exp2 of (finfo.min - max) overflows to -inf on purpose (-> 0)
              pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")]

from harness.cli import command  # noqa: E402


def _bench(*args):
    return CliRunner().invoke(command, list(args), catch_exceptions=False)


def test_cpu_pipeline_runs_every_kernel_and_writes_valid_files(tiny_data):
    import re

    common = ["--data", str(tiny_data), "--backend", "cpu", "--target-ms", "1", "-i", "kernelindex-triton", "-i", "pytorch-reference"]
    # every pass of Llama 4 RoPE; the forward of the other two (their backward is slow in the interpreter)
    rope = _bench(*common, "-p", "all", "llama4-rope")
    assert rope.exit_code == 0, rope.output
    assert "[1/6] cpu" in rope.output and "kernelindex-triton" in rope.output    # progress lines
    assert "median" in rope.output and "p20-p80" in rope.output                  # the summary table
    others = _bench(*common, "-p", "forward", "fused-neighborhood-attention", "multimodal-rotary-embedding-attention")
    assert others.exit_code == 0, others.output
    assert "validation: " in others.output and "is valid" in others.output
    total = int(re.match(r"(\d+) measurements", rope.output).group(1)) + int(re.match(r"(\d+) measurements", others.output).group(1))
    runs = sorted((tiny_data / "runs" / "kernelindex-harness").rglob("*.yaml"))
    # one run per measurement (the fp32 neighborhood attention's forward of ours twice: TF32 GEMMs and
    # strict fp32), plus a suite-mean run per implementation of the two-case M-RoPE suite
    assert len(runs) == total + 2 == 6 + 2 + 5 + 2
    from site_builder.repository import load_catalog

    catalog = load_catalog(tiny_data)
    ours = [e for e in catalog.runs.values() if e.spec.sourceNative.source == "kernelindex-harness"]
    assert {e.spec.status for e in ours} == {"passed"}, [(e.name, e.spec.correctness.notes) for e in ours if e.spec.status != "passed"]
    # every run declares its arithmetic; ours on fp32 neighborhood attention is published both ways
    assert all(e.spec.precision is not None for e in ours)
    fna = {e.name: e.spec.precision.reducedModes for e in ours
           if e.spec.implementation == "kernelindex-triton-fused-neighborhood-attention"}
    assert sorted(fna.values()) == [[], ["tf32"]] and any(name.endswith("-strict-cpu") or "-strict-" in name for name in fna)
    assert all(e.spec.precision.reducedModes == [] for e in ours if e.spec.workload.startswith("llama4-rope"))
    assert len(catalog.environments) == 1

    again = _bench(*common, "-p", "forward", "llama4-rope")
    assert again.exit_code == 0, again.output
    assert sorted((tiny_data / "runs" / "kernelindex-harness").rglob("*.yaml")) == runs  # replaced, not duplicated


def test_dry_run_prints_the_plan_without_a_gpu(tiny_data):
    result = _bench("--data", str(tiny_data), "--dry-run", "llama4-rope", "-p", "all")
    assert result.exit_code == 0
    assert "llama4-rope:" in result.output and "kernelindex-triton -> kernelindex-triton-llama4-rope" in result.output
    assert "implementations/kernelindex-triton-llama4-rope.yaml" in result.output
    assert not (tiny_data / "runs").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine without a GPU")
def test_without_a_gpu_it_refuses_clearly(tiny_data):
    result = CliRunner().invoke(command, ["--data", str(tiny_data), "llama4-rope"])
    assert result.exit_code == 1
    assert "no CUDA GPU is visible" in result.output and "--dry-run" in result.output
    assert not (tiny_data / "runs").exists()


def test_unknown_names_are_one_line_errors(tiny_data):
    result = CliRunner().invoke(command, ["--data", str(tiny_data), "--dry-run", "-w", "no-such-workload"])
    assert result.exit_code == 1 and "no workload named 'no-such-workload'" in result.output


def test_a_real_worker_process_measures_and_reports(tiny_data, tmp_path):
    """`python -m harness.worker` as --devices starts it (here on the CPU backend)."""
    from harness.datarepo import read_data
    from harness.devices import Dispatcher, process_spawner, worker_argv
    from harness.plan import TimingOptions
    from harness.selection import family_infos, select

    plan = select(read_data(tiny_data), family_infos(), kernels=["llama4-rope"], impls=["pytorch-reference"], passes=["forward"])
    timing = TimingOptions(backend="cpu", warmup=1, target_ms=1, min_reps=3, max_reps=3, max_rounds=1, flush_l2=False)
    outcome = Dispatcher([0], process_spawner(worker_argv(timing.to_json()), log_dir=tmp_path), task_timeout_s=120).run(plan.tasks)
    assert [r["status"] for r in outcome.results.values()] == ["passed"], (tmp_path / "worker-gpu0.log").read_text()
    assert len(next(iter(outcome.results.values()))["samples_ns"]) == 3
    assert outcome.facts[0]["device_type"] == "cpu" and "versions" in outcome.facts[0]
