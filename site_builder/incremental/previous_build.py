"""The build's one interface to what the last build left: is the site up to date, what of it can be
reused, and the record of this build for the next one.

A build asks, in order:

1. ``PreviousBuild(...)``: fingerprint the inputs (data, code, as-of date, configuration) and read
   what the last build recorded for this site (``site_manifest``);
2. ``up_to_date()``: the site on disk is exactly what a build of these inputs wrote, so there is
   nothing to do;
3. ``reusable_site(renderer)``: after loading and deriving, which of the previous site's files and
   pages can be kept (only when the renderer is unchanged are its pages reusable);
4. ``record(...)``: once the new site is in place, what it was built from, for the next build.

With ``cache`` off (``--no-cache``) nothing is reused and every page is built, but the build is
still recorded, so the next cached build can start from it.

How the first step overlaps work: where a previous build left a manifest, three things run at once.
A forked copy lists the site (one stat per file, ``listing_digest``) at a lower priority, since its
answer is wanted only after the load and derive: it says whether anyone touched the site since.
Another copy hashes the data (``fingerprint_with_digests``), sending the files' digests back for
the load. Meanwhile this process reads what a rebuild needs first, the whole manifest and the parse
cache: a build with nothing to do wastes that reading, but a rebuild does not wait for the hashing
before it (nor, when only the site was changed by hand, for the listing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ..parallel.forked import InFork
from .fingerprint import DataFiles, build_fingerprint, code_fingerprint, fingerprint_with_digests
from .parse_cache import ParseCache, default_cache_dir
from .site_manifest import (
    ManifestHeader, PageRecord, PreviousSite, SiteManifest, forget, inspect_site, listing_digest, manifest_path, read_header,
)

# The site's listing is wanted only after the load and derive: it yields the cores to the hashing
# of the data and to the load until then.
LISTING_NICENESS = 10


class PreviousBuild:
    """What this build knows of the last one, and how it records itself for the next.

    ``data_dir``, ``out_dir``: the build's input and output folders. ``cache``: False reuses
    nothing (``--no-cache``). ``as_of``: the as-of date as the fingerprint sees it (known before
    loading, or a marker that the data decides it). ``config``: whatever else every page depends on
    (base URL, this repository's source), so a change to it rebuilds every page."""

    def __init__(self, data_dir: Path, out_dir: Path, *, cache: bool, as_of: str, config: str,
                 step: Callable[[str], None] = lambda _: None) -> None:
        self.cache_dir = default_cache_dir(data_dir) if cache else None
        self._config = config
        self._manifest_file = manifest_path(default_cache_dir(data_dir), out_dir)
        self._out_dir = out_dir
        self.fingerprint = ""
        self.data_files: DataFiles | None = None  # one listing of data_dir, for the fingerprint and the load
        self.parse_cache: ParseCache | None = None  # read already where a rebuild will want it
        self._header: ManifestHeader | None = None
        self._manifest: SiteManifest | None = None
        self._listing: InFork[str] | None = None
        self._listed: str | None = None
        self._site: PreviousSite | None = None
        if data_dir.is_dir():  # else loading says what is missing
            step(f"fingerprinting {data_dir} and checking {out_dir}")
            self.data_files = DataFiles(data_dir)
            self._check(data_dir, as_of)

    def _check(self, data_dir: Path, as_of: str) -> None:
        files = self.data_files
        assert files is not None
        cached = self.cache_dir is not None
        self._header = read_header(self._manifest_file) if cached and self._out_dir.is_dir() else None
        if self._header is None:
            self.fingerprint = build_fingerprint(data_dir, as_of=as_of, base_url=self._config, cache=cached, files=files)
            return
        code_fingerprint()  # once, before the forks: every process needs it
        self._listing = InFork(lambda: listing_digest(self._out_dir), "site listing", nice=LISTING_NICENESS)
        hashing = InFork(lambda: fingerprint_with_digests(data_dir, files, as_of=as_of, base_url=self._config),
                         "fingerprint")
        try:
            self._manifest = SiteManifest.read(self._manifest_file)
            self.parse_cache = ParseCache.for_data(data_dir)
            self.fingerprint, files.digests = hashing.result()
        except BaseException:
            self.close()
            hashing.close()
            raise

    def up_to_date(self) -> bool:
        """The site on disk is exactly what a build of these inputs wrote: nothing to do."""
        return self._header is not None and self._header.fingerprint == self.fingerprint and self._as_built()

    @property
    def files_on_disk(self) -> int:
        return self._header.files if self._header is not None else 0

    def renderer_fingerprint(self, vega_bundle: str) -> str:
        """What turns a view model into HTML: our code and libraries, the Vega bundle and the
        configuration. Pages are reused only when it is unchanged."""
        return hashlib.sha256(f"{code_fingerprint()}|{vega_bundle}|{self._config}".encode()).hexdigest()

    def compiled_templates_key(self) -> str:
        """Templates compiled by other code are not reused (``render.compiled_templates``)."""
        return code_fingerprint()

    def reusable_site(self) -> PreviousSite | None:
        """What of the previous site can be reused: an untouched site needs no file-by-file check;
        one changed by hand keeps what still matches its manifest. None without the cache."""
        if self.cache_dir is None:
            return None
        manifest = self._manifest if self._manifest is not None else SiteManifest.read(self._manifest_file)
        if manifest is not None and self._as_built():
            self._site = PreviousSite.as_written(self._out_dir, manifest)
        else:
            self._site = inspect_site(self._out_dir, manifest)
        return self._site

    def pages_reusable(self, renderer_fingerprint: str) -> bool:
        """The previous site's pages were rendered exactly as this build would render them."""
        return self._site is not None and self._site.renderer == renderer_fingerprint

    def forget(self) -> None:
        """The site is about to change: the old record stops being true (a build that fails
        after this point leaves no record, and the next one starts from scratch)."""
        forget(self._manifest_file)

    def record(self, renderer_fingerprint: str, files: dict, signed_pages: dict[str, list[PageRecord]],
               step: Callable[[str], None]) -> None:
        """Save what this build produced (as changes to the previous record where it can); a build
        whose record could not be saved is still a good build (the next one starts over)."""
        if not self.fingerprint:
            return
        manifest = SiteManifest(self.fingerprint, renderer_fingerprint, files, signed_pages)
        try:
            manifest.save(self._manifest_file, since=self._site.manifest if self._site is not None else None)
        except OSError as error:
            step(f"could not record this build in {self._manifest_file} ({error}); the next build will start from scratch")

    def _as_built(self) -> bool:
        """Nobody touched the site since the last build wrote it (its listing is as recorded)."""
        if self._listing is None or self._header is None:
            return False
        if self._listed is None:
            self._listed = self._listing.result()
        return self._listed == self._header.listing

    def close(self) -> None:
        if self._listing is not None:
            self._listing.close()

    def __enter__(self) -> PreviousBuild:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()
