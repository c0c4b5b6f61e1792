"""Views made unchecked (``context.common.unchecked``) are the views pydantic would make."""

from __future__ import annotations

from datetime import datetime, timezone

from site_builder import urls
from site_builder.context.common import unchecked
from site_builder.discover.views import RecordRow, RecordRun
from site_builder.render import mirror_json
from site_builder.views import Availability, ChallengeRow, CohortSummary, EvidenceRow, ImplementationView, Link, RowView

WHEN = datetime(2026, 1, 2, 3, tzinfo=timezone.utc)
LINK = Link(title="t", url=urls.kernel("op"))
IMPLEMENTATION = ImplementationView(name="i", title="I", url=urls.implementation("i"), project="p", language="triton",
                                    baseline=False, source_url=None, license="MIT", license_text="MIT")
ROW = RowView(run="r", url=urls.run("r"), digest="sha256:0", rank=1, value=12.5, unit="ns", statistic="median",
              vs_leader=1.0, vs_baseline=None, sol_score=None, evidence="verified", observed_at=WHEN, stale=False,
              implementation=IMPLEMENTATION, availability=Availability(usable=True, reasons=[], install=None, pinned=False),
              reasons=[])
SUMMARY = CohortSummary(key="g", label="H100", url=urls.group("g"), gpu="H100", hardware=None, environment=LINK,
                        protocol=LINK, metric=None, ranked=1, runs=1, leader=ROW, last_observed=WHEN)
RUN = dict(run="r", url=urls.run("r"), value=12.5, unit="ns", statistic="median", implementation=LINK, baseline=True,
           evidence="verified", source=False, license=None, observed_at=WHEN)


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
    _same(RecordRow, operation=LINK, workload=LINK, cohort=LINK, gpu="h100", gpu_label="H100", row=run, previous=None,
          improvement=0.25, set_at=WHEN, current=True, group_size=2)
    _same(ChallengeRow, kind="single", operation=LINK, workload=LINK, cohort=SUMMARY)
    _same(EvidenceRow, operation=LINK, workload=LINK, cohort=LINK, gpu="H100", row=ROW, group_size=3)


def test_unchecked_views_are_frozen_like_the_checked_ones():
    made = unchecked(RecordRun, **RUN)
    try:
        made.value = 1.0
    except Exception:
        pass
    else:  # pragma: no cover - a failure
        raise AssertionError("an unchecked view could be changed")
    assert made.value == 12.5
