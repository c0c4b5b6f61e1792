"""`kernelindex synth`: same seed, same bytes; the output validates and looks like real data."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from site_builder.cli import main
from site_builder.repository import load_catalog
from site_builder.synth import synthesize
from site_builder.synth.families import FAMILIES
from site_builder.synth.world import kernel_count

from .conftest import SMALL_RUNS


def _tree(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_same_seed_gives_identical_bytes(tmp_path: Path, synthetic_source: Path) -> None:
    again = tmp_path / "again"
    synthesize(again, SMALL_RUNS, seed=7, datasheets=None)
    assert _tree(again) == _tree(synthetic_source)


def test_another_seed_gives_other_data(tmp_path: Path, synthetic_source: Path) -> None:
    other = tmp_path / "other"
    synthesize(other, SMALL_RUNS, seed=8, datasheets=None)
    assert _tree(other) != _tree(synthetic_source)


def test_output_validates_and_links(synthetic: Path) -> None:
    catalog = load_catalog(synthetic, cache=False)
    assert len(catalog.runs) == SMALL_RUNS
    assert len(catalog.operations) == kernel_count(SMALL_RUNS) >= 24
    assert {op.spec.family for op in catalog.operations.values()} == {family.slug for family in FAMILIES}
    assert len(catalog.hardware) >= 5 and len(catalog.environments) > len(catalog.hardware)
    assert {impl.spec.callable.language for impl in catalog.implementations.values()} >= {"python", "triton", "cuda"}
    assert any(impl.metadata.labels.get("role") == "baseline" for impl in catalog.implementations.values())


def test_runs_look_real(synthetic: Path) -> None:
    from site_builder.synth.runs import START, SPAN

    catalog = load_catalog(synthetic, cache=False)
    runs = list(catalog.runs.values())
    statuses = Counter(run.spec.status for run in runs)
    assert statuses["passed"] > 0.85 * len(runs)
    years = {run.spec.observedAt.year for run in runs}
    assert len(years) >= 3
    assert all(START <= run.spec.observedAt <= START + SPAN for run in runs)
    medians = [run.spec.timing.latencyNs.median for run in runs if run.spec.timing and run.spec.timing.latencyNs.median]
    # Latencies spread over orders of magnitude (shapes, GPUs and implementations differ).
    assert math.log10(max(medians) / min(medians)) > 2


def test_runs_sit_above_the_memory_floor(synthetic: Path) -> None:
    """Inputs and outputs once over the datasheet bandwidth; only a rare deliberate run is below."""
    from schemas.shapes import tensor_bytes

    catalog = load_catalog(synthetic, cache=False)
    hardware = {(h.spec.matches[0].product, h.spec.matches[0].formFactor): h for h in catalog.hardware.values()}
    below = 0
    for run in catalog.runs.values():
        workload = run.refs["workload"]
        if run.spec.timing is None or workload.kind != "WorkloadCase" or run.spec.timing.latencyNs.median is None:
            continue
        env = run.refs["environment"].spec.hardware
        sheet = hardware[(env.product, env.formFactor)]
        io_bytes = sum(tensor_bytes(t) for t in {**workload.inputs, **workload.outputs}.values())
        floor_ns = io_bytes / sheet.spec.bandwidthGBps.value
        below += run.spec.timing.latencyNs.median < floor_ns
    assert below <= max(2, SMALL_RUNS // 100)


def test_cli_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    result = CliRunner().invoke(main, ["synth", "--runs", "10", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "not empty" in result.output
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_cli_writes_a_repository(tmp_path: Path) -> None:
    out = tmp_path / "small"
    result = CliRunner().invoke(main, ["synth", "--runs", "50", "--out", str(out), "--seed", "3", "--builtin-hardware"])
    assert result.exit_code == 0, result.output
    assert len(list((out / "runs").rglob("*.yaml"))) == 50


def test_a_large_repository_never_writes_two_kernels_with_one_spec() -> None:
    """Past one kernel per (family, model) pair (about 72,000 runs) the pairs come round again as
    later generations; each must still be a kernel of its own, or validate rejects the duplicate."""
    import random

    from site_builder.synth.hardware import builtin_gpus
    from site_builder.synth.world import build_world

    kernels = build_world(random.Random(0), 100_000, builtin_gpus()[0]).kernels
    assert any(kernel.name.endswith("-g2") for kernel in kernels)
    expressions = [kernel.document["spec"]["semantics"]["expression"] for kernel in kernels]
    assert len(set(expressions)) == len(expressions)


def test_the_checkout_s_datasheets_serve_as_gpus_when_they_list_peaks(tmp_path: Path) -> None:
    """Without --builtin-hardware, synth draws GPUs from data/hardware: a bandwidth-only datasheet
    (the bundled A10G's) is left out rather than stopping the run."""
    from site_builder.synth.hardware import checkout_gpus

    data = Path(__file__).resolve().parents[2] / "data"
    gpus, _ = checkout_gpus(data)
    assert gpus and all(gpu.peaks for gpu in gpus)
    out = tmp_path / "checkout"
    result = CliRunner().invoke(main, ["synth", "--runs", "300", "--out", str(out), "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert len(list((out / "runs").rglob("*.yaml"))) == 300
