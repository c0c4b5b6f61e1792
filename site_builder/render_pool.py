"""Rendering every page, spread over one worker process per core, pages kept in site order.

Planning the pages is cheap and happens once (``context.page_tasks``); building and rendering
them is most of a build. Workers are forked after the data is loaded and derived, so each starts
with the whole leaderboard in memory and none of it is sent to them: they get ranges of task
numbers, write each page and its mirror straight into the staging folder, and send back only
what the build needs to know about them (paths, hashes, whether charts are still to be drawn).
Results come back in task order, so the site is the same whether one process rendered it or several.

A page whose mirror is byte-identical to the one in the previous site is not rendered again when
the renderer is unchanged too (``reuse_pages``): its HTML is a function of the view model alone,
so the previous HTML is linked as it is.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .chart_svg import ChartRenderer
from .context import PageTask
from .manifest import FileRecord
from .render import Renderer, mirror_json
from .write import Staging

# Tasks per message: large enough that sending results costs little, small enough to balance.
CHUNK = 256
# Below this many tasks, forking costs more than it saves.
PARALLEL_FROM = 2_000


@dataclass(frozen=True, slots=True)
class RenderedPage:
    kind: str
    title: str
    html: FileRecord
    mirror: FileRecord
    rendered: bool  # False: the previous build's HTML was reused
    has_charts: bool  # placeholders the parent fills once every chart is drawn
    built: bool = True  # False: a signed task's pages were taken from the previous site unbuilt
    signature: str | None = None  # of the signed task that made it (``signatures``)


@dataclass
class _Job:
    tasks: Sequence[PageTask]
    renderer: Renderer
    staging: Staging
    reuse_pages: bool


# What forked workers read: set just before the pool starts, cleared after.
_job: _Job | None = None


def _render_range(bounds: tuple[int, int]) -> tuple[list[RenderedPage], dict[str, str]]:
    assert _job is not None
    staging, renderer = _job.staging, _job.renderer
    done = []
    for task in _job.tasks[bounds[0]:bounds[1]]:
        signature = getattr(task, "signature", None)
        unchanged = _unchanged_pages(signature) if signature is not None else None
        if unchanged is not None:
            done.extend(unchanged)
            continue
        for page in task():
            mirror = staging.put(page.mirror, mirror_json(page).encode("utf-8"))
            html = _reused_html(page.html, mirror) if _job.reuse_pages else None
            if html is not None:
                done.append(RenderedPage(page.kind, page.title, html, mirror, rendered=False, has_charts=False,
                                         signature=signature))
                continue
            content = renderer.page(page).encode("utf-8")
            html = staging.put(page.html, content)
            done.append(RenderedPage(page.kind, page.title, html, mirror, rendered=True,
                                     has_charts=ChartRenderer.has_placeholder(content), signature=signature))
    return done, renderer.charts.take_specs()


def _unchanged_pages(signature: str) -> list[RenderedPage] | None:
    """The previous site's pages of a signed task with the same signature, linked as they are."""
    assert _job is not None
    staging = _job.staging
    listed = staging.previous.pages.get(signature) if staging.previous is not None else None
    if not listed:
        return None
    pages, linked = [], []
    for page in listed:
        html, mirror = staging.reuse(page.html), staging.reuse(page.mirror)
        linked += [record for record in (html, mirror) if record is not None]
        if html is None or mirror is None:  # could not link: build the task after all, from a clean slate
            for record in linked:
                os.unlink(staging.root / record.path)
            return None
        pages.append(RenderedPage(page.kind, page.title, html, mirror, rendered=False, has_charts=False, built=False,
                                  signature=signature))
    return pages


def _reused_html(html_path: str, mirror: FileRecord) -> FileRecord | None:
    """The previous HTML of a page whose mirror the previous site holds byte for byte."""
    assert _job is not None
    previous = _job.staging.previous
    if previous is None or not previous.reusable(mirror.path, mirror.sha256):
        return None
    return _job.staging.reuse(html_path)


def render_pages(tasks: Sequence[PageTask], renderer: Renderer, staging: Staging, *, reuse_pages: bool = False,
                 workers: int | None = None, progress: Callable[[int], None] = lambda _: None) -> Iterator[RenderedPage]:
    """Every page, written into ``staging``, reported in task order. Chart specs the workers met
    are handed to ``renderer.charts``."""
    global _job
    chunks = [(start, min(start + CHUNK, len(tasks))) for start in range(0, len(tasks), CHUNK)]
    workers = workers or os.cpu_count() or 1
    _job = _Job(tasks, renderer, staging, reuse_pages)
    try:
        if workers == 1 or len(tasks) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
            yield from _collect(map(_render_range, chunks), renderer, progress)
        else:
            # Objects made so far are never freed during rendering: moving them out of the
            # collector's sight keeps its passes from touching (and so copying) every shared page.
            gc.freeze()
            try:
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    yield from _collect(pool.imap(_render_range, chunks), renderer, progress)
            finally:
                gc.unfreeze()
    finally:
        _job = None


def _collect(results, renderer: Renderer, progress: Callable[[int], None]) -> Iterator[RenderedPage]:
    done = 0
    for pages, specs in results:
        renderer.charts.adopt(specs)
        done += len(pages)
        progress(done)
        yield from pages
