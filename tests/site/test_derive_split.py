"""The derive pass's split of a group's runs by eligibility, held to ``eligibility_reasons``."""

from __future__ import annotations

import pytest

from site_builder.derive.eligibility import eligibility_reasons
from site_builder.derive.leaderboard import split_by_eligibility


@pytest.mark.parametrize("floor_ns", [None, 900.0, 1000.0, 1500.0])
def test_the_split_gives_the_reasons_eligibility_gives_and_keeps_the_order(run, floor_ns):
    runs = [
        run("a"), run("b", 800.0), run("c", 1000.0), run("d", status="timeout"), run("e", retracted=True),
        run("f"), run("g", None), run("h", float("nan")), run("i", 0.5, status="incorrect_numerical", retracted=True),
        run("j", 2000.0), run("k", 10.0, metric="memory:median:MiB"),
    ]
    superseded = frozenset({"f", "j", "nobody"})
    reasons: dict[str, tuple[str, ...]] = {"earlier": ("RETRACTED",)}

    eligible, unranked = split_by_eligibility(runs, superseded, floor_ns, reasons)

    expected = {r.name: eligibility_reasons(r, superseded=r.name in superseded, floor_ns=floor_ns) for r in runs}
    assert [r.name for r in eligible] == [name for name, found in expected.items() if not found]
    assert [r.name for r in unranked] == [name for name, found in expected.items() if found]
    assert reasons == {"earlier": ("RETRACTED",), **{name: found for name, found in expected.items() if found}}
    assert all(r is runs[[x.name for x in runs].index(r.name)] for r in eligible + unranked)  # the runs themselves
    if floor_ns == 1500.0:  # the floor applies: below it is implausible, at or above it is not
        assert "BELOW_PHYSICAL_FLOOR" in reasons["a"] and "BELOW_PHYSICAL_FLOOR" not in reasons.get("j", ())
