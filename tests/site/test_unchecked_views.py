"""Views made unchecked (``context.view_parts.unchecked``) are the views pydantic would make."""

from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from site_builder import urls
from site_builder.context import site_pages
from site_builder.context.view_parts import as_float, unchecked, unchecked_page
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.discover.finding_views import RecordRow, RecordRun
from site_builder.render import mirror_json
from site_builder.repository import load_catalog
from site_builder.page_views import (
    Availability, ChallengeRow, CohortSummary, EvidenceRow, GroupLink, HeadroomV1, ImplementationRef, ImplementationView, Link,
    RowView,
    RunRef, RunStanding, View,
)
from tests.bundled import bundled_data

DATA = Path(__file__).resolve().parents[2] / "data"

WHEN = datetime(2026, 1, 2, 3, tzinfo=timezone.utc)
LINK = Link(title="t", url=urls.kernel("op"))
IMPLEMENTATION = ImplementationView(name="i", title="I", project="p", language="triton",
                                    baseline=False, source_url=None, license="MIT", license_text="MIT")
ROW = RowView(run="r", digest="sha256:0", rank=1, value=12.5, unit="ns", statistic="median",
              vs_leader=1.0, vs_baseline=None, sol_score=None, evidence="verified", observed_at=WHEN, stale=False,
              implementation=IMPLEMENTATION, availability=Availability(usable=True, reasons=[], install=None, pinned=False),
              reasons=[])
LEADER = RunRef(run="r", digest="sha256:0", value=12.5, unit="ns", observed_at=WHEN,
                implementation=ImplementationRef(name="i", title="I", project="p", baseline=False))
GROUP = GroupLink(title="H100", url=urls.group("g"), key="sha256:g")
SUMMARY = CohortSummary(key="g", label="H100", url=urls.group("g"), gpu="H100", hardware=None, environment=LINK,
                        protocol=LINK, metric=None, ranked=1, runs=1, leader=LEADER, last_observed=WHEN)
RUN = dict(run="r", value=12.5, unit="ns", statistic="median", implementation=LINK, baseline=True,
           evidence="verified", source=False, observed_at=WHEN)


def _same(cls, **fields):
    checked, made = cls(**fields), unchecked(cls, **fields)
    assert type(made) is cls
    assert made == checked
    assert made.__pydantic_fields_set__ == checked.__pydantic_fields_set__
    assert made.model_dump(mode="json") == checked.model_dump(mode="json")
    assert mirror_json(made) == mirror_json(checked)
    return made


def test_unchecked_views_equal_the_checked_ones():
    run = _same(RecordRun, **RUN)
    _same(RecordRow, operation="op", workload="w", cohort=LINK, gpu="h100", gpu_label="H100", row=run, previous=None,
          improvement=0.25, set_at=WHEN, current=True, group_size=2)
    _same(ChallengeRow, kind="single", operation=LINK, workload=LINK, cohort=GROUP, record=None)
    standing = _same(RunStanding, **{name: getattr(ROW, name) for name in RunStanding.model_fields})
    _same(EvidenceRow, workload=LINK, cohort=LINK, gpu="H100", run=ROW.run, standing=standing, group_size=3)


def test_a_view_naming_a_run_links_its_page_but_leaves_the_path_out_of_its_json():
    # Pages link the run; the mirror names it once (its page is runs/<name>.html, as the API index says).
    for view in (ROW, LEADER, unchecked(RecordRun, **RUN)):
        assert view.url == urls.run("r")
        written = json.loads(mirror_json(view))
        assert "url" not in written and "url" not in view.model_dump(mode="json") and written["run"] == "r"


def test_a_view_of_an_implementation_links_its_page_but_leaves_the_path_out_of_its_json():
    for view in (IMPLEMENTATION, LEADER.implementation, ROW.implementation):
        assert view.url == urls.implementation("i")
        written = json.loads(mirror_json(view))
        assert "url" not in written and written["name"] == "i"


def test_unchecked_views_are_frozen_like_the_checked_ones():
    made = unchecked(RecordRun, **RUN)
    try:
        made.value = 1.0
    except Exception:
        pass
    else:  # pragma: no cover - a failure
        raise AssertionError("an unchecked view could be changed")
    assert made.value == 12.5


def test_unchecked_pages_fill_defaults_as_model_construct_does():
    checked = HeadroomV1(ns=3, bytes=4096, inputs=["x"], times_above=None)
    made = unchecked_page(HeadroomV1, times_above=None, inputs=["x"], bytes=4096, ns=3)  # any order given
    assert made == checked and made.policy == "headroom-v1"
    assert list(vars(made)) == list(vars(checked)) == list(HeadroomV1.model_fields)
    assert made.__pydantic_fields_set__ == checked.__pydantic_fields_set__ == {"ns", "bytes", "inputs", "times_above"}
    assert made.model_dump(mode="json") == checked.model_dump(mode="json")
    assert mirror_json(made) == mirror_json(checked)


def test_as_float_makes_what_a_checked_float_field_makes():
    check = TypeAdapter(float | None).validate_python
    for number in (3, 0, 2.5, None, 10**12):
        assert as_float(number) == check(number) and type(as_float(number)) is type(check(number))


def _checked_alike(view: View, seen: set[int]) -> None:
    """``view`` and the view checking its fields makes: the same fields, in the same order, each
    of the same type (an int where a float belongs would print differently), recursively."""
    if id(view) in seen:
        return
    seen.add(id(view))
    cls = type(view)
    checked = cls(**{name: vars(view)[name] for name in view.__pydantic_fields_set__})
    assert list(vars(view)) == list(vars(checked)), cls
    assert view.__pydantic_fields_set__ == checked.__pydantic_fields_set__, cls
    for name in cls.model_fields:
        _same_value(vars(view)[name], vars(checked)[name], f"{cls.__name__}.{name}", seen)


def _same_value(made, checked, where: str, seen: set[int]) -> None:
    assert type(made) is type(checked), where
    if isinstance(made, (list, tuple)):
        assert len(made) == len(checked), where
        for one, other in zip(made, checked):
            _same_value(one, other, where, seen)
    elif isinstance(made, dict):
        assert list(made) == list(checked), where
        for key in made:
            _same_value(made[key], checked[key], f"{where}.{key}", seen)
    elif isinstance(made, View):
        _checked_alike(made, seen)
    else:
        assert made == checked, where


def test_pages_are_what_checking_their_views_makes():
    """The pages made unchecked (run and group pages), and those that show the views made
    unchecked (rows, group summaries and links, floors, comparisons, ledger and challenge rows),
    against checking every view of them, on the bundled data."""
    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet (issue 2)")
    board = derive_leaderboard(load_catalog(bundled_data()), date(2026, 11, 29))
    kinds = {"run": 0, "group": 0, "kernel": 0, "implementation": 0, "hardware": 0, "records": 0, "challenges": 0}
    for page in site_pages(board, "methodology"):
        if page.kind in kinds:
            kinds[page.kind] += 1
            _checked_alike(page, set())
    assert all(kinds.values()), kinds
