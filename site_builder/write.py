"""write: outputs go straight into a staging folder; the site changes only when the build succeeded.

Nothing is held in memory but each file's record (path, hash, size, time): a large site is hundreds
of thousands of files and gigabytes of them, so they are written as they are made, by whichever
process made them. ``Staging`` is the part a forked render worker uses; ``Outputs`` is the build's
ledger on top of it.

``Outputs`` refuses a second file on a path (two slugs that collide must fail the build, not
overwrite each other silently) and any path that would land outside the output folder.
``commit`` changes the site only when everything was written, so a failed build never leaves a
half-written site, in one of two ways:

- a *full* build fills the staging folder with the whole site and renames it into place (the
  previous site goes away in the same step). A file whose bytes the previous site already holds
  is hard-linked from it rather than written again; a hard link is a second name for the same
  bytes, so the old site going away does not take them with it.
- an *in-place* rebuild, when the site on disk is exactly what its manifest lists, stages only the
  files whose bytes changed; the commit renames each into place and removes the files the build no
  longer makes. A rebuild after one changed run thus touches the few files it changed rather than
  relinking the whole site. Each file is replaced atomically, and until the commit returns every
  replaced or removed file is kept aside, so a commit that fails half-way puts them all back.

Nothing outside the output folder is touched but the staging folder and the aside folder beside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Sequence
from itertools import chain
from pathlib import Path

from .incremental.site_manifest import ClaimedFiles, FileRecord, PageRecord, PreviousSite, differing, lacking


class OutputError(Exception):
    pass


def check_output_path(path: str) -> str:
    """A relative POSIX path that stays inside the output folder; slugs are validated, this is the guard.

    Written as string tests rather than ``posixpath.normpath`` because it runs for every file of
    every build; it accepts exactly the paths normpath leaves unchanged."""
    if not path or path[0] == "/" or "\\" in path or "\x00" in path:
        raise OutputError(f"output path {path!r} is not a relative POSIX path")
    bounded = f"/{path}/"
    if "//" in bounded or "/./" in bounded or "/../" in bounded:
        raise OutputError(f"output path {path!r} would leave the output folder")
    return path


class Staging:
    """A folder being filled with a site; safe to use from forked processes (each writes its own files).

    ``in_place``: the previous site is the target itself and stays where it is; a file it already
    holds is kept there (nothing is written or linked) and only changed files are staged."""

    def __init__(self, root: Path, previous: PreviousSite | None = None, *, in_place: bool = False) -> None:
        self.root = root
        self.previous = previous
        self.in_place = in_place and previous is not None
        self._root = str(root)
        self._previous_root = str(previous.root) if previous is not None else ""
        self._intact = previous.intact if previous is not None else {}
        self._folders: set[str] = set()
        # The pages ``keep_pages`` kept, held (so that no other object takes one's id), and their ids:
        # ``Outputs.claim_kept`` knows them kept by their ids, without a lookup of each path again.
        self._kept_pages: list[Sequence[PageRecord]] = []
        self._kept_ids: set[int] = set()

    def put(self, path: str, content: bytes) -> FileRecord:
        """Write ``content`` at ``path``, or keep the previous site's identical file."""
        check_output_path(path)
        sha = hashlib.sha256(content).hexdigest()
        if self.previous is not None and self.previous.reusable(path, sha) and self._keep_previous(path):
            return self.previous.intact[path]
        self._make_folder(path)
        name = f"{self._root}/{path}"
        _write_file(name, content)
        stat = os.stat(name)  # after closing: the time a later listing of the site will see
        return FileRecord(path, sha, stat.st_size, stat.st_mtime_ns)

    def reuse(self, path: str) -> FileRecord | None:
        """Keep the previous site's file at ``path`` as it is; None when there is no intact one.
        The record stays the previous one: a kept or hard-linked file is the same file, same size and time."""
        record = self._intact.get(path)
        if record is None or self.in_place:  # in place, a kept file is left where it is: nothing to do
            return record
        check_output_path(path)  # before a link is made at it
        return record if self._keep_previous(path) else None

    def holds(self, paths: Iterable[str]) -> bool:
        """Whether the previous site has each of ``paths`` intact (to be kept by ``reuse``)."""
        return all(path in self._intact for path in paths)

    def keep_pages(self, pages: Sequence[PageRecord]) -> bool:
        """Keep the previous site's files of ``pages`` (``PageRecord.files``) as they are, all
        or none: False when one cannot be kept (not intact, or not linked), and then none is."""
        if self.in_place:  # kept where they are: intact is all it takes, and nothing is done
            intact = self._intact
            for page in pages:
                if any(path not in intact for path in page.files):
                    return False
        else:
            kept: list[str] = []
            for path in (path for page in pages for path in page.files):
                if self.reuse(path) is None:  # build them after all, from a clean slate
                    for done in kept:
                        self.discard(done)
                    return False
                kept.append(path)
        self._kept_pages.append(pages)
        self._kept_ids.update(map(id, pages))
        return True

    def took(self, pages: Sequence[PageRecord]) -> bool:
        """Whether ``keep_pages`` kept each of ``pages`` (these very objects): their files are intact."""
        return all(map(self._kept_ids.__contains__, map(id, pages)))

    def read(self, path: str) -> bytes:
        try:
            return (self.root / path).read_bytes()
        except FileNotFoundError:
            if not self.in_place:
                raise
            return (self.previous.root / path).read_bytes()  # type: ignore[union-attr]  # kept where it is

    def discard(self, path: str) -> None:
        """Forget this build's bytes at ``path`` (to write others, or to undo ``reuse``); a kept
        previous file stays as it is."""
        try:
            os.unlink(f"{self._root}/{path}")
        except FileNotFoundError:
            if not self.in_place:
                raise

    def _keep_previous(self, path: str) -> bool:
        assert self.previous is not None
        if self.in_place:
            return True
        self._make_folder(path)
        try:  # strings, not Path objects: this runs for every unchanged file of a rebuild
            os.link(f"{self._previous_root}/{path}", f"{self._root}/{path}")
        except OSError:  # another file system, or the file went away: write it instead
            return False
        return True

    def _make_folder(self, path: str) -> None:
        folder, _, _ = path.rpartition("/")
        if folder and folder not in self._folders:
            os.makedirs(f"{self._root}/{folder}", exist_ok=True)
            self._folders.add(folder)


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC


def _write_file(name: str, content: bytes) -> None:
    """``Path(name).write_bytes(content)`` in plain system calls: it runs for every file of a build,
    and a Path object and a buffered file object each time are overhead the write does not need."""
    descriptor = os.open(name, _CREATE, 0o666)
    try:
        view = memoryview(content)
        while view:  # a write may take fewer bytes than it was given
            view = view[os.write(descriptor, view):]
    finally:
        os.close(descriptor)


class Outputs:
    """The files of one build, written into a staging folder beside ``target`` as they come.

    Its ledger of records starts as a copy of the previous site's intact files (a copy of a dict is
    made in C at memory speed) and loses those no output claimed when it is read (``records``,
    ``commit``): a rebuild keeps nearly every file as it was and claims those it built again, so
    the kept ones cost a set of their paths, to find a path claimed twice, rather than
    a lookup and an insertion each. Which paths are claimed is the set of those kept
    (``claim_kept``) and the files claimed one by one (``claim``), whose records are also what the
    ledger knows may differ from the previous site's (``manifest.ClaimedFiles``)."""

    def __init__(self, target: Path, previous: PreviousSite | None = None) -> None:
        self.target = target.resolve()
        if self.target.exists() and not self.target.is_dir():
            raise OutputError(f"{self.target} exists and is not a folder")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix=f".{self.target.name}-tmp-new-", dir=self.target.parent))
        # In place only over a site known to hold exactly its manifest's files: then every file the
        # build does not make again is known, and nothing on disk is a stranger to remove or keep.
        in_place = previous is not None and previous.untouched and previous.root.resolve() == self.target
        self.staging = Staging(root, previous, in_place=in_place)
        self._intact = previous.intact if previous is not None else {}  # the previous site's files
        self._records = ClaimedFiles(self._intact)  # the intact files, then the claimed ones (see the class)
        self._claimed = self._records.claimed  # path -> record of each file claimed one by one
        self._kept_paths: set[str] = set()  # the paths of the pages kept (``claim_kept``): intact files
        self._claimed_by: dict[str, object] = {}  # what claimed each path, named in an error (``claim``)
        self._kept: list[Sequence[PageRecord]] = []  # pages kept from the previous site: their paths' claimants
        self._claimed_intact = 0  # files claimed one by one at paths the previous site has
        self._settled_at: tuple[int, int] | None = None  # the claims when the unclaimed files were taken out
        self.reused = 0  # files kept or hard-linked from the previous site
        self._removal: threading.Thread | None = None  # deletes the replaced site after a commit

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is not None:
            self.discard()
        if self._removal is not None:
            self._removal.join()

    def add(self, path: str, content: bytes | str, *, by: object = "") -> None:
        self._check_unclaimed(path, by)
        self.claim(self.staging.put(path, content.encode("utf-8") if isinstance(content, str) else content), by=by)

    def claim(self, record: FileRecord, *, by: object = "") -> None:
        """A file a worker wrote into the staging folder. A path claimed twice fails the build
        (the second write already replaced the first one's bytes, but the build is then discarded).

        ``by`` names what made the file, in its ``str`` (made only for that error): a page passes
        its record, which the build keeps anyway, rather than a text per file (two for each page,
        all kept until the build ends)."""
        path = record.path
        self._check_unclaimed(path, by)
        self._records[path] = self._claimed[path] = record
        self._claimed_by[path] = by
        if path in self._intact:
            self._claimed_intact += 1
            if self._intact[path] == record:
                self.reused += 1  # the very file the previous site had (linked, not written)

    def claim_kept(self, pages: Sequence[PageRecord]) -> None:
        """The files of ``pages`` that the staging folder kept from the previous site
        (``Staging.keep_pages``), each of a page's files (``PageRecord.files``) claimed by its record, as ``claim``
        would. Their paths need no guard: no file is written at them (a file kept in place stays
        where it is; a linked one was checked before the link was made).

        Their records are the previous site's, already in the ledger: the paths are only gathered
        in a set, all at once where none is claimed twice and each is an intact file (known
        without a lookup where ``keep_pages`` kept these very pages: a lookup of a path the
        previous manifest holds as another string object compares their text, for every kept
        file); a page is looked up as a path's claimant only for an error."""
        files = [page.files for page in pages]
        kept = set(chain.from_iterable(files))
        count = sum(map(len, files))
        if (len(kept) == count and self._kept_paths.isdisjoint(kept) and self._claimed.keys().isdisjoint(kept)
                and (self.staging.took(pages) or kept <= self._intact.keys())):
            if self._kept_paths:
                self._kept_paths |= kept
            else:  # the first pages kept (a rebuild keeps its unchanged kernels' at once, first): no copy
                self._kept_paths = kept
            self._kept.append(pages)
        else:  # one by one, to name the two claimants of the path claimed twice as ``claim`` does
            for page in pages:
                for path in page.files:
                    self._refuse_second_claim(path, page)
                    self._records[path] = self._intact[path]  # a KeyError where it is not intact, as ever
                    self._kept_paths.add(path)
                    self._claimed_by[path] = page
        self.reused += count

    def keep(self, path: str, *, by: object = "") -> None:
        """Claim the previous site's file at ``path`` as it is (a chart drawing that a page kept from
        the previous site shows, and no page built now does)."""
        record = self.staging.reuse(path)
        if record is None:
            raise OutputError(f"{path} ({by or 'kept'}) is not in the previous site to keep")
        self.claim(record, by=by)

    def _check_unclaimed(self, path: str, by: object) -> None:
        check_output_path(path)
        self._refuse_second_claim(path, by)

    def _is_claimed(self, path: str) -> bool:
        return path in self._claimed or path in self._kept_paths

    def _refuse_second_claim(self, path: str, by: object) -> None:
        if self._is_claimed(path):
            raise OutputError(f"two outputs claim {path}: {self._claimant(path) or 'one'} and {by or 'another'}")

    def _claimant(self, path: str) -> object:
        if path in self._claimed_by:
            return self._claimed_by[path]
        return next(page for pages in self._kept for page in pages if path in page.files)

    def _settled(self) -> ClaimedFiles:
        """The ledger, less the previous site's files that no output claimed. None, by the count,
        after a rebuild that makes every file again: then nothing is looked at."""
        claims = (len(self._kept_paths), self._claimed_intact)
        if sum(claims) != len(self._intact) and claims != self._settled_at:
            for path in self._intact.keys() - self._kept_paths - self._claimed.keys():
                self._records.pop(path, None)  # taken out by an earlier read, maybe
            self._settled_at = claims  # read again before another claim: nothing more to take out
        return self._records

    @property
    def in_place(self) -> bool:
        """Whether ``commit`` moves changed files into the site rather than swapping a whole new one in."""
        return self.staging.in_place

    def __len__(self) -> int:
        return len(self._kept_paths) + len(self._claimed)

    def __getitem__(self, path: str) -> bytes:
        if not self._is_claimed(path):
            raise KeyError(path)
        return self.staging.read(path)

    @property
    def records(self) -> dict[str, FileRecord]:
        """Every file's record, by path (once every output is claimed)."""
        return self._settled()

    def commit(self) -> None:
        """Make the target the site just built; on failure the previous site stays as it was.

        What is taken away (the replaced site after a swap: every file of it, long to unlink on a
        large site) is deleted by a thread while the build finishes; leaving the ``with`` block
        waits for it."""
        try:
            if self.staging.in_place:
                retired = _update_in_place(self.staging, self._settled(), self.target)
            else:
                # Static hosts (GitHub Pages among them) need files readable by everyone.
                os.chmod(self.staging.root, 0o755)
                retired = _swap_in(self.staging.root, self.target)
        except BaseException:
            self.discard()
            raise
        if retired is not None:
            self._removal = threading.Thread(target=shutil.rmtree, args=(retired,), kwargs={"ignore_errors": True})
            self._removal.start()

    def discard(self) -> None:
        shutil.rmtree(self.staging.root, ignore_errors=True)


def _update_in_place(staging: Staging, records: dict[str, FileRecord], target: Path) -> Path:
    """Move the staged files into ``target`` over their old versions and remove the files no longer
    made; returns the folder the old versions were put aside in, to be removed. Any failure puts
    every moved file back, so the target is the previous site again."""
    previous = staging.previous
    assert previous is not None
    kept = previous.intact
    changed = differing(records, kept)
    written = [path for path, _ in changed]
    gone = lacking(records, kept, changed)
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}-tmp-old-", dir=target.parent))
    moves: list[tuple[str, str]] = []  # (from, to), in the order done, to be undone in reverse

    def move(source: str, destination: str) -> None:
        os.rename(source, destination)
        moves.append((source, destination))

    try:
        # The old versions go aside under numbers: one folder, no tree to recreate.
        for number, path in enumerate(gone):
            move(f"{target}/{path}", f"{aside}/{number}")
        for number, path in enumerate(written, start=len(gone)):
            if path in previous.intact:
                move(f"{target}/{path}", f"{aside}/{number}")
            folder = path.rpartition("/")[0]
            if folder:
                os.makedirs(f"{target}/{folder}", exist_ok=True)
            move(f"{staging.root}/{path}", f"{target}/{path}")
    except BaseException:
        for source, destination in reversed(moves):
            os.rename(destination, source)
        _remove_empty_folders(target, written)  # any made for new files
        shutil.rmtree(aside, ignore_errors=True)
        raise
    _remove_empty_folders(target, gone)
    shutil.rmtree(staging.root, ignore_errors=True)  # only folders are left in it
    return aside


def _remove_empty_folders(target: Path, removed: list[str]) -> None:
    """Folders emptied by removing files go too: a build from scratch would not make them."""
    folders = {path.rpartition("/")[0] for path in removed} - {""}
    for folder in sorted(folders, key=lambda f: -f.count("/")):
        while folder:
            try:
                os.rmdir(f"{target}/{folder}")
            except OSError:  # not empty (or already gone): its parents are not empty either
                break
            folder = folder.rpartition("/")[0]


def _swap_in(staging: Path, target: Path) -> Path | None:
    """Replace ``target`` by ``staging`` with two renames; returns where the old site now is, to be removed."""
    if not target.exists():
        os.rename(staging, target)
        return None
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}-tmp-old-", dir=target.parent))
    os.rmdir(retired)
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(retired, target)  # put the previous site back
        raise
    return retired
