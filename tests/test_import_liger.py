"""`kernelindex import liger`: the seed's run comes out exactly, twice is a no-op, people's files are safe.

Each test imports a slice of the real CSV (a few kernels, CRLF kept) into a scratch data folder
that holds copies of the hand-written files the runs refer to, so it runs in well under a second.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.importers.liger import bounded, import_liger, read_rows
from site_builder.importers.output import ImporterError, read_document
from site_builder.repository import load_catalog

DATA = Path(__file__).resolve().parents[1] / "data"
CSV = DATA / "sources" / "liger-kernel-bench" / "all_benchmark_data.csv"
HAND_WRITTEN = ("sources", "protocols", "environments", "projects")

SEED_001_ID = ("llama4_rope/forward/huggingface/nvidia-h100-80gb-hbm3/"
               "hidden8192-kv_heads8-q_heads32-seq4096-bf16/2025-08-07-21-42-12")
# Seed 001's canonical run manifest, less the workload and implementation digests (their specs
# are ours, not the public KernelIndex's).
SEED_001_SPEC = {
    "status": "passed",
    "timing": {"latencyNs": {"median": 385536}, "primaryStatistic": "median"},
    "observedAt": "2025-08-07T21:42:12.000Z",
    "measurements": [
        {"unit": "ns", "value": 384685, "metric": "latency", "statistic": "p20"},
        {"unit": "ns", "value": 386240, "metric": "latency", "statistic": "p80"},
    ],
    "sourceNative": {
        "source": "liger-kernel-bench",
        "metrics": {"ms_20": 0.3846847891807556, "ms_50": 0.38553598523139954, "ms_80": 0.38624000549316406},
        "benchmark": "llama4_rope/forward",
        "externalId": SEED_001_ID,
    },
    "protocolDigest": "sha256:a79eaf4df66c97c6adc1fb2d09df78682155d1ea86652ae0b70199875bde7747",
    "environmentDigest": "sha256:2750ae381d6de582f1eb6b9008e0987463d19ede8af127d97d76c5ae09121393",
}


def csv_slice(target: Path, kernels: set[str]) -> Path:
    """The header and the rows of ``kernels``, byte for byte (CRLF line ends kept)."""
    lines = CSV.read_bytes().split(b"\r\n")
    kept = [lines[0]] + [line for line in lines[1:] if line.split(b",", 1)[0].decode() in kernels]
    target.write_bytes(b"\r\n".join(kept) + b"\r\n")
    return target


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for folder in HAND_WRITTEN:
        shutil.copytree(DATA / folder, data / folder)
    # Every kernel of the CSV is declared by hand (site_builder/importers/liger_catalog.py); those
    # that name a headline workload come only with the slice that holds it (with_llama4_kernel).
    (data / "kernels").mkdir()
    for path in (DATA / "kernels").glob("*.yaml"):
        if "headlineWorkload:" not in path.read_text(encoding="utf-8"):
            shutil.copy(path, data / "kernels" / path.name)
    return data


def with_llama4_kernel(data_dir: Path) -> None:
    """The curated spec llama4_rope rows map onto (it names a headline workload, so only with them)."""
    (data_dir / "kernels").mkdir(exist_ok=True)
    shutil.copy(DATA / "kernels" / "llama4-rope.yaml", data_dir / "kernels" / "llama4-rope.yaml")


@pytest.fixture
def llama_csv(tmp_path: Path, data_dir: Path) -> Path:
    with_llama4_kernel(data_dir)
    return csv_slice(tmp_path / "llama.csv", {"llama4_rope"})


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def runs(catalog, operation: str) -> list:
    return [run for run in catalog.runs.values() if run.refs["workload"].refs["operation"].name == operation]


def test_seed_001_row_imports_to_the_seed_manifest(data_dir, llama_csv):
    import_liger(llama_csv, data_dir)
    catalog = load_catalog(data_dir)
    [run] = [r for r in catalog.runs.values() if r.spec.sourceNative.externalId == SEED_001_ID]
    spec = dict(run.canonical_spec)
    assert spec.pop("workloadDigest").startswith("sha256:")
    assert spec.pop("implementationDigest").startswith("sha256:")
    assert spec == SEED_001_SPEC
    assert run.metadata.title == "Llama 4 rotary position embedding · huggingface · forward"
    assert run.metadata.labels["liger_version"] == "0.6.1"
    assert run.refs["implementation"].metadata.labels["role"] == "baseline"
    assert run.refs["workload"].axes == {"batch": 1, "seq": 4096, "hidden": 8192, "q_heads": 32, "kv_heads": 8,
                                         "head_dim": 256, "half_head_dim": 128}


def test_importing_twice_changes_no_byte(data_dir, tmp_path):
    with_llama4_kernel(data_dir)
    sample = csv_slice(tmp_path / "sample.csv", {"llama4_rope", "jsd", "rope"})
    first = import_liger(sample, data_dir)
    after_first = snapshot(data_dir)
    second = import_liger(sample, data_dir)
    assert first.written and not first.kept and not first.removed
    assert second.written == [] and second.removed == [] and len(second.unchanged) == len(first.written)
    assert snapshot(data_dir) == after_first
    load_catalog(data_dir)  # and what it wrote is valid


def test_one_shape_from_two_sweeps_is_one_workload(data_dir, llama_csv):
    import_liger(llama_csv, data_dir)
    catalog = load_catalog(data_dir)
    # H ∈ {512, 2048, 8192} at seq 2048 and T ∈ {1024 … 16384} at hidden 8192 meet at one shape.
    assert len(catalog.workloads) == 7
    shared = [r for r in runs(catalog, "llama4-rope") if r.refs["workload"].name == "llama4-rope-b1-s2048-h8192-q32-kv8-bf16"
              and r.refs["protocol"].name == "liger-bench-do-bench-forward" and r.refs["implementation"].name == "liger-llama4-rope"]
    assert sorted(r.spec.timing.latencyNs.median for r in shared) == [81280, 81824]
    assert sorted(r.metadata.labels["liger_x"] for r in shared) == ["H=8192", "T=2048"]
    assert len({r.name for r in catalog.runs.values()}) == 64 == len(catalog.runs)


def test_memory_rows_become_measurements_without_timing(data_dir, llama_csv):
    import_liger(llama_csv, data_dir)
    catalog = load_catalog(data_dir)
    memory = [r for r in catalog.runs.values() if r.refs["protocol"].name == "liger-bench-memory"]
    assert len(memory) == 16
    run = next(r for r in memory if r.spec.sourceNative.externalId.startswith(
        "llama4_rope/memory/liger/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq2048-bf16/"))
    assert run.spec.timing is None
    assert [(m.metric, m.statistic, m.unit) for m in run.spec.measurements] == [
        ("memory", "median", "MiB"), ("memory", "p20", "MiB"), ("memory", "p80", "MiB")]
    assert 115 < run.spec.measurements[0].value < 116  # liger-benchmarks.md: 115.5 MB at T2048 H8192


def test_memory_of_other_passes_gets_its_own_protocol(data_dir, tmp_path):
    import_liger(csv_slice(tmp_path / "geglu.csv", {"geglu"}), data_dir)
    catalog = load_catalog(data_dir)
    protocols = {r.refs["protocol"].name for r in catalog.runs.values() if r.spec.timing is None}
    assert protocols == {"liger-bench-memory", "liger-bench-memory-forward", "liger-bench-memory-backward"}
    ids = {r.spec.sourceNative.externalId.split("/")[1] for r in catalog.runs.values() if r.spec.timing is None}
    assert ids == {"memory", "memory-forward", "memory-backward"}


def test_two_sweeps_of_a_declared_kernel_bind_its_axes(data_dir, tmp_path):
    before = (data_dir / "kernels" / "jsd.yaml").read_bytes()
    report = import_liger(csv_slice(tmp_path / "jsd.csv", {"jsd"}), data_dir)
    assert (data_dir / "kernels" / "jsd.yaml").read_bytes() == before  # declared by hand: never rewritten
    assert report.notes == []
    # jsd's V sweep (B, T recorded) and BT sweep (B·T recorded) both mean [B·T, V] inputs.
    workloads = sorted(p.name for p in (data_dir / "workloads" / "jsd").iterdir())
    assert "jsd-bt8192-v4096-fp32.yaml" in workloads and "jsd-bt1024-v128256-fp32.yaml" in workloads
    workload = load_catalog(data_dir).workloads["jsd-bt8192-v4096-fp32"]
    assert workload.inputs["input"] == {"shape": [8192, 4096], "dtype": "fp32"}


def renamed_kernel_csv(target: Path, kernel: str, new_name: str) -> Path:
    """Rows of ``kernel`` under a name nobody has declared."""
    csv_slice(target, {kernel})
    lines = target.read_bytes().split(b"\r\n")
    renamed = [lines[0]] + [new_name.encode() + line[len(kernel):] for line in lines[1:] if line]
    target.write_bytes(b"\r\n".join(renamed) + b"\r\n")
    return target


def test_undeclared_kernel_imports_with_a_distinct_identity_and_is_named(data_dir, tmp_path):
    # softmax and relu_squared bind the same axes (m, n): as undeclared kernels nothing but the
    # benchmark name tells them apart, and that must be enough.
    first = renamed_kernel_csv(tmp_path / "a.csv", "softmax", "mystery_softmax")
    second = renamed_kernel_csv(tmp_path / "b.csv", "relu_squared", "mystery_relu")
    merged = tmp_path / "both.csv"
    merged.write_bytes(first.read_bytes() + second.read_bytes().split(b"\r\n", 1)[1])
    report = import_liger(merged, data_dir)
    assert [note.split(":")[0] for note in report.notes] == ["undeclared kernel mystery_relu",
                                                             "undeclared kernel mystery_softmax"]
    catalog = load_catalog(data_dir)
    mystery = [catalog.operations["mystery-softmax"], catalog.operations["mystery-relu"]]
    assert [op.metadata.labels["semantics"] for op in mystery] == ["undeclared", "undeclared"]
    assert mystery[0].spec.axes.keys() == mystery[1].spec.axes.keys() == {"m", "n"}
    assert mystery[0].digest != mystery[1].digest
    assert mystery[0].spec.semantics.expression == "undeclared: liger-kernel-bench/mystery_softmax"
    result = CliRunner().invoke(main, ["import", "liger", str(merged), "--data", str(data_dir)])
    assert result.exit_code == 0 and "undeclared kernel mystery_softmax: imported as kernels/mystery-softmax.yaml" in result.output


def test_a_parameter_the_catalogue_does_not_name_sets_the_row_aside(data_dir, tmp_path):
    # Drift (a config key Liger adds later) never stops an import: the row waits for a declaration,
    # the summary names it, and every other row is imported.
    from site_builder.importers.liger import import_liger_with_outcome

    sample = csv_slice(tmp_path / "softmax.csv", {"softmax"})
    sample.write_bytes(sample.read_bytes().replace(b'{""M"": 2048', b'{""M"": 2048, ""G"": 3', 1))
    report, outcome = import_liger_with_outcome(sample, data_dir)
    [aside] = outcome.unmapped
    assert aside.where == f"{sample.as_posix()}:2" and "softmax parameter 'G' has no axis in softmax" in aside.reason
    assert len([p for p in report.written if p.startswith("runs/")]) == 71
    assert any("not imported (1 row(s)" in line and "'G'" in line for line in outcome.lines())


def test_hand_written_files_are_kept_and_stale_generated_ones_removed(data_dir, llama_csv):
    import_liger(llama_csv, data_dir)
    person = data_dir / "implementations" / "liger-llama4-rope.yaml"
    text = person.read_text(encoding="utf-8").replace("    generated_by: kernelindex import liger\n", "")
    text = text.replace("title: Liger", "title: Liger (curated by hand)")
    person.write_text(text, encoding="utf-8")
    stale = data_dir / "runs" / "liger-kernel-bench" / "llama4-rope" / "liger-gone.yaml"
    shutil.copy(next(stale.parent.iterdir()), stale)
    mine = data_dir / "runs" / "liger-kernel-bench" / "llama4-rope" / "my-note.yaml"
    mine.write_text("not even a run\n", encoding="utf-8")

    report = import_liger(llama_csv, data_dir)

    assert report.kept == ["implementations/liger-llama4-rope.yaml"]
    assert person.read_text(encoding="utf-8") == text
    assert report.removed == ["runs/liger-kernel-bench/llama4-rope/liger-gone.yaml"] and not stale.exists()
    assert mine.exists()


def test_missing_hand_written_files_are_named(data_dir, llama_csv):
    (data_dir / "sources" / "liger-kernel-bench.yaml").unlink()
    with pytest.raises(ImporterError, match="missing: sources/liger-kernel-bench.yaml"):
        import_liger(llama_csv, data_dir)


def test_an_unseen_gpu_gets_a_placeholder_environment_marked_undeclared(data_dir, llama_csv):
    from site_builder.importers.liger import import_liger_with_outcome

    (data_dir / "environments" / "liger-bench-nvidia-h100-80gb-hbm3.yaml").unlink()
    report, outcome = import_liger_with_outcome(llama_csv, data_dir)
    placeholder = read_document(data_dir / "environments" / "liger-bench-nvidia-h100-80gb-hbm3.yaml")
    assert placeholder["metadata"]["labels"] == {"declared": "no", "generated_by": "kernelindex import liger"}
    assert placeholder["spec"]["hardware"]["product"] == "NVIDIA H100 80GB HBM3"
    assert outcome.placeholders == ["environments/liger-bench-nvidia-h100-80gb-hbm3.yaml"]
    load_catalog(data_dir)


def test_the_whole_csv_maps_to_distinct_bounded_names(tmp_path):
    from site_builder.importers.liger import plan_import

    plan = plan_import(read_rows(CSV), tmp_path)
    run_paths = [p for p in plan.documents if p.parts[0] == "runs"]
    assert len(run_paths) == 2448 == len({p.stem for p in run_paths})
    assert max(len(p.stem) for p in plan.documents) <= 100


def test_bounded_names_keep_a_hash_of_the_full_key():
    assert bounded("short", "key") == "short"
    long = "x" * 120
    assert bounded(long, "a") != bounded(long, "b")
    assert len(bounded(long, "a")) == 100 and bounded(long, "a").startswith("x" * 91 + "-")


def test_cli_imports_and_summarises(data_dir, llama_csv):
    result = CliRunner().invoke(main, ["import", "liger", str(llama_csv), "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert " written, 0 unchanged" in result.output
    assert len(list((data_dir / "runs" / "liger-kernel-bench" / "llama4-rope").iterdir())) == 64
    bad = CliRunner().invoke(main, ["import", "liger", str(DATA / "sources" / "liger-kernel-bench" / "SOURCE.md"),
                                    "--data", str(data_dir)])
    assert bad.exit_code == 1 and "not a Liger-Kernel benchmark CSV" in bad.output
