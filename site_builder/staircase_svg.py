"""The record-history staircase as a static SVG, drawn in Python.

Every comparison group with two records or more gets this chart, which on a large site is
thousands of charts: drawn by vl-convert, which runs Vega's JavaScript and layout for each, they
alone would take longer than the whole build may. A staircase needs no layout engine, so it is
drawn here directly, at a tiny fraction of that cost, with the same data and colours as its
Vega-Lite spec, which still makes it interactive when JavaScript is on. The kernel pages'
scaling charts (legends, log axes) stay with vl-convert.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from markupsafe import Markup, escape

from .formatting import day, measure

WIDTH, HEIGHT = 600, 240
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 14, 34
LINE = "#4c78a8"  # Vega's first category colour, as the interactive chart draws it
GRID = "#e4e7eb"
TEXT = "#4a5560"
Y_TICKS = 4
MIN_LABEL_GAP = 140  # px between the first and last date labels, or only the first is drawn


def _nice_top(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^k at or above ``value``: round tick labels."""
    if value <= 0:
        return 1.0
    scale = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    while scale > value:
        scale /= 10
    for step in (1, 2, 2.5, 5, 10):
        if step * scale >= value:
            return step * scale
    return 10 * scale


def staircase_svg(points: Sequence[tuple[datetime, float, str]], unit: str, label: str) -> Markup:
    """``points``: (observed at, record value, who set it), oldest first; values in ``unit``."""
    times = [p[0].timestamp() for p in points]
    start, end = min(times), max(times)
    span = (end - start) or 86400.0
    start, end = start - span * 0.04, end + span * 0.08  # room for the first and last markers
    top = _nice_top(max(p[1] for p in points) * 1.05)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t: float) -> float:
        return LEFT + (t - start) / (end - start) * plot_w

    def y(v: float) -> float:
        return TOP + plot_h - v / top * plot_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="staircase" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<g font-family="sans-serif" font-size="11" fill="{TEXT}">']
    for index in range(Y_TICKS + 1):
        value = top * index / Y_TICKS
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="{GRID}"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{escape(measure(value, unit))}</text>')
    first, last = points[0][0], points[-1][0]
    ends = [(first, "start"), (last, "end")] if x(last.timestamp()) - x(first.timestamp()) > MIN_LABEL_GAP else [(first, "start")]
    same_day = first.date() == last.date()  # then the times tell the records apart
    for when, anchor in ends:
        label = when.strftime("%Y-%m-%d %H:%M" if anchor == "start" else "%H:%M") if same_day else day(when)
        parts.append(f'<text x="{x(when.timestamp()):.1f}" y="{HEIGHT - 12}" text-anchor="{anchor}">{label}</text>')
    parts.append("</g>")
    # Step after: a record holds until the next one is observed, then drops; it still holds today.
    path = [f"M{x(times[0]):.1f},{y(points[0][1]):.1f}"]
    for t, (_, value, _) in zip(times[1:], points[1:]):
        path.append(f"H{x(t):.1f}V{y(value):.1f}")
    path.append(f"H{x(end):.1f}")
    parts.append(f'<path d="{"".join(path)}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    for t, (when, value, who) in zip(times, points):
        parts.append(f'<circle cx="{x(t):.1f}" cy="{y(value):.1f}" r="3.5" fill="{LINE}">'
                     f'<title>{escape(who)}: {escape(measure(value, unit))}, {day(when)}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))
