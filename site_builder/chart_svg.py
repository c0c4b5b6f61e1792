"""Vega-Lite to SVG at build time (pages show charts without JavaScript), and the vendored Vega
bundle that makes them interactive when JavaScript is on. No CDN: the site works offline and from
``file://``.

vl-convert takes ~40 ms a chart (0.6 s for the first), so identical specs render once per build.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import altair as alt
import vl_convert
from markupsafe import Markup


# The Vega-Lite release Altair writes specs for ("6.4"), so the bundle understands every spec.
VEGA_LITE_VERSION = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


class ChartRenderer:
    def __init__(self) -> None:
        self._svgs: dict[str, Markup] = {}
        self.rendered = 0

    def svg(self, spec: dict[str, Any]) -> Markup:
        key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
        if key not in self._svgs:
            # vl-convert escapes every text it draws, so data (implementation names) cannot inject markup.
            self._svgs[key] = Markup(vl_convert.vegalite_to_svg(spec, vl_version=VEGA_LITE_VERSION))
            self.rendered += 1
        return self._svgs[key]


def spec_json(spec: dict[str, Any]) -> Markup:
    """The spec for an inline <script type="application/json">: "<" escaped so "</script>" cannot close it."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def vega_bundle() -> tuple[str, bytes]:
    """(file name, bytes) of Vega, Vega-Lite and vega-embed in one script; the name carries its hash."""
    content = vl_convert.javascript_bundle(vl_version=VEGA_LITE_VERSION).encode("utf-8")
    return f"vega-{hashlib.sha256(content).hexdigest()[:12]}.js", content
