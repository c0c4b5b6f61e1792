"""The one pass over the runs (``facts.run_index``) against the definitions it stands in for."""

from __future__ import annotations

from datetime import date

import pytest

from site_builder.derive.comparison import comparison_key, correctness_digest, group_by_cohort
from site_builder.derive.eligibility import superseded_names
from site_builder.derive.facts import implementation_facts, run_facts, run_index
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.link import Catalog
from site_builder.repository import load_catalog
from site_builder.synth import synthesize

AS_OF = date(2026, 6, 30)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory, monkeypatch_module: None) -> Catalog:
    """1,500 runs: enough for superseded, retracted and failed runs, and groups of several runs."""
    data = tmp_path_factory.mktemp("index") / "data"
    synthesize(data, 1500, seed=7, datasheets=None)
    return load_catalog(data, AS_OF, cache=False)


@pytest.fixture(scope="module")
def monkeypatch_module(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KERNELINDEX_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


def test_run_index_groups_pairs_and_superseded_runs_are_their_definitions(catalog: Catalog) -> None:
    implementations = {name: implementation_facts(entity) for name, entity in sorted(catalog.implementations.items())}

    index = run_index(catalog, implementations)

    facts = index.facts
    assert list(facts) == sorted(catalog.runs) and facts == run_facts(catalog, implementations)
    groups = group_by_cohort(facts.values())
    assert list(index.groups) == list(groups)
    assert all(list(map(id, index.groups[key])) == list(map(id, members)) for key, members in groups.items())
    assert index.pairs == list(dict.fromkeys((run.workload, run.environment) for run in facts.values()))
    assert index.superseded == superseded_names(facts.values()) and index.superseded
    for name, run in facts.items():  # each key as comparison_key defines it, from the catalog's entities
        refs = catalog.runs[name].refs
        workload = refs["workload"]
        assert run.cohort == comparison_key(
            operation=workload.refs["operation"].digest, workload=workload.digest, protocol=refs["protocol"].digest,
            environment=refs["environment"].digest, policy_digest=correctness_digest(workload.canonical_spec["correctness"]),
            metric=run.metric)


def test_every_run_of_the_board_is_its_groups_run(catalog: Catalog) -> None:
    board = derive_leaderboard(catalog, AS_OF)
    assert any(len(cohort.runs) > 1 for cohort in board.cohorts.values()) and board.reasons
    assert all(run is board.runs[run.name] for cohort in board.cohorts.values() for run in cohort.runs)
    assert all(row is board.row_of[row.run.name] for cohort in board.cohorts.values() for row in cohort.rows)
    assert list(board.row_of) == [row.run.name for cohort in board.cohorts.values() for row in cohort.rows]


def test_the_sources_counted_are_each_kernel_s_runs_of_each_source_in_run_order(catalog: Catalog) -> None:
    """What the source pages count (``context/catalog.CatalogIndex.source_operations``), read from the run files."""
    board = derive_leaderboard(catalog, AS_OF)
    expected: dict[tuple[str, str], int] = {}
    for name, run in sorted(catalog.runs.items()):
        native = run.spec.sourceNative
        if native is not None:
            pair = (native.source, board.runs[name].operation)
            expected[pair] = expected.get(pair, 0) + 1
    assert expected and list(board.source_operations.items()) == list(expected.items())
