"""``kernelindex build``: the whole site from ``data/``, read top to bottom.

load → validate → link (``load_catalog``) → derive → context → render → write. Everything is
read and derived before anything is written; outputs then stream into a staging folder, and the
site changes only when the whole build succeeded (``write``). A build whose inputs are unchanged
since the site on disk was built stops after fingerprinting them; otherwise unchanged pages and
files are reused from the previous site (``manifest``), only changed files are moved into it,
and the output is byte-identical to a clean build either way.
"""

from __future__ import annotations

import gc
import hashlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from itertools import chain
from pathlib import Path

import click

from . import urls
from .asof import as_of_before_loading, from_source_date_epoch, resolve_as_of
from .cache import ParseCache, default_cache_dir
from .chart_svg import ChartDrawer
from .context import page_tasks
from .derive.comparison import COMPARISON_KEY_VERSION
from .derive.eligibility import (
    BELOW_PHYSICAL_FLOOR, MISSING_PRIMARY_METRIC, REASON_TEXT, RETRACTED, SUPERSEDED, reason_text,
)
from .derive.evidence import REPLICATIONS_NEEDED
from .derive.floors import HEADROOM_POLICY
from .derive.headline import HOST_BOUND_MINIMUM, NOISY_SPREAD
from .derive.leaderboard import derive_leaderboard
from .derive.scaling import MAX_SERIES
from .derive.staleness import STALE_AFTER_DAYS
from .discover.outputs import discover_outputs
from .discover.site_files import check_base_url
from .favicon import favicon_ico
from .fingerprint import DataFiles, build_fingerprint, code_fingerprint, fingerprint_with_digests
from .forked import InFork
from .manifest import (
    ManifestHeader, PageRecord, PreviousSite, SiteManifest, forget, inspect_site, listing_digest, manifest_path, read_header,
)
from .mirrors import MirrorIndex, page_schemas
from .ownsource import OwnSource, own_source
from .problems import DataError
from .render import TEMPLATES, Renderer, compiled_templates
from .render_pool import KeptPages, render_pages
from .repository import load_catalog
from .signatures import PageSignatures
from .views import MIRROR_VERSION
from .write import OutputError, Outputs

Progress = Callable[[str], None]
# The site's listing is wanted only after the load and derive: it yields the cores to the hashing
# of the data and to the load until then (``_check_inputs_and_site``).
LISTING_NICENESS = 10
PROGRESS_LINES = 20  # "N pages" lines in a build of many pages (one task makes a page or a few)


@dataclass(frozen=True)
class BuildSummary:
    pages: int
    mirrors: int
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
        return (f"Site of {self.pages:,} pages and {self.mirrors:,} JSON mirrors ({self.charts:,} charts, {self.files:,} "
                f"files) in {out_dir} after {self.seconds:.1f} s ({redone}); as of {self.as_of} ({self.as_of_source}).")


def build_site(data_dir: Path, out_dir: Path, as_of: date | None = None, progress: Progress = lambda _: None,
               base_url: str = "", cache: bool = True, own: OwnSource | None = None) -> BuildSummary:
    """Build the site; with ``cache``, reuse the parse cache and whatever the previous site already has.
    ``own``: this repository's URL and measured commit (``ownsource``)."""
    started = time.perf_counter()
    base_url = check_base_url(base_url)  # a bad URL fails before any work
    # What the site depends on besides the data and code: a change of any rebuilds every page.
    config = f"{base_url}|{own.describe() if own else ''}"

    def step(message: str) -> None:
        progress(f"[{time.perf_counter() - started:6.1f} s] {message}")

    known_as_of = as_of_before_loading(as_of, os.environ, data_dir)
    manifest_file = manifest_path(default_cache_dir(data_dir), out_dir)
    fingerprint, previous, files = "", None, None
    site_check = _SiteCheck(None, None, None)
    if data_dir.is_dir():  # else loading says what is missing
        step(f"fingerprinting {data_dir} and checking {out_dir}")
        files = DataFiles(data_dir)  # one listing for the fingerprint and the load
        fingerprint, site_check = _check_inputs_and_site(
            data_dir, out_dir, manifest_file if cache else None, files,
            as_of=str(known_as_of[0]) if known_as_of else "newest observation", base_url=config, cache=cache)
        if site_check.up_to_date(fingerprint):
            return BuildSummary(pages=0, mirrors=0, files=site_check.header.files, charts=0,  # type: ignore[union-attr]
                                seconds=time.perf_counter() - started, as_of=None, as_of_source="", up_to_date=True)

    step(f"loading {data_dir}")
    # In another process: the Vega bundle while this one loads, then the charts while the pages render.
    with site_check, ChartDrawer(default_cache_dir(data_dir) if cache else None) as drawer:  # ended even if the build fails
        # A run may not be observed after an as-of date given explicitly; a date taken from git may
        # predate a run file not committed yet, so then the wall clock is the bound (see checks.py).
        catalog = load_catalog(data_dir, as_of if as_of is not None else from_source_date_epoch(os.environ),
                               cache=cache, files=files, parse_cache=site_check.parse_cache)
        as_of_date, as_of_source = resolve_as_of(
            as_of, os.environ, data_dir, (run.spec.observedAt for run in catalog.runs.values()), known=known_as_of)
        step(f"loaded {sum(len(kind) for kind in catalog.by_kind.values()):,} files; deriving as of {as_of_date}")
        board = derive_leaderboard(catalog, as_of_date, own)
        step(f"derived {len(board.cohorts):,} comparison groups from {len(board.runs):,} runs")

        if cache:  # only now: the site's listing had the load and derive's time to finish
            previous = site_check.previous_site(out_dir, manifest_file)
        bundle_name, bundle_bytes = drawer.bundle()
        renderer = Renderer(vega_bundle=bundle_name, compiled=(
            compiled_templates(default_cache_dir(data_dir), code_fingerprint()) if cache else None))
        renderer.charts.draw_with(drawer)
        # What turns a view model into HTML; pages are reused only when it is unchanged.
        renderer_fingerprint = hashlib.sha256(f"{code_fingerprint()}|{bundle_name}|{config}".encode()).hexdigest()
        reuse_pages = previous is not None and previous.renderer == renderer_fingerprint
        mirrors = MirrorIndex()
        signatures = PageSignatures(board, renderer_fingerprint)
        tasks = page_tasks(board, _methodology(renderer, as_of_date), signatures)
        with_charts: list[str] = []
        signed_pages: dict[str, list[PageRecord]] = {}
        pages = rendered = built = 0
        with Outputs(out_dir, previous) as outputs:
            for task in render_pages(tasks, renderer, outputs.staging, reuse_pages=reuse_pages,
                                     progress=_page_progress(step)):
                if isinstance(task, KeptPages):  # the previous site's pages: their records serve as they are
                    kept = list(chain.from_iterable(task.pages))
                    mirrors.add_entries(kept)
                    outputs.claim_kept(kept)
                    signed_pages.update(zip(task.signatures, task.pages))
                    pages += len(kept)
                    continue
                records = []
                for page in task.pages:
                    # One record per page serves the API index, the manifest and, in an error, as its name.
                    record = mirrors.add_document(page.kind, page.title, page.html.path, page.mirror.path)
                    outputs.claim(page.html, by=record)
                    outputs.claim(page.mirror, by=record)
                    if page.has_charts:
                        with_charts.append(page.html.path)
                    records.append(record)
                    rendered += page.rendered
                if task.signature is not None:  # a kernel's pages are recorded together, a task at a time
                    signed_pages.setdefault(task.signature, []).extend(records)
                pages += len(task.pages)
                built += len(task.pages)
            step(f"{pages:,} pages: {built:,} built, {rendered:,} rendered, the rest unchanged since the last build; "
                 f"drawing {renderer.charts.rendered:,} distinct charts")
            # What rendering made here (a record of every file and page, hundreds of thousands) lives
            # until the build ends: a collection of the oldest generation would walk it again, for
            # nothing to free, while the site-wide files are made.
            gc.freeze()

            # The site-wide files first, while the chart process finishes drawing.
            # Search index, run directory, feeds, badges, robots.txt, llms.txt, sitemap.xml (issue 9).
            for path, content, by in discover_outputs(board, mirrors, [e.html for e in mirrors.entries], base_url):
                outputs.add(path, content, by=by)
            outputs.add(urls.NOT_FOUND, renderer.not_found(as_of_date, base_url), by="404 page")
            outputs.add(urls.API_INDEX, mirrors.document(as_of_date), by="API index")
            for path, text in page_schemas().items():
                outputs.add(path, text, by="JSON Schema")
            outputs.add(f"{urls.STATIC}/{bundle_name}", bundle_bytes, by="Vega bundle")
            outputs.add(urls.FAVICON, favicon_ico(), by="favicon")
            for asset in sorted((TEMPLATES / "static").iterdir()):
                if asset.is_file():
                    outputs.add(f"{urls.STATIC}/{asset.name}", asset.read_bytes(), by="static asset")
            renderer.charts.draw_all()
            for path in with_charts:
                outputs.replace(path, renderer.charts.fill(outputs[path]))
            step(f"{len(outputs):,} files, {outputs.reused:,} of them unchanged; "
                 + ("moving the others into the site" if outputs.in_place else "swapping the new site in"))
            forget(manifest_file)  # the old site's manifest stops being true at the swap
            outputs.commit()
            if fingerprint:  # while the replaced site is being deleted
                _record_build(SiteManifest(fingerprint, renderer_fingerprint, outputs.records, signed_pages),
                              manifest_file, step, since=previous.manifest if previous is not None else None)
        return BuildSummary(pages=pages + 1, mirrors=pages, files=len(outputs), charts=renderer.charts.rendered,
                            seconds=time.perf_counter() - started, as_of=as_of_date, as_of_source=as_of_source,
                            built=built + 1, rendered=rendered + 1, reused=outputs.reused)  # + 1: the 404 page


def _record_build(manifest: SiteManifest, path: Path, step: Callable[[str], None], since: SiteManifest | None) -> None:
    """Save the manifest (as changes to ``since``, the previous site's, where it can); a build whose
    record could not be saved is still a good build (the next one starts over)."""
    try:
        manifest.save(path, since=since)
    except OSError as error:
        step(f"could not record this build in {path} ({error}); the next build will start from scratch")


def _check_inputs_and_site(data_dir: Path, out_dir: Path, manifest_file: Path | None, files: DataFiles, *,
                           as_of: str, base_url: str, cache: bool) -> tuple[str, _SiteCheck]:
    """(the inputs' fingerprint, what is known of the site on disk).

    Where a previous build left a manifest, three things run at once. A forked copy lists the site
    (one stat per file, ``listing_digest``), at a lower priority: its answer is wanted only after
    the load and derive, and says whether anyone touched the site since. Another copy hashes the
    data (``fingerprint_with_digests``, sending back the files' digests for the load). Meanwhile
    this process reads what a rebuild needs first, the whole manifest and the parse cache (each
    most of a second at 100,000 runs): a build with nothing to do wastes that reading, on a core
    the other two share, but a rebuild no longer waits for the hashing before it (nor, when only
    the site was changed by hand, for the listing).
    """
    header = read_header(manifest_file) if manifest_file is not None and out_dir.is_dir() else None
    if header is None:
        return build_fingerprint(data_dir, as_of=as_of, base_url=base_url, cache=cache, files=files), _SiteCheck(None, None, None)
    code_fingerprint()  # once, before the forks: every process needs it
    listing = InFork(lambda: listing_digest(out_dir), "site listing", nice=LISTING_NICENESS)
    hashing = InFork(lambda: fingerprint_with_digests(data_dir, files, as_of=as_of, base_url=base_url), "fingerprint")
    try:
        manifest = SiteManifest.read(manifest_file)  # type: ignore[arg-type]
        parse_cache = ParseCache.for_data(data_dir)
        fingerprint, files.digests = hashing.result()
    except BaseException:
        listing.close()
        hashing.close()
        raise
    return fingerprint, _SiteCheck(header, manifest, listing, parse_cache)


class _SiteCheck:
    """What the build knows of the site on disk before loading: the header of the manifest of the
    build that wrote it, that whole manifest (read before it was known to be needed), and the
    site's listing (pending, in a forked process), which says whether anyone touched the site
    since; and the parse cache, read while the inputs were hashed."""

    def __init__(self, header: ManifestHeader | None, manifest: SiteManifest | None,
                 listing: InFork[str] | None, parse_cache: ParseCache | None = None) -> None:
        self.header, self._manifest, self._listing = header, manifest, listing
        self.parse_cache = parse_cache  # read already, for the load (``_check_inputs_and_site``)
        self._listed: str | None = None

    def up_to_date(self, fingerprint: str) -> bool:
        """The site on disk is exactly what a build of these inputs wrote."""
        return self.header is not None and self.header.fingerprint == fingerprint and self._as_built()

    def previous_site(self, out_dir: Path, manifest_file: Path) -> PreviousSite | None:
        """What of the previous site can be reused: an untouched site needs no file-by-file check;
        one changed by hand keeps what still matches its manifest."""
        manifest = self._manifest if self._manifest is not None else SiteManifest.read(manifest_file)
        if manifest is not None and self._as_built():
            return PreviousSite.as_written(out_dir, manifest)
        return inspect_site(out_dir, manifest)

    def _as_built(self) -> bool:
        if self._listing is None or self.header is None:
            return False
        if self._listed is None:
            self._listed = self._listing.result()
        return self._listed == self.header.listing

    def __enter__(self) -> _SiteCheck:
        return self

    def __exit__(self, *_exc) -> None:
        if self._listing is not None:
            self._listing.close()


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
        mirror_version=MIRROR_VERSION, noisy_percent=round(NOISY_SPREAD * 100),
        host_bound_percent=round(HOST_BOUND_MINIMUM * 100))


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
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def command(data_dir: Path, out_dir: Path, as_of, quiet: bool, base_url: str, no_cache: bool,
            repository: str | None, commit: str | None) -> None:
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
        summary = build_site(data_dir, out_dir, as_of.date() if as_of else None, progress, base_url=base_url,
                             cache=not no_cache, own=own)
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
