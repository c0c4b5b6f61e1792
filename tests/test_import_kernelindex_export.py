"""`kernelindex import kernelindex-export` and `kernelindex export`, over a small cut of the public
KernelIndex's catalog export (tests/fixtures/kernelindex_export/small.jsonl, made by make_fixture.py
beside it), and over the real export in ../shared when it is there."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.export import export_rows
from site_builder.importers.export_rows import read_export, write_rows
from site_builder.importers.kernelindex_export import DEFAULT_SOURCES, import_export
from site_builder.importers.record_agreement import compare, export_histories, our_histories
from site_builder.repository import load_catalog
from site_builder.canonical_yaml import load_plain

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "kernelindex_export" / "small.jsonl"
# The real export, in the shared folder beside the checkout (../shared, or higher for a worktree).
REAL = next((folder / "shared" / "data" / "kernelindex-export" / "catalog-2026-08-16-0022af0b.jsonl.zst"
             for folder in ROOT.parents
             if (folder / "shared" / "data" / "kernelindex-export" / "catalog-2026-08-16-0022af0b.jsonl.zst").exists()),
            ROOT.parent / "shared" / "data" / "kernelindex-export" / "catalog-2026-08-16-0022af0b.jsonl.zst")
ALL_SOURCES = ("gpumode-kernelbot", "flashinfer-bench", "sol-execbench")
AS_OF = date(2026, 8, 20)


def rows(path: Path = FIXTURE) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def digests_by_kind(export) -> dict[str, set[str]]:
    runs = export.rows("benchmark_runs")
    return {
        "OperationSpec": {row["semanticDigest"] for row in export.rows("operations")},
        "Workload": {row["workloadDigest"] for row in export.rows("workloads")},
        "ImplementationRevision": {row["implementationDigest"] for row in export.rows("implementations")},
        "BenchmarkRun": {row["runDigest"] for row in runs},
        "BenchmarkProtocol": {row["protocolKey"] for row in runs},
        "ExecutionEnvironment": {row["environmentKey"] for row in runs},
    }


def assert_digests_equal(catalog, export) -> int:
    """Every imported operation, workload, implementation, protocol, environment and run has a
    digest the export gives an object of its kind; returns how many were checked."""
    expected = digests_by_kind(export)
    checked = 0
    for kind in ("OperationSpec", "WorkloadCase", "WorkloadSuite", "ImplementationRevision", "BenchmarkProtocol",
                 "ExecutionEnvironment", "BenchmarkRun"):
        for name, entity in catalog.of(kind).items():
            key = "Workload" if kind.startswith("Workload") else kind
            assert entity.digest in expected[key], f"{kind} {name}: {entity.digest} is not the export's"
            checked += 1
    return checked


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    data = tmp_path_factory.mktemp("imported")
    report = import_export(FIXTURE, data, ALL_SOURCES)
    return data, report


def test_every_imported_object_has_the_exports_digest(imported):
    data, report = imported
    export = read_export(FIXTURE)
    catalog = load_catalog(data, cache=False)
    checked = assert_digests_equal(catalog, export)
    runs = export.rows("benchmark_runs")
    # Every run but the one whose implementation and workload are of different operations.
    assert len(catalog.runs) == len(runs) - 1 == sum(report.runs.values())
    assert report.digests_checked == checked - 0 and checked > len(catalog.runs)
    assert [line for line in report.skipped if "different operations" in line] and len(report.skipped) == 1
    # Names, not digests: a run file refers to its implementation and workload by name.
    run = next(iter(catalog.runs.values()))
    assert not run.spec.implementation.startswith("sha256:")
    assert run.refs["implementation"].metadata.project in catalog.projects


def test_reimport_changes_no_byte_and_keeps_a_persons_file(imported, tmp_path):
    data, _ = imported
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    kernel = next((copy / "kernels").glob("*.yaml"))
    document = load_plain(kernel.read_text(encoding="utf-8"))
    text = kernel.read_text(encoding="utf-8").replace("generated_by: kernelindex import kernelindex-export\n", "")
    text = text.replace(f"title: {document['metadata']['title']}", "title: Written by a person", 1)
    kernel.write_text(text, encoding="utf-8")
    before = tree(copy)
    report = import_export(FIXTURE, copy, ALL_SOURCES)
    assert report.files.written == [] and report.files.removed == []
    assert report.files.kept == [str(kernel.relative_to(copy))]
    assert tree(copy) == before


def test_zstandard_export_imports_the_same_files(imported, tmp_path):
    zstandard = pytest.importorskip("zstandard")
    data, _ = imported
    compressed = tmp_path / "catalog.jsonl.zst"
    compressed.write_bytes(zstandard.ZstdCompressor().compress(FIXTURE.read_bytes()))
    import_export(compressed, tmp_path / "data", ALL_SOURCES)
    assert tree(tmp_path / "data") == tree(data)


def test_the_default_import_includes_sol_execbench_credited_on_every_run(tmp_path):
    from click.testing import CliRunner

    from site_builder.cli import main

    # The command a person runs, with no --source: every source with runs in the export but the
    # serving catalog's (MLPerf, whose tables this importer does not read).
    result = CliRunner().invoke(main, ["import", "kernelindex-export", "--data", str(tmp_path), str(FIXTURE)])
    assert result.exit_code == 0, result.output
    assert set(DEFAULT_SOURCES) == {"gpumode-kernelbot", "flashinfer-bench", "sol-execbench"}
    catalog = load_catalog(tmp_path, cache=False)
    export = read_export(FIXTURE)
    source_of = {row["id"]: row["slug"] for row in export.rows("sources")}
    sol_digests = {row["runDigest"] for row in export.rows("benchmark_runs") if source_of[row["sourceId"]] == "sol-execbench"}
    sol_runs = [run for run in catalog.runs.values() if run.spec.sourceNative.source == "sol-execbench"]
    # Every SOL-ExecBench run of the fixture, each with the export's digest and under runs/sol-execbench/.
    assert len(sol_digests) == 8 and {run.digest for run in sol_runs} == sol_digests
    assert all(Path(run.document.file).relative_to(tmp_path).parts[:2] == ("runs", "sol-execbench") for run in sol_runs)
    # Credited as its upstream policy asks (the export has no policy row for it): on the source,
    # and on the kernel of every one of its runs.
    sol = catalog.sources["sol-execbench"].spec
    assert sol.attribution == "NVIDIA SOL-ExecBench" and sol.url == "https://research.nvidia.com/benchmarks/sol-execbench"
    assert "redistribution" in sol.terms
    for run in sol_runs:
        assert "sol-execbench" in run.refs["workload"].refs["operation"].metadata.sources, run.name
    credited = {source for operation in catalog.operations.values() for source in operation.metadata.sources}
    assert credited == {"flashinfer-bench", "gpumode-kernelbot", "sol-execbench", "kernelindex-export"}
    for name in ("gpumode-kernelbot", "flashinfer-bench"):
        source = catalog.sources[name].spec
        assert source.attribution and source.url.startswith("https://")
    assert catalog.sources["gpumode-kernelbot"].spec.license == "June 9 Researcher Reciprocity License v1.0"
    assert catalog.sources["flashinfer-bench"].spec.license == "Apache-2.0"


def test_source_narrows_the_import_and_removes_what_it_wrote_for_the_others(imported, tmp_path):
    data, _ = imported
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    assert (copy / "runs" / "sol-execbench").is_dir()
    report = import_export(FIXTURE, copy, ("gpumode-kernelbot", "flashinfer-bench"))
    assert set(report.runs) == {"gpumode-kernelbot", "flashinfer-bench"}
    assert len([path for path in report.withdrawn if path.startswith("runs/sol-execbench/")]) == 8
    assert not (copy / "runs" / "sol-execbench").exists() and not (copy / "sources" / "sol-execbench.yaml").exists()
    catalog = load_catalog(copy, cache=False)
    assert not any("sol-execbench" in operation.metadata.sources for operation in catalog.operations.values())


def test_a_newer_export_with_unknown_tables_fields_and_kinds_imports(tmp_path):
    items = rows()
    for item in items:
        item["row"]["addedLater"] = {"anything": 1}  # a column a newer export added
    items.append({"table": "kernel_precedents", "row": {"id": "x"}})
    run = next(item for item in items if item["table"] == "benchmark_runs")
    run["row"] = {**run["row"], "manifest": {**run["row"]["manifest"], "run": {**run["row"]["manifest"]["run"], "kind": "BenchmarkRunV2"}}}
    spec_changed = [item for item in items if item["table"] == "benchmark_runs"][1]
    manifest = json.loads(json.dumps(spec_changed["row"]["manifest"]))
    manifest["run"]["spec"]["newerField"] = 1  # a field this schema does not know: that run is left out
    spec_changed["row"]["manifest"] = manifest
    report = import_export(write_jsonl(tmp_path / "newer.jsonl", items), tmp_path / "data", ALL_SOURCES)
    assert report.unknown_tables["kernel_precedents"] == 1
    assert any("unknown run kind 'BenchmarkRunV2'" in line for line in report.skipped)
    assert any(line.startswith("object runs/") and "does not validate" in line for line in report.skipped)
    assert sum(report.runs.values()) == len([i for i in items if i["table"] == "benchmark_runs"]) - 3
    load_catalog(tmp_path / "data", cache=False)  # what was written validates


def test_a_malformed_line_is_an_error_naming_file_and_line(tmp_path):
    from site_builder.importers.output import ImporterError

    bad = tmp_path / "bad.jsonl"
    bad.write_text(FIXTURE.read_text(encoding="utf-8").splitlines()[0] + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ImporterError, match=r"bad.jsonl:2: not JSON"):
        import_export(bad, tmp_path / "data", ALL_SOURCES)
    assert not (tmp_path / "data").exists()


def test_a_later_export_updates_and_reports_retractions_and_withdrawals(imported, tmp_path):
    data, _ = imported
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    items = rows()
    runs = [item for item in items if item["table"] == "benchmark_runs"]
    dropped, retracted = runs[0]["row"], runs[2]["row"]
    retracted["retractedAt"], retracted["retractionReason"] = "2026-08-18T10:00:00.000Z", "rights holder asked"
    later = [item for item in items if item["row"] is not dropped]
    report = import_export(write_jsonl(tmp_path / "later.jsonl", later), copy, ALL_SOURCES)
    name = retracted["manifest"]["run"]["metadata"]["name"]
    assert report.retracted == [name]
    assert len(report.withdrawn) == 1 and dropped["manifest"]["run"]["metadata"]["name"] in report.withdrawn[0]
    catalog = load_catalog(copy, cache=False)
    assert catalog.runs[name].metadata.retraction.reason == "rights holder asked"
    # The retraction is metadata: the run keeps its digest.
    assert catalog.runs[name].digest == retracted["runDigest"]


def test_import_export_import_is_stable(imported, tmp_path):
    data, _ = imported
    catalog = load_catalog(data, cache=False)
    board = derive_leaderboard(catalog, AS_OF)
    ours = tmp_path / "ours.jsonl"
    write_rows(ours, export_rows(catalog, board))
    again = tmp_path / "again"
    import_export(ours, again, ALL_SOURCES)
    assert tree(again) == tree(data)
    # And the export of the re-import is the same bytes.
    second = tmp_path / "second.jsonl"
    write_rows(second, export_rows(load_catalog(again, cache=False), derive_leaderboard(load_catalog(again, cache=False), AS_OF)))
    assert second.read_bytes() == ours.read_bytes()


def test_our_record_history_agrees_with_the_exports_events(imported):
    data, _ = imported
    export = read_export(FIXTURE)
    theirs = export_histories(export.rows("benchmark_runs"), export.rows("record_events"))
    ours, ineligible, held = our_histories(derive_leaderboard(load_catalog(data, cache=False), AS_OF))
    agreement = compare(ours, theirs, ineligible, held)
    # Same rule (running minimum of eligible runs in observedAt order) over the same runs, and no
    # datasheet in this scratch folder: every group's history is the export's.
    assert agreement.compared == len(theirs) > 5
    # The one group that differs holds the run left out (its implementation and workload are of
    # different operations upstream): the export's only record there is that run.
    assert agreement.identical == agreement.compared - 1, agreement.differences[:3]
    [difference] = agreement.differences
    assert difference.why == "a record run of theirs is not imported here" and difference.ours == []


def test_our_comparison_keys_are_the_exports(imported):
    data, _ = imported
    export = read_export(FIXTURE)
    keys = {row["runDigest"]: row["comparisonKey"] for row in export.rows("benchmark_runs")}
    board = derive_leaderboard(load_catalog(data, cache=False), AS_OF)
    assert {run.digest: run.cohort for run in board.runs.values()} == {d: keys[d] for d in (r.digest for r in board.runs.values())}


@pytest.mark.skipif(not REAL.exists(), reason="the real export is not in ../shared")
def test_the_real_export(tmp_path):
    pytest.importorskip("zstandard")
    # The datasheets (and the sources they cite) the floors of the imported runs come from.
    for hardware in (ROOT / "data" / "hardware").glob("*.yaml"):
        (tmp_path / "hardware").mkdir(exist_ok=True)
        shutil.copy(hardware, tmp_path / "hardware")
        for source in {line.split("source:")[1].split(",")[0].strip(" }") for line in hardware.read_text().splitlines()
                       if "source:" in line}:
            (tmp_path / "sources").mkdir(exist_ok=True)
            shutil.copy(ROOT / "data" / "sources" / f"{source}.yaml", tmp_path / "sources")
    report = import_export(REAL, tmp_path, DEFAULT_SOURCES)
    export = read_export(REAL)
    catalog = load_catalog(tmp_path, cache=False)
    checked = assert_digests_equal(catalog, export)
    assert checked == report.digests_checked
    # GPU MODE's 5,215 runs all come in; of FlashInfer-Bench's 1,937, 43 pair an implementation
    # and a workload of different operations upstream and are left out; of SOL-ExecBench's 705, the
    # 3 of one workload suite whose cases bind an axis its operation does not declare.
    assert report.runs == {"gpumode-kernelbot": 5215, "flashinfer-bench": 1894, "sol-execbench": 702}
    assert len([line for line in report.skipped if "different operations" in line]) == 43
    assert report.skipped[43:] == ["workload 032-dual-stream-attention-with-conditional-cross-attention-suite: "
                                   "axes not in the operation: is_joint_block"]
    sol = [run for run in catalog.runs.values() if run.spec.sourceNative.source == "sol-execbench"]
    assert len(sol) == 702 and all(run.refs["environment"].spec.hardware.product == "NVIDIA B200" for run in sol)
    # Record history: the export's events for every group of the imported sources, against ours.
    sources = {row["id"]: row["slug"] for row in export.rows("sources")}
    runs = [row for row in export.rows("benchmark_runs") if sources[row["sourceId"]] in DEFAULT_SOURCES]
    theirs = export_histories(runs, export.rows("record_events"))
    histories, ineligible, held = our_histories(derive_leaderboard(catalog, AS_OF))
    agreement = compare(histories, theirs, ineligible, held)
    explained = agreement.explained
    assert "unexplained" not in explained, agreement.differences[:3]
    assert set(explained) <= {"ineligible here: BELOW_PHYSICAL_FLOOR", "a record run of theirs is not imported here"}
    # 9 groups of FlashInfer-Bench's 43 runs left out, 2 of SOL-ExecBench's 3 (the methodology page says so).
    assert explained["a record run of theirs is not imported here"] == 11
    # Below our floor: 5 SOL-ExecBench groups, none of GPU MODE or FlashInfer-Bench. A floor that
    # counted a paged KV cache's whole page pool had flagged 86 of FlashInfer-Bench's paged attention,
    # and one that took a SOL suite's latency for the arithmetic mean of its cases 40 more.
    assert explained["ineligible here: BELOW_PHYSICAL_FLOOR"] == 5
    assert agreement.identical == agreement.compared - sum(explained.values()) == 1812



def test_the_site_shows_imported_kernels_amd_gpus_attribution_and_floors(imported, tmp_path):
    from site_builder.build import build_site

    data, _ = imported
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    (copy / "hardware").mkdir(exist_ok=True)
    for name in ("mi300x", "mi355x", "b200"):
        shutil.copy(ROOT / "data" / "hardware" / f"{name}.yaml", copy / "hardware")
    for source in ("amd-mi300x-datasheet", "tomshardware-mi355x", "isscc-mi355x-report", "glennklockwood-b200", "nvidia-hgx-b200"):
        shutil.copy(ROOT / "data" / "sources" / f"{source}.yaml", copy / "sources")
    site = tmp_path / "site"
    build_site(copy, site, as_of=AS_OF)
    gpus = (site / "gpus.html").read_text(encoding="utf-8")
    assert "AMD Instinct MI300X" in gpus and "AMD Instinct MI355X" in gpus
    catalog = load_catalog(copy, cache=False)
    run = next(name for name, r in catalog.runs.items() if r.spec.sourceNative.source == "gpumode-kernelbot"
               and r.refs["environment"].spec.hardware.product == "AMD Instinct MI300X" and r.spec.timing)
    page = (site / "runs" / f"{run}.html").read_text(encoding="utf-8")
    assert "Data: GPU Mode and the KernelBot dataset" in page
    kernel = catalog.runs[run].refs["workload"].refs["operation"].name
    kernel_page = (site / "kernels" / f"{kernel}.html").read_text(encoding="utf-8")
    assert "GPU Mode and the KernelBot dataset" in kernel_page and "Estimated floor" in kernel_page
    assert kernel in (site / "api" / "v1" / "search-index.json").read_text(encoding="utf-8")
    # SOL-ExecBench, imported by default: every one of its run pages credits it as its upstream
    # policy asks, and so does the page of every kernel it has runs of, with the floor the B200
    # datasheet gives.
    sol_runs = {name: r for name, r in catalog.runs.items() if r.spec.sourceNative.source == "sol-execbench"}
    assert len(sol_runs) == 8
    for name, sol_run in sol_runs.items():
        page = (site / "runs" / f"{name}.html").read_text(encoding="utf-8")
        assert "Data: NVIDIA SOL-ExecBench" in page, name
        kernel = sol_run.refs["workload"].refs["operation"].name
        kernel_page = (site / "kernels" / f"{kernel}.html").read_text(encoding="utf-8")
        assert "NVIDIA SOL-ExecBench" in kernel_page and "Estimated floor" in kernel_page, kernel
