"""`kernelindex import liger` on gh-pages snapshots: the fixture cut from shared/data/liger-gh-pages
(41 files, 344 rows; see tests/fixtures/liger-gh-pages/make_fixture.py), imported into a scratch
data folder that holds copies of the hand-written files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from schemas.digest import spec_digest
from site_builder.cli import main
from site_builder.importers.liger import import_liger, import_liger_with_outcome
from site_builder.importers.liger_inputs import discover
from site_builder.importers.output import ImporterError, read_document
from site_builder.repository import load_catalog

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
FIXTURE = ROOT / "tests" / "fixtures" / "liger-gh-pages"
HAND_WRITTEN = ("sources", "protocols", "environments", "projects")
KERNELS = ("dpo-loss", "fused-linear-cross-entropy", "softmax", "dyt-beta-true")  # the fixture's, declared


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    for folder in HAND_WRITTEN:
        shutil.copytree(DATA / folder, data / folder)
    (data / "kernels").mkdir()
    for kernel in KERNELS:
        shutil.copy(DATA / "kernels" / f"{kernel}.yaml", data / "kernels" / f"{kernel}.yaml")
    return data


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def history_runs(data_dir: Path) -> dict[str, dict]:
    return {p.stem: read_document(p) for p in (data_dir / "runs" / "liger-kernel-gh-pages").rglob("*.yaml")}


def test_every_distinct_row_is_one_run_with_its_snapshot(data_dir):
    report, outcome = import_liger_with_outcome(FIXTURE, data_dir)
    assert (outcome.files, outcome.published, outcome.distinct, outcome.unmapped) == (41, 344, 336, [])
    runs = history_runs(data_dir)
    assert len(runs) == 336
    labels = [run["metadata"]["labels"] for run in runs.values()]
    assert all(label["liger_snapshot"] and label["liger_commit"] for label in labels)
    released = [label for label in labels if label["liger_snapshot"].startswith("d5648bf-v0.6.3@")]
    assert released and all(label["liger_release"] == "0.6.3" and label["liger_commit"] == "d5648bf" for label in released)
    load_catalog(data_dir)  # and what it wrote is valid


def test_a_measurement_published_twice_is_one_run_that_names_both_snapshots(data_dir):
    import_liger(FIXTURE, data_dir)
    # 0701bab's CSV of 2025-07-10 republished the rows its first version (2025-06-20) had.
    again = [run for run in history_runs(data_dir).values() if "liger_republished" in run["metadata"]["labels"]]
    assert len(again) == 8
    assert all(run["metadata"]["labels"]["liger_snapshot"] == "0701bab@d675cb7"
               and "0701bab@baf7335" in run["metadata"]["labels"]["liger_republished"] for run in again)


def test_importing_twice_changes_no_byte(data_dir):
    first = import_liger(FIXTURE, data_dir)
    after_first = snapshot(data_dir)
    second = import_liger(FIXTURE, data_dir)
    assert first.written and second.written == [] and second.removed == []
    assert snapshot(data_dir) == after_first


def test_protocol_splits_follow_the_declared_table(data_dir):
    import_liger(FIXTURE, data_dir)
    dpo = {}
    for run in history_runs(data_dir).values():
        spec, labels = run["spec"], run["metadata"]["labels"]
        if spec["sourceNative"]["benchmark"] == "dpo_loss/forward" and spec["implementation"] == "liger-dpo-loss":
            dpo[labels["liger_snapshot"].split("@")[0], spec["observedAt"][:10]] = (spec["protocol"], spec["timing"]["latencyNs"]["median"])
    # ~1.5 s before the script changed, ~3 ms after: two protocol versions, so never a "regression".
    assert dpo[("d47751c", "2025-06-27")] == ("liger-ci-do-bench-forward", dpo[("d47751c", "2025-06-27")][1])
    assert dpo[("d47751c", "2025-06-27")][1] > 1e9
    assert dpo[("0701bab", "2025-07-09")][0] == "liger-ci-do-bench-forward-dpo-loss-v2"  # the re-run listed in `also`
    assert dpo[("5e8f12b", "2025-07-18")][0] == "liger-ci-do-bench-forward"  # published before, old script
    assert dpo[("7705dcc", "2025-07-28")] [0] == "liger-ci-do-bench-forward-dpo-loss-v2"
    assert all(value < 5e6 for protocol, value in dpo.values() if protocol.endswith("-v2"))
    assert all(value > 1e9 for protocol, value in dpo.values() if not protocol.endswith("-v2"))
    flce = {run["metadata"]["labels"]["liger_commit"]: run["spec"]["protocol"] for run in history_runs(data_dir).values()
            if run["spec"]["sourceNative"]["benchmark"] == "fused_linear_cross_entropy/forward"
            and run["spec"]["implementation"] == "liger-fused-linear-cross-entropy"
            and "h100-80gb" in run["spec"]["environment"]}
    assert flce["7705dcc"] == "liger-ci-do-bench-forward" and flce["2845fe8"].endswith("-v2")
    assert flce["009401c"] == "liger-ci-do-bench-forward"  # `except`: an older commit re-run with the old script


def test_each_series_supersedes_its_previous_week(data_dir):
    import_liger(FIXTURE, data_dir)
    runs = history_runs(data_dir)
    series = sorted((run["spec"]["observedAt"], name, run["spec"].get("supersedes")) for name, run in runs.items()
                    if run["spec"]["sourceNative"]["benchmark"] == "softmax/backward"
                    and run["spec"]["implementation"] == "liger-softmax"
                    and run["spec"]["environment"] == "liger-bench-nvidia-h100-80gb-hbm3")
    assert series[0][2] is None
    assert [superseded for _, _, superseded in series[1:]] == [name for _, name, _ in series[:-1]]


def test_a_run_names_the_digest_its_superseded_run_has_along_every_chain(data_dir):
    """Each week supersedes the last: a run's ``supersedesDigest`` is the digest its target has (which
    covers the target's own ``supersedesDigest``), whatever order the files are linked in, with the
    parse cache or without."""
    import_liger(FIXTURE, data_dir)
    for cache in (False, True, True):
        catalog = load_catalog(data_dir, None, cache=cache)
        chained = [run for run in catalog.runs.values() if run.spec.supersedes]
        assert sum(catalog.runs[run.spec.supersedes].spec.supersedes is not None for run in chained) > 100
        for run in chained:
            spec = run.manifest()["spec"]
            assert spec["supersedesDigest"] == catalog.runs[run.spec.supersedes].digest, run.name
            assert spec_digest("BenchmarkRun", spec) == run.digest


def test_new_mode_provider_and_kernel_names_import(data_dir):
    import_liger(FIXTURE, data_dir)
    runs = history_runs(data_dir).values()
    assert any(run["spec"]["protocol"] == "liger-ci-do-bench-no-grad-forward" for run in runs)
    assert any(run["spec"]["implementation"] == "liger-fp32-accum-fused-linear-cross-entropy" for run in runs)
    assert any(run["spec"]["sourceNative"]["benchmark"] == "dyt_beta=True/forward" for run in runs)


def test_a_gh_pages_checkout_without_index_reads_the_same_branch_head(tmp_path):
    checkout = tmp_path / "gh-pages"
    shutil.copytree(FIXTURE / "benchmarks", checkout / "benchmarks")
    by_folder = {(i.snapshot.folder, i.path.read_bytes()) for i in discover([checkout])}
    by_index = {(i.snapshot.folder, i.path.read_bytes()) for i in discover([FIXTURE / "INDEX.csv"])
                if i.snapshot.path.startswith("benchmarks/")}
    assert by_folder == by_index and len(by_folder) == 33


def test_a_malformed_row_names_file_and_line_and_writes_nothing(data_dir, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(FIXTURE, broken)
    target = broken / "benchmarks" / "c1bdc24" / "benchmark.csv"
    lines = target.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b",NVIDIA", b",not-a-number,NVIDIA", 1)
    target.write_bytes(b"".join(lines))
    before = snapshot(data_dir)
    with pytest.raises(ImporterError, match=r"^benchmarks/c1bdc24/benchmark.csv:4: 16 columns, expected 15$"):
        import_liger(broken, data_dir)
    assert snapshot(data_dir) == before


def test_cli_shows_progress_and_a_summary(data_dir):
    result = CliRunner().invoke(main, ["import", "liger", str(FIXTURE), "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    assert "read 41/41: benchmarks/5057ca8/benchmark.csv" in result.output
    assert "41 file(s), 344 rows, 336 distinct measurements (8 published more than once)" in result.output
    assert "protocol version liger-ci-do-bench-forward-dpo-loss-v2:" in result.output


def test_unseen_mode_provider_and_gpu_import_as_placeholders_named_in_the_summary(data_dir, tmp_path):
    drifted = tmp_path / "drifted"
    shutil.copytree(FIXTURE, drifted)
    target = drifted / "benchmarks" / "5057ca8" / "benchmark.csv"
    lines = target.read_bytes().splitlines(keepends=True)
    row = lines[1].decode()
    fields = row.split(",")
    fields[1], fields[2] = "liger-cutile", "warm-forward"  # a provider and a mode never seen
    new = ",".join(fields).replace("NVIDIA H100 80GB HBM3", "NVIDIA B300")
    target.write_bytes(b"".join(lines) + new.encode())
    report, outcome = import_liger_with_outcome(drifted, data_dir)
    assert outcome.unmapped == [] and outcome.distinct == 337
    assert outcome.guessed_providers == ["liger-cutile"]
    assert set(outcome.placeholders) == {"protocols/liger-ci-do-bench-warm-forward.yaml",
                                         "environments/liger-bench-nvidia-b300.yaml"}
    summary = "\n".join(outcome.lines())
    assert "provider 'liger-cutile'" in summary and "liger-bench-nvidia-b300.yaml (a placeholder was written)" in summary
    protocol = read_document(data_dir / "protocols" / "liger-ci-do-bench-warm-forward.yaml")
    assert protocol["metadata"]["labels"]["declared"] == "no"
    load_catalog(data_dir)
