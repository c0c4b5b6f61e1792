"""``kernelindex build``: the whole site from ``data/``, read top to bottom.

load → validate → link (``load_catalog``) → derive → context → render → write. Everything is
read and derived before anything is written; outputs then stream into a staging folder, and the
site changes only when the whole build succeeded (``write``).

What the last build left is reached through one object, ``incremental.PreviousBuild``: a build
whose inputs are unchanged since the site on disk was built stops after fingerprinting them;
otherwise unchanged pages and files are reused from the previous site, and the output is
byte-identical to a build from scratch (``--no-cache``) either way.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from itertools import chain
from pathlib import Path

import click

from . import library_speedups as speedups
from . import urls
from .asof import as_of_before_loading, from_source_date_epoch, resolve_as_of
from .chart_svg import ChartDrawer
from .context import page_tasks
from .derive.comparison import COMPARISON_KEY_VERSION
from .derive.eligibility import (
    BELOW_PHYSICAL_FLOOR, MISSING_PRIMARY_METRIC, REASON_TEXT, RETRACTED, SUPERSEDED, reason_text,
)
from .derive.evidence import REPLICATIONS_NEEDED
from .derive.floors import HEADROOM_POLICY
from .derive.headline import HOST_BOUND_MINIMUM, NOISY_SPREAD
from .derive.leaderboard import Leaderboard, derive_leaderboard
from .derive.scaling import MAX_SERIES
from .derive.staleness import STALE_AFTER_DAYS
from .discover.outputs import discover_outputs
from .discover.site_files import check_base_url
from .favicon import favicon_ico
from .incremental.page_signatures import PageSignatures
from .incremental.previous_build import PreviousBuild
from .incremental.site_manifest import PageRecord
from .mirrors import MirrorIndex, page_schemas
from .ownsource import OwnSource, own_source
from .page_views import MIRROR_VERSION
from .parallel.render_pool import KeptPages, render_pages
from .problems import DataError
from .render import TEMPLATES, Renderer, compiled_templates
from .repository import load_catalog
from .write import OutputError, Outputs

Progress = Callable[[str], None]
PROGRESS_LINES = 20  # "N pages" lines in a build of many pages (one task makes a page or a few)


@dataclass(frozen=True)
class BuildSummary:
    pages: int
    mirrors: int  # mirror files: a group's and its runs' JSON is part of another page's mirror
    files: int
    charts: int
    seconds: float
    as_of: date | None
    as_of_source: str
    built: int = 0  # pages whose view model was built; the rest were the previous build's, unchanged
    rendered: int = 0  # pages rendered to HTML
    reused: int = 0  # files kept (or hard-linked) from the previous site instead of written
    up_to_date: bool = False  # nothing changed since the site on disk was built: nothing was done

    def line(self, out_dir: Path) -> str:
        if self.up_to_date:
            return (f"{out_dir} is up to date: its {self.files:,} files were built from exactly these inputs; "
                    f"nothing to do ({self.seconds:.1f} s).")
        redone = ("every page built and rendered" if self.built == self.pages else
                  f"{self.built:,} pages built again, {self.rendered:,} rendered, {self.reused:,} files unchanged")
        return (f"Site of {self.pages:,} pages, their JSON in {self.mirrors:,} mirror files ({self.charts:,} charts, {self.files:,} "
                f"files) in {out_dir} after {self.seconds:.1f} s ({redone}); as of {self.as_of} ({self.as_of_source}).")


def build_site(data_dir: Path, out_dir: Path, as_of: date | None = None, progress: Progress = lambda _: None,
               base_url: str = "", cache: bool = True, own: OwnSource | None = None,
               library_speedups: frozenset[str] = speedups.ALL) -> BuildSummary:
    """Build the site; with ``cache``, reuse the parse cache and whatever the previous site already has.
    ``own``: this repository's URL and measured commit (``ownsource``). ``library_speedups``: which
    of ``library_speedups.NAMES`` to use (the same bytes with any)."""
    started = time.perf_counter()

    def step(message: str) -> None:
        progress(f"[{time.perf_counter() - started:6.1f} s] {message}")

    base_url = check_base_url(base_url)  # a bad URL fails before any work
    known_as_of = as_of_before_loading(as_of, os.environ, data_dir)
    previous = PreviousBuild(data_dir, out_dir, cache=cache, step=step, config=f"{base_url}|{own.describe() if own else ''}",
                             as_of=str(known_as_of[0]) if known_as_of else "newest observation")
    if previous.up_to_date():
        return BuildSummary(pages=0, mirrors=0, files=previous.files_on_disk, charts=0, up_to_date=True,
                            seconds=time.perf_counter() - started, as_of=None, as_of_source="")
    step(f"loading {data_dir}")
    # In another process: the Vega bundle while this one loads, then the charts while the pages render.
    with previous, ChartDrawer(previous.cache_dir) as drawer, \
            speedups.only(library_speedups):  # all ended even if the build fails
        # A run may not be observed after an as-of date given explicitly; a date taken from git may
        # predate a run file not committed yet, so then the wall clock is the bound (see checks.py).
        catalog = load_catalog(data_dir, as_of if as_of is not None else from_source_date_epoch(os.environ),
                               cache=cache, files=previous.data_files, parse_cache=previous.parse_cache)
        as_of_date, as_of_source = resolve_as_of(
            as_of, os.environ, data_dir, (run.spec.observedAt for run in catalog.runs.values()), known=known_as_of)
        step(f"loaded {sum(len(kind) for kind in catalog.by_kind.values()):,} files; deriving as of {as_of_date}")
        board = derive_leaderboard(catalog, as_of_date, own)
        step(f"derived {len(board.cohorts):,} comparison groups from {len(board.runs):,} runs")

        reusable = previous.reusable_site()  # only now: the site's listing had the load and derive's time to finish
        bundle_name, bundle_bytes = drawer.bundle()
        renderer = Renderer(vega_bundle=bundle_name, compiled=(
            compiled_templates(previous.cache_dir, previous.compiled_templates_key()) if previous.cache_dir else None))
        renderer.charts.draw_with(drawer)
        renderer_fingerprint = previous.renderer_fingerprint(bundle_name)
        with Outputs(out_dir, reusable) as outputs:
            pages = _write_pages(board, renderer, as_of_date, outputs, step, PageSignatures(board, renderer_fingerprint),
                                 reuse=previous.pages_reusable(renderer_fingerprint))
            _write_site_files(board, renderer, pages, outputs, as_of_date, base_url, (bundle_name, bundle_bytes))
            step(f"{len(outputs):,} files, {outputs.reused:,} of them unchanged; "
                 + ("moving the others into the site" if outputs.in_place else "swapping the new site in"))
            previous.forget()  # the old site's record stops being true at the swap
            outputs.commit()
            previous.record(renderer_fingerprint, outputs.records, pages.signed, step)  # while the replaced site is deleted
        return BuildSummary(pages=pages.count + 1, mirrors=pages.mirror_files, files=len(outputs), charts=renderer.charts.rendered,
                            seconds=time.perf_counter() - started, as_of=as_of_date, as_of_source=as_of_source,
                            built=pages.built + 1, rendered=pages.rendered + 1, reused=outputs.reused)  # + 1: the 404 page


@dataclass
class _WrittenPages:
    """What the page tasks produced: every page's mirror entry, the chart drawings the pages show
    (written at the end, once each), and each signed task's page records (for the next build's reuse)."""

    mirrors: MirrorIndex = field(default_factory=MirrorIndex)
    charts: set[str] = field(default_factory=set)
    signed: dict[str, list[PageRecord]] = field(default_factory=dict)
    count: int = 0
    mirror_files: int = 0  # pages with a mirror of their own (``PageRecord.files``)
    built: int = 0
    rendered: int = 0


def _write_pages(board: Leaderboard, renderer: Renderer, as_of_date: date, outputs: Outputs, step: Progress,
                 signatures: PageSignatures, reuse: bool) -> _WrittenPages:
    """Every page and its JSON mirror into ``outputs``; with ``reuse``, the pages of signed tasks
    whose signature is unchanged are the previous site's, taken as they are."""
    written = _WrittenPages()
    tasks = signatures.sign(page_tasks(board, _methodology(renderer, as_of_date), by_kernel=True))
    for task in render_pages(tasks, renderer, outputs.staging, reuse_pages=reuse, progress=_page_progress(step)):
        if isinstance(task, KeptPages):  # the previous site's pages: their records serve as they are
            kept = list(chain.from_iterable(task.pages))
            written.mirrors.add_entries(kept)
            outputs.claim_kept(kept)
            written.charts.update(chain.from_iterable(page.chart_files for page in kept))
            written.mirror_files += sum(len(page.files) - 1 for page in kept)
            written.signed.update(zip(task.signatures, task.pages))
            written.count += len(kept)
            continue
        records = []
        for page in task.pages:
            # One record per page serves the API index, the manifest and, in an error, as its name.
            record = written.mirrors.add_document(page.kind, page.title, page.html.path, page.mirror, page.charts)
            outputs.claim(page.html, by=record)
            if page.mirror_file is not None:  # else its JSON is part of another page's mirror
                outputs.claim(page.mirror_file, by=record)
                written.mirror_files += 1
            written.charts.update(page.charts)
            records.append(record)
            written.rendered += page.rendered
        if task.signature is not None:  # a kernel's pages are recorded together, a task at a time
            written.signed.setdefault(task.signature, []).extend(records)
        written.count += len(task.pages)
        written.built += len(task.pages)
    step(f"{written.count:,} pages: {written.built:,} built, {written.rendered:,} rendered, the rest unchanged since "
         f"the last build; drawing {renderer.charts.rendered:,} distinct charts")
    # What rendering made (a record of every file and page, hundreds of thousands) lives until the
    # build ends: a collection of the oldest generation would walk it again, for nothing to free.
    gc.freeze()
    return written


def _write_site_files(board: Leaderboard, renderer: Renderer, pages: _WrittenPages, outputs: Outputs,
                      as_of_date: date, base_url: str, vega_bundle: tuple[str, bytes]) -> None:
    """The site-wide files (search index, run directory, feeds, badges, robots.txt, llms.txt,
    sitemap.xml, the 404 page, the API index and schemas, static assets), made while the chart
    process finishes drawing; then the drawings the pages show."""
    for path, content, by in discover_outputs(board, pages.mirrors, [e.html for e in pages.mirrors.entries], base_url):
        outputs.add(path, content, by=by)
    outputs.add(urls.NOT_FOUND, renderer.not_found(as_of_date, base_url), by="404 page")
    outputs.add(urls.API_INDEX, pages.mirrors.document(as_of_date), by="API index")
    for path, text in page_schemas().items():
        outputs.add(path, text, by="JSON Schema")
    bundle_name, bundle_bytes = vega_bundle
    outputs.add(f"{urls.STATIC}/{bundle_name}", bundle_bytes, by="Vega bundle")
    outputs.add(urls.FAVICON, favicon_ico(), by="favicon")
    for asset in sorted((TEMPLATES / "static").iterdir()):
        if asset.is_file():
            outputs.add(f"{urls.STATIC}/{asset.name}", asset.read_bytes(), by="static asset")
    drawn = renderer.charts.draw_all()
    for path in sorted(pages.charts):
        if path in drawn:
            outputs.add(path, drawn[path], by="chart")
        else:  # shown only by pages kept as they were: drawn by an earlier build
            outputs.keep(path, by="chart")


def _page_progress(step: Callable[[str], None]) -> Callable[[int, int], None]:
    """"N pages" about ``PROGRESS_LINES`` times in a build, and never more often than every 1,000
    pages: a rebuild takes the unchanged pages of 100,000 runs in a second, which at every 1,000
    pages printed 160 lines at once. Told the pages done and about how many there will be."""
    last = [0]

    def maybe(done: int, expected: int) -> None:
        every = max(1000, expected // PROGRESS_LINES)
        if done // every > last[0] // every:
            step(f"{done:,} pages")
        last[0] = done

    return maybe


def _methodology(renderer: Renderer, as_of_date: date) -> str:
    codes = [(code, REASON_TEXT[code]) for code in (RETRACTED, SUPERSEDED, MISSING_PRIMARY_METRIC, BELOW_PHYSICAL_FLOOR)]
    codes.insert(0, ("STATUS_<X>", "the run's status is not passed: pages say what happened, for example "
                                   f"\"{reason_text('STATUS_INCORRECT_NUMERICAL')}\" (STATUS_INCORRECT_NUMERICAL) or "
                                   f"\"{reason_text('STATUS_POLICY_VIOLATION')}\" (STATUS_POLICY_VIOLATION)"))
    return renderer.methodology_markdown(
        as_of=as_of_date, key_version=COMPARISON_KEY_VERSION, reasons=codes, replications=REPLICATIONS_NEEDED,
        stale_days=STALE_AFTER_DAYS, headroom_policy=HEADROOM_POLICY, max_series=MAX_SERIES,
        mirror_version=MIRROR_VERSION, workload_holds_groups_up_to=urls.WORKLOAD_HOLDS_GROUPS_UP_TO,
        noisy_percent=round(NOISY_SPREAD * 100),
        host_bound_percent=round(HOST_BOUND_MINIMUM * 100))


@contextmanager
def _stopping_cleanly_on_sigterm() -> Iterator[None]:
    """While building, a build told to stop (``kill``, a CI job cancelled) unwinds as a failed one
    does: its staging folder is removed and the site is left as it was. Python's default for
    SIGTERM is to die on the spot, leaving a half-written staging folder beside the site. The
    build's forked processes (render workers, the chart and search processes) still die by the
    signal: they hold nothing to clean up, and a pool stops its workers with SIGTERM. The previous
    handler is back afterwards (a caller may run the command in its own process)."""
    builder = os.getpid()

    def stop(signum: int, _frame) -> None:
        if os.getpid() != builder:  # a forked process: die by the signal, as by default
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _speedups(value: str) -> frozenset[str]:
    try:
        return speedups.parse_setting(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _base_url(value: str) -> str:
    try:
        return check_base_url(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


@click.command(name="build")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="The data folder.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("site"),
              show_default=True, help="Where the site goes; changed only when the build succeeds.")
@click.option("--as-of", "as_of", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Date staleness and access dates are measured against (default: SOURCE_DATE_EPOCH, else the "
                   "last commit touching the data).")
@click.option("--base-url", "base_url", default="", metavar="URL", callback=lambda _c, _p, value: _base_url(value),
              help="Where the site will be served (https://example.org/kernelindex): sitemap.xml, absolute feed "
                   "links and a 404 page that works at any depth need it; without it pages stay relative and no "
                   "sitemap is written.")
@click.option("--repository", "repository", default=None, envvar="KERNELINDEX_REPOSITORY", metavar="URL",
              help="This repository's URL (https://github.com/owner/name; env KERNELINDEX_REPOSITORY): with --commit, "
                   "the bundled kernels link to their source there and pin their install to that commit.")
@click.option("--commit", "commit", default=None, envvar="KERNELINDEX_COMMIT", metavar="SHA",
              help="The commit whose bundled kernels were measured (env KERNELINDEX_COMMIT; pages.yml passes the "
                   "built commit).")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Parse every file and render every page again, ignoring the parse cache and the previous site.")
@click.option("--library-speedups", "speedup_names", default="1", envvar=speedups.ENV_VAR, metavar="1|0|NAMES",
              callback=lambda _c, _p, value: _speedups(value), show_default=True,
              help=f"Which speedups that rely on jinja2, markupsafe and pydantic internals to use (env "
                   f"{speedups.ENV_VAR}): 1 all, 0 none (public API only), or names separated by commas "
                   f"(site_builder/library_speedups.py). The site is the same with any.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def command(data_dir: Path, out_dir: Path, as_of, quiet: bool, base_url: str, no_cache: bool,
            repository: str | None, commit: str | None, speedup_names: frozenset[str]) -> None:
    """Build the static site from data/ into site/.

    Only what changed is redone: with the inputs unchanged since the last build (data, code,
    as-of date, base URL) and the site untouched, nothing is; otherwise unchanged pages are not
    rendered again and only changed files are written. The result is byte-identical to a build
    from scratch (--no-cache).
    """
    progress = (lambda _: None) if quiet else (lambda message: click.echo(message, err=True))
    try:
        own = own_source(repository, commit)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    try:
        with _stopping_cleanly_on_sigterm():
            summary = build_site(data_dir, out_dir, as_of.date() if as_of else None, progress, base_url=base_url,
                                 cache=not no_cache, own=own, library_speedups=speedup_names)
    except DataError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        click.echo(f"build stopped: {len(error.problems)} problem{'s' if len(error.problems) != 1 else ''} in "
                   f"{data_dir}; nothing was written", err=True)
        sys.exit(1)
    except OutputError as error:
        click.echo(f"build stopped: {error}; nothing was written", err=True)
        sys.exit(1)
    except FileNotFoundError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    click.echo(summary.line(out_dir))
