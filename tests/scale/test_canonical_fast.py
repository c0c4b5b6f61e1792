"""canonical_json's shortcut (json's C encoder) writes exactly what its RFC 8785 writer (``_rfc8785``) does."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.digest import _rfc8785, canonical_json

# Floats of every magnitude (exponent notation on both sides of the fast path's range), integers
# around 2^53, keys beyond ASCII (including astral characters, which sort differently in UTF-16).
floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=1e-8, max_value=1e-3), st.floats(min_value=1e14, max_value=1e23),
    st.sampled_from([0.0, -0.0, 1e-4, 9.999e-5, 1e16, 2.0**53, 2.0**53 - 1, 8000.0, 0.1, 1e21, 1e-7]),
)
integers = st.one_of(st.integers(), st.sampled_from([2**53, 2**53 - 1, -(2**53), -(2**53) + 1, 10**22]))
texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
keys = st.one_of(texts, st.sampled_from(["a", "B", "é", "\U0001f600", "\ufb01", "\u20ac", ""]))
scalars = st.one_of(st.none(), st.booleans(), integers, floats, texts)
values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=5), st.dictionaries(keys, children, max_size=5)), max_leaves=30)


def _outcome(function, value):
    try:
        return function(value)
    except Exception as error:  # noqa: BLE001 - both must fail the same way
        return type(error)


@settings(max_examples=600, deadline=None)
@given(values)
def test_fast_path_matches_reference(value) -> None:
    assert _outcome(canonical_json, value) == _outcome(_rfc8785, value)


@pytest.mark.parametrize("value", [math.nan, math.inf, {"a": [1, {"b": math.nan}]}, {1: "x"}, {"a": object()}, (1, 2.5)])
def test_awkward_values_take_the_reference_path(value) -> None:
    assert _outcome(canonical_json, value) == _outcome(_rfc8785, value)


def test_numbers_are_written_as_ecmascript_does() -> None:
    assert canonical_json([8000.0, -0.0, 1e-7, 0.000001, 1e21, 2**53, 0.5]) == "[8000,0,1e-7,0.000001,1e+21,9007199254740992,0.5]"
