"""Charts as SVG at build time (pages show them without JavaScript), and the vendored Vega bundle
that makes them interactive when JavaScript is on. No CDN: the site works offline and from
``file://``.

Scaling charts are drawn by vl-convert from their Vega-Lite spec. It takes ~40 ms a chart, so a
page first gets a placeholder; identical specs are drawn once, every distinct chart is drawn at
the end in worker processes (one per core), and the drawings are put into the pages. Record
histories, one per comparison group and thousands at scale, are staircases drawn in Python
(``staircase_svg``) from the same data.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from datetime import datetime
from typing import Any

import altair as alt
from markupsafe import Markup

from .staircase_svg import staircase_svg
from .views import ChartView

# The Vega-Lite release Altair writes specs for ("6.4"), so the bundle understands every spec.
VEGA_LITE_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
_PLACEHOLDER = re.compile(rb"<!--chart:([0-9a-f]{64})-->")
# Below this many charts, starting worker processes costs more than it saves.
PARALLEL_FROM = 24


def _draw(spec_json: str) -> str:
    import vl_convert

    # vl-convert escapes every text it draws, so data (implementation names) cannot inject markup.
    return vl_convert.vegalite_to_svg(json.loads(spec_json), vl_version=VEGA_LITE_VERSION)


class ChartRenderer:
    def __init__(self) -> None:
        self._specs: dict[str, str] = {}
        self._svgs: dict[str, bytes] = {}

    @property
    def rendered(self) -> int:
        return len(self._specs)

    def take_specs(self) -> dict[str, str]:
        """The specs met since the last call (a render worker hands them to the parent with its pages)."""
        found, self._specs = self._specs, {}
        return found

    def adopt(self, specs: dict[str, str]) -> None:
        for key, text in specs.items():
            self._specs.setdefault(key, text)

    def svg(self, chart: ChartView) -> Markup:
        if chart.kind == "history":
            points = [(datetime.fromisoformat(str(p.x).replace("Z", "+00:00")), p.value, p.label or "")
                      for p in chart.series[0].points]
            return staircase_svg(points, chart.unit, f"{chart.title}: {chart.caption}")
        return self._placeholder(chart.spec)

    def _placeholder(self, spec: dict[str, Any]) -> Markup:
        """A placeholder for the chart's SVG; ``fill`` swaps in the drawing once ``draw_all`` ran."""
        text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._specs.setdefault(key, text)
        return Markup(f"<!--chart:{key}-->")

    def draw_all(self, workers: int | None = None) -> None:
        pending = sorted(key for key in self._specs if key not in self._svgs)
        texts = [self._specs[key] for key in pending]
        workers = workers or os.cpu_count() or 1
        if len(texts) < PARALLEL_FROM or workers == 1:
            drawings: Iterable[str] = map(_draw, texts)
            self._store(pending, drawings)
            return
        # "spawn": the parent already runs vl-convert's threads (the bundle), which fork would not carry.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(texts)), mp_context=context) as pool:
            self._store(pending, pool.map(_draw, texts, chunksize=max(1, len(texts) // (workers * 8))))

    def _store(self, keys: list[str], drawings: Iterable[str]) -> None:
        for key, svg in zip(keys, drawings):
            self._svgs[key] = svg.encode("utf-8")

    @staticmethod
    def has_placeholder(html: bytes) -> bool:
        return b"<!--chart:" in html

    def fill(self, html: bytes) -> bytes:
        return _PLACEHOLDER.sub(lambda match: self._svgs[match.group(1).decode()], html)


def spec_json(spec: dict[str, Any]) -> Markup:
    """The spec for an inline <script type="application/json">: "<" escaped so "</script>" cannot close it."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _bundle() -> tuple[str, bytes]:
    import vl_convert

    content = vl_convert.javascript_bundle(vl_version=VEGA_LITE_VERSION).encode("utf-8")
    return f"vega-{hashlib.sha256(content).hexdigest()[:12]}.js", content


def start_vega_bundle() -> Future:
    """(file name, bytes) of Vega, Vega-Lite and vega-embed in one script, the name carrying its hash.

    Made in a spawned process, started early so it overlaps the load: vl-convert starts threads,
    and the build process must have none when it forks its page renderers.
    """
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = pool.submit(_bundle)
    future.add_done_callback(lambda _: pool.shutdown(wait=False))
    return future
