"""Charts as SVG at build time (pages show them without JavaScript), and the vendored Vega bundle
that makes them interactive when JavaScript is on. No CDN: the site works offline and from
``file://``.

Scaling charts are drawn by vl-convert from their Vega-Lite spec, each slow enough to be worth a
core, in a process of its own (``ChartDrawer``, ``vega``) started before the data is loaded: it
makes the Vega bundle meanwhile, then draws each distinct chart as soon as a page renderer meets it,
while the pages go on rendering (kernel pages, which have the charts, come first). A drawing is a
file of the site named by its spec's hash (``urls.chart``), which a page shows as an image: every
workload page of a kernel shows the same charts of the kernel's other GPUs, each once on the site
and once in a reader's cache rather than inline in every page. Record histories, one per comparison
group and thousands at scale, are staircases drawn in Python (``staircase_svg``) and inline.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from datetime import datetime
from pathlib import Path
from typing import Any

from markupsafe import Markup

from . import urls, vega
from .charts import narrow
from .staircase_svg import staircase_svg
from .page_views import ChartView


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
        self._drawings: dict[str, bytes] = {}  # path -> SVG, once ``draw_all`` ran
        self._drawer: ChartDrawer | None = None
        self._sent: set[str] = set()  # keys handed to the drawer
        self._shown: set[str] = set()  # the drawings the page being rendered shows (``take_shown``)

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

    def history_svg(self, chart: ChartView) -> Markup:
        """A record history's staircase, inline: each is on one group's page only."""
        points = [(datetime.fromisoformat(str(p.x).replace("Z", "+00:00")), p.value, p.label or "")
                  for p in chart.series[0].points]
        return staircase_svg(points, chart.unit, f"{chart.title}: {chart.caption}")

    def files(self, chart: ChartView) -> tuple[str, str]:
        """(wide, narrow): the paths of a scaling chart's two drawings, met now (to be drawn, and
        shown by the page being rendered)."""
        wide, narrow_one = map(self._meet, _drawn(chart))
        self._shown.update((wide, narrow_one))
        return wide, narrow_one

    def _meet(self, spec: dict[str, Any]) -> str:
        text, key = _keyed(spec)
        self._specs.setdefault(key, text)
        return urls.chart(key)

    def take_shown(self) -> tuple[str, ...]:
        """The drawings shown by the pages rendered since the last call, by path."""
        found, self._shown = tuple(sorted(self._shown)), set()
        return found

    @staticmethod
    def shown_by(page: Any) -> tuple[str, ...]:
        """The drawings ``page`` shows, by path, as its rendering would meet them (without meeting them)."""
        fields = vars(page)
        charts = [fields.get("scaling"), *(fields.get("more_scaling") or ())]
        return tuple(sorted({urls.chart(_keyed(spec)[1]) for chart in charts if chart is not None
                             for spec in _drawn(chart)}))

    def draw_all(self) -> dict[str, bytes]:
        """Wait for the drawings of every chart met (``draw_with`` named the drawer): path -> SVG."""
        if self._drawer is None:
            raise RuntimeError("no drawer: call draw_with first")
        self._send(self._unsent())  # those met by this process itself (pages rendered without workers)
        for key, svg in self._drawer.drawings().items():
            self._drawings[urls.chart(key)] = svg.encode("utf-8")
        return self._drawings


def _drawn(chart: ChartView) -> tuple[dict[str, Any], dict[str, Any]]:
    """The specs of a scaling chart's two drawings: wide, and narrow (a phone's, not shrunk)."""
    return chart.spec, narrow(chart.spec)


def _keyed(spec: dict[str, Any]) -> tuple[str, str]:
    """(the spec's text, its sha256): the drawer draws the text, and the key names the drawing."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()


def spec_json(spec: dict[str, Any]) -> Markup:
    """The spec for an inline <script type="application/json">: "<" escaped so "</script>" cannot close it."""
    text = json.dumps(spec, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
