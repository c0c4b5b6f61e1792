"""write: outputs go straight into a staging folder; the whole site is swapped in at once.

Nothing is held in memory but each file's record (path, hash, size, time): at 100,000 runs the
site is ~330,000 files and several GB, so they are written as they are made, by whichever
process made them. ``Staging`` is the part a forked render worker uses; ``Outputs`` is the
build's ledger on top of it.

``Outputs`` refuses a second file on a path (two slugs that collide must fail the build, not
overwrite each other silently) and any path that would land outside the output folder.
``commit`` renames the staging folder into place only when everything was written, so a failed
build never leaves a half-written site; the previous site goes away in the same step, and
nothing outside the output folder is touched. A file whose bytes the previous site already holds
is hard-linked from it rather than written again; a hard link is a second name for the same
bytes, so the old site going away does not take them with it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

from .manifest import FileRecord, PreviousSite


class OutputError(Exception):
    pass


def check_output_path(path: str) -> str:
    """A relative POSIX path that stays inside the output folder; slugs are validated, this is the guard.

    Written as string tests rather than ``posixpath.normpath`` because it runs for every file of
    every build (330,000 at 100k runs); it accepts exactly the paths normpath leaves unchanged."""
    if not path or path[0] == "/" or "\\" in path or "\x00" in path:
        raise OutputError(f"output path {path!r} is not a relative POSIX path")
    bounded = f"/{path}/"
    if "//" in bounded or "/./" in bounded or "/../" in bounded:
        raise OutputError(f"output path {path!r} would leave the output folder")
    return path


class Staging:
    """A folder being filled with a site; safe to use from forked processes (each writes its own files)."""

    def __init__(self, root: Path, previous: PreviousSite | None = None) -> None:
        self.root = root
        self.previous = previous
        self._root = str(root)
        self._previous_root = str(previous.root) if previous is not None else ""
        self._folders: set[str] = set()

    def put(self, path: str, content: bytes) -> FileRecord:
        """Write ``content`` at ``path``, or link the previous site's identical file."""
        check_output_path(path)
        sha = hashlib.sha256(content).hexdigest()
        if self.previous is not None and self.previous.reusable(path, sha) and self._link_previous(path):
            return self.previous.intact[path]
        self._make_folder(path)
        (self.root / path).write_bytes(content)
        return self._record(path, sha)

    def reuse(self, path: str) -> FileRecord | None:
        """Link the previous site's file at ``path`` as it is; None when there is no intact one.
        The record stays the previous one: a hard link is the same file, same size and time."""
        check_output_path(path)
        record = self.previous.record(path) if self.previous is not None else None
        if record is None or not self._link_previous(path):
            return None
        return record

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def _link_previous(self, path: str) -> bool:
        assert self.previous is not None
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

    def _record(self, path: str, sha: str) -> FileRecord:
        stat = os.stat(f"{self._root}/{path}")
        return FileRecord(path, sha, stat.st_size, stat.st_mtime_ns)


class Outputs:
    """The files of one build, written into a staging folder beside ``target`` as they come."""

    def __init__(self, target: Path, previous: PreviousSite | None = None) -> None:
        self.target = target.resolve()
        if self.target.exists() and not self.target.is_dir():
            raise OutputError(f"{self.target} exists and is not a folder")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix=f".{self.target.name}-tmp-new-", dir=self.target.parent))
        self.staging = Staging(root, previous)
        self._records: dict[str, FileRecord] = {}
        self._claimed_by: dict[str, str] = {}
        self.reused = 0  # files hard-linked from the previous site
        self._removal: threading.Thread | None = None  # deletes the replaced site after a commit

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is not None:
            self.discard()
        if self._removal is not None:
            self._removal.join()

    def add(self, path: str, content: bytes | str, *, by: str = "") -> None:
        self._check_unclaimed(path, by)
        self.claim(self.staging.put(path, content.encode("utf-8") if isinstance(content, str) else content), by=by)

    def claim(self, record: FileRecord, *, by: str = "") -> None:
        """A file a worker wrote into the staging folder. A path claimed twice fails the build
        (the second write already replaced the first one's bytes, but the build is then discarded)."""
        self._check_unclaimed(record.path, by)
        self._records[record.path] = record
        self._claimed_by[record.path] = by
        if self.staging.previous is not None and self.staging.previous.record(record.path) == record:
            self.reused += 1  # the very file the previous site had (linked, not written)

    def replace(self, path: str, content: bytes) -> None:
        """New bytes for a path already claimed (charts are drawn after their pages render). The
        old name is unlinked first: it may be a hard link into the previous site, which must not change."""
        if path not in self._records:
            raise OutputError(f"{path} was never added")
        if self.staging.previous is not None and self.staging.previous.record(path) == self._records[path]:
            self.reused -= 1
        os.unlink(self.staging.root / path)
        self._records[path] = self.staging.put(path, content)

    def _check_unclaimed(self, path: str, by: str) -> None:
        check_output_path(path)
        if path in self._records:
            raise OutputError(f"two outputs claim {path}: {self._claimed_by[path] or 'one'} and {by or 'another'}")

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, path: str) -> bytes:
        if path not in self._records:
            raise KeyError(path)
        return self.staging.read(path)

    @property
    def records(self) -> dict[str, FileRecord]:
        return self._records

    def commit(self) -> None:
        """Swap the staging folder in for the target; on failure the previous site stays as it was.

        The replaced site (330,000 files at 100k runs: seconds of unlinking) is deleted by a thread
        while the build finishes; leaving the ``with`` block waits for it."""
        try:
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
