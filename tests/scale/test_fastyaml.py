"""fastyaml builds exactly what ruamel.yaml's stock safe loader builds, or fails exactly as it fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from site_builder.fastyaml import EventLoader
from site_builder.yaml_reading import _safe_yaml

ROOT = Path(__file__).resolve().parents[2]

# Lines that, shuffled together, make valid documents, documents with every construct fastyaml
# leaves to the stock loader (merge keys, anchors, tags, complex keys, several documents), and
# broken ones (bad indentation, duplicate keys, unclosed flows).
LINES = [
    "a: 1", "b: yes", "c: 'quoted: x'", 'd: "esc\\t\\u00e9"', "e: ~", "f:", "g: 2001-12-14", "h: 2001-12-14T21:59:43.10Z",
    "i: .nan", "j: -.inf", "k: 0o17", "l: 0x1F", "m: 1_000", "n: 1e3", "o: 081.3 us", "p: [1, two, 3.5, null]",
    "q: {r: s, t: [u]}", "1: one", "true: t", "null: n", "a: 2", "<<: {z: 1}", "=: v", "v: =", "anchor: &x 5",
    "alias: *x", "tag: !!str 5", "tag2: !custom x", "? complex", ": value", "? [1, 2]", ": v", "- item", "- [1, 2]",
    "- {k: v}", "-", "  nested: 1", "  - deep", "    deeper: 2", "lit: |", "  line one", "  line two", "fold: >",
    "---", "...", "# comment", "x: [unclosed", "y: }", "\tz: tab", "w: 'open", "%YAML 1.1", "k: v # trailing",
    "s: a b  c", "u: 12:30", "long: " + "9" * 30, "empty: []", "emptymap: {}", "quoted_key': x", "'qk': 1", '"k": 2',
]


def _outcome(load, text: str) -> str:
    try:
        return "value " + repr(load(text))
    except Exception as error:  # noqa: BLE001 - both must fail alike
        return f"error {type(error).__name__}: {error}"


def _check(text: str) -> None:
    stock = YAML(typ="safe", pure=False)
    stock.allow_duplicate_keys = False
    expected = _outcome(stock.load, text)
    assert _outcome(EventLoader(_safe_yaml()).load, text) == expected, text


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=12))
def test_generated_documents(lines: list[str]) -> None:
    _check("\n".join(lines) + "\n")


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n...\n", "plain scalar\n", "[1, 2]\n", "- a\n- b\n",
                                  "a: 1\na: 2\n", "<<: {a: 1}\nb: 2\n", "a: &x 1\nb: *x\n", "1: a\ntrue: b\n",
                                  ".nan: 1\n.nan: 2\n", "a:\n  - b: [c, {d: e}]\n", "--- 1\n--- 2\n"])
def test_edge_documents(text: str) -> None:
    _check(text)


def test_every_yaml_file_in_the_repository() -> None:
    files = [path for folder in ("data", "tests") for path in sorted((ROOT / folder).rglob("*.y*ml"))]
    assert len(files) > 100
    for path in files:
        _check(path.read_text(encoding="utf-8", errors="replace"))


def test_repeated_scalars_are_remembered_not_shared_wrongly() -> None:
    loader = EventLoader(_safe_yaml())
    first = loader.load("a: [1, 2]\nb: {c: d}\n")
    second = loader.load("a: [1, 2]\nb: {c: d}\n")
    assert first == second and first["a"] is not second["a"] and first["b"] is not second["b"]
    first["a"].append(3)
    assert loader.load("a: [1, 2]\n") == {"a": [1, 2]}


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=list(":-[]{},#&*!|>'\"%?~.=<@ \n\t0123456789abcxyTtnNeE_+"), max_size=60))
def test_arbitrary_text(text: str) -> None:
    _check(text)


@pytest.mark.parametrize("number", ["0", "-0", "+0", "007", "-12", "+12", "3780047", "0.0", "-0.0", "+1.5", "1.", "-.5",
                                    "3762911.0", "1.5e3", "1.5E-3", "1e3", "1_000", "1_0.5", "0x1F", "0o17", "0b11",
                                    ".inf", "-.Inf", ".nan", "12:30", "1.5e", "\u0663", "9" * 5000, "1." + "5" * 400])
def test_plain_numbers_are_the_stock_constructors_numbers(number: str) -> None:
    """Plain ints and floats skip the constructor: each must come out as it would have, type and sign included."""
    _check(f"value: {number}\nlist: [{number}, {number}]\n")


@settings(max_examples=1500, deadline=None)
@given(st.from_regex(r"\A[-+]?[0-9_]{0,4}\.?[0-9_]{0,3}(?:[eE][-+]?[0-9]{0,2})?\Z")
       | st.sampled_from(["0", "007", "-0", "+1", "1.", "-1.5e3", "1e3", "0x1F", "0o17", "1_000", "1.5.2", ".5", "12:30"]))
def test_numbers_written_plainly(text: str) -> None:
    """Numbers skip the resolver's patterns (``_PLAIN_INT``): each form reads as the stock loader reads it."""
    _check(f"n: {text}\nlist: [{text}, '{text}']\n")
