"""observedAt against the as-of date: a run cannot come from after the moment the site describes."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from site_builder.checks import observed_at_limit
from site_builder.problems import DataError
from site_builder.repository import load_catalog

RUN = "runs/liger-rope-s2048.yaml"
OBSERVED = "2025-08-07T21:42:12Z"


def _observed(repo, moment: str) -> None:
    repo.replace(RUN, OBSERVED, moment)


def test_a_date_covers_its_whole_day_and_one_more():
    assert observed_at_limit(date(2025, 8, 7)) == datetime(2025, 8, 9, tzinfo=timezone.utc)


def test_a_moment_gets_one_day():
    moment = datetime(2025, 8, 7, 12, tzinfo=timezone.utc)
    assert observed_at_limit(moment) == datetime(2025, 8, 8, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize("observed, ok", [
    ("2025-08-08T23:59:59Z", True),     # the day after the as-of date: clocks and time zones differ
    ("2025-08-09T00:00:01Z", False),    # two days after
    ("2025-08-09T01:00:00+02:00", True),  # 2025-08-08T23:00Z, written with an offset
])
def test_build_as_of_date(repo, observed, ok):
    _observed(repo, observed)
    if ok:
        load_catalog(repo.data, as_of=date(2025, 8, 7))
        return
    with pytest.raises(DataError) as error:
        load_catalog(repo.data, as_of=date(2025, 8, 7))
    assert [str(p) for p in error.value.problems] == [
        f"data/{RUN}:22:3: spec.observedAt: 2025-08-09T00:00:01.000Z is in the future "
        "(more than a day after the as-of date 2025-08-07)"]


def test_source_date_epoch_moment(repo):
    _observed(repo, "2025-08-08T12:00:01Z")
    epoch = datetime(2025, 8, 7, 12, tzinfo=timezone.utc)
    with pytest.raises(DataError) as error:
        load_catalog(repo.data, as_of=epoch)
    assert [str(p) for p in error.value.problems] == [
        f"data/{RUN}:22:3: spec.observedAt: 2025-08-08T12:00:01.000Z is in the future "
        "(more than a day after the as-of date 2025-08-07T12:00:00+00:00)"]


def test_validate_uses_the_wall_clock(repo):
    # `validate` has no as-of date: tomorrow is fine (time zones), a week ahead is not.
    now = datetime.now(timezone.utc)
    tomorrow = now.replace(microsecond=0) + (observed_at_limit(now) - now) / 2
    _observed(repo, tomorrow.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert repo.problems() == []


def test_before_2000_is_always_an_error(repo):
    _observed(repo, "1999-12-31T23:59:59Z")
    with pytest.raises(DataError) as error:
        load_catalog(repo.data, as_of=date(2025, 8, 7))
    assert [str(p) for p in error.value.problems] == [
        f"data/{RUN}:22:3: spec.observedAt: 1999-12-31T23:59:59.000Z is before 2000-01-01: check the date"]
