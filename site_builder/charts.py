"""Chart specs: Altair builds the Vega-Lite; ``chart_svg`` renders it. Data is inline, never fetched.

Every chart is drawn from the same series its page lists in a table beside it, so the chart is an
enhancement of content a reader (or a screen reader, or a printer) already has.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .derive.history import RecordEvent
from .derive.scaling import Scaling
from .page_views import ChartView, Series, SeriesPoint

if TYPE_CHECKING:
    import altair as alt

# The page's full width at 1,280 px; a phone gets a drawing of its own (``narrow``), not this one
# shrunk to unreadable ticks.
WIDTH, HEIGHT = 900, 300
NARROW_WIDTH, NARROW_HEIGHT = 280, 220
# A log x axis once the sizes span this much (powers of two read evenly). The y axis stays linear,
# in µs, as the tables beside it read: a log axis in ms made 27 µs and 118 µs hard to tell apart.
LOG_X_SPAN = 8
LEGEND_COLUMNS = 3  # a phone's drawing lists one implementation a line
# Scaling charts and record histories draw times in µs, the unit the ranking tables use.
TIME_UNIT, NS_PER_TIME_UNIT = "µs", 1e3


@cache
def _altair() -> ModuleType:
    """Altair, imported when the first spec is built: a rebuild whose changed pages have no chart
    (most one-run rebuilds) never pays for importing it, a large package."""
    import altair
    from altair.utils.schemapi import disable_debug_mode

    # Altair validates every object it builds while in debug mode (the default): work repeated for
    # every chart of a build, for specs whose shape is fixed by this module and checked by the tests.
    disable_debug_mode()
    return altair


def _config(chart: alt.Chart) -> alt.Chart:
    return (chart.properties(width=WIDTH, height=HEIGHT)
            .configure(font="sans-serif", background="white")
            .configure_axis(labelFontSize=11, titleFontSize=12, grid=True, gridOpacity=0.5)
            .configure_legend(orient="bottom", title=None, labelFontSize=12, labelLimit=260, columns=LEGEND_COLUMNS,
                              symbolStrokeWidth=2)
            .configure_view(stroke=None))


def scaling_chart(scaling: Scaling, implementation_titles: dict[str, str], context: str) -> ChartView:
    """``context``: what is held fixed, for the caption ("NVIDIA H100 · forward")."""
    xs = sorted({p.x for s in scaling.series for p in s.points})
    unit, scale = TIME_UNIT, NS_PER_TIME_UNIT
    names = [implementation_titles[s.implementation] for s in scaling.series]
    # Two implementations may share a title (two Liger releases); the legend must still tell them apart.
    labels = _distinct(names, [s.implementation for s in scaling.series])
    rows = [{"series": label, "x": p.x, "latency": p.value_ns / scale, "run": p.run}
            for label, s in zip(labels, scaling.series) for p in s.points]
    frame = _scaling_frame(scaling.axis, unit, log_x=xs[-1] / max(xs[0], 1) >= LOG_X_SPAN)
    series = [Series(name=label, points=[SeriesPoint(x=p.x, value=p.value_ns, run=p.run)
                                         for p in s.points]) for label, s in zip(labels, scaling.series)]
    return ChartView(kind="scaling", title=f"Scaling by {scaling.axis} · {context}", x_title=scaling.axis, y_title="latency", unit="ns",
                     series=series, overflow=scaling.overflow, spec=_with_scaling_data(frame, rows, labels, xs),
                     caption=f"best per workload · {context} held constant")


@cache
def _scaling_frame(axis: str, unit: str, log_x: bool) -> dict[str, Any]:
    """A scaling chart's Vega-Lite spec with empty data, legend order and ticks, built once per
    shape (axis, unit and scales): building a spec through Altair is slow next to filling in its
    data, and a large site has many kernel pages with a chart but only a handful of shapes."""
    alt = _altair()
    x_scale = alt.Scale(type="log", base=2) if log_x else alt.Scale(zero=False)
    # Each series has its own colour, dash and marker, so two lines that coincide (a reference and
    # the library it wraps) both stay visible.
    chart = alt.Chart(alt.Data(values=[])).mark_line(point={"filled": False, "size": 60}, strokeWidth=2).encode(
        x=alt.X("x:Q", title=f"{axis} →", scale=x_scale, axis=alt.Axis(values=[], format="d")),
        y=alt.Y("latency:Q", title=f"latency ({unit})", scale=alt.Scale(zero=True), axis=alt.Axis(format=",.4~r")),
        # The colour legend names the series; markers and dashes (no legends of their own: Vega-Lite
        # does not merge them with the colour's across the line and its points) only tell lines apart.
        color=alt.Color("series:N", sort=[], scale=alt.Scale(scheme="tableau10")),
        shape=alt.Shape("series:N", sort=[], legend=None),
        strokeDash=alt.StrokeDash("series:N", sort=[], legend=None),
        tooltip=[alt.Tooltip("series:N", title="implementation"), alt.Tooltip("x:Q", title=axis),
                 alt.Tooltip("latency:Q", title=f"latency ({unit})", format=".4~r")],
    )
    return _config(chart).to_dict(validate=False)


def _with_scaling_data(frame: dict[str, Any], rows: list[dict], labels: list[str], xs: list[int]) -> dict[str, Any]:
    """The frame with a chart's rows, legend order and x ticks in their places. The frame is shared
    by every chart of its shape, so the dicts on the way to each place are copied, never changed."""
    encoding = frame["encoding"]
    x = encoding["x"]
    return {**frame, "data": {"values": rows},
            "encoding": {**encoding, **{channel: {**encoding[channel], "sort": labels} for channel in SERIES_CHANNELS},
                         "x": {**x, "axis": {**x["axis"], "values": xs}}}}


SERIES_CHANNELS = ("color", "shape", "strokeDash")


def narrow(spec: dict[str, Any]) -> dict[str, Any]:
    """The same chart drawn for a phone: narrower and shorter, at the same font sizes."""
    config = spec["config"]
    return {**spec, "width": NARROW_WIDTH, "height": NARROW_HEIGHT,
            "config": {**config, "legend": {**config["legend"], "columns": 1}}}


def history_chart(events: Sequence[RecordEvent], implementation_titles: dict[str, str]) -> ChartView | None:
    """The record over time, as a staircase (drawn by ``chart_svg.staircase_svg``); one record is a
    fact, not a chart. Its series are its data: no Vega-Lite spec is made for it, as nothing draws
    one (the group page's drawing is made without Vega)."""
    if len(events) < 2:
        return None
    dates = [e.run.observed_at.strftime("%Y-%m-%dT%H:%M:%SZ") for e in events]
    series = [Series(name="record", points=[
        SeriesPoint(x=moment, value=e.run.value, run=e.run.name,
                    label=implementation_titles[e.run.implementation]) for moment, e in zip(dates, events)])]
    return ChartView(kind="history", title="Record history", x_title="observed", y_title="record", unit=events[0].run.unit, series=series,
                     caption="each point is a run that set a new record")


def _distinct(labels: list[str], names: list[str]) -> list[str]:
    return [f"{label} ({name})" if labels.count(label) > 1 else label for label, name in zip(labels, names)]


def display_unit(values: Sequence[float], unit: str) -> tuple[str, float]:
    """(the unit a chart shows, the divisor from ``unit``): times in µs, as the tables beside the
    charts read; anything else as it is."""
    return (TIME_UNIT, NS_PER_TIME_UNIT) if unit == "ns" and values else (unit, 1.0)
