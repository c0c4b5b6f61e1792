"""Rendering every page, spread over one worker process per core, pages kept in site order.

Planning the pages is cheap and happens once (``context.page_tasks``); building and rendering
them is most of a build. Workers are forked after the data is loaded and derived, so each starts
with the whole leaderboard in memory and none of it is sent to them: they get ranges of task
numbers and send back finished bytes. Results come back in task order, so the site is the same
whether one process rendered it or several.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .context import PageTask
from .render import Renderer, mirror_json

# Tasks per message: large enough that sending results costs little, small enough to balance.
CHUNK = 256
# Below this many tasks, forking costs more than it saves.
PARALLEL_FROM = 2_000


@dataclass(frozen=True, slots=True)
class RenderedPage:
    kind: str
    title: str
    html: str  # path
    mirror: str  # path
    html_bytes: bytes
    mirror_bytes: bytes


# What forked workers read: set just before the pool starts, cleared after.
_tasks: Sequence[PageTask] = ()
_renderer: Renderer | None = None


def _render_range(bounds: tuple[int, int]) -> tuple[list[RenderedPage], dict[str, str]]:
    assert _renderer is not None
    rendered = []
    for task in _tasks[bounds[0]:bounds[1]]:
        for page in task():
            rendered.append(RenderedPage(page.kind, page.title, page.html, page.mirror,
                                         _renderer.page(page).encode("utf-8"), mirror_json(page).encode("utf-8")))
    return rendered, _renderer.charts.take_specs()


def render_pages(tasks: Sequence[PageTask], renderer: Renderer, workers: int | None = None,
                 progress: Callable[[int], None] = lambda _: None) -> Iterator[RenderedPage]:
    """Every page, in task order. Chart specs the workers met are handed to ``renderer.charts``."""
    global _tasks, _renderer
    chunks = [(start, min(start + CHUNK, len(tasks))) for start in range(0, len(tasks), CHUNK)]
    workers = workers or os.cpu_count() or 1
    _tasks, _renderer = tasks, renderer
    try:
        if workers == 1 or len(tasks) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
            yield from _collect(map(_render_range, chunks), renderer, progress)
        else:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                yield from _collect(pool.imap(_render_range, chunks), renderer, progress)
    finally:
        _tasks, _renderer = (), None


def _collect(results, renderer: Renderer, progress: Callable[[int], None]) -> Iterator[RenderedPage]:
    done = 0
    for pages, specs in results:
        renderer.charts.adopt(specs)
        done += len(pages)
        progress(done)
        yield from pages
