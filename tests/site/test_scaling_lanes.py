"""A group's scaling line, drawn from its operation's lanes only, is the line drawn from all runs."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.derive.scaling import ScalingInput, scaling_series
from site_builder.repository import load_catalog
from tests.bundled import bundled_data

DATA = Path(__file__).resolve().parents[2] / "data"


def _lines_from_all_groups(board) -> dict:
    """The definition: a line through each latency group of a single case, drawn from the eligible
    runs of every group that shares its operation, protocol, environment, metric and dtype."""
    cases = board.catalog.of("WorkloadCase")

    def lane(cohort):
        return (cohort.operation, cohort.protocol, cohort.environment, cohort.metric, cases[cohort.workload].spec.dtype)

    measured = [cohort for cohort in board.cohorts.values() if cohort.workload in cases and cohort.is_latency]
    lanes: dict[tuple, list[ScalingInput]] = {}
    for cohort in measured:
        axes = dict(cases[cohort.workload].spec.axes)
        lanes.setdefault(lane(cohort), []).extend(
            ScalingInput(axes, row.run.implementation, row.value, row.run.name, cohort.workload) for row in cohort.rows)
    lines = dict.fromkeys(board.cohorts)
    for cohort in measured:
        workload = cases[cohort.workload]
        lines[cohort.key] = scaling_series(dict(workload.spec.axes), lanes[lane(cohort)], list(workload.refs["operation"].spec.axes))
    return lines


@pytest.fixture(scope="module")
def board():
    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet (issue 2)")
    return derive_leaderboard(load_catalog(bundled_data()), date(2026, 11, 29))


def test_scaling_lines_are_the_lines_drawn_from_all_groups(board):
    lines = {key: board.scaling(cohort) for key, cohort in board.cohorts.items()}
    assert lines == _lines_from_all_groups(board)
    assert sum(line is not None for line in lines.values()) > 10  # lines along more than one kernel
    assert len({board.cohorts[key].operation for key, line in lines.items() if line is not None}) > 1


def test_a_group_gathers_the_lanes_of_its_operation_only(board):
    fresh = derive_leaderboard(board.catalog, board.as_of)
    cohort = next(c for c in board.cohorts.values() if board.scaling(c) is not None)
    assert fresh.scaling(fresh.cohorts[cohort.key]) == board.scaling(cohort)
    assert list(fresh._lanes) == [cohort.operation]
