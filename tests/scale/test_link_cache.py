"""Runs' digests kept in the parse cache: a build reuses them, and gets what hashing would give."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from schemas.digest import canonical_json, identity_body, spec_digest
from site_builder.incremental.parse_cache import RUN_DIGEST_KIND, ParseCache
from site_builder.link import Catalog
from site_builder.load import iter_data_files, load_documents
from site_builder.problems import DataError
from site_builder.repository import load_catalog

AS_OF = date(2026, 6, 30)


def manifests(catalog: Catalog) -> dict[str, tuple[str, str]]:
    """Every entity's digest and canonical manifest (which builds a lazily kept canonical spec)."""
    return {f"{e.kind}/{e.name}": (e.digest, canonical_json(e.manifest()))
            for kind in catalog.by_kind.values() for e in kind.values()}


def digest_entries(data: Path) -> int:
    cache = ParseCache.for_data(data)
    return sum(1 for line in cache._stored.values() if line.split(b" ", 2)[1] == RUN_DIGEST_KIND.encode())


def test_cached_digests_match_hashing(synthetic: Path) -> None:
    uncached = manifests(load_catalog(synthetic, AS_OF, cache=False))
    cold = load_catalog(synthetic, AS_OF)
    runs = len(cold.runs)
    assert digest_entries(synthetic) >= runs
    warm = load_catalog(synthetic, AS_OF)
    # Every run's canonical spec still hashes to its (cached) digest.
    for run in warm.runs.values():
        assert spec_digest("BenchmarkRun", run.canonical_spec) == run.digest
    assert uncached == manifests(cold) == manifests(warm)


def _supersede_chain(data: Path) -> None:
    """Runs that supersede a run that supersedes another: the digest each hashes is the one its
    target had when it was linked, and the cache must give the same."""
    first = next(path for path in sorted((data / "runs").rglob("*.yaml"))
                 if "sourceNative" not in path.read_text() and "  status: passed\n" in path.read_text())
    original = first.read_text()
    previous = first.stem
    for generation in (2, 3):
        newer = first.with_name(f"{first.stem}-v{generation}.yaml")
        text = original.replace(f"name: {first.stem}\n", f"name: {newer.stem}\n", 1)
        newer.write_text(text.replace("  status: passed\n", f"  status: passed\n  supersedes: {previous}\n", 1))
        previous = newer.stem


def test_superseding_runs_hash_the_digest_they_supersede(synthetic: Path) -> None:
    _supersede_chain(synthetic)
    catalog = load_catalog(synthetic, AS_OF, cache=False)
    superseding = [run for run in catalog.runs.values() if "supersedes" in run.refs]
    assert superseding, "the synthetic data should hold superseding runs"
    load_catalog(synthetic, AS_OF)
    warm = load_catalog(synthetic, AS_OF)
    for run in superseding:
        cached = warm.runs[run.name]
        assert cached.digest == run.digest
        assert cached.canonical_spec["supersedesDigest"] == run.canonical_spec["supersedesDigest"]
        assert canonical_json(identity_body("BenchmarkRun", cached.canonical_spec)) == \
            canonical_json(identity_body("BenchmarkRun", run.canonical_spec))


def test_a_changed_reference_changes_the_cached_runs(synthetic: Path) -> None:
    """A run's file unchanged but its protocol edited: its digest must follow the protocol's."""
    original = manifests(load_catalog(synthetic, AS_OF))
    protocols = synthetic / "protocols"
    protocol = next(path for path in sorted(protocols.glob("*.yaml")) if "timer: cuda_events" in path.read_text())
    protocol.write_text(protocol.read_text().replace("timer: cuda_events", "timer: cupti", 1))
    expected = manifests(load_catalog(synthetic, AS_OF, cache=False))
    changed = {name for name, value in expected.items() if original[name] != value}
    assert any(name.startswith("BenchmarkRun/") for name in changed)
    assert manifests(load_catalog(synthetic, AS_OF)) == expected


def test_a_load_without_link_keeps_the_digests(synthetic: Path) -> None:
    load_catalog(synthetic, AS_OF)
    before = digest_entries(synthetic)
    for _ in range(2):
        load_documents(synthetic, cache=True, jobs=1)
    assert digest_entries(synthetic) == before > 0


def test_errors_are_the_same_with_cached_digests(synthetic: Path) -> None:
    load_catalog(synthetic, AS_OF)
    runs = sorted((synthetic / "runs").rglob("*.yaml"))
    runs[0].write_text(runs[0].read_text().replace("workload: ", "workload: missing-", 1))
    errors = []
    for cache in (False, True, True):
        with pytest.raises(DataError) as caught:
            load_catalog(synthetic, AS_OF, cache=cache)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] == errors[2]


def test_a_cached_file_replaced_by_a_link_is_refused(synthetic: Path, tmp_path: Path) -> None:
    load_catalog(synthetic, AS_OF)
    run = sorted((synthetic / "runs").rglob("*.yaml"))[0]
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(run.read_bytes())
    run.unlink()
    os.symlink(outside, run)
    with pytest.raises(DataError) as caught:
        load_catalog(synthetic, AS_OF)
    assert "not a symbolic link" in str(caught.value)


def test_data_files_sort_as_paths(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for name in ("a/b.yaml", "a-c/a.yaml", "a.b/z.yaml", "a/B.yaml", "a/a b.yaml", "ab.yaml", "a0/x.yml"):
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text("x: 1\n")
    found = list(iter_data_files(data))
    assert found == sorted(found) and len(found) == 7


def test_run_digests_across_processes_equal_digests_made_here() -> None:
    """The pool returns each run's digest in order, the very digest hashing it here gives."""
    from site_builder.parallel.run_digests import run_digests

    specs = [{"implementationDigest": f"sha256:{index:064x}", "value": index / 7, "tags": ["b", "a"][: index % 3]}
             for index in range(50)]
    sources = [lambda spec=spec: dict(spec) for spec in specs]
    here = [spec_digest("BenchmarkRun", spec) for spec in specs]
    assert len(set(here)) == len(specs)
    assert run_digests(sources, workers=1) == here
    assert run_digests(sources, workers=2, pool_from=10) == here


def test_a_cold_load_keeps_no_run_spec(synthetic: Path) -> None:
    """Runs hashed by a cold load build their specs again when asked, as a warm load's runs do:
    kept on every run, the specs held ~130 MB at 100,000 runs."""
    cold = load_catalog(synthetic, AS_OF)
    assert cold.runs and all(run._canonical_spec is None for run in cold.runs.values() if not run.spec.supersedes)


def test_run_digest_serves_only_intact_digest_entries(tmp_path: Path) -> None:
    digest = "sha256:" + "ab" * 32
    run_key, model_key, damaged_key = "1" * 64, "2" * 64, "3" * 64
    cache = ParseCache(tmp_path / "parse.cache")
    cache.put(run_key, RUN_DIGEST_KIND, digest)
    cache.put(model_key, "BenchmarkRun", '{"kind":"BenchmarkRun"}')
    cache.save()
    cache.put(damaged_key, RUN_DIGEST_KIND, digest)
    cache.save()  # appended: a block of its own
    text = cache.file.read_bytes()
    end = text.index(b"\n", text.index(damaged_key.encode()))
    cache.file.write_bytes(text[:end - 1] + b"c" + text[end:])  # the digest's last digit: only the CRC tells
    reread = ParseCache(cache.file)
    reread.read()
    assert reread.run_digest(run_key) == digest
    assert reread.run_digest(model_key) is None  # a model, not a digest
    assert reread.run_digest(damaged_key) is None  # its block fails its CRC
    assert reread.run_digest("4" * 64) is None  # absent
