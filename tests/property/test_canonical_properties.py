"""RFC 8785 canonical JSON: one text per value, whatever the key order; numbers round-trip."""

from __future__ import annotations

import json
import math
import random

from hypothesis import given
from hypothesis import strategies as st

from schemas.digest import canonical_json, format_number, spec_digest

finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**53), max_value=2**53) | finite | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


def shuffled(value, rng: random.Random):
    """The same value with every object's keys in another order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: shuffled(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [shuffled(item, rng) for item in value]
    return value


@given(json_values, st.integers(min_value=0, max_value=2**32 - 1))
def test_key_order_never_matters(value, seed):
    assert canonical_json(shuffled(value, random.Random(seed))) == canonical_json(value)
    spec = {"v": value}
    assert spec_digest("Source", shuffled(spec, random.Random(seed))) == spec_digest("Source", spec)


def as_doubles(value):
    """JSON numbers are IEEE doubles: compare them as such (int 54756234053124340 is that double)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [as_doubles(item) for item in value]
    return {key: as_doubles(item) for key, item in value.items()}


@given(json_values)
def test_canonical_text_is_json_of_the_same_value(value):
    text = canonical_json(value)
    assert as_doubles(json.loads(text)) == as_doubles(value)
    # Canonicalising the canonical text changes nothing.
    assert canonical_json(json.loads(text)) == text


@given(finite)
def test_numbers_round_trip_exactly(value):
    text = format_number(value)
    assert float(text) == value
    assert " " not in text and "+" not in text.split("e")[0]


@given(finite)
def test_integral_floats_print_like_integers(value):
    if value == int(value) and abs(value) <= 2**53:  # above that, ECMAScript prints the shortest digits then zeros
        assert format_number(value) == str(int(value))


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_integers_and_their_float_agree(value):
    assert format_number(value) == format_number(float(value))


def test_nan_never_reaches_a_digest():
    for bad in (math.nan, math.inf, -math.inf):
        try:
            canonical_json({"x": bad})
        except ValueError:
            continue
        raise AssertionError(f"{bad} was canonicalised")
