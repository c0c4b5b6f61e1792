"""Chart specs: Altair builds the Vega-Lite; ``chart_svg`` renders it. Data is inline, never fetched.

Every chart is drawn from the same series its page lists in a table beside it, so the chart is an
enhancement of content a reader (or a screen reader, or a printer) already has.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
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
    """The record over time, as a staircase; one record is a fact, not a chart."""
    if len(events) < 2:
        return None
    unit, scale = (TIME_UNIT, NS_PER_TIME_UNIT) if events[0].run.unit == "ns" else (events[0].run.unit, 1.0)
    dates = [e.run.observed_at.strftime("%Y-%m-%dT%H:%M:%SZ") for e in events]
    rows = [{"date": moment, "value": e.run.value / scale, "implementation": implementation_titles[e.run.implementation]}
            for moment, e in zip(dates, events)]
    frame = _history_frame(unit, _date_format(events[0].run.observed_at, events[-1].run.observed_at))
    x = frame["encoding"]["x"]
    # Ticks at the records themselves (overlapping labels are dropped), never Vega's own ticks,
    # which print fractions of a second (".900") and bare seconds (":56") for close observations.
    ticks = [int(e.run.observed_at.timestamp() * 1000) for e in events]
    spec = {**frame, "data": {"values": rows},
            "encoding": {**frame["encoding"], "x": {**x, "axis": {**x["axis"], "values": ticks}}}}
    series = [Series(name="record", points=[
        SeriesPoint(x=moment, value=e.run.value, run=e.run.name,
                    label=implementation_titles[e.run.implementation]) for moment, e in zip(dates, events)])]
    return ChartView(kind="history", title="Record history", x_title="observed", y_title="record", unit=events[0].run.unit, series=series,
                     spec=spec, caption="each point is a run that set a new record")


def _date_format(first: datetime, last: datetime) -> str:
    """Dates, or the time of day when every record fell on one day (to the second within an hour)."""
    if first.date() != last.date():
        return "%Y-%m-%d"
    return "%H:%M:%S" if (last - first).total_seconds() < 3600 else "%H:%M"


@cache
def _history_frame(unit: str, date_format: str) -> dict[str, Any]:
    """A record history's Vega-Lite spec without its data. Only the unit differs from group to group,
    and building a spec through Altair once per group, thousands of groups on a large site, is
    more than a build can afford: so it is built once per unit and every chart shares it (nothing
    mutates a spec)."""
    alt = _altair()
    chart = alt.Chart(alt.Data(values=[])).mark_line(interpolate="step-after", point=True, strokeWidth=2).encode(
        x=alt.X("date:T", title="observed (UTC)", scale=alt.Scale(type="utc"),
                axis=alt.Axis(format=date_format, formatType="utc", labelOverlap=True, labelAngle=0, values=[])),
        y=alt.Y("value:Q", title=f"record ({unit})", scale=alt.Scale(zero=True)),
        tooltip=[alt.Tooltip("implementation:N"), alt.Tooltip("date:T", format="%Y-%m-%d"),
                 alt.Tooltip("value:Q", title=f"record ({unit})", format=".4~r")],
    )
    frame = _config(chart).to_dict(validate=False)
    del frame["data"]
    return frame


def _distinct(labels: list[str], names: list[str]) -> list[str]:
    return [f"{label} ({name})" if labels.count(label) > 1 else label for label, name in zip(labels, names)]


def display_unit(values: Sequence[float], unit: str) -> tuple[str, float]:
    """(the unit a chart shows, the divisor from ``unit``): times in µs, as the tables beside the
    charts read; anything else as it is."""
    return (TIME_UNIT, NS_PER_TIME_UNIT) if unit == "ns" and values else (unit, 1.0)


def timeline_spec(series: Sequence[Any], steps: Sequence[Any], unit: str) -> dict[str, Any]:
    """A group's history over time (``views.TimelineSeries``): per implementation the median as a
    line over its p20-p80 band, and a rule at each detected step; the rows are the table's."""
    values = [p.value for s in series for p in s.points]
    shown, scale = display_unit(values, unit)
    rows: list[dict[str, Any]] = []
    for s in series:
        for p in s.points:
            rows.append({"kind": "point", "series": s.name, "date": p.observed_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "value": p.value / scale, "low": (p.low if p.low is not None else p.value) / scale,
                         "high": (p.high if p.high is not None else p.value) / scale,
                         "release": p.release or "", "snapshot": p.place})
    for step in steps:
        rows.append({"kind": "step", "series": step.implementation, "date": step.observed_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "value": step.after / scale, "low": step.before / scale, "high": step.after / scale,
                     "release": "", "snapshot": f"{step.from_place} → {step.to_place} ({step.cause})"})
    frame = _timeline_frame(shown)
    return {**frame, "data": {"values": rows}}


@cache
def _timeline_frame(unit: str) -> dict[str, Any]:
    """The timeline's Vega-Lite spec without data, built once per unit (see ``_history_frame``)."""
    alt = _altair()
    base = alt.Chart(alt.Data(values=[]))
    x = alt.X("date:T", title="observed")
    color = alt.Color("series:N", scale=alt.Scale(scheme="tableau10"))
    points = alt.datum.kind == "point"
    band = base.transform_filter(points).mark_area(opacity=0.2, interpolate="step-after").encode(
        x=x, y=alt.Y("low:Q", title=f"median ({unit}), band p20-p80", scale=alt.Scale(zero=False)), y2="high:Q", color=color)
    line = base.transform_filter(points).mark_line(point=True, strokeWidth=2).encode(
        x=x, y="value:Q", color=color,
        tooltip=[alt.Tooltip("series:N", title="implementation"), alt.Tooltip("date:T", format="%Y-%m-%d"),
                 alt.Tooltip("value:Q", title=f"median ({unit})", format=".4~r"), alt.Tooltip("release:N"),
                 alt.Tooltip("snapshot:N")])
    rules = base.transform_filter(alt.datum.kind == "step").mark_rule(strokeDash=[4, 3], color="#d62728").encode(
        x=x, tooltip=[alt.Tooltip("series:N", title="step in"), alt.Tooltip("snapshot:N", title="between")])
    frame = _config(alt.layer(band, line, rules)).to_dict(validate=False)
    frame.pop("data", None)
    return frame
