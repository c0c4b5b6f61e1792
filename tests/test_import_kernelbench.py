"""`kernelindex import kernelbench`: problem files read without running them, timing rows as runs
with the statistic they really are, versions kept apart, a second import a no-op.

Most tests import the committed cut (``tests/fixtures/kernelbench``: three problems of two
problem-set versions, three timing files) into a scratch data folder; the last one imports every
shared timing file when ``shared/data/kernelbench`` is present, and skips otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from site_builder.cli import main
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.importers.kernelbench import import_kernelbench
from site_builder.importers.kernelbench_problems import ProblemError, parse_problem
from site_builder.importers.kernelbench_timing import config_from_name
from site_builder.repository import load_catalog

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
FIXTURE = ROOT / "tests" / "fixtures" / "kernelbench"
SHARED = Path(os.environ.get("KERNELBENCH_SHARED", "/work/shared/data/kernelbench"))
AS_OF = date(2026, 11, 30)
MATMUL = "kernelbench-l1-1-square-matrix-multiplication"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for folder in ("sources", "projects", "hardware"):
        shutil.copytree(DATA / folder, data / folder, ignore=shutil.ignore_patterns("kernelbench"))
    return data


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def kernelbench_runs(catalog) -> list:
    return [run for run in catalog.runs.values() if run.spec.sourceNative and run.spec.sourceNative.source == "kernelbench"]


# --------------------------------------------------------------------------------------------
# Reading problem files


def test_problem_shapes_come_from_constants_and_get_inputs():
    source = (FIXTURE / "problems/1f8d20f/level1/1_Square_matrix_multiplication_.py").read_text()
    problem = parse_problem(source, 1, "1_Square_matrix_multiplication_.py")
    assert problem.constants == {"n": 4096}  # N = 2048 * 2, evaluated without running the file
    assert [(a.name, a.shape, a.dtype) for a in problem.inputs] == [("a", ("n", "n"), "fp32"), ("b", ("n", "n"), "fp32")]
    assert problem.forward == "return torch.matmul(A, B)"
    assert problem.summary.startswith("Simple model that performs a single square matrix multiplication")


def test_unpacked_tuples_starred_shapes_expressions_and_local_shapes():
    source = '''
import torch
class Model(torch.nn.Module):
    def forward(self, x, mask, y):
        return torch.cumsum(x * mask, dim=1) + y
batch_size = 8
D, H = 4, 5
input_shape = (H * 2, 3)
dim = 1
eps = 1e-5
def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    mask = torch.randint(0, 2, x.shape).bool()
    y = torch.randn(D * 2, dtype=torch.float16)
    return [x, mask, y]
def get_init_inputs():
    return [dim]
'''
    problem = parse_problem(source, 1, "93_masked.py")
    assert problem.constants == {"batch_size": 8, "d": 4, "h": 5, "dim": 1}
    assert problem.settings["eps"] == "1e-05"
    x, mask, y = problem.inputs
    assert x.shape == ("batch_size", "d0", 3) and problem.derived["d0"] == "(h * 2)"
    assert (mask.shape, mask.dtype) == (x.shape, "bool")
    assert (y.shape, y.dtype) == (("d1",), "fp16") and problem.derived["d1"] == "(d * 2)"
    assert problem.init_arguments == ("dim",)


def test_resizing_keeps_the_computation_changing_the_code_does_not():
    def digest(source: str) -> str:
        return parse_problem(source, 1, "1_X.py").computation
    base = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, a):\n        return {op}(a)\nN = {n}\ndef get_inputs():\n    return [torch.randn(N)]\n"
    assert digest(base.format(op="torch.relu", n=16)) == digest(base.format(op="torch.relu", n=4096))
    assert digest(base.format(op="torch.relu", n=16)) != digest(base.format(op="torch.tanh", n=16))


@pytest.mark.parametrize("source, reason", [
    ("x = 1\n", "no class Model"),
    ("class Model:\n    def forward(self, a): return a\ndef get_inputs():\n    return [make(3)]\n", "make(...) is not a tensor factory"),
    ("class Model:\n    def forward(self, a): return a\ndef get_inputs():\n    return [torch.randn(n)]\n", "'n' is not constant integer arithmetic"),
    ("def broken(:\n", "not valid Python"),
])
def test_a_file_that_is_not_a_problem_says_why(source, reason):
    with pytest.raises(ProblemError, match=re.escape(reason)):
        parse_problem(source, 1, "7_Thing.py")


@pytest.mark.parametrize("name, slug, mode, machine", [
    ("baseline_time_torch.json", "pytorch-eager", "eager", None),
    ("baseline_time_torch_compile_inductor_max-autotune-no-cudagraphs.json",
     "torch-compile-max-autotune-no-cudagraphs", "max-autotune-no-cudagraphs", None),
    ("baseline_time_torch_compile_cudagraphs.json", "torch-compile-cudagraphs", "cudagraphs", None),
    ("baseline_time_matx3.json", "pytorch-eager", "eager", "matx3"),
    ("baseline_time_torch_compile_matx2.json", "torch-compile", "unrecorded", "matx2"),
    ("baseline_time_triton_experiment.json", "kernelbench-triton-experiment", "triton_experiment", None),
])
def test_configuration_from_the_file_name(name, slug, mode, machine):
    config, named_machine = config_from_name(name)
    assert (config.slug, config.mode, named_machine) == (slug, mode, machine)


# --------------------------------------------------------------------------------------------
# Importing the fixture


def test_every_row_is_a_run_with_its_mean_or_a_reported_skip(data_dir):
    report = import_kernelbench([FIXTURE / "timing"], data_dir)
    # 4 + 3 + 4 entries: 9 runs; 19_ReLU is in no problem set of the cut, and one compile entry is null.
    assert (report.files, report.rows, report.runs) == (3, 11, 9)
    reasons = {reason: len(rows) for reason, rows in report.unresolved.items()}
    assert reasons == {
        "level1/19_ReLU.py is in no problem set read (paired set: cf8edaa); the file was measured on a version "
        "of KernelBench that is not bundled": 1,
        "no timing: the file has null for this problem (its timing failed upstream)": 1,
    }
    catalog = load_catalog(data_dir, as_of=AS_OF)
    run = catalog.runs["kb-2025-12-31-1f8d20f-h100-modal-eager-l1-1"]
    # The published row: mean 2.66, std 0.0199, min 2.65, max 2.86 ms over 100 trials.
    assert run.spec.timing.primaryStatistic == "mean"
    latency = run.spec.timing.latencyNs
    assert (latency.mean, latency.minimum, latency.maximum, latency.median) == (2_660_000, 2_650_000, 2_860_000, None)
    assert run.spec.timing.samples == 100
    assert [(m.statistic, m.value) for m in run.spec.measurements] == [("std", 19900.0)]
    assert run.refs["environment"].spec.hardware.product == "NVIDIA H100"
    assert run.refs["implementation"].metadata.labels["role"] == "baseline"
    assert run.spec.observedAt.isoformat().startswith("2025-12-31")


def test_importing_twice_changes_no_byte(data_dir):
    first = import_kernelbench([FIXTURE / "timing"], data_dir)
    after_first = snapshot(data_dir)
    second = import_kernelbench([FIXTURE / "timing"], data_dir)
    assert first.output.written and not first.output.kept
    assert second.output.written == [] and second.output.removed == []
    assert len(second.output.unchanged) == len(first.output.written)
    assert snapshot(data_dir) == after_first


def test_resized_problem_is_a_new_workload_changed_problem_a_new_kernel(data_dir):
    import_kernelbench([FIXTURE / "timing"], data_dir)
    catalog = load_catalog(data_dir, as_of=AS_OF)
    matmul = {run.refs["workload"].name: run.refs["workload"].axes for run in kernelbench_runs(catalog)
              if run.refs["workload"].refs["operation"].name == MATMUL}
    assert matmul == {f"{MATMUL}-scf8edaa": {"n": 2048}, f"{MATMUL}-s1f8d20f": {"n": 4096}}
    hinge = sorted(name for name in catalog.operations if "hingeloss" in name)
    assert hinge == ["kernelbench-l1-100-hingeloss", "kernelbench-l1-100-hingeloss-r1f8d20f"]
    assert catalog.operations["kernelbench-l1-100-hingeloss"].metadata.labels["kernelbench_level"] == "1"


def test_runs_of_different_versions_never_share_a_group(data_dir):
    import_kernelbench([FIXTURE / "timing"], data_dir)
    catalog = load_catalog(data_dir, as_of=AS_OF)
    board = derive_leaderboard(catalog, AS_OF)
    for cohort in board.cohorts.values():
        sets = {catalog.runs[run.name].metadata.labels.get("kernelbench_problem_set") for run in cohort.runs}
        assert len(sets) == 1, cohort.key
    protocols = {run.refs["protocol"].name for run in kernelbench_runs(catalog)}
    assert protocols == {"kernelbench-timing-cf8edaa", "kernelbench-timing-1f8d20f"}
    assert {p.spec.measurement.primaryStatistic for p in catalog.protocols.values() if p.name in protocols} == {"mean"}


def test_malformed_file_names_file_line_column_and_writes_nothing(data_dir, tmp_path):
    folder = tmp_path / "2025-01-01-abcdef0" / "L4_modal"
    folder.mkdir(parents=True)
    bad = folder / "baseline_time_torch.json"
    bad.write_text('{"level1": {"1_A.py": {"mean": 1.0, "std": 0.1, "min": 2.0, "max": 3.0, "hardware": "NVIDIA L4"}}}')
    before = snapshot(data_dir)
    result = CliRunner().invoke(main, ["import", "kernelbench", "--data", str(data_dir), str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:1:13: 1_A.py: expected min <= mean <= max" in result.output
    assert snapshot(data_dir) == before


def test_a_file_from_another_branch_imports_with_problems_given(data_dir, tmp_path):
    """No INDEX.csv, a configuration and a GPU this importer has never seen: still no error."""
    folder = tmp_path / "2026-02-01-0123abc" / "RTX-PRO-6000_lab"
    folder.mkdir(parents=True)
    row = {"mean": 0.5, "std": 0.01, "min": 0.49, "max": 0.52, "num_trials": 100, "hardware": "NVIDIA RTX PRO 6000"}
    (folder / "baseline_time_torch_compile_tensorrt.json").write_text(json.dumps(
        {"level1": {"1_Square_matrix_multiplication_.py": row}, "level2": {"1_Conv2D_ReLU_BiasAdd.py": row}}))
    result = CliRunner().invoke(main, ["import", "kernelbench", "--data", str(data_dir), "--problems",
                                       str(FIXTURE / "problems" / "1f8d20f"), str(tmp_path / "2026-02-01-0123abc")])
    assert result.exit_code == 0, result.output
    assert "1 timing files, 2 rows: 2 runs, 0 rows skipped" in result.output
    catalog = load_catalog(data_dir, as_of=AS_OF)
    [environment] = [e for e in catalog.environments.values() if e.name.startswith("kernelbench-")]
    assert environment.spec.hardware.product == "NVIDIA RTX PRO 6000"
    assert {r.refs["implementation"].metadata.title for r in kernelbench_runs(catalog)} == {"torch.compile · tensorrt backend"}


def test_pages_show_every_gpu_and_mode_and_call_the_mean_a_mean(data_dir, tmp_path):
    from site_builder.build import build_site

    import_kernelbench([FIXTURE / "timing"], data_dir)
    site = tmp_path / "site"
    build_site(data_dir, site, as_of=AS_OF, cache=False)
    page = BeautifulSoup((site / f"kernelbench/{MATMUL}.html").read_text(), "html.parser")
    tables = page.select("table.kernelbench-gpus")
    assert len(tables) == 2  # problem sets 1f8d20f and cf8edaa, newest first
    headers = [th.get_text(strip=True) for th in tables[0].select("thead th")]
    assert headers == ["GPU", "eager", "default"]
    cells = [td.get_text(" ", strip=True) for td in tables[0].select("tbody td")]
    assert cells[1].startswith("2.66 ms mean") and "1.00× slower than eager" in cells[2]
    text = page.get_text(" ")
    assert "median" not in text.lower()
    assert "Copyright (c) 2023 Anne Ouyang, Simon Guo, Azalia Mirhoseini" in text
    index = BeautifulSoup((site / "kernelbench/index.html").read_text(), "html.parser")
    assert [h.get_text(strip=True) for h in index.select("h2")][:2] == ["Level 1 · single operators", "Level 2 · fused operator chains"]
    assert index.select_one("#l1-matmul") is not None and index.select_one("#speedups") is not None
    run_page = (site / "runs/kb-2025-12-31-1f8d20f-h100-modal-eager-l1-1.html").read_text()
    assert "mean" in run_page and "median" not in run_page.lower()
    home = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    assert "KernelBench problems" in home.get_text(" ") and "L1 #1" not in home.get_text(" ")


# --------------------------------------------------------------------------------------------
# The shared files


@pytest.mark.skipif(not (SHARED / "INDEX.csv").is_file(), reason="shared/data/kernelbench is not on this machine")
def test_every_shared_timing_row_is_a_run_or_a_reported_skip(data_dir):
    report = import_kernelbench([SHARED / "timing"], data_dir)
    skipped = sum(len(rows) for rows in report.unresolved.values())
    # 11,353 timings plus 17 entries left null upstream.
    assert (report.files, report.rows) == (46, 11_370)
    assert report.runs + skipped == report.rows and skipped == 31
    catalog = load_catalog(data_dir, as_of=AS_OF)
    assert len(kernelbench_runs(catalog)) == report.runs


# --------------------------------------------------------------------------------------------
# Re-measured by the harness (harness.kernelbench_runner on a GPU, harness.kernelbench_runs here)

H200_FACTS = {"name": "NVIDIA H200", "major": 9, "minor": 0, "memory_bytes": 150109880320, "cuda": "13.0",
              "torch": "2.11.0+cu130", "python": "3.12.3", "os": "Ubuntu 24.04.3 LTS", "driver": "580.159.04"}
MATMUL_FILE = "level1/1_Square_matrix_multiplication_.py"


def _measurement(config: str, samples: list[int], **extra) -> dict:
    return {"problem": MATMUL_FILE, "config": config, "status": "passed", "reference": "float64", "precision": [],
            "max_abs": 0.004, "max_rel": 1e-5, "samples_ns": samples,
            "host": {"hide_host_us": 250.0, "host_bound_samples": 0, "host_enqueue_us": 30.0},
            "clocks": {}, "observed_at": "2026-11-29T05:20:00.000Z", "wall_s": 0.3, **extra}


def _remeasure(data_dir: Path, tmp_path: Path, records: list[dict]) -> str:
    from harness.kernelbench_runs import main as write_runs

    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records))
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps(H200_FACTS))
    write_runs(["--problem-set", "1f8d20f", "--facts", str(facts), "--data", str(data_dir), str(results)])
    return MATMUL


def test_harness_remeasurements_become_runs_of_the_problems_own_kernel_and_implementations(data_dir, tmp_path):
    import_kernelbench([FIXTURE / "timing"], data_dir)
    other = dict(_measurement("eager", [100]), problem="level1/999_Not_published.py")
    _remeasure(data_dir, tmp_path, [_measurement("eager", [3_000_000, 3_100_000, 2_900_000]),
                                    _measurement("compile", [2_000_000, 2_000_000]), other])
    catalog = load_catalog(data_dir)
    ours = [run for run in catalog.runs.values() if run.spec.sourceNative.source == "kernelindex-harness"]
    assert sorted(run.spec.implementation for run in ours) == [
        f"pytorch-eager-{MATMUL}", f"torch-compile-default-{MATMUL}"]
    published = next(run for run in kernelbench_runs(catalog) if run.spec.implementation == f"pytorch-eager-{MATMUL}"
                     and run.spec.protocol == "kernelbench-timing-1f8d20f")
    assert {run.spec.workload for run in ours} == {published.spec.workload}
    eager = next(run for run in ours if "eager" in run.spec.implementation)
    assert eager.spec.timing.latencyNs.median == 3_000_000 and eager.spec.timing.primaryStatistic == "median"
    assert eager.metadata.labels["kernelbench_problem_set"] == "1f8d20f"
    assert "float64" in eager.spec.correctness.notes and eager.spec.status == "passed"
    before = snapshot(data_dir)
    _remeasure(data_dir, tmp_path, [_measurement("eager", [3_000_000, 3_100_000, 2_900_000]),
                                    _measurement("compile", [2_000_000, 2_000_000]), other])
    assert snapshot(data_dir) == before  # re-running changes no byte


def test_problem_page_shows_a_remeasurement_beside_kernelbench_and_compares_means(data_dir, tmp_path):
    from site_builder.build import build_site

    import_kernelbench([FIXTURE / "timing"], data_dir)
    # eager: median 3.0 ms but mean 4.0 ms; the page must show the mean, as KernelBench's rows do
    _remeasure(data_dir, tmp_path, [_measurement("eager", [3_000_000, 3_000_000, 6_000_000]),
                                    _measurement("compile", [2_000_000, 2_000_000, 2_000_000])])
    site = tmp_path / "site"
    build_site(data_dir, site, as_of=AS_OF, cache=False)
    page = BeautifulSoup((site / f"kernelbench/{MATMUL}.html").read_text(), "html.parser")
    newest = page.select("table.kernelbench-gpus")[0]
    rows = {row.select_one("td").get_text(" ", strip=True): [td.get_text(" ", strip=True) for td in row.select("td")[1:]]
            for row in newest.select("tbody tr")}
    ours = next(cells for label, cells in rows.items() if "re-measured" in label)
    assert any("H100" in label for label in rows) and "H200" in next(label for label in rows if "re-measured" in label)
    assert ours[0].startswith("4.00 ms mean") and "2.00× faster than eager" in ours[1]
    mirror = json.loads((site / f"api/v1/kernelbench/{MATMUL}.json").read_text())
    flags = sorted(row["remeasured"] for row in mirror["tables"][0]["rows"])
    assert flags == [False, True] and mirror["tables"][0]["protocol"]["title"].startswith("KernelBench")
    index = json.loads((site / "api/v1/kernelbench/index.json").read_text())
    remeasured = [row for row in index["speedups"] if row["remeasured"]]
    assert len(remeasured) == 1 and remeasured[0]["problemSet"] == "1f8d20f"
    cell = next(c for c in remeasured[0]["cells"] if c["mode"] == "default")
    assert cell["problems"] == 1 and abs(cell["geomean"] - 2.0) < 1e-9  # means: 4.0 ms eager, 2.0 ms compiled
