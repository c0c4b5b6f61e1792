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
import marshal
import os
import struct
import sys
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, islice
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from .bulkload import paused_gc

FORMAT = "kernelindex-site-manifest 4"


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

    def __str__(self) -> str:
        """How a build names the page in an error (``write.Outputs.claim``)."""
        return f"{self.kind} page {self.title!r}"


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
        """Atomically: a crash leaves the old manifest or the new one, never half of one. Six header
        lines (the first five are all a build with nothing to do reads), then the files and the
        pages as ``marshal`` frames (``_write_frames``)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        header = [FORMAT, f"fingerprint\t{self.fingerprint}", f"renderer\t{self.renderer}", f"listing\t{self.listing}",
                  f"files\t{len(self.files)}", f"body\t{_BODY}"]
        temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        with open(temporary, "wb") as out:
            out.write("\n".join(header).encode("utf-8", "surrogateescape") + b"\n")
            # Plain tuples: marshal writes no named ones.
            _write_frames(out, map(tuple, self.files.values()))
            _write_frames(out, ((signature, *page) for signature, listed in self.pages.items() for page in listed))
        os.replace(temporary, path)

    @classmethod
    def read(cls, path: Path) -> SiteManifest | None:
        """The manifest, or None when there is none or it is not one we can read (then: full build):
        another format or Python, a frame whose CRC fails, a body cut short or of the wrong shape."""
        try:
            content = path.read_bytes()
        except OSError:
            return None
        try:
            body = _after_lines(content, 6)
            lines = content[:body].decode("utf-8", "surrogateescape").split("\n")
            if lines[0] != FORMAT or lines[5] != f"body\t{_BODY}":
                return None
            fingerprint, renderer, count = (lines[number].split("\t")[1] for number in (1, 2, 4))
            with paused_gc(keep=True):  # 500,000 records at 100k runs, kept for the whole build
                file_rows, page_rows = _read_frames(memoryview(content)[body:])
                if set(map(len, file_rows)) | {4} != {4} or set(map(len, page_rows)) | {5} != {5}:
                    return None
                files = dict(zip(map(_FIRST, file_rows), map(_FILE_RECORD, file_rows)))
                pages: dict[str, list[PageRecord]] = {}
                for row in page_rows:
                    pages.setdefault(row[0], []).append(_PAGE_RECORD(row[1:]))
        except (IndexError, ValueError, TypeError, EOFError, struct.error):
            return None
        # Paths end up in links and file names: anything but text is a damaged manifest.
        if len(files) != int(count) or not _all_text(files) or not _all_text(chain.from_iterable(page_rows)):
            return None
        return cls(fingerprint, renderer, files, pages)


# Records made from rows of the right length (``read`` checks them all at once) without a Python
# call each, as ``_make`` is: 500,000 of them at 100k runs.
_FILE_RECORD = partial(tuple.__new__, FileRecord)
_PAGE_RECORD = partial(tuple.__new__, PageRecord)
_FIRST = itemgetter(0)


def _all_text(values: Iterable[object]) -> bool:
    return set(map(type, values)) <= {str}  # rather than a test per value: 800,000 of them at 100k runs


def _after_lines(content: bytes, count: int) -> int:
    """Where the text after the first ``count`` lines starts; ValueError when there are fewer."""
    offset = 0
    for _ in range(count):
        offset = content.index(b"\n", offset) + 1
    return offset


# marshal's format may change with Python's version: a manifest another Python wrote is not read.
_BODY = f"marshal {marshal.version} python {'.'.join(map(str, sys.version_info[:3]))}"
_FRAME = struct.Struct("<II")  # a frame's length and the CRC-32 of its bytes; length 0 ends a section


def _write_frames(out, rows: Iterable[tuple], chunk: int = 5_000) -> None:
    """``rows`` (plain values only) as ``marshal`` frames of ``chunk`` rows, each with its length and
    CRC, then an empty frame. A chunk at a time: at 100,000 runs the whole is ~90 MB, made at the
    build's peak of memory."""
    rows = iter(rows)
    while part := list(islice(rows, chunk)):
        frame = marshal.dumps(part)
        out.write(_FRAME.pack(len(frame), zlib.crc32(frame)) + frame)
    out.write(_FRAME.pack(0, 0))


def _read_frames(body: memoryview) -> tuple[list[tuple], list[tuple]]:
    """The two sections ``_write_frames`` wrote, and nothing after them; ValueError if any frame is damaged."""
    sections: list[list[tuple]] = [[], []]
    offset = 0
    for rows in sections:
        while True:
            length, crc = _FRAME.unpack_from(body, offset)
            offset += _FRAME.size
            if length == 0 and crc == 0:
                break
            frame = body[offset:offset + length]
            offset += length
            if len(frame) != length or zlib.crc32(frame) != crc:
                raise ValueError("damaged manifest frame")
            loaded = marshal.loads(frame)
            if type(loaded) is not list:
                raise ValueError("a manifest frame holds rows")
            rows.extend(loaded)
    if offset != len(body):
        raise ValueError("trailing bytes after the manifest")
    return sections[0], sections[1]


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


def _listing_digest(entries, chunk: int = 10_000) -> str:
    # "\0" sorts before any character of a path, so the lines sort as their paths do; they are
    # hashed a chunk at a time, which costs less than a call per line and less memory than one text.
    lines = sorted([f"{path}\0{size}\0{mtime}\0" for path, size, mtime in entries])
    digest = hashlib.sha256()
    for start in range(0, len(lines), chunk):
        digest.update("".join(lines[start:start + chunk]).encode("utf-8", "surrogateescape"))
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
