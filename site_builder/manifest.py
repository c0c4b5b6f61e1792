"""The manifest of a built site: what it was built from, and every file's hash, size and time.

It is saved in the cache folder (never in the site, where it would be served and would weigh
tens of MB at 100,000 runs), one per output folder. The next build of that folder reads it to

- skip the build entirely when the inputs' fingerprint is unchanged and the site on disk still
  is exactly what the manifest lists (same files, sizes and modification times: someone may have
  edited or deleted a file since);
- reuse unchanged files: a file whose new bytes hash to what the old site holds is kept (or,
  when a whole new site is staged, hard-linked from it) instead of written, and a page whose
  mirror is unchanged is not rendered again when the renderer itself is unchanged (its HTML is a
  function of its view model, the templates and code).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

FORMAT = "kernelindex-site-manifest 3"


class FileRecord(NamedTuple):
    """One output file as written: its path in the site, sha256 (hex), size and mtime in ns.
    (A named tuple: a rebuild at 100k runs reads 330,000 of them back.)"""

    path: str
    sha256: str
    size: int
    mtime_ns: int


class PageRecord(NamedTuple):
    """A page a signed task built (``signatures``): what the API index needs to list it again."""

    kind: str
    title: str
    html: str
    mirror: str


def manifest_path(cache_dir: Path, out_dir: Path) -> Path:
    """Where the manifest of the site at ``out_dir`` lives (one per output folder)."""
    key = hashlib.sha256(str(out_dir.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_dir / "sites" / f"{key}.tsv"


@dataclass(frozen=True)
class SiteManifest:
    fingerprint: str  # of the build's inputs (``fingerprint.build_fingerprint``)
    renderer: str  # of what turns a view model into HTML: code, templates, Vega bundle, base URL
    files: dict[str, FileRecord]
    pages: dict[str, list[PageRecord]] = field(default_factory=dict)  # by signature

    @property
    def listing(self) -> str:
        """``listing_digest`` of the site as written."""
        return _listing_digest((r.path, r.size, r.mtime_ns) for r in self.files.values())

    def save(self, path: Path) -> None:
        """Atomically: a crash leaves the old manifest or the new one, never half of one. Five
        header lines (all a build with nothing to do reads), then the files and the pages as JSON."""
        path.parent.mkdir(parents=True, exist_ok=True)
        header = [FORMAT, f"fingerprint\t{self.fingerprint}", f"renderer\t{self.renderer}", f"listing\t{self.listing}",
                  f"files\t{len(self.files)}"]
        temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        with open(temporary, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.write("\n".join(header) + "\n")
            _write_json(out, sorted(self.files.values()), "[]")
            out.write("\n")
            _write_json(out, sorted(self.pages.items()), "{}")
            out.write("\n")
        os.replace(temporary, path)

    @classmethod
    def read(cls, path: Path) -> SiteManifest | None:
        """The manifest, or None when there is none or it is not one we can read (then: full build)."""
        try:
            lines = path.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
        except OSError:
            return None
        if len(lines) < 7 or lines[0] != FORMAT:
            return None
        try:
            fingerprint = lines[1].split("\t")[1]
            renderer = lines[2].split("\t")[1]
            files = {row[0]: FileRecord._make(row) for row in json.loads(lines[5])}
            pages = {signature: [PageRecord._make(page) for page in listed]
                     for signature, listed in json.loads(lines[6]).items()}
        except (IndexError, ValueError, TypeError, AttributeError):
            return None
        # Paths end up in links and file names: anything but text is a damaged manifest.
        if not all(type(name) is str for name in files) or not all(
                type(part) is str for listed in pages.values() for page in listed for part in page):
            return None
        return cls(fingerprint, renderer, files, pages)


def _write_json(out, items: list, brackets: str, chunk: int = 5_000) -> None:
    """``json.dumps(items)`` (a list, or with brackets "{}" a dict of (key, value) ``items``) written
    a chunk at a time: at 100,000 runs the whole text is 100 MB, made at the build's peak of memory."""
    out.write(brackets[0])
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        text = json.dumps(part if brackets == "[]" else dict(part), ensure_ascii=False, separators=(",", ":"))
        out.write(("," if start else "") + text[1:-1])
    out.write(brackets[1])


@dataclass(frozen=True)
class ManifestHeader:
    fingerprint: str
    listing: str
    files: int


def read_header(path: Path) -> ManifestHeader | None:
    """The first lines only: all a build with nothing to do needs (the whole manifest is tens of MB at scale)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            lines = [file.readline().rstrip("\n") for _ in range(5)]
    except OSError:
        return None
    if lines[0] != FORMAT or not all("\t" in line for line in lines[1:]):
        return None
    try:
        files = int(lines[4].split("\t")[1])
    except ValueError:
        return None
    return ManifestHeader(fingerprint=lines[1].split("\t")[1], listing=lines[3].split("\t")[1], files=files)


def listing_digest(root: Path) -> str:
    """A hash of every file's path, size and modification time in the folder (no file is read).
    Equal to the manifest's when nobody added, removed or edited a file since the build."""
    return _listing_digest((path, stat.st_size, stat.st_mtime_ns) for path, stat in _walk(root))


def _listing_digest(entries) -> str:
    digest = hashlib.sha256()
    for path, size, mtime in sorted(entries):
        digest.update(f"{path}\0{size}\0{mtime}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def forget(path: Path) -> None:
    """Remove the manifest before a site is replaced: if the build stops half-way, none is better than a wrong one."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass


@dataclass(frozen=True)
class PreviousSite:
    """The site on disk, as far as it still matches its manifest: the files a build may reuse."""

    root: Path
    renderer: str
    intact: dict[str, FileRecord]  # files whose size and mtime are still what the manifest says
    pages: dict[str, list[PageRecord]]  # by signature, only where every page's files are intact
    untouched: bool = False  # the folder holds exactly the manifest's files: no other, none changed

    @classmethod
    def as_written(cls, root: Path, manifest: SiteManifest) -> PreviousSite:
        """The site, known (by ``listing_digest``) to be exactly what the manifest lists."""
        return cls(root, manifest.renderer, manifest.files, manifest.pages, untouched=True)

    def reusable(self, path: str, sha256: str) -> bool:
        record = self.intact.get(path)
        return record is not None and record.sha256 == sha256

    def record(self, path: str) -> FileRecord | None:
        return self.intact.get(path)


def inspect_site(out_dir: Path, manifest: SiteManifest | None) -> PreviousSite | None:
    """Compare the folder with its manifest, with one stat per file and no reading."""
    if manifest is None or not out_dir.is_dir():
        return None
    intact: dict[str, FileRecord] = {}
    for path, stat in _walk(out_dir):
        record = manifest.files.get(path)
        if record is not None and record.size == stat.st_size and record.mtime_ns == stat.st_mtime_ns:
            intact[path] = record
    pages = {signature: listed for signature, listed in manifest.pages.items()
             if all(page.html in intact and page.mirror in intact for page in listed)}
    return PreviousSite(out_dir, manifest.renderer, intact, pages)


def _walk(root: Path, relative: str = ""):
    with os.scandir(root / relative if relative else root) as entries:
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.is_dir(follow_symlinks=False):
                yield from _walk(root, path)
            elif entry.is_file(follow_symlinks=False):
                yield path, entry.stat(follow_symlinks=False)
            else:
                yield path, _NOT_A_FILE


class _NotAFile:
    st_size = -1
    st_mtime_ns = -1


_NOT_A_FILE = _NotAFile()
