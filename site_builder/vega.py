"""vl-convert in a process of its own: the Vega bundle, then every chart the build sends it.

``chart_svg.ChartDrawer`` is the build's side. The process is spawned, not forked: vl-convert runs
threads, and the build forks its page renderers later, which must not inherit any. It imports
nothing of the builder but this module (not the view models), so it starts quickly; it asks Altair
which Vega-Lite release its specs are for (``vega_lite_version``), so that the build itself imports
Altair only when a page has a chart.

It first sends the bundle (made once per vl-convert release and kept in the build's cache folder:
bundling Vega's sources is slow, and every build would otherwise pay for it), then draws the
specs it is sent, in the order sent, while the build goes on (a thread takes them off the pipe as
they come, so the build never waits to send one); once told there are no more (``None``) it sends
back every drawing, key -> SVG, and ends. A failure is sent back in place of the answer, for the
build to raise. If the build goes away first, the process ends without answering.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from types import ModuleType

Specs = list[tuple[str, str]]  # (key, Vega-Lite spec as JSON text)
_GONE = object()  # the build closed its end of the pipe without saying it was done


def serve(connection: Connection, cache_dir: Path | None) -> None:
    """``cache_dir``: where the bundle is kept between builds; None: made afresh and not kept."""
    import vl_convert

    try:
        vl_version = vega_lite_version()
        connection.send(bundle(vl_convert, vl_version, cache_dir))
    except Exception as error:
        connection.send(error)
        return
    sent: queue.SimpleQueue = queue.SimpleQueue()
    threading.Thread(target=_take, args=(connection, sent), daemon=True).start()
    drawings: dict[str, str] = {}
    try:
        while (specs := sent.get()) is not None:
            if specs is _GONE:
                return
            for key, text in specs:
                # A key is its spec's hash, so a key drawn already is not drawn again, however often
                # a build sends it (drawing is the costly part).
                if key not in drawings:
                    # vl-convert escapes every text it draws, so data (implementation names) cannot inject markup.
                    drawings[key] = vl_convert.vegalite_to_svg(json.loads(text), vl_version=vl_version)
    except Exception as error:
        connection.send(error)
        return
    connection.send(drawings)


def vega_lite_version() -> str:
    """The Vega-Lite release Altair writes specs for ("6.4"), so the bundle understands every spec."""
    from altair import SCHEMA_VERSION

    return ".".join(SCHEMA_VERSION.lstrip("v").split(".")[:2])


def bundle(vl_convert: ModuleType, vl_version: str, cache_dir: Path | None) -> tuple[str, bytes]:
    """(file name, bytes) of Vega, Vega-Lite and vega-embed in one script, the name carrying its hash.
    vl-convert pins the three, so its release and the Vega-Lite version name the bundle in the cache."""
    kept = cache_dir / f"vega-bundle-{vl_convert.__version__}-{vl_version}.js" if cache_dir is not None else None
    try:
        content = kept.read_bytes() if kept is not None else None
    except OSError:
        content = None
    if content is None:
        content = vl_convert.javascript_bundle(vl_version=vl_version).encode("utf-8")
        if kept is not None:
            _keep(kept, content)
    return f"vega-{hashlib.sha256(content).hexdigest()[:12]}.js", content


def _keep(path: Path, content: bytes) -> None:
    """Write ``path`` whole or not at all (another build may read it meanwhile); a cache that cannot
    be written is no failure."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(content)
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def _take(connection: Connection, sent: queue.SimpleQueue) -> None:
    """Move what the build sends onto ``sent`` until it says it is done (``None``) or goes away."""
    while True:
        try:
            specs = connection.recv()
        except (EOFError, OSError):
            sent.put(_GONE)
            return
        sent.put(specs)
        if specs is None:
            return
