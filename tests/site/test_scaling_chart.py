"""A scaling chart's spec, put together from a frame built once per shape (issue 8), is the spec
Altair builds for the chart with its data."""

from __future__ import annotations

import json

import altair as alt
import pytest

from site_builder.charts import _config, scaling_chart
from site_builder.derive.scaling import Scaling, ScalingPoint, ScalingSeries

TITLES = {"liger": "Liger", "liger-old": "Liger", "hf": "HF"}


def _altair_spec(axis: str, unit: str, rows: list[dict], labels: list[str], xs: list[int],
                 x_scale: alt.Scale) -> dict:
    """The chart as Altair builds it with its data in, the way the builder did before the frames."""
    chart = alt.Chart(alt.Data(values=rows)).mark_line(point={"filled": False, "size": 60}, strokeWidth=2).encode(
        x=alt.X("x:Q", title=f"{axis} →", scale=x_scale, axis=alt.Axis(values=xs, format="d")),
        y=alt.Y("latency:Q", title=f"latency ({unit})", scale=alt.Scale(zero=True), axis=alt.Axis(format=",.4~r")),
        color=alt.Color("series:N", sort=labels, scale=alt.Scale(scheme="tableau10")),
        shape=alt.Shape("series:N", sort=labels, legend=None),
        strokeDash=alt.StrokeDash("series:N", sort=labels, legend=None),
        tooltip=[alt.Tooltip("series:N", title="implementation"), alt.Tooltip("x:Q", title=axis),
                 alt.Tooltip("latency:Q", title=f"latency ({unit})", format=".4~r")],
    )
    return _config(chart).to_dict(validate=False)


def _scaling(axis: str, lines: dict[str, list[tuple[int, float]]]) -> Scaling:
    series = tuple(ScalingSeries(name, tuple(ScalingPoint(x, value, f"{name}-{x}", f"w-{x}") for x, value in points))
                   for name, points in lines.items())
    return Scaling(axis, {}, series, 0)


CASES = {
    # x spans 8 times or more: a log x axis; y stays linear and in µs (the tables' unit) even at 80 ms
    "log-x": ("seq", {"liger": [(1024, 2e6), (4096, 9e6), (16384, 8e7)], "hf": [(1024, 3e6), (16384, 9e7)]},
              alt.Scale(type="log", base=2)),
    # a narrow sweep: linear axes, y from zero; two implementations titled alike
    "linear": ("hidden", {"liger": [(512, 800.0), (768, 900.0), (1024, 1000.0)],
                          "liger-old": [(512, 850.0), (1024, 1200.0)]},
               alt.Scale(zero=False)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_scaling_spec_is_what_altair_builds_with_the_data(case):
    axis, lines, x_scale = CASES[case]
    chart = scaling_chart(_scaling(axis, lines), TITLES, "H100")
    labels = [series.name for series in chart.series]
    unit, scale = "µs", 1e3
    rows = [{"series": label, "x": x, "latency": value / scale, "run": f"{name}-{x}"}
            for label, (name, points) in zip(labels, lines.items()) for x, value in points]
    xs = sorted({x for points in lines.values() for x, _ in points})
    expected = _altair_spec(axis, unit, rows, labels, xs, x_scale)
    assert json.dumps(chart.spec) == json.dumps(expected)  # the same keys in the same order, too


def test_charts_of_one_shape_share_nothing_they_change():
    first = scaling_chart(_scaling("seq", {"liger": [(1, 1e3), (2, 2e3), (4, 3e3)]}), TITLES, "H100")
    second = scaling_chart(_scaling("seq", {"hf": [(1, 1e3), (2, 1.5e3), (3, 2e3)]}), TITLES, "H100")
    assert first.spec["encoding"]["color"]["sort"] == ["Liger"] and second.spec["encoding"]["color"]["sort"] == ["HF"]
    assert first.spec["encoding"]["x"]["axis"]["values"] == [1, 2, 4]
    assert second.spec["encoding"]["x"]["axis"]["values"] == [1, 2, 3]
    assert [row["series"] for row in first.spec["data"]["values"]] == ["Liger"] * 3
