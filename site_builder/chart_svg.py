"""Charts as SVG at build time (pages show them without JavaScript), and the vendored Vega bundle
that makes them interactive when JavaScript is on. No CDN: the site works offline and from
``file://``.

Scaling charts are drawn by vl-convert from their Vega-Lite spec, each slow enough to be worth a
core, in a process of its own (``ChartDrawer``, ``vega``) started before the data is loaded: it
makes the Vega bundle meanwhile, then draws each distinct chart as soon as a page renderer meets it,
while the pages go on rendering (kernel pages, which have the charts, come first). A page first gets
a placeholder; identical specs are drawn once, and the drawings are put into the pages at the end.
Record histories, one per comparison group and thousands at scale, are staircases drawn in Python
(``staircase_svg``) from the same data.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from markupsafe import Markup

from . import vega
from .charts import narrow
from .staircase_svg import staircase_svg
from .page_views import ChartView

_PLACEHOLDER = re.compile(rb"<!--chart:([0-9a-f]{64})-->")


class ChartDrawer:
    """The build's side of the drawing process (``vega.serve``): the bundle once, then charts sent
    as they are met and every drawing collected once, at the end."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        """``cache_dir``: where the Vega bundle is kept between builds (``vega.bundle``); None: not kept."""
        # "spawn": a forked copy of the build would be as large as the build; vega.py keeps this one small.
        context = multiprocessing.get_context("spawn")
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=vega.serve, args=(theirs, cache_dir), daemon=True)
        self._process.start()
        theirs.close()

    def __enter__(self) -> ChartDrawer:
        return self

    def __exit__(self, *failure: object) -> None:
        self.close()

    def close(self) -> None:
        """End the process now unless it has answered for good (``drawings``). A build that failed
        keeps its drawer alive for as long as its error is kept (a traceback holds the build's
        frames): in a long-lived caller such as a test session, each failed build would otherwise
        leave a whole vl-convert runtime waiting for specs that never come."""
        if self._connection.closed:  # answered: it ends by itself, and nothing need wait for that
            return
        self._connection.close()
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()

    def bundle(self) -> tuple[str, bytes]:
        """(file name, bytes) of Vega, Vega-Lite and vega-embed in one script, the name carrying its hash."""
        return self._answer()

    def draw(self, specs: vega.Specs) -> None:
        """Draw these (key, spec text) meanwhile; call after ``bundle``."""
        self._connection.send(specs)

    def drawings(self) -> dict[str, str]:
        """Key -> SVG of every spec sent; waits for the last to be drawn. The process then ends by
        itself; nothing waits for that (tearing down vl-convert's runtime is not instant)."""
        self._connection.send(None)
        try:
            return self._answer()
        finally:
            self._connection.close()

    def _answer(self) -> Any:
        try:
            answer = self._connection.recv()
        except EOFError:
            ended = self._process.exitcode
            raise RuntimeError(f"the chart process ended without answering (exit code {ended})") from None
        if isinstance(answer, Exception):
            raise answer
        return answer


class ChartRenderer:
    def __init__(self) -> None:
        self._specs: dict[str, str] = {}
        self._svgs: dict[str, bytes] = {}
        self._drawer: ChartDrawer | None = None
        self._sent: set[str] = set()  # keys handed to the drawer

    @property
    def rendered(self) -> int:
        return len(self._specs)

    def take_specs(self) -> dict[str, str]:
        """The specs met since the last call (a render worker hands them to the parent with its pages)."""
        found, self._specs = self._specs, {}
        return found

    def adopt(self, specs: dict[str, str]) -> None:
        """Specs a render worker met; the drawer, if there is one yet, starts on the new ones now."""
        new = [(key, text) for key, text in specs.items() if key not in self._specs]
        self._specs.update(new)
        self._send(new)

    def draw_with(self, drawer: ChartDrawer) -> None:
        """Have ``drawer`` draw every chart met so far and from now on, as it is met."""
        self._drawer = drawer
        self._send(self._unsent())

    def _unsent(self) -> vega.Specs:
        return [(key, text) for key, text in self._specs.items() if key not in self._sent]

    def _send(self, specs: vega.Specs) -> None:
        if self._drawer is not None and specs:
            self._drawer.draw(specs)
            self._sent.update(key for key, _ in specs)

    def svg(self, chart: ChartView) -> Markup:
        if chart.kind == "history":
            points = [(datetime.fromisoformat(str(p.x).replace("Z", "+00:00")), p.value, p.label or "")
                      for p in chart.series[0].points]
            return staircase_svg(points, chart.unit, f"{chart.title}: {chart.caption}")
        # Two drawings, the stylesheet shows one: a phone's is drawn narrow rather than shrunk.
        return Markup(f'<div class="wide">{self._placeholder(chart.spec)}</div>'
                      f'<div class="narrow">{self._placeholder(narrow(chart.spec))}</div>')

    def _placeholder(self, spec: dict[str, Any]) -> Markup:
        """A placeholder for the chart's SVG; ``fill`` swaps in the drawing once ``draw_all`` ran."""
        text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._specs.setdefault(key, text)
        return Markup(f"<!--chart:{key}-->")

    def draw_all(self) -> None:
        """Wait for the drawings of every chart met (``draw_with`` named the drawer); ``fill`` puts them in."""
        if self._drawer is None:
            raise RuntimeError("no drawer: call draw_with first")
        self._send(self._unsent())  # those met by this process itself (pages rendered without workers)
        for key, svg in self._drawer.drawings().items():
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
