"""JSON mode's native checks (``schemas.common.NativeInJson``) accept no value the Python validators
refuse, and build the same value from it; every value the cache writes, they accept."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from schemas.common import (MAX_LATENCY_NS, SLUG_MAX, DurationNs, FiniteFloat, Slug, UtcDateTime, check_slug,
                            format_utc)

SLUGS, DURATIONS, FLOATS = TypeAdapter(Slug), TypeAdapter(DurationNs), TypeAdapter(FiniteFloat)
MOMENTS = TypeAdapter(UtcDateTime)


def _outcome(validate, value):
    try:
        return "value", validate(value)
    except (ValidationError, ValueError):
        return "refused", None


def _python(adapter: TypeAdapter, value):
    return _outcome(adapter.validate_python, value)


def _json(adapter: TypeAdapter, value):
    return _outcome(adapter.validate_json, json.dumps(value))


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="az09._-Z é\n/", max_size=SLUG_MAX + 3) | st.sampled_from(
    ["a" * SLUG_MAX, "a" * (SLUG_MAX + 1), "a..b", "a.", "a.-", ".a", "-a", "a\n", "a/b", "ab..", "a._.b", "0"]))
def test_slugs_the_same_in_json_and_python(text: str) -> None:
    python = _python(SLUGS, text)
    assert _json(SLUGS, text) == python
    assert python[0] == ("value" if _accepted_slug(text) else "refused")


def _accepted_slug(text: str) -> bool:
    try:
        return check_slug(text) == text
    except ValueError:
        return False


@pytest.mark.parametrize("value", [1, None, True, ["a"], {"a": 1}])
def test_a_slug_is_a_json_string(value) -> None:
    assert _json(SLUGS, value)[0] == "refused"


@settings(max_examples=1000, deadline=None)
@given(st.integers(min_value=-5, max_value=MAX_LATENCY_NS + 5) | st.integers() | st.sampled_from(
    [0, 1, MAX_LATENCY_NS, MAX_LATENCY_NS + 1, -1, 2**64, True, False, 5.0, 5.5, "81 us", "81", None]))
def test_durations_in_json_are_a_subset_of_python(value) -> None:
    json_mode = _json(DURATIONS, value)
    if json_mode[0] == "value":
        assert _python(DURATIONS, value) == json_mode
    if type(value) is int:  # what the cache writes: every valid integer is accepted
        assert json_mode == _python(DURATIONS, value)


@settings(max_examples=1000, deadline=None)
@given(st.floats() | st.integers(min_value=-2**60, max_value=2**60) | st.sampled_from(["1.5", "nan", True, None]))
def test_finite_floats_in_json_are_a_subset_of_python(value) -> None:
    json_mode = _json(FLOATS, value)
    if json_mode[0] == "value":
        python = _python(FLOATS, value)
        assert python == json_mode and type(python[1]) is type(json_mode[1])
    if isinstance(value, float) and math.isfinite(value):
        assert json_mode == _python(FLOATS, value)
    if isinstance(value, float) and not math.isfinite(value):
        assert _outcome(FLOATS.validate_json, str(value).replace("inf", "Infinity").replace("nan", "NaN"))[0] == "refused"


def test_published_schemas_keep_the_python_rules() -> None:
    assert SLUGS.json_schema() == {"pattern": "^[a-z0-9][a-z0-9._-]*$", "type": "string"}
    assert DURATIONS.json_schema() == {"minimum": 1, "type": "integer"}
    assert FLOATS.json_schema() == {"type": "number"}
    assert MOMENTS.json_schema() == {"format": "date-time", "type": "string"}


def _moment_outcome(outcome):
    """A timestamp's outcome with its zone object named: an equal moment in another zone class
    (pydantic's own UTC) would compare equal and still print differently."""
    return outcome if outcome[0] == "refused" else (outcome, repr(outcome[1]), outcome[1].tzinfo)


_OFFSETS = st.timedeltas(min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59))
_MOMENTS = st.builds(lambda moment, offset: moment.replace(tzinfo=timezone(offset)),
                     st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), _OFFSETS)


@settings(max_examples=2000, deadline=None)
@given(_MOMENTS.flatmap(lambda moment: st.sampled_from([
    format_utc(moment), moment.isoformat(), moment.isoformat().replace("+00:00", "Z"), format_utc(moment).lower(),
    " " + format_utc(moment), format_utc(moment)[:10] + "Z", format_utc(moment)[:-1] + "+00:00Z"]))
    | st.text(alphabet="0123456789-:TZz+. ", max_size=30))
def test_timestamps_in_json_are_the_python_ones(text: str) -> None:
    json_mode = _moment_outcome(_json(MOMENTS, text))
    if json_mode[0] != "refused":
        assert _moment_outcome(_python(MOMENTS, text)) == json_mode


@settings(max_examples=500, deadline=None)
@given(_MOMENTS)
def test_every_timestamp_the_cache_writes_reads_back_as_in_python(moment: datetime) -> None:
    written = format_utc(moment)
    assert _moment_outcome(_json(MOMENTS, written)) == _moment_outcome(_python(MOMENTS, written))
    if written.index("-") == 4:  # a year of four digits (format_utc does not pad): Python reads it
        assert _json(MOMENTS, written)[0] == "value"


@pytest.mark.parametrize("year", [1, 9, 999, 1000, 2025, 9999])
def test_format_utc_writes_what_strftime_wrote(year: int) -> None:
    for moment in (datetime(year, 3, 4, 5, 6, 7, 891234, tzinfo=timezone.utc),
                   datetime(year, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-3))),
                   datetime(year, 1, 1, 0, 0, 0, 999, tzinfo=timezone(timedelta(hours=2)))):
        try:
            utc = moment.astimezone(timezone.utc)
        except OverflowError:
            continue
        assert format_utc(moment) == utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
