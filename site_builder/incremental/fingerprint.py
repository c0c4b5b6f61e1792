"""Fingerprints: one hash for everything a build's output depends on, taken before any loading.

A build is a pure function of the data folder's bytes, the builder's own code and templates, the
libraries that draw and serialise, the as-of date and the base URL. When the fingerprint of all
of them equals the one recorded for the site already on disk (and the site is unmodified, which
``site_manifest`` checks), a rebuild could only write the same bytes again, so it is skipped.

Hashing every data file costs less than it sounds, even for a large repository, and, unlike
modification times, it does not rebuild after a checkout that changed no byte. With
``cache``, a data file whose ``lstat`` is unchanged since it was last hashed is not read again
(``stat_index``, whose rules say why that is safe); the load that follows finds the same hashes.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from functools import cache
from importlib import metadata
from pathlib import Path

from .stat_index import StatIndex

ROOT = Path(__file__).resolve().parents[2]  # the repository: site_builder/incremental/ is two below
FORMAT = "kernelindex-build-fingerprint 1"
# Our code and everything it renders with: a change to any of them may change the output.
CODE_FOLDERS = ("site_builder", "schemas", "templates")
LIBRARIES = ("jinja2", "markupsafe", "pydantic", "pydantic-core", "altair", "vl-convert-python", "markdown-it-py",
             "ruamel.yaml", "PyYAML")


def _files_under(root: Path, relative: str = "", skip: tuple[str, ...] = ("__pycache__",)
                 ) -> Iterator[tuple[str, os.DirEntry]]:
    """Every file below ``root`` in a fixed order (sorted by name at each level), symlinks included
    as entries, folders named in ``skip`` left out."""
    with os.scandir(root / relative if relative else root) as listing:
        entries = sorted(listing, key=lambda entry: entry.name)
    for entry in entries:
        path = f"{relative}/{entry.name}" if relative else entry.name
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in skip:
                yield from _files_under(root, path, skip)
        else:
            yield path, entry


class DataFiles:
    """One listing of a data folder, with each file's ``lstat``, for the fingerprint and the load of
    one build: the load reads the files the fingerprint hashed (a file changed in between is seen
    by the next build, whose fingerprint differs), and neither lists the folder nor stats a file
    again. Make one per build; a listing kept longer would miss later changes.

    ``fingerprinted``: the entries ``tree_digest`` hashes (no ``__pycache__`` folders);
    ``data_files``: the load's files, the same as ``load.iter_data_files`` finds, in the same order.
    ``digests``: relative path -> sha256 of the bytes of each regular file ``tree_digest`` hashed
    from this listing; the load keys the parse cache by them, so it neither stats nor reads those
    files again and loads exactly the bytes the fingerprint covers.
    """

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.entries = list(_files_under(data_dir, skip=()))
        self.digests: dict[str, bytes] = {}

    def fingerprinted(self) -> Iterator[tuple[str, os.DirEntry]]:
        for path, entry in self.entries:
            if "__pycache__" not in path or "/__pycache__/" not in "/" + path:
                yield path, entry

    def data_files(self) -> tuple[list[str], list[str], list[bytes | None]]:
        """(paths, the same relative to the data folder, their ``digests`` or None where not hashed),
        as ``load.iter_data_files`` lists them: a data suffix, and a file (a link to one included:
        the load refuses it). Paths are strings: the load makes a Path only for a file it parses."""
        from ..load import DATA_SUFFIXES, _is_file, _suffix

        paths: list[str] = []
        relatives: list[str] = []
        digests: list[bytes | None] = []
        hashed = self.digests.get
        for relative, entry in self.entries:
            if _suffix(entry.name) in DATA_SUFFIXES and _is_file(entry):
                paths.append(entry.path)
                relatives.append(relative)
                digests.append(hashed(relative))
        return paths, relatives, digests


def tree_digest(root: Path, index: StatIndex | None = None, files: DataFiles | None = None) -> str:
    """sha256 over (path, sha256 of bytes) of every file below ``root``. A symlink counts as its
    target's path, not its content: the loader refuses symlinks anyway, and this never follows one.
    ``index``: where unchanged files' hashes are found and new ones kept (see ``stat_index``);
    ``files``: the listing of ``root`` to use, instead of listing it here; it keeps each regular
    file's hash (``DataFiles.digests``) for the load."""
    digest = hashlib.sha256()
    sha256 = hashlib.sha256
    hashed = files.digests if files is not None else {}
    for path, entry in (files.fingerprinted() if files is not None else _files_under(root)):
        if entry.is_symlink():
            content = b"symlink:" + os.readlink(entry.path).encode("utf-8", "surrogateescape")
            file_digest = sha256(content).digest()
        else:
            if index is None:
                with open(entry.path, "rb") as file:
                    file_digest = sha256(file.read()).digest()
            else:
                st = entry.stat(follow_symlinks=False)
                file_digest = index.lookup(path, st)
                if file_digest is None:
                    with open(entry.path, "rb") as file:
                        file_digest = index.record(path, st, file.read())
            hashed[path] = file_digest
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + file_digest)
    return digest.hexdigest()


@cache
def code_fingerprint() -> str:
    """Our code and templates, the library versions and the Python version."""
    digest = hashlib.sha256(f"{FORMAT}|{sys.version}".encode())
    for folder in CODE_FOLDERS:
        digest.update(f"\0{folder}\0{tree_digest(ROOT / folder)}".encode())
    for library in LIBRARIES:
        try:
            version = metadata.version(library)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"\0{library}=={version}".encode())
    return digest.hexdigest()


def build_fingerprint(data_dir: Path, *, as_of: str, base_url: str, cache: bool = True,
                      files: DataFiles | None = None) -> str:
    """Everything a build of ``data_dir`` depends on. ``as_of`` is the date when it is known before
    loading (``--as-of``, SOURCE_DATE_EPOCH, the last commit), else a marker saying it comes from
    the data itself, which the data digest then covers. ``cache``: False reads every file (the
    result is the same either way). ``files``: this build's listing of ``data_dir``, which the
    load is then given too (see ``DataFiles``)."""
    index = StatIndex.for_data(data_dir) if cache else None
    data_digest = tree_digest(data_dir, index, files)
    if index is not None:
        index.save()
    parts = (FORMAT, code_fingerprint(), data_digest, f"as-of={as_of}", f"base-url={base_url}")
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def fingerprint_with_digests(data_dir: Path, files: DataFiles, *, as_of: str, base_url: str) -> tuple[str, dict[str, bytes]]:
    """``build_fingerprint`` (with the stat index) and the digests it took of ``files``
    (``DataFiles.digests``): all the load needs of it, for a process that fingerprints for another."""
    return build_fingerprint(data_dir, as_of=as_of, base_url=base_url, files=files), files.digests
