"""The manifest of a built site: what it was built from, and every file's hash, size and time.

It is saved in the cache folder, one per output folder (never in the site, where it would be
served, and on a large site would be one of its heaviest files). The next build of that folder
reads it to

- skip the build entirely when the inputs' fingerprint is unchanged and the site on disk still
  is exactly what the manifest lists (same files, sizes and modification times: someone may have
  edited or deleted a file since);
- reuse unchanged files: a file whose new bytes hash to what the old site holds is kept (or,
  when a whole new site is staged, hard-linked from it) instead of written, and a page whose
  mirror is unchanged is not rendered again when the renderer itself is unchanged (its HTML is a
  function of its view model, the templates and code).

A rebuild changes a small share of a site's records, and a large site has hundreds of thousands, so
a manifest is stored as a *base* (every record, in a file of its own) and the *changes* since (in
the manifest file, with the header): a save after a rebuild writes only the changes, on top of the
base the previous manifest was read from, until they grow past an eighth of the records and a new
base is written. The listing digest is a sum of one hash per file, so it follows the changes too,
without going over every file again.
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
from itertools import chain, compress, islice
from operator import is_not, itemgetter
from pathlib import Path
from typing import NamedTuple

from ..gc_pause import paused_gc
from ..urls import has_own_mirror

FORMAT = "kernelindex-site-manifest 6"  # 5: a base and the changes since; 6: the charts a page shows


class FileRecord(NamedTuple):
    """One output file as written: its path in the site, sha256 (hex), size and mtime in ns.
    (A named tuple, small and quick to make, because a rebuild reads one back per file of the site.)"""

    path: str
    sha256: str
    size: int
    mtime_ns: int


class PageRecord(NamedTuple):
    """A page a signed task built (``page_signatures``): what the API index needs to list it again."""

    kind: str
    title: str
    html: str
    mirror: str
    charts: str = ""  # the chart drawings it shows (``urls.chart``), by path, space-separated; shared with other pages

    def __str__(self) -> str:
        """How a build names the page in an error (``write.Outputs.claim``)."""
        return f"{self.kind} page {self.title!r}"

    @property
    def files(self) -> tuple[str, ...]:
        """The page's files: its HTML, and its mirror unless that is a part of another page's (a
        group's JSON in its workload's, a run's in its group's: ``urls.group_mirror``)."""
        return (self.html, self.mirror) if has_own_mirror(self.mirror) else (self.html,)

    @property
    def chart_files(self) -> tuple[str, ...]:
        """The chart drawings it shows: files of the site that other pages may show too, so not its own."""
        return tuple(self.charts.split()) if self.charts else ()


def manifest_path(cache_dir: Path, out_dir: Path) -> Path:
    """Where the manifest of the site at ``out_dir`` lives (one per output folder, its base beside it)."""
    key = hashlib.sha256(str(out_dir.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_dir / "sites" / f"{key}.tsv"


@dataclass(frozen=True)
class SiteManifest:
    fingerprint: str  # of the build's inputs (``fingerprint.build_fingerprint``)
    renderer: str  # of what turns a view model into HTML: code, templates, Vega bundle, base URL
    files: dict[str, FileRecord]
    pages: dict[str, list[PageRecord]] = field(default_factory=dict)  # by signature
    # How a manifest read from disk is stored (None for one a build made): what the next save builds on.
    stored: Stored | None = field(default=None, compare=False, repr=False)

    @property
    def listing(self) -> str:
        """``listing_digest`` of the site as written."""
        return _hex(_listing_sum(map(_LISTED, self.files.values())))

    def save(self, path: Path, since: SiteManifest | None = None) -> None:
        """Atomically: a crash leaves the old manifest or the new one, never half of one. ``since``:
        the manifest read before the build (the previous site's), on whose base this one is saved
        as changes while they are few; else a new base is written first.

        Seven header lines (the first five are all a build with nothing to do reads), then the
        changes as ``marshal`` frames (``_write_frames``): the files' new records, the paths
        removed, the pages of new or changed signatures, the signatures gone."""
        path.parent.mkdir(parents=True, exist_ok=True)
        stored = _changes_since(self, since)
        if stored is None:
            stored = self._save_base(path)
        header = [FORMAT, f"fingerprint\t{self.fingerprint}", f"renderer\t{self.renderer}",
                  f"listing\t{_hex(stored.listing)}", f"files\t{len(self.files)}", f"body\t{_BODY}",
                  f"base\t{stored.base.name}"]
        _write_atomically(path, header, [
            (tuple(record) for record in stored.files.values() if record is not None),
            [gone for gone, record in stored.files.items() if record is None],
            ((signature, *page) for signature, listed in stored.pages.items() if listed for page in listed),
            [signature for signature, listed in stored.pages.items() if listed is None]])
        for unnamed in path.parent.glob(f"{path.stem}.*.base"):  # bases before this one: no manifest names them now
            if unnamed != stored.base:
                unnamed.unlink(missing_ok=True)

    def _save_base(self, path: Path) -> Stored:
        """Every record, in a base file beside ``path``, named after what it holds (a build is
        deterministic: the same inputs and renderer make the same site and pages)."""
        listing = _listing_sum(map(_LISTED, self.files.values()))
        name = hashlib.sha256(f"{self.fingerprint}\0{self.renderer}\0{listing}".encode()).hexdigest()[:24]
        base = path.with_name(f"{path.stem}.{name}.base")
        # Plain tuples: marshal writes no named ones.
        _write_atomically(base, [_BASE_LINE], [
            map(tuple, self.files.values()),
            ((signature, *page) for signature, listed in self.pages.items() for page in listed)])
        return Stored(base, listing, {}, {})

    @classmethod
    def read(cls, path: Path) -> SiteManifest | None:
        """The manifest, or None when there is none or it is not one we can read (then: full build):
        another format or Python, a base that is missing or not this one's, a frame whose CRC fails,
        a body cut short or of the wrong shape."""
        try:
            content = path.read_bytes()
            body = _after_lines(content, 7)
            lines = content[:body].decode("utf-8", "surrogateescape").split("\n")
            if lines[0] != FORMAT or lines[5] != f"body\t{_BODY}":
                return None
            fingerprint, renderer, listing, count, base_name = (lines[number].split("\t")[1] for number in (1, 2, 3, 4, 6))
            base = path.with_name(base_name)  # ValueError for anything but a file name
            base_content = base.read_bytes()
            base_body = _after_lines(base_content, 1)
            if base_content[:base_body] != f"{_BASE_LINE}\n".encode():
                return None
            with paused_gc(keep=True):  # a record per file and page, kept for the whole build
                file_rows, page_rows = _read_frames(memoryview(base_content)[base_body:], 2)
                changed_files, removed_files, changed_pages, removed_pages = _read_frames(memoryview(content)[body:], 4)
                if (set(map(len, chain(file_rows, changed_files))) | {4} != {4}
                        or set(map(len, chain(page_rows, changed_pages))) | {6} != {6}):
                    return None
                files = dict(zip(map(_FIRST, file_rows), map(_FILE_RECORD, file_rows)))
                pages = _by_signature(page_rows)
                stored = Stored(base, int(listing, 16),
                                {**dict.fromkeys(removed_files), **dict(zip(map(_FIRST, changed_files), map(_FILE_RECORD, changed_files)))},
                                {**dict.fromkeys(removed_pages), **_by_signature(changed_pages)})
            count = int(count)
        except (OSError, IndexError, ValueError, TypeError, EOFError, struct.error):
            return None
        _apply(files, stored.files)
        _apply(pages, stored.pages)
        # Paths end up in links and file names: anything but text is a damaged manifest.
        if (len(files) != count or not _all_text(chain(files, removed_files, removed_pages))
                or not _all_text(chain.from_iterable(chain(page_rows, changed_pages)))):
            return None
        return cls(fingerprint, renderer, files, pages, stored)


@dataclass(frozen=True)
class Stored:
    """How a manifest read from disk is stored: its base file, its listing (``_listing_sum``), and
    the changes on top of the base (a file's record, or None where the file is gone; a signature's
    pages, or None where the signature is gone)."""

    base: Path
    listing: int
    files: dict[str, FileRecord | None]
    pages: dict[str, list[PageRecord] | None]


# A new base is written once the changes on top of the last one hold more than this part of the
# records: a manifest is read whole (its base and the changes) by every rebuild.
REBASE_FROM = 1 / 8


def _changes_since(manifest: SiteManifest, since: SiteManifest | None) -> Stored | None:
    """``manifest`` as changes on top of ``since``'s base: those ``since`` held, then what differs
    between the two. None when ``since`` was not read from disk, its base is gone, or the changes
    are too many."""
    stored = since.stored if since is not None else None
    if stored is None or not stored.base.is_file():
        return None
    before = since.files  # type: ignore[union-attr]
    changed = differing(manifest.files, before)
    gone = lacking(manifest.files, before, changed)
    files = {**stored.files, **dict(changed), **dict.fromkeys(gone)}
    replaced = [before[path] for path, _ in changed if path in before]
    listing = (stored.listing + _listing_sum(_LISTED(record) for _, record in changed)
               - _listing_sum(map(_LISTED, chain(replaced, map(before.__getitem__, gone)))))
    changed_pages = differing(manifest.pages, since.pages)  # type: ignore[union-attr]
    pages = {**stored.pages, **{signature: listed or None for signature, listed in changed_pages},
             **dict.fromkeys(lacking(manifest.pages, since.pages, changed_pages))}  # type: ignore[union-attr]
    if len(files) + len(pages) > REBASE_FROM * (len(manifest.files) + len(manifest.pages)):
        return None
    return Stored(stored.base, listing % _LISTING_MODULUS, files, pages)


class ClaimedFiles(dict):
    """A build's file records (path -> ``FileRecord``) that know which of them may differ from
    ``baseline`` (the previous site's): every value is the baseline's very record but those under
    the keys of ``claimed`` (the files claimed one by one, in the order claimed; its values are
    this dict's). ``write.Outputs`` keeps that true; ``differing`` then looks at ``claimed`` alone:
    a rebuild claims the files of the pages it built again, and keeps all the others as they were."""

    __slots__ = ("baseline", "claimed")

    def __init__(self, baseline: dict[str, FileRecord]) -> None:
        super().__init__(baseline)
        self.baseline = baseline
        # Over no previous site every file is claimed: the dict itself says so, with no second one
        # holding a record per file at a cold build's peak of memory.
        self.claimed: dict[str, FileRecord] = {} if baseline else self


def differing(after: dict, before: dict) -> list[tuple]:
    """(key, value) of ``after`` where ``before`` holds another value, or none. Most values of a
    rebuild's manifest are the very objects the previous one read: an identity test, made in C,
    leaves only the few others to compare; and where ``after`` knows which those are (``ClaimedFiles``
    over ``before``), only they are looked at, in the order they were claimed."""
    if type(after) is ClaimedFiles and after.baseline is before:
        return [(key, value) for key, value in after.claimed.items() if before.get(key) != value]
    suspects = compress(after.items(), map(is_not, after.values(), map(before.get, after)))
    return [(key, value) for key, value in suspects if before.get(key) != value]


def lacking(after: dict, before: dict, changed: list[tuple]) -> list:
    """The keys of ``before`` that ``after`` lacks, sorted (the same changes are saved the same way);
    ``changed``: ``differing(after, before)``. None at all when the counts say so: every key of ``after``
    but the new ones is one of ``before``'s."""
    new = sum(key not in before for key, _ in changed)
    if len(after) - new == len(before):
        return []
    return sorted(before.keys() - after.keys())


def _by_signature(rows: list[tuple]) -> dict[str, list[PageRecord]]:
    pages: dict[str, list[PageRecord]] = {}
    for row in rows:
        pages.setdefault(row[0], []).append(_PAGE_RECORD(row[1:]))
    return pages


def _apply(target: dict, changes: dict) -> None:
    """The changes on top of ``target``: a value replaces, None removes."""
    for key, value in changes.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def _write_atomically(path: Path, lines: list[str], sections: Iterable[Iterable]) -> None:
    """``lines``, then each section as frames, in a file that replaces ``path`` once it is whole."""
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(temporary, "wb") as out:
        out.write("\n".join(lines).encode("utf-8", "surrogateescape") + b"\n")
        for rows in sections:
            _write_frames(out, rows)
    os.replace(temporary, path)


# Records made from rows of the right length (``read`` checks them all at once) without a Python
# call each, as ``_make`` is: there is one per file and page of the site.
_FILE_RECORD = partial(tuple.__new__, FileRecord)
_PAGE_RECORD = partial(tuple.__new__, PageRecord)
_FIRST = itemgetter(0)
_LISTED = itemgetter(0, 2, 3)  # a file record's path, size and mtime: what a listing sees


def _all_text(values: Iterable[object]) -> bool:
    return set(map(type, values)) <= {str}  # in C rather than a Python test per value: several per record


def _after_lines(content: bytes, count: int) -> int:
    """Where the text after the first ``count`` lines starts; ValueError when there are fewer."""
    offset = 0
    for _ in range(count):
        offset = content.index(b"\n", offset) + 1
    return offset


# marshal's format may change with Python's version: a manifest another Python wrote is not read.
_BODY = f"marshal {marshal.version} python {'.'.join(map(str, sys.version_info[:3]))}"
_BASE_LINE = f"{FORMAT} base, {_BODY}"  # the first line of a base file
_FRAME = struct.Struct("<II")  # a frame's length and the CRC-32 of its bytes; length 0 ends a section


def _write_frames(out, rows: Iterable, chunk: int = 5_000) -> None:
    """``rows`` (plain values only) as ``marshal`` frames of ``chunk`` rows, each with its length and
    CRC, then an empty frame. A chunk at a time, because on a large site the whole would be a
    second copy of the records, made at the build's peak of memory."""
    rows = iter(rows)
    while part := list(islice(rows, chunk)):
        frame = marshal.dumps(part)
        out.write(_FRAME.pack(len(frame), zlib.crc32(frame)) + frame)
    out.write(_FRAME.pack(0, 0))


def _read_frames(body: memoryview, sections: int) -> list[list]:
    """The ``sections`` sections ``_write_frames`` wrote, and nothing after them; ValueError if any frame is damaged."""
    found: list[list] = [[] for _ in range(sections)]
    offset = 0
    for rows in found:
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
    return found


@dataclass(frozen=True)
class ManifestHeader:
    fingerprint: str
    listing: str
    files: int


def read_header(path: Path) -> ManifestHeader | None:
    """The first lines only: all a build with nothing to do needs (the whole manifest is large)."""
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
    return _hex(_listing_sum((path, stat.st_size, stat.st_mtime_ns) for path, stat in _walk(root)))


# A listing is the sum of one SHA-256 per file, modulo 2**256: it does not depend on the order the
# files are seen in, and a manifest saved as changes adds and subtracts the changed files' hashes.
_LISTING_MODULUS = 1 << 256


def _listing_sum(entries: Iterable[tuple[str, int, int]]) -> int:
    """``entries``: (path, size, mtime in ns) of each file."""
    sha256, number = hashlib.sha256, int.from_bytes
    return sum([number(sha256(f"{path}\0{size}\0{mtime}".encode("utf-8", "surrogateescape")).digest(), "little")
                for path, size, mtime in entries]) % _LISTING_MODULUS


def _hex(listing: int) -> str:
    return f"{listing:064x}"


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
    manifest: SiteManifest | None = None  # what it was compared with: the next manifest is saved as changes to it

    @classmethod
    def as_written(cls, root: Path, manifest: SiteManifest) -> PreviousSite:
        """The site, known (by ``listing_digest``) to be exactly what the manifest lists."""
        return cls(root, manifest.renderer, manifest.files, manifest.pages, untouched=True, manifest=manifest)

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
             if all(path in intact for page in listed for path in chain(page.files, page.chart_files))}
    return PreviousSite(out_dir, manifest.renderer, intact, pages, manifest=manifest)


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
