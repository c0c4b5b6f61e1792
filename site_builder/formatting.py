"""How numbers and dates read on a page. Pages format at render time; mirrors keep raw values."""

from __future__ import annotations

from datetime import date, datetime

_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"))


def latency(ns: float | None) -> str:
    """81.3 µs, 5.05 µs, 10.4 ms, 750 ns: two decimals under ten of a unit, one above."""
    if ns is None:
        return "–"
    for scale, unit in _UNITS:
        if ns >= scale * 0.9995:  # 999.6 µs prints as 1.00 ms, not 999.6 µs or 1000.0 µs
            value = ns / scale
            text = f"{value:.2f}" if value < 9.995 else f"{value:.1f}"
            return f"{text} {unit}"
    return f"{ns:.0f} ns"


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
