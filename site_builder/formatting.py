"""How numbers and dates read on a page. Pages format at render time; mirrors keep raw values."""

from __future__ import annotations

import math
from datetime import date, datetime

_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"))


def latency(ns: float | None) -> str:
    """81.3 µs, 5.05 µs, 10.4 ms, 750 ns, 0.31 ns: two decimals under ten of a unit, one above.

    Whole nanoseconds from 10 ns up; below that two decimals, so a tiny floor (a few hundred bytes
    over HBM) never reads as "0 ns", which would say the floor is missing."""
    if ns is None:
        return "–"
    for scale, unit in _UNITS:
        if ns >= scale * 0.9995:  # 999.6 µs prints as 1.00 ms, not 999.6 µs or 1000.0 µs
            value = ns / scale
            text = f"{value:.2f}" if value < 9.995 else f"{value:.1f}"
            return f"{text} {unit}"
    if ns == 0 or ns >= 9.995:
        return f"{ns:.0f} ns"
    return f"{ns:.2f} ns"


def measure(value: float | None, unit: str | None) -> str:
    """A primary value in its unit: times as latencies, anything else with four significant digits."""
    if unit == "ns":
        return latency(value)
    if value is None:
        return "–"
    return f"{value:,.4g} {unit or ''}".strip()


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def percent(fraction: float | None) -> str:
    return "–" if fraction is None else f"{round(fraction * 100)}%"


def day(value: datetime | date | str | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value[:10]
    # strftime("%Y-%m-%d") to the character (the year unpadded, as %Y prints it), at a third of
    # its cost: a page prints several dates and a site has a page per run.
    return f"{value.year}-{value.month:02d}-{value.day:02d}"


def number(value: float | int | None) -> str:
    """Thousands separated: 41,943,040; 3,350; 1.5."""
    if value is None:
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.4g}" if value < 1000 else f"{value:,.1f}"
    return f"{int(value):,}"


def short_digest(digest: str, hex_digits: int = 12) -> str:
    return digest.removeprefix("sha256:")[:hex_digits] + "…"


def words(key: str) -> str:
    """A data key as words: "cudaToolkit" -> "cuda toolkit", "device_index" -> "device index"."""
    spaced = "".join(f" {c.lower()}" if c.isupper() and i else c for i, c in enumerate(key))
    return spaced.replace("_", " ").lower()


def plain(value: object) -> str:
    """A value for a reader: yes/no for booleans, four significant digits for floats (never a raw float)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{int(value):,}" if value.is_integer() and abs(value) < 1e15 else f"{value:,.4g}"
    return str(value)


# Source-native metric keys that carry a quantile in a unit: "ms_20" is the source's p20 in milliseconds.
_QUANTILE_UNITS = {"ms": ("latency", 1e6), "mb": ("memory", None)}


def source_metric(key: str, value: float) -> str:
    """One figure a source published, in words and units: "latency p20 384.7 µs" for ``ms_20 =
    0.38468…``, "memory p50 115.5 MiB", "GPU index 1", "memory clock after 2,619 MHz"."""
    prefix, _, rest = key.partition("_")
    if prefix in _QUANTILE_UNITS and rest.isdigit():
        metric, ns_per_unit = _QUANTILE_UNITS[prefix]
        statistic = "median" if rest == "50" else f"p{rest}"
        shown = latency(value * ns_per_unit) if ns_per_unit else f"{value:,.1f} MiB"
        return f"{metric} {statistic} {shown}"
    if key == "device_index":
        return f"GPU index {int(value)}"
    if key.endswith(("_mhz_before", "_mhz_after")):
        name, _, when = key.rpartition("_mhz_")
        return f"{words(name)} {when} {value:,.0f} MHz"
    if key == "sol_score":
        return f"SOL score {percent(value)}"
    return f"{words(key)} {plain(value)}"


def drop(fraction: float | None) -> str:
    """How much a record fell, never "−0.0%": "−12%", "−0.4%", "−0.004%" (one significant digit under 1 %)."""
    if fraction is None:
        return "–"
    if fraction >= 0.01:
        return f"−{round(fraction * 100)}%"
    if fraction <= 0:
        return "±0%"
    percent_value = fraction * 100
    decimals = max(1, -math.floor(math.log10(percent_value)))  # the first significant digit's place
    return f"−{percent_value:.{decimals}f}%"
