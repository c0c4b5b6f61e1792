"""The chart process (``chart_svg.ChartDrawer``, ``vega``): it draws what vl-convert draws in this
process, byte for byte, whenever a spec reaches it; failures reach the build; the Vega bundle is
kept in the cache folder and read back unchanged."""

from __future__ import annotations

import hashlib
import json
import threading
from multiprocessing import Pipe
from pathlib import Path
from types import SimpleNamespace

import pytest
import vl_convert

from site_builder import urls, vega
from site_builder.chart_svg import ChartDrawer, ChartRenderer


def spec(points: list[tuple[int, float]], title: str) -> str:
    return json.dumps({"data": {"values": [{"x": x, "y": y} for x, y in points]},
                       "mark": {"type": "line", "point": True},
                       "encoding": {"x": {"field": "x", "type": "quantitative", "title": title},
                                    "y": {"field": "y", "type": "quantitative"}}},
                      sort_keys=True, separators=(",", ":"))


def keyed(text: str) -> dict[str, str]:
    return {hashlib.sha256(text.encode()).hexdigest(): text}


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A cache folder already holding a (stand-in) bundle, so the drawer starts without bundling Vega."""
    name = f"vega-bundle-{vl_convert.__version__}-{vega.vega_lite_version()}.js"
    (tmp_path / name).write_bytes(b"// stand-in bundle\n")
    return tmp_path


def test_charts_met_before_and_after_the_drawer_starts_are_drawn_as_vl_convert_draws_them(cache_dir):
    charts = ChartRenderer()
    early, late = keyed(spec([(1, 2.0), (2, 3.5)], "batch <&>")), keyed(spec([(1, 9.0)], "seq"))
    charts.adopt(early)
    drawer = ChartDrawer(cache_dir)
    stand_in = b"// stand-in bundle\n"
    assert drawer.bundle() == (f"vega-{hashlib.sha256(stand_in).hexdigest()[:12]}.js", stand_in)  # read, not made
    charts.draw_with(drawer)
    charts.adopt(late)
    charts.adopt({**late, **early})  # met again by another worker: still two charts
    drawings = charts.draw_all()
    assert drawings.keys() == {urls.chart(key) for key in {**early, **late}}
    for key, text in {**early, **late}.items():
        drawn = vl_convert.vegalite_to_svg(json.loads(text), vl_version=vega.vega_lite_version()).encode()
        assert drawings[urls.chart(key)] == drawn
    assert charts.rendered == 2


def test_the_chart_process_draws_a_key_once_however_often_it_is_sent(cache_dir, monkeypatch):
    drawn: list[dict] = []
    draw = vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", lambda spec, **options: drawn.append(spec) or draw(spec, **options))
    build, chart_process = Pipe()
    serving = threading.Thread(target=vega.serve, args=(chart_process, cache_dir))
    serving.start()
    build.recv()  # the bundle
    specs = list(keyed(spec([(1, 2.0)], "once")).items())
    build.send(specs)
    build.send(specs)  # a build that sends a spec twice (a bug once did: every spec, each chunk)
    build.send(None)
    drawings = build.recv()
    serving.join()
    assert len(drawn) == 1 and list(drawings) == [specs[0][0]]


def test_a_chart_vl_convert_cannot_draw_fails_the_build(cache_dir):
    charts = ChartRenderer()
    drawer = ChartDrawer(cache_dir)
    drawer.bundle()
    charts.draw_with(drawer)
    charts.adopt(keyed(json.dumps({"mark": "no-such-mark", "data": {"values": []}})))
    with pytest.raises(ValueError, match="conversion failed"):
        charts.draw_all()


def test_draw_all_needs_a_drawer():
    with pytest.raises(RuntimeError):
        ChartRenderer().draw_all()


def test_the_bundle_is_made_once_kept_and_read_back_unchanged(tmp_path):
    made = []

    def javascript_bundle(vl_version):
        made.append(vl_version)
        return "/* vega */"

    module = SimpleNamespace(__version__="9.9.9", javascript_bundle=javascript_bundle)
    fresh = vega.bundle(module, "6.4", None)
    assert fresh == (f"vega-{hashlib.sha256(b'/* vega */').hexdigest()[:12]}.js", b"/* vega */")
    assert vega.bundle(module, "6.4", tmp_path) == fresh
    assert vega.bundle(module, "6.4", tmp_path) == fresh
    assert made == ["6.4", "6.4"]  # the second call with the cache read the kept file
    assert [p.name for p in tmp_path.iterdir()] == ["vega-bundle-9.9.9-6.4.js"]  # no partial file left
    assert vega.bundle(module, "5.8", tmp_path) == fresh and made[-1] == "5.8"  # another version: made again
