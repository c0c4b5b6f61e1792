"""A group's history over time as a static SVG, drawn in Python (as ``staircase_svg`` is).

Per implementation: the p20-p80 band, the median line with a dot per measurement, and a dashed
rule at each detected step; releases are named below the axis where they change. Thousands of
groups have a timeline at the bundled data's size, too many to draw through vl-convert. The table
beside it lists every point (date, value, band, snapshot, release), so a dot carries no tooltip of
its own: a series' dots are one path of zero-length round-capped strokes, some 15 bytes a point
where a circle with a title took 110 (a weekly series has a point a week).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from .charts import display_unit
from .formatting import day, measure
from .staircase_svg import _nice_top

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 14, 58
# Vega's tableau10, in order, as the interactive chart colours the series.
COLOURS = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")
STEP = "#d62728"
GRID = "#e4e7eb"
TEXT = "#4a5560"
Y_TICKS = 4
MIN_RELEASE_GAP = 36  # px between two release names below the axis


def timeline_svg(series: Sequence[Any], steps: Sequence[Any], unit: str, label: str) -> Markup:
    """``series``: views.TimelineSeries; ``steps``: views.StepView; values in ``unit``."""
    points = [p for s in series for p in s.points]
    shown, scale = display_unit([p.value for p in points], unit)
    times = [p.observed_at.timestamp() for p in points]
    start, end = min(times), max(times)
    span = (end - start) or 86400.0
    start, end = start - span * 0.03, end + span * 0.03
    top = _nice_top(max((p.high if p.high is not None else p.value) for p in points) / scale * 1.05)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t: float) -> float:
        return LEFT + (t - start) / (end - start) * plot_w

    def y(v: float) -> float:
        return TOP + plot_h - v / scale / top * plot_h

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
             f'<g font-family="sans-serif" font-size="11" fill="{TEXT}">']
    for index in range(Y_TICKS + 1):
        value = top * index / Y_TICKS
        level = TOP + plot_h - index / Y_TICKS * plot_h
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{level:.1f}" y2="{level:.1f}" stroke="{GRID}"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{level + 4:.1f}" text-anchor="end">{escape(measure(value, shown))}</text>')
    first, last = min(points, key=lambda p: p.observed_at), max(points, key=lambda p: p.observed_at)
    parts.append(f'<text x="{LEFT}" y="{HEIGHT - 8}" text-anchor="start">{day(first.observed_at)}</text>')
    parts.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{day(last.observed_at)}</text>')
    # Releases where they change, along the first series that names them.
    previous, last_x = None, -1e9
    for p in sorted(points, key=lambda p: p.observed_at):
        if p.release and p.release != previous:
            at = x(p.observed_at.timestamp())
            if at - last_x >= MIN_RELEASE_GAP:
                parts.append(f'<text x="{at:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" font-size="10">'
                             f'{escape(p.release)}</text>')
                last_x = at
            previous = p.release
    parts.append("</g>")
    for step in steps:
        at = x(step.observed_at.timestamp())
        parts.append(f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{TOP}" y2="{TOP + plot_h}" stroke="{STEP}" '
                     f'stroke-dasharray="4 3"><title>{escape(step.implementation)}: '
                     f'{escape(measure(step.before, unit))} → {escape(measure(step.after, unit))} '
                     f'({escape(step.from_place)} → {escape(step.to_place)}, {escape(step.cause)})</title></line>')
    for index, s in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        ordered = sorted(s.points, key=lambda p: p.observed_at)
        upper = [(x(p.observed_at.timestamp()), y(p.high if p.high is not None else p.value)) for p in ordered]
        lower = [(x(p.observed_at.timestamp()), y(p.low if p.low is not None else p.value)) for p in ordered]
        if len(ordered) > 1:
            outline = " ".join(f"{a:.1f},{b:.1f}" for a, b in upper + lower[::-1])
            parts.append(f'<polygon points="{outline}" fill="{colour}" fill-opacity="0.18" stroke="none"/>')
            line = " ".join(f"{x(p.observed_at.timestamp()):.1f},{y(p.value):.1f}" for p in ordered)
            parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        dots = "".join(f"M{x(p.observed_at.timestamp()):.1f} {y(p.value):.1f}h0" for p in ordered)
        parts.append(f'<path d="{dots}" stroke="{colour}" stroke-width="5" stroke-linecap="round"/>')
    # A legend in the bottom margin.
    cursor = LEFT
    for index, s in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        parts.append(f'<rect x="{cursor}" y="{HEIGHT - 34}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{cursor + 14}" y="{HEIGHT - 25}" font-family="sans-serif" font-size="11" '
                     f'fill="{TEXT}">{escape(s.name)}</text>')
        cursor += 24 + 7 * len(s.name)
    parts.append("</svg>")
    return Markup("".join(parts))
