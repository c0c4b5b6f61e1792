"""Rendering every page, spread over one worker process per core, pages kept in site order.

Planning the pages is cheap and happens once (``context.page_tasks``); building and rendering
them is most of a build. Workers are forked after the data is loaded and derived, so each starts
with the whole leaderboard in memory and none of it is sent to them: they get ranges of task
numbers, write each page and its mirror straight into the staging folder, and send back only
what the build needs to know about them (paths, hashes, whether charts are still to be drawn).
Results come back in task order, so the site is the same whether one process rendered it or several.

Two shortcuts on a rebuild. A signed task whose pages the previous site holds under the same
signature (``page_signatures``) is not run at all: its pages are taken as they are, many tasks in one
report (``KeptPages``), so they cost a dictionary lookup and no message (and a task whose pages
cannot be taken after all is built by the parent). A kernel's pages are one such task, kept
before anything else, unplanned (``context.kernels``); a changed kernel's are planned a task
per page, to be shared like any others.
And a page whose mirror is byte-identical to the one in the previous site is not rendered again
when the renderer is unchanged too (``reuse_pages``): its HTML is a function of the view model
alone, so the previous HTML is kept as it is. A group page and a run page have no mirror of
their own: their JSON is a part of the workload's mirror (or, for a workload of many runs, the
group's own), which holds all they show and is built in the same task before them, so their HTML
is kept when that mirror is.

A rebuild of a large site uses the second core from the start (``_rebuild_shared``): one worker,
forked before anything is signed, and the parent sign the tasks from either end until they meet,
then build the changed ones the same way while the parent takes the unchanged pages; only where
many tasks changed does a pool of workers build them, as in a build from scratch.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import NamedTuple

from ..chart_svg import ChartRenderer
from ..context import PageTask
from ..context.kernels import KernelPage, KernelPages
from ..incremental.site_manifest import FileRecord, PageRecord
from ..render import Renderer, mirror_json
from ..urls import has_own_mirror, mirror_file
from ..write import Staging

# Tasks per message: large enough that sending results costs little next to building them, small
# enough to balance: the last tasks (record ledger and challenge pages) are the slowest to build on
# a large site, and a worker left with a long chunk of them idles the other.
# Chunks shrink towards the end for the same reason (``_chunks``).
CHUNK = 32
# Below this many tasks to build, forking costs more than it saves (a site too small to share its
# rebuild, ``SHARE_FROM``, or a build from scratch of a small site).
PARALLEL_FROM = 500
# A rebuild of a site of this many pages (about: the pages kept with their kernels and the tasks
# left) signs its tasks, and builds the changed ones, in this process and one worker forked before
# anything is signed (``_rebuild_shared``). On a large site signing every task is real work, and
# even a one-run rebuild builds hundreds of tasks (a kernel's pages, the ledger pages showing its
# groups, the GPU and model pages) besides taking every unchanged page: in one process, the other
# core would idle through all of it.
SHARE_FROM = 5_000
# Tasks a signing process takes at a time: a lock each (cheap), against at most one chunk's wait
# where the two meet. Few, because a GPU's page (its groups' digests) and the first ledger pages
# take far longer to sign than most, and with larger chunks one process is left waiting for the
# other's last one.
SIGN_CHUNK = 8
# From this many tasks to build, a rebuild's pages are built by a pool of workers (``_build``), and
# none by this process, whose memory then grows no more than in a build from scratch.
POOL_FROM = 2_000
# Consecutive unchanged tasks reported at once (``KeptPages``), at most.
KEPT_AT_ONCE = 500


class RenderedPage(NamedTuple):
    """A page as written into the staging folder: what a worker sends back for it (a plain tuple,
    cheap to send, because a cold build sends one per page of the site)."""

    kind: str
    title: str
    html: FileRecord
    mirror: str  # where its JSON is: its own mirror's path, or a pointer into another page's (``urls.group_mirror``)
    mirror_file: FileRecord | None  # its own mirror, as written; None for a page whose JSON is in another's
    rendered: bool  # False: the previous build's HTML was reused
    charts: tuple[str, ...]  # the chart drawings it shows (``urls.chart``), which the parent writes once each


class TaskPages(NamedTuple):
    """The pages one task built, with what the parent knows of the task (never sent by a worker)."""

    pages: list[RenderedPage]
    signature: str | None  # recorded under: a signed task's (``page_signatures``), or a planned kernel page's kernel's


class KeptPages(NamedTuple):
    """The pages of consecutive signed tasks, taken unbuilt from the previous site: their files are
    the previous site's, kept (``Staging.keep_pages``), and each record is its page's mirror entry.
    One report for many tasks, because a rebuild keeps nearly every page of the site."""

    signatures: list[str]
    pages: list[list[PageRecord]]  # each task's, as the previous site lists them


@dataclass
class _Job:
    tasks: Sequence[PageTask]
    renderer: Renderer
    staging: Staging
    reuse_pages: bool
    ends: _Ends | None = None  # what a rebuild's worker and this process share (``_rebuild_shared``)


# What forked workers read: set just before the pool starts, cleared after.
_job: _Job | None = None


def _render_tasks(numbers: list[int]) -> tuple[list[list[RenderedPage]], dict[str, str]]:
    """In a worker: the pages of each task in ``numbers``, and the chart specs met on the way."""
    assert _job is not None
    return _build_pages(numbers), _job.renderer.charts.take_specs()


def _build_pages(numbers: list[int]) -> list[list[RenderedPage]]:
    """The pages of each task in ``numbers``. The chart specs met stay with ``renderer.charts``:
    built by this process, they are drawn with the others (``ChartRenderer.draw_all``); taken and
    adopted again, each task built here would send every spec met so far to the drawer once more."""
    assert _job is not None
    staging, renderer = _job.staging, _job.renderer
    done: list[list[RenderedPage]] = []
    for number in numbers:
        pages = []
        unchanged_mirrors: set[str] = set()  # this task's mirrors that the previous site holds byte for byte
        for page in _job.tasks[number]():
            if has_own_mirror(page.mirror):
                mirror = staging.put(page.mirror, mirror_json(page).encode("utf-8"))
                unchanged = _job.reuse_pages and _unchanged(mirror)
                if unchanged:
                    unchanged_mirrors.add(mirror.path)
            else:  # a group or run page: all it shows is in a mirror this task wrote before it
                mirror, unchanged = None, mirror_file(page.mirror) in unchanged_mirrors
            # Its HTML as it was, where its JSON is and the drawings it shows are still on the site.
            charts = ChartRenderer.shown_by(page) if unchanged else ()
            html = staging.reuse(page.html) if unchanged and staging.holds(charts) else None
            if html is not None:
                pages.append(RenderedPage(page.kind, page.title, html, page.mirror, mirror, rendered=False,
                                          charts=charts))
                continue
            content = renderer.page(page).encode("utf-8")
            html = staging.put(page.html, content)
            pages.append(RenderedPage(page.kind, page.title, html, page.mirror, mirror, rendered=True,
                                      charts=renderer.charts.take_shown()))
        done.append(pages)
    return done


def _render_chunk_in_worker(numbers: list[int]) -> tuple[list[list[RenderedPage]], dict[str, str]]:
    """``_render_tasks`` in a render worker, whose survivors are then frozen. What outlives a chunk
    is the worker's caches (view models, row texts and fragments shared between pages), kept until
    the worker ends; left to the collector, every full collection walks all of them again, over
    and over as they grow, to free almost nothing. The young generations are collected first, so
    only what is still referred to is frozen."""
    rendered = _render_tasks(numbers)
    gc.collect(1)
    gc.freeze()
    return rendered


def _unchanged(mirror: FileRecord) -> bool:
    """Whether the previous site holds this mirror byte for byte: then its page's HTML (and its
    runs' pages', for a group) is the previous site's too, as the renderer is the same."""
    assert _job is not None
    previous = _job.staging.previous
    return previous is not None and previous.reusable(mirror.path, mirror.sha256)


class _Ends:
    """Numbers 0 to ``count`` that two processes take from either end, a range at a time, until they
    meet: this one from the start (in order), a forked worker from the end. Made before the fork,
    so both share it."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("fork")
        self._bounds = context.RawArray("q", [0, count])  # [first not taken, one past the last not taken]
        self._lock = context.Lock()

    def reset(self, count: int) -> None:
        """0 to ``count`` again (while the worker waits for its next job)."""
        with self._lock:
            self._bounds[0], self._bounds[1] = 0, count

    def take_first(self, size: int) -> range:
        """The next ``size`` numbers from the start, fewer where they meet the end; empty once they met."""
        with self._lock:
            first, end = self._bounds
            taken = range(first, min(first + size, end))
            self._bounds[0] = taken.stop if taken else first
        return taken

    def take_last(self, size: int) -> range:
        """The last ``size`` numbers not taken, fewer where they meet the start; empty once they met."""
        with self._lock:
            first, end = self._bounds
            taken = range(max(first, end - size), end)
            self._bounds[1] = taken.start if taken else end
        return taken


def render_pages(tasks: Sequence[PageTask], renderer: Renderer, staging: Staging, *, reuse_pages: bool = False,
                 workers: int | None = None, progress: Callable[[int, int], None] = lambda _done, _expected: None
                 ) -> Iterator[TaskPages | KeptPages]:
    """The pages of every task, written into ``staging``, reported in task order (but a rebuild's
    kept kernels, reported first). Chart specs the workers met are handed to ``renderer.charts``.
    ``progress``: the pages done so far and about how many there will be."""
    global _job
    previous_pages = staging.previous.pages if staging.previous is not None else {}
    tasks, kept = _planned(tasks, previous_pages, staging)
    kept_count = sum(map(len, kept.pages))
    workers = workers or os.cpu_count() or 1
    if "fork" not in multiprocessing.get_all_start_methods():
        workers = 1
    _job = _Job(tasks, renderer, staging, reuse_pages)
    counted = partial(_counted, progress, kept_count, kept_count + len(tasks))
    try:
        if not previous_pages:  # every task is built: signatures are worked out once the workers are at work
            yield from _build(list(range(len(tasks))), None, workers, counted)
        elif workers > 1 and kept_count + len(tasks) >= SHARE_FROM:
            yield from _rebuild_shared(previous_pages, kept, workers, counted)
        else:
            if kept.pages:
                yield kept
            signatures = [_signature(task) for task in tasks]
            yield from _build(_changed(signatures, previous_pages), signatures, workers, counted)
    finally:
        _job = None


def _counted(progress: Callable[[int, int], None], kept: int, expected: int, done: int) -> None:
    progress(kept + done, expected)


def _planned(tasks: Sequence[PageTask], previous_pages: dict[str, list[PageRecord]], staging: Staging
             ) -> tuple[list[PageTask], KeptPages]:
    """The tasks to run, each kernel's pages planned one task each (``context.kernels``), but for the
    kernels whose pages the previous site holds under the same signature: those are kept as they
    are, unplanned, and reported at once."""
    planned: list[PageTask] = []
    kept = KeptPages([], [])
    for task in tasks:
        if not isinstance(task, KernelPages):
            planned.append(task)
            continue
        # A build from scratch asks for no signature here (``_build``).
        listed = previous_pages.get(task.signature) if previous_pages else None
        if listed and staging.keep_pages(listed):
            kept.signatures.append(task.signature)
            kept.pages.append(listed)
        else:
            planned.extend(task.tasks())
    return planned, kept


def _changed(signatures: list[str | None], previous_pages: dict[str, list[PageRecord]]) -> list[int]:
    """The tasks to build: those unsigned, and those whose signature the previous site has no pages for."""
    return [number for number, signature in enumerate(signatures)
            if not previous_pages.get(signature)]  # type: ignore[arg-type]


def _build(to_build: list[int], signatures: list[str | None] | None, workers: int,
           progress: Callable[[int], None]) -> Iterator[TaskPages | KeptPages]:
    """Every task's pages, those of ``to_build`` built by a pool of workers (or here, when they are
    few), the others taken from the previous site. ``signatures``: None when not yet worked out."""
    assert _job is not None
    tasks, chunks, building = _job.tasks, _chunks(to_build, workers), set(to_build)
    if workers == 1 or len(to_build) < PARALLEL_FROM:
        built_here = chain.from_iterable(map(_build_pages, chunks))
        yield from _in_order(signatures or [_signature(task) for task in tasks],
                             lambda number: next(built_here) if number in building else None, progress)
        return
    if not _job.reuse_pages:
        # Nearly every page built is rendered: compile the templates once, here, rather than
        # in each worker. A rebuild keeps the HTML of pages whose mirrors are unchanged and
        # renders few, so its workers compile only what those need, after the fork.
        _job.renderer.compile_templates()
    # Objects made so far live as long as the build: moving them out of the collector's
    # sight (for good, as the load does with the catalog) keeps its passes from touching,
    # and so copying, every page the workers share, and from walking them again afterwards.
    gc.freeze()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        built = _each_built_task(pool.imap(_render_chunk_in_worker, chunks))
        if signatures is None:
            # Signed all at once while the workers start: what signing keeps meanwhile
            # (a digest per group, a line per ledger entry) is freed before pages pile up.
            signatures = [_signature(task) for task in tasks]
        yield from _in_order(signatures, lambda number: next(built) if number in building else None, progress)


def _each_built_task(chunks: Iterator[tuple[list[list[RenderedPage]], dict[str, str]]]) -> Iterator[list[RenderedPage]]:
    """The pages of each task of ``chunks`` (as ``_render_tasks`` returns them), their chart specs adopted."""
    assert _job is not None
    for chunk, specs in chunks:
        _job.renderer.charts.adopt(specs)
        yield from chunk


def _rebuild_shared(previous_pages: dict[str, list[PageRecord]], kept: KeptPages, workers: int,
                    progress: Callable[[int], None]) -> Iterator[TaskPages | KeptPages]:
    """A rebuild of a large site, on two cores from the start: one forked worker and this process
    sign the tasks from either end until they meet, then build the changed ones the same way,
    while this process also takes the unchanged pages and hands every task's pages on, in order.
    The kept kernels' pages (``kept``) are handed on first, while the worker starts signing.
    Where many tasks changed, a pool builds them instead, and this process none: its memory then
    stays what a build from scratch needs."""
    assert _job is not None
    _job.ends = _Ends(len(_job.tasks))
    gc.freeze()  # as before any fork (``_build``)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        theirs = pool.apply_async(_sign_from_the_end)
        if kept.pages:
            yield kept
        signatures = _sign_from_both_ends(theirs)
        to_build = _changed(signatures, previous_pages)
        if len(to_build) < POOL_FROM:
            yield from _build_from_both_ends(pool, signatures, to_build, progress)
            return
    yield from _build(to_build, signatures, workers, progress)


def _sign_from_both_ends(theirs) -> list[str | None]:
    """Every task's signature (``_signature``), worked out here from the first task on and by the
    worker from the last one back (``theirs``: its ``_sign_from_the_end``, started). Most of
    signing's cost is at the end (the ledger pages, each hashing a group per row), where the
    worker starts: the two meet wherever their shares weigh the same."""
    assert _job is not None
    tasks, ends = _job.tasks, _job.ends
    signatures: list[str | None] = []
    while taken := ends.take_first(SIGN_CHUNK):
        signatures.extend([_signature(tasks[number]) for number in taken])
    first, signed = theirs.get()
    assert first == len(signatures)
    return signatures + signed


def _sign_from_the_end() -> tuple[int, list[str | None]]:
    """In the worker: signatures from the last task back until the start's share is met; returns
    the first task signed here and the signatures from it on."""
    assert _job is not None
    tasks, ends = _job.tasks, _job.ends
    chunks: list[list[str | None]] = []
    first = len(tasks)
    while taken := ends.take_last(SIGN_CHUNK):
        chunks.append([_signature(tasks[number]) for number in taken])
        first = taken.start
    return first, [signature for chunk in reversed(chunks) for signature in chunk]


def _build_from_both_ends(pool, signatures: list[str | None], to_build: list[int],
                          progress: Callable[[int], None]) -> Iterator[TaskPages | KeptPages]:
    """Every task's pages in order; those of ``to_build`` built here from the first on, as their
    turn comes, and by the worker from the last one back. Between two tasks to build, this process
    takes unchanged pages, so the worker builds more of them: the two finish together."""
    assert _job is not None
    _job.ends.reset(len(to_build))
    theirs = pool.apply_async(_build_from_the_end, (to_build,))
    built_there: dict[int, list[RenderedPage]] | None = None
    next_to_build = iter(to_build)
    due = next(next_to_build, None)

    def built(number: int) -> list[RenderedPage] | None:
        nonlocal built_there, due
        if number != due:
            return None
        due = next(next_to_build, None)
        if _job.ends.take_first(1):  # type: ignore[union-attr]
            return _render_here(number)
        if built_there is None:
            built_there, specs = theirs.get()
            _job.renderer.charts.adopt(specs)  # type: ignore[union-attr]
        return built_there.pop(number)

    yield from _in_order(signatures, built, progress)


def _build_from_the_end(to_build: list[int]) -> tuple[dict[int, list[RenderedPage]], dict[str, str]]:
    """In the worker: the pages of ``to_build``'s tasks from the last one back until this process's
    share is met, by task number, and the chart specs met."""
    assert _job is not None
    built: dict[int, list[RenderedPage]] = {}
    specs: dict[str, str] = {}
    while taken := _job.ends.take_last(1):
        number = to_build[taken.start]
        (built[number],), found = _render_tasks([number])
        specs.update(found)
    return built, specs


def _render_here(number: int) -> list[RenderedPage]:
    """The pages of task ``number``, built by this process."""
    (pages,) = _build_pages([number])
    return pages


def _chunks(numbers: list[int], workers: int) -> list[list[int]]:
    """``numbers`` in order, ``CHUNK`` at a time until the last few hundred, then in ever smaller
    chunks: a worker that takes a last full chunk of record-ledger pages, the slowest to build,
    works long after the others have nothing left; with one page its wait is short."""
    chunks, start = [], 0
    while start < len(numbers):
        size = max(1, min(CHUNK, (len(numbers) - start) // (4 * workers)))
        chunks.append(numbers[start:start + size])
        start += size
    return chunks


def _signature(task: PageTask) -> str | None:
    """The signature of a signed task (``page_signatures``), else None."""
    return getattr(task, "signature", None)


def _recorded_as(number: int, signature: str | None) -> str | None:
    """The signature the pages of task ``number`` are recorded under: its own (``signature``), or
    for a page of a kernel planned here, its kernel's (whose other pages join it)."""
    if signature is None:
        task = _job.tasks[number]  # type: ignore[union-attr]
        if isinstance(task, KernelPage) and task.kernel is not None:
            return task.kernel.signature
    return signature


def _in_order(signatures: list[str | None], built: Callable[[int], list[RenderedPage] | None],
              progress: Callable[[int], None]) -> Iterator[TaskPages | KeptPages]:
    """Each task's pages in task order: ``built`` gives those of a task to build (None for the
    others), the others are the previous site's pages, kept as they are, or built here if they
    cannot be."""
    assert _job is not None
    staging = _job.staging
    previous_pages = staging.previous.pages if staging.previous is not None else {}
    kept = KeptPages([], [])
    done = 0
    for number, signature in enumerate(signatures):
        pages = built(number)
        if pages is None and staging.keep_pages(listed := previous_pages[signature]):  # type: ignore[index]
            kept.signatures.append(signature)  # type: ignore[arg-type]  # a task not to build is signed
            kept.pages.append(listed)
            done += len(listed)
            if len(kept.pages) < KEPT_AT_ONCE:
                continue
        elif pages is None:  # its previous pages could not be kept: build it after all
            pages = _render_here(number)
        if kept.pages:
            progress(done)
            yield kept
            kept = KeptPages([], [])
        if pages is not None:
            done += len(pages)
            progress(done)
            yield TaskPages(pages, _recorded_as(number, signature))
    if kept.pages:
        progress(done)
        yield kept
