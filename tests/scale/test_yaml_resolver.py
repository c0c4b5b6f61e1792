"""The loader's faster resolver reads every scalar exactly as ruamel.yaml's stock safe loader does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from site_builder.yaml_reading import _safe_yaml

# Plain scalars whose type depends on the YAML version and the resolver's rules.
TRICKY = ["yes", "No", "on", "OFF", "y", "n", "true", "False", "TRUE", "null", "Null", "~", "", "010", "0o17", "0x1F",
          "0b101", "1_000", "1e3", "1.5e-7", ".inf", "-.Inf", ".NaN", "+12", "-0", "0.", ".5", "2001-12-14",
          "2001-12-14T21:59:43.10Z", "2001-12-14 21:59:43.10 -5", "12:30:00", "1:20", "=", "<<x", "081.3 us", "v1.2",
          "sha256:ab", "1,000", "0xZZ", "1__0", "+.inf", "-1e+400", "9" * 30]


def _stock() -> YAML:
    return YAML(typ="safe", pure=False)


def _same(text: str) -> None:
    try:
        expected = repr(_stock().load(text))
    except Exception as error:  # noqa: BLE001 - both must fail alike
        expected = type(error).__name__
    try:
        actual = repr(_safe_yaml().load(text))
    except Exception as error:  # noqa: BLE001
        actual = type(error).__name__
    assert actual == expected, text


@pytest.mark.parametrize("scalar", TRICKY)
def test_tricky_plain_scalars(scalar: str) -> None:
    _same(f"value: {scalar}\nlist: [{scalar}]\n")


def test_a_version_directive_changes_nothing_either_way() -> None:
    _same("%YAML 1.1\n---\na: yes\nb: 010\nc: 1_000\n")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(TRICKY), st.from_regex(r"[-+.0-9a-zA-Z_:~ ]{1,12}", fullmatch=True)),
                min_size=1, max_size=8))
def test_generated_documents(scalars: list[str]) -> None:
    lines = [f"k{index}: {scalar.strip() or '~'}" for index, scalar in enumerate(scalars)]
    _same("\n".join(lines) + "\n")
