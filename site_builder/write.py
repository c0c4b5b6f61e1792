"""write: every output is collected in memory first, then the whole site is swapped in at once.

``Outputs`` refuses a second file on a path (two slugs that collide must fail the build, not
overwrite each other silently) and any path that would land outside the output folder. ``commit``
writes into a temporary folder beside the target and renames it into place only when everything
was written, so a failed build never leaves a half-written site; the previous site goes away in
the same step, and nothing outside the output folder is touched.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

WRITE_THREADS = 8


class OutputError(Exception):
    pass


def check_output_path(path: str) -> str:
    """A relative POSIX path that stays inside the output folder; slugs are validated, this is the guard."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        raise OutputError(f"output path {path!r} is not a relative POSIX path")
    normal = posixpath.normpath(path)
    if normal != path or normal == "." or normal.startswith("../") or normal == "..":
        raise OutputError(f"output path {path!r} would leave the output folder")
    return path


class Outputs:
    def __init__(self) -> None:
        self._files: dict[str, bytes] = {}
        self._claimed_by: dict[str, str] = {}

    def add(self, path: str, content: bytes | str, *, by: str = "") -> None:
        check_output_path(path)
        if path in self._files:
            raise OutputError(f"two outputs claim {path}: {self._claimed_by[path] or 'one'} and {by or 'another'}")
        self._files[path] = content.encode("utf-8") if isinstance(content, str) else content
        self._claimed_by[path] = by

    def replace(self, path: str, content: bytes) -> None:
        """New bytes for a path already claimed (charts are drawn after their pages render)."""
        if path not in self._files:
            raise OutputError(f"{path} was never added")
        self._files[path] = content

    def __len__(self) -> int:
        return len(self._files)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._files))

    def __getitem__(self, path: str) -> bytes:
        return self._files[path]

    def commit(self, target: Path) -> None:
        target = target.resolve()
        if target.exists() and not target.is_dir():
            raise OutputError(f"{target} exists and is not a folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-tmp-new-", dir=target.parent))
        try:
            self._write_all(staging)
            _swap_in(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def _write_all(self, root: Path) -> None:
        for folder in sorted({posixpath.dirname(path) for path in self._files}):
            (root / folder).mkdir(parents=True, exist_ok=True)
        # Writing is waiting on the disk, not on Python (the GIL is released in write()): several
        # threads keep the disk busy. Which file lands first changes nothing in the result.
        with ThreadPoolExecutor(max_workers=WRITE_THREADS) as pool:
            for _ in pool.map(self._write_one, [root] * len(self._files), sorted(self._files), chunksize=256):
                pass
        # Static hosts (GitHub Pages among them) need files readable by everyone.
        os.chmod(root, 0o755)

    def _write_one(self, root: Path, path: str) -> None:
        (root / path).write_bytes(self._files[path])


def _swap_in(staging: Path, target: Path) -> None:
    """Replace ``target`` by ``staging`` with two renames; the old site is removed only afterwards."""
    if not target.exists():
        os.rename(staging, target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}-tmp-old-", dir=target.parent))
    os.rmdir(retired)
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except BaseException:
        os.rename(retired, target)  # put the previous site back
        raise
    shutil.rmtree(retired, ignore_errors=True)
