"""`kernelindex validate` on a broken file: one `path:line:col: message` line per error class.

Each test copies eight real files of the bundled data (one Liger run and everything it refers
to) into a scratch repository, breaks one thing, and checks the exact line a person would see.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
RUN_FOLDER = "runs/liger-kernel-bench/llama4-rope"
FILES = (
    "sources/liger-kernel-bench.yaml",
    "kernels/llama4-rope.yaml",
    "workloads/llama4-rope/llama4-rope-b1-s2048-h8192-q32-kv8-bf16.yaml",
    "projects/liger-kernel.yaml",
    "implementations/liger-llama4-rope.yaml",
    "protocols/liger-bench-do-bench-forward.yaml",
    "environments/liger-bench-nvidia-h100-80gb-hbm3.yaml",
)


def seed_000_leader() -> str:
    """The run file of seed 000's record: Liger, forward, seq 2048, hidden 8192, from the H sweep."""
    [path] = [p for p in (DATA / RUN_FOLDER).glob("liger-llama4-rope-forward-liger-*hidden8192*seq204*")
              if "liger_x: H=8192" in p.read_text(encoding="utf-8")]
    return f"{RUN_FOLDER}/{path.name}"


RUN = seed_000_leader()
EXTERNAL_ID = "llama4_rope/forward/liger/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq2048-bf16/2025-08-07-21-42-01"


class Repo:
    def __init__(self, root: Path):
        self.data = root / "data"
        for relative in (*FILES, RUN):
            target = self.data / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(DATA / relative, target)

    def edit(self, relative: str, old: str, new: str) -> None:
        path = self.data / relative
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} must occur once in {relative}"
        path.write_text(text.replace(old, new), encoding="utf-8")

    def copy(self, relative: str, to: str) -> None:
        (self.data / to).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.data / relative, self.data / to)

    def problems(self) -> list[str]:
        result = CliRunner().invoke(main, ["validate", "data"])
        lines = result.stderr.splitlines()
        assert result.exit_code == (1 if lines else 0), result.output
        return lines[:-1]  # the last line is the summary


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    monkeypatch.chdir(tmp_path)  # so problems print as data/...
    return Repo(tmp_path)


def test_the_copied_files_are_valid(repo):
    assert repo.problems() == []


def test_schema_violation_wrong_type(repo):
    repo.edit(RUN, "      median: 81280", "      median: fast")
    assert repo.problems() == [
        f"data/{RUN}:21:7: spec.timing.latencyNs.median: 'fast' is not a duration: write integer ns or a number with ns, us, ms or s"]


def test_unknown_key(repo):
    repo.edit(RUN, "  status: passed\n", "  status: passed\n  colour: blue\n")
    assert repo.problems() == [f"data/{RUN}:18:3: unknown key 'spec.colour'"]


def test_missing_field(repo):
    repo.edit(RUN, "  status: passed\n", "")
    assert repo.problems() == [f"data/{RUN}:12:1: missing required key 'spec.status'"]


def test_dangling_reference_names_the_missing_target(repo):
    repo.edit(RUN, "  implementation: liger-llama4-rope\n", "  implementation: liger-llama5-rope\n")
    assert repo.problems() == [f"data/{RUN}:13:3: spec.implementation: no ImplementationRevision named 'liger-llama5-rope'"]


def test_duplicate_names(repo):
    repo.copy("projects/liger-kernel.yaml", "projects/more/liger-kernel.yaml")
    assert repo.problems() == [
        "data/projects/more/liger-kernel.yaml:5:3: SoftwareProject name 'liger-kernel' is already used by data/projects/liger-kernel.yaml"]


def test_duplicate_runs_same_source_and_external_id(repo):
    copy = f"{RUN_FOLDER}/liger-rerun.yaml"
    repo.copy(RUN, copy)
    name = RUN.rsplit("/", 1)[1].removesuffix(".yaml")
    repo.edit(copy, f"  name: {name}\n", "  name: liger-rerun\n")
    repo.edit(copy, "      median: 81280", "      median: 81300")  # other figures, same upstream row
    assert repo.problems() == [
        f"data/{copy}:34:5: duplicate run: liger-kernel-bench '{EXTERNAL_ID}' is already in data/{RUN}"]


def test_duplicate_yaml_keys(repo):
    repo.edit(RUN, "  status: passed\n", "  status: passed\n  status: passed\n")
    assert repo.problems() == [f"data/{RUN}:18:3: YAML: duplicate key \"status\""]


def test_file_in_the_wrong_folder_for_its_kind(repo):
    repo.copy("projects/liger-kernel.yaml", "sources/liger-kernel.yaml")
    assert repo.problems() == ["data/sources/liger-kernel.yaml:3:1: a SoftwareProject belongs under projects/, not sources/"]


def test_p20_above_the_median_is_named_at_the_measurement(repo):
    repo.edit(RUN, "      value: 79808", "      value: 999999")
    assert repo.problems() == [
        f"data/{RUN}:26:7: spec.measurements.0.value: latency p20 (999999 ns, measurements[0].value) is above "
        "latency median (81280 ns, timing.latencyNs.median)"]


def test_median_above_p80_is_named_at_the_measurement(repo):
    repo.edit(RUN, "      value: 83296", "      value: 80000")
    assert repo.problems() == [
        f"data/{RUN}:30:7: spec.measurements.1.value: latency median (81280 ns, timing.latencyNs.median) is above "
        "latency p80 (80000 ns, measurements[1].value)"]


def test_minimum_above_the_median_and_a_mean_outside_the_extremes(repo):
    repo.edit(RUN, "      median: 81280\n", "      median: 81280\n      minimum: 90000\n")
    [problem] = repo.problems()
    assert problem.startswith(f"data/{RUN}:22:7: spec.timing.latencyNs.minimum: ")
    repo.edit(RUN, "      minimum: 90000\n", "      minimum: 70000\n      maximum: 90000\n      mean: 95000\n")
    [problem] = repo.problems()
    assert "latency maximum (90000 ns, timing.latencyNs.maximum) is above" not in problem
    assert problem.startswith(f"data/{RUN}:24:7: spec.timing.latencyNs.mean: latency mean (95000 ns")


def test_equal_statistics_are_fine(repo):
    # Liger's memory rows have p20 == median == p80: equal is not out of order.
    repo.edit(RUN, "      value: 79808", "      value: 81280")
    repo.edit(RUN, "      value: 83296", "      value: 81280")
    assert repo.problems() == []


def test_two_operation_specs_with_one_canonical_spec_are_both_named(repo):
    repo.copy("kernels/llama4-rope.yaml", "kernels/llama4-rope-copy.yaml")
    repo.edit("kernels/llama4-rope-copy.yaml", "  name: llama4-rope\n", "  name: llama4-rope-copy\n")
    repo.edit("kernels/llama4-rope-copy.yaml", "  title: Llama 4 rotary position embedding\n", "  title: Another title\n")
    repo.edit("kernels/llama4-rope-copy.yaml", "  headlineWorkload: llama4-rope-b1-s2048-h8192-q32-kv8-bf16\n", "")
    assert repo.problems() == [
        # In file-name order: "llama4-rope-copy" sorts first, so the original is the one reported.
        "data/kernels/llama4-rope.yaml:23:1: spec: same canonical OperationSpec as data/kernels/llama4-rope-copy.yaml:22:1 "
        "(llama4-rope-copy); two kernels must differ in tensors, shapes or semantics"]
