"""The bulk steps of a warm load and of link (lookups all at once, one pass over the runs) give what
the steps one file or one run at a time gave."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timezone
from pathlib import Path

from site_builder.incremental.parse_cache import ParseCache
from site_builder.checks import future_observations
from site_builder.link import link
from site_builder.load import load_documents
from site_builder.repository import load_catalog


def test_entries_and_run_digests_read_what_get_and_run_digest_read(synthetic: Path) -> None:
    load_catalog(synthetic, date(2026, 6, 30))  # models and runs' digests cached
    stored = ParseCache.for_data(synthetic)
    keys = [name.decode("ascii") for name in stored._stored] + ["0" * 64]  # and one it lacks
    one_by_one = ParseCache.for_data(synthetic)
    expected = [one_by_one.get(key) for key in keys]
    entries = stored.entries(keys)
    assert expected[-1] is None and entries[-1] is None
    read = [None if entry is None else (entry[0].decode("ascii"), entry[1]) for entry in entries]
    assert read == expected
    assert stored._used == one_by_one._used and len(stored._used) == len(keys) - 1
    digests = stored.run_digests(keys)
    assert digests == [one_by_one.run_digest(key) for key in keys]
    assert any(digest is not None for digest in digests) and any(digest is None for digest in digests[:-1])


def _copy(data: Path, relative: str, to: str) -> None:
    (data / to).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(data / relative, data / to)


def test_reused_names_are_reported_in_file_order(synthetic: Path) -> None:
    """Runs' names are checked as runs are linked, after the other kinds': their problems still come
    in file order among the others', before any other problem of link's."""
    implementation = sorted((synthetic / "implementations").rglob("*.yaml"))[0]
    workload = sorted((synthetic / "workloads").rglob("*.yaml"))[0]
    run = sorted((synthetic / "runs").rglob("*.yaml"))[0]
    _copy(synthetic, str(implementation.relative_to(synthetic)), f"implementations/zz/{implementation.name}")
    _copy(synthetic, str(run.relative_to(synthetic)), f"runs/zz/{run.name}")
    _copy(synthetic, str(workload.relative_to(synthetic)), f"workloads/zz/{workload.name}")
    documents, problems = load_documents(synthetic, cache=False)
    assert not problems
    _, link_problems = link(documents)
    assert [problem.path.split("/")[-3:-1] for problem in link_problems] == [
        ["implementations", "zz"], ["runs", "zz"], ["workloads", "zz"]]
    assert all("is already used by" in problem.message for problem in link_problems)
    # Reversed, the files are reported in that order: the order of the documents given.
    _, link_problems = link(documents[::-1])
    assert [problem.path.split("/")[-3:-1][0] for problem in link_problems] == ["workloads", "runs", "implementations"]


def test_future_observations_name_each_late_run(synthetic: Path) -> None:
    documents, _ = load_documents(synthetic, cache=False)
    runs = sorted((document for document in documents if document.kind == "BenchmarkRun"),
                  key=lambda document: document.model.spec.observedAt)
    assert future_observations(documents, runs[-1].model.spec.observedAt) == []
    as_of = runs[len(runs) // 2].model.spec.observedAt.date()
    late = future_observations(documents, as_of)
    limit = datetime.combine(as_of, datetime.min.time(), tzinfo=timezone.utc).timestamp() + 2 * 86400
    expected = [document.display for document in documents
                if document.kind == "BenchmarkRun" and document.model.spec.observedAt.timestamp() > limit]
    assert expected and [problem.path for problem in late] == expected


def test_documents_know_their_names(synthetic: Path) -> None:
    cold = load_documents(synthetic)[0]
    warm = load_documents(synthetic)[0]
    assert [d.name for d in cold] == [d.name for d in warm] == [d.model.metadata.name for d in warm]
