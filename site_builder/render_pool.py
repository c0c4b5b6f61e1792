"""Rendering every page, spread over one worker process per core, pages kept in site order.

Planning the pages is cheap and happens once (``context.page_tasks``); building and rendering
them is most of a build. Workers are forked after the data is loaded and derived, so each starts
with the whole leaderboard in memory and none of it is sent to them: they get ranges of task
numbers, write each page and its mirror straight into the staging folder, and send back only
what the build needs to know about them (paths, hashes, whether charts are still to be drawn).
Results come back in task order, so the site is the same whether one process rendered it or several.

Two shortcuts on a rebuild. A signed task whose pages the previous site holds under the same
signature (``signatures``) is not run at all: the parent takes its pages as they are, in order,
while the workers build the others, so the pages of unchanged kernels cost a dictionary lookup
each and no message (and a task whose pages cannot be taken after all is built by the parent).
And a page whose mirror is byte-identical to the one in the previous site is not rendered again
when the renderer is unchanged too (``reuse_pages``): its HTML is a function of the view model
alone, so the previous HTML is kept as it is.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .chart_svg import ChartRenderer
from .context import PageTask
from .manifest import FileRecord
from .render import Renderer, mirror_json
from .write import Staging

# Tasks per message: large enough that sending results costs little (a fraction of a millisecond
# a message), small enough to balance: the last tasks (record ledger and challenge pages) take tens
# of milliseconds each at 100,000 runs, and a worker left with a long chunk of them idles the other.
# Chunks shrink towards the end for the same reason (``_chunks``).
CHUNK = 32
# Below this many tasks to build, forking costs more than it saves. A one-run rebuild at 100,000
# runs builds about 1,200 (a kernel's pages, the ledger pages showing its groups, the GPU and model
# pages, up to 0.2 s each): forked, they build while this process takes the other 163,000 pages.
PARALLEL_FROM = 500


class RenderedPage(NamedTuple):
    """A page as written into the staging folder: what a worker sends back for it (a plain tuple,
    cheap to send: a cold build at 100,000 runs sends 164,000)."""

    kind: str
    title: str
    html: FileRecord
    mirror: FileRecord
    rendered: bool  # False: the previous build's HTML was reused
    has_charts: bool  # placeholders the parent fills once every chart is drawn


class TaskPages(NamedTuple):
    """The pages one task made, with what the parent knows of the task (never sent by a worker)."""

    pages: list[RenderedPage]
    signature: str | None  # of a signed task (``signatures``)
    built: bool  # False: a signed task's pages were taken from the previous site unbuilt


@dataclass
class _Job:
    tasks: Sequence[PageTask]
    renderer: Renderer
    staging: Staging
    reuse_pages: bool


# What forked workers read: set just before the pool starts, cleared after.
_job: _Job | None = None


def _render_tasks(numbers: list[int]) -> tuple[list[list[RenderedPage]], dict[str, str]]:
    """The pages of each task in ``numbers``, and the chart specs met on the way."""
    assert _job is not None
    staging, renderer = _job.staging, _job.renderer
    done: list[list[RenderedPage]] = []
    for number in numbers:
        pages = []
        for page in _job.tasks[number]():
            mirror = staging.put(page.mirror, mirror_json(page).encode("utf-8"))
            html = _reused_html(page.html, mirror) if _job.reuse_pages else None
            if html is not None:
                pages.append(RenderedPage(page.kind, page.title, html, mirror, rendered=False, has_charts=False))
                continue
            content = renderer.page(page).encode("utf-8")
            html = staging.put(page.html, content)
            pages.append(RenderedPage(page.kind, page.title, html, mirror, rendered=True,
                                      has_charts=ChartRenderer.has_placeholder(content)))
        done.append(pages)
    return done, renderer.charts.take_specs()


def _render_chunk_in_worker(numbers: list[int]) -> tuple[list[list[RenderedPage]], dict[str, str]]:
    """``_render_tasks`` in a render worker, whose survivors are then frozen. What outlives a chunk
    is the worker's caches (view models, row texts and fragments shared between pages), kept until
    the worker ends; left to the collector, every full collection walks all of them again, and at
    100,000 runs each worker ran 36 of them (14 s of CPU) to free about a thousand objects. The
    young generations are collected first, so only what is still referred to is frozen."""
    rendered = _render_tasks(numbers)
    gc.collect(1)
    gc.freeze()
    return rendered


def _unchanged_pages(staging: Staging, signature: str | None) -> list[RenderedPage] | None:
    """The previous site's pages of a signed task with the same signature, kept as they are."""
    listed = staging.previous.pages.get(signature) if staging.previous is not None and signature is not None else None
    if not listed:
        return None
    pages = []
    for page in listed:
        html, mirror = staging.reuse(page.html), staging.reuse(page.mirror)
        if html is None or mirror is None:  # could not link: build the task after all, from a clean slate
            kept = [html, mirror, *(record for taken in pages for record in (taken.html, taken.mirror))]
            for record in kept:
                if record is not None:
                    staging.discard(record.path)
            return None
        pages.append(RenderedPage(page.kind, page.title, html, mirror, rendered=False, has_charts=False))
    return pages


def _reused_html(html_path: str, mirror: FileRecord) -> FileRecord | None:
    """The previous HTML of a page whose mirror the previous site holds byte for byte."""
    assert _job is not None
    previous = _job.staging.previous
    if previous is None or not previous.reusable(mirror.path, mirror.sha256):
        return None
    return _job.staging.reuse(html_path)


def render_pages(tasks: Sequence[PageTask], renderer: Renderer, staging: Staging, *, reuse_pages: bool = False,
                 workers: int | None = None, progress: Callable[[int], None] = lambda _: None) -> Iterator[TaskPages]:
    """The pages of every task, written into ``staging``, reported in task order. Chart specs the
    workers met are handed to ``renderer.charts``."""
    global _job
    previous_pages = staging.previous.pages if staging.previous is not None else {}
    # Signatures decide what is built only when the previous site has pages to take; otherwise
    # every task is built, and the signatures are worked out while the workers render, rather
    # than before they start.
    to_build = ([number for number, task in enumerate(tasks) if not previous_pages.get(_signature(task))]
                if previous_pages else list(range(len(tasks))))
    workers = workers or os.cpu_count() or 1
    chunks = _chunks(to_build, workers)
    _job = _Job(tasks, renderer, staging, reuse_pages)
    try:
        if workers == 1 or len(to_build) < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
            yield from _in_order(tasks, set(to_build), map(_render_tasks, chunks), progress)
        else:
            if not reuse_pages:
                # Nearly every page built is rendered: compile the templates once, here, rather than
                # in each worker. A rebuild keeps the HTML of pages whose mirrors are unchanged and
                # renders few, so its workers compile only what those need, after the fork.
                renderer.compile_templates()
            # Objects made so far live as long as the build: moving them out of the collector's
            # sight (for good, as the load does with the catalog) keeps its passes from touching,
            # and so copying, every page the workers share, and from walking them again afterwards.
            gc.freeze()
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                built = pool.imap(_render_chunk_in_worker, chunks)
                if not previous_pages:
                    # Signed all at once while the workers start: what signing keeps meanwhile
                    # (a digest per group, a line per ledger entry) is freed before pages pile up.
                    for task in tasks:
                        _signature(task)
                yield from _in_order(tasks, set(to_build), built, progress)
    finally:
        _job = None


def _chunks(numbers: list[int], workers: int) -> list[list[int]]:
    """``numbers`` in order, ``CHUNK`` at a time until the last few hundred, then in ever smaller
    chunks: a worker that takes the last chunk of 32 record-ledger pages works ~0.7 s at 100,000
    runs while the others have nothing left; with one page it is tens of milliseconds."""
    chunks, start = [], 0
    while start < len(numbers):
        size = max(1, min(CHUNK, (len(numbers) - start) // (4 * workers)))
        chunks.append(numbers[start:start + size])
        start += size
    return chunks


def _signature(task: PageTask) -> str | None:
    """The signature of a signed task (``signatures``), else None."""
    return getattr(task, "signature", None)


def _in_order(tasks: Sequence[PageTask], to_build: set[int], built, progress: Callable[[int], None]
              ) -> Iterator[TaskPages]:
    """Each task's pages in task order: those of ``to_build`` as the chunks of ``built`` (in the same
    order) bring them, the others taken from the previous site, or built here if that fails."""
    assert _job is not None
    staging, charts = _job.staging, _job.renderer.charts

    def each_built_task() -> Iterator[list[RenderedPage]]:
        for chunk, specs in built:
            charts.adopt(specs)
            yield from chunk

    built_tasks = each_built_task()
    done = 0
    for number, task in enumerate(tasks):
        signature = _signature(task)
        if number in to_build:
            pages, built_here = next(built_tasks), True
        else:
            pages, built_here = _unchanged_pages(staging, signature), False
            if pages is None:
                (pages,), specs = _render_tasks([number])
                charts.adopt(specs)
                built_here = True
        done += len(pages)
        progress(done)
        yield TaskPages(pages, signature, built_here)
