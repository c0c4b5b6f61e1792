"""Where Liger-Kernel's benchmark CSVs come from: one file, a gh-pages checkout, or an INDEX.csv.

Liger publishes each CI run of its benchmark suite on its ``gh-pages`` branch as
``benchmarks/<source commit>[-v<release>]/benchmark.csv`` (one *snapshot* per folder); versions
that a later gh-pages commit overwrote are kept beside them (``history/`` in
``shared/data/liger-gh-pages``) and an ``INDEX.csv`` names each file's folder, the gh-pages commit
that published it, its date and blob. This module turns the paths a person gives
``kernelindex import liger`` into a list of :class:`CsvInput` (a CSV path plus the snapshot it is,
if any), ordered by publication, and does nothing else: reading rows is ``liger``'s job.

Accepted paths:
- a CSV with Liger's 15-column header (``all_benchmark_data.csv``, or one snapshot's file: a file
  named ``benchmarks/<folder>/benchmark.csv`` is read as that snapshot);
- an ``INDEX.csv`` (header ``path,upstream_folder,ghpages_commit,...``): every file it lists,
  relative to its folder;
- a folder holding an ``INDEX.csv`` (read as above), else a folder laid out like gh-pages
  (``benchmarks/<folder>/benchmark.csv`` below it, or ``<folder>/benchmark.csv`` directly).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .output import ImporterError

INDEX_HEADER = ["path", "upstream_folder", "ghpages_commit", "ghpages_commit_date", "git_blob", "rows", "in_branch_head"]
SNAPSHOT_FILE = "benchmark.csv"
# <source commit, 7+ hex>[-v<release>]: the folder names Liger's benchmark workflow writes.
FOLDER = re.compile(r"^(?P<commit>[0-9a-f]{7,40})(?:-v(?P<release>[0-9][0-9A-Za-z.+-]*))?$")


@dataclass(frozen=True)
class Snapshot:
    """One published version of one gh-pages folder."""

    folder: str  # as upstream names it, e.g. "d5648bf-v0.6.3"
    commit: str  # the Liger source commit it benchmarked (the folder's hex prefix)
    release: str | None  # the Liger release the folder is tagged with, if any
    published: str  # UTC date-time (…Z) of the gh-pages commit that published it ("" when unknown)
    ghpages_commit: str  # "" when unknown
    blob: str  # git blob of the CSV ("" when unknown)
    path: str  # the file as given (relative to the INDEX when there is one)

    @property
    def label(self) -> str:
        """Short and unique among the versions of one folder: folder, plus the blob when known."""
        return f"{self.folder}@{self.blob[:7]}" if self.blob else self.folder


@dataclass(frozen=True)
class CsvInput:
    path: Path
    snapshot: Snapshot | None  # None: a curated file such as all_benchmark_data.csv


def utc(text: str) -> datetime:
    """An ISO date-time with any offset (gh-pages commit dates carry the committer's), as UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def snapshot_for_folder(folder: str, path: str, published: str = "", ghpages_commit: str = "",
                        blob: str = "") -> Snapshot:
    if published:
        published = utc(published).strftime("%Y-%m-%dT%H:%M:%SZ")
    match = FOLDER.match(folder)
    commit = match.group("commit") if match else folder
    release = match.group("release") if match else None
    return Snapshot(folder=folder, commit=commit, release=release, published=published,
                    ghpages_commit=ghpages_commit, blob=blob, path=path)


def read_index(index: Path) -> list[CsvInput]:
    """The files an INDEX.csv lists, each with its snapshot; a missing file is an error."""
    with index.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header != INDEX_HEADER:
            raise ImporterError(f"{index}:1: not a gh-pages INDEX.csv (expected the header {','.join(INDEX_HEADER)})")
        inputs = []
        for line, fields in enumerate(reader, start=2):
            if len(fields) != len(INDEX_HEADER):
                raise ImporterError(f"{index}:{line}: {len(fields)} columns, expected {len(INDEX_HEADER)}")
            entry = dict(zip(INDEX_HEADER, fields))
            relative = Path(entry["path"])
            if relative.is_absolute() or ".." in relative.parts:
                raise ImporterError(f"{index}:{line}: path {entry['path']!r} leaves the index's folder")
            target = index.parent / relative
            if not target.is_file():
                raise ImporterError(f"{index}:{line}: {target} does not exist")
            try:
                snapshot = snapshot_for_folder(entry["upstream_folder"], entry["path"], entry["ghpages_commit_date"],
                                               entry["ghpages_commit"], entry["git_blob"])
            except ValueError as error:
                raise ImporterError(f"{index}:{line}: ghpages_commit_date: {error}") from None
            inputs.append(CsvInput(target, snapshot))
    return inputs


def _is_index(path: Path) -> bool:
    with path.open(newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle), None) == INDEX_HEADER


def _folder_inputs(folder: Path) -> list[CsvInput]:
    if (folder / "INDEX.csv").is_file():
        return read_index(folder / "INDEX.csv")
    root = folder / "benchmarks" if (folder / "benchmarks").is_dir() else folder
    files = sorted(root.glob(f"*/{SNAPSHOT_FILE}"))
    if not files:
        raise ImporterError(f"{folder}: no INDEX.csv and no <folder>/{SNAPSHOT_FILE} files in it")
    return [CsvInput(path, snapshot_for_folder(path.parent.name, path.relative_to(folder).as_posix()))
            for path in files]


def discover(paths: list[Path]) -> list[CsvInput]:
    """Every CSV the paths stand for, each once, curated files first, then snapshots by publication."""
    inputs: list[CsvInput] = []
    for path in paths:
        if path.is_dir():
            inputs.extend(_folder_inputs(path))
        elif _is_index(path):
            inputs.extend(read_index(path))
        elif path.name == SNAPSHOT_FILE and path.parent.parent.name == "benchmarks":
            inputs.append(CsvInput(path, snapshot_for_folder(path.parent.name, f"benchmarks/{path.parent.name}/{path.name}")))
        else:
            inputs.append(CsvInput(path, None))
    unique: dict[Path, CsvInput] = {}
    for item in inputs:
        unique.setdefault(item.path.resolve(), item)
    # Curated files first (their rows keep the names they had before the history existed), then
    # snapshots in publication order; an unknown date sorts by folder name after the dated ones.
    return sorted(unique.values(), key=lambda i: (i.snapshot is not None,
                                                   (i.snapshot.published == "", i.snapshot.published, i.snapshot.folder,
                                                    i.snapshot.path) if i.snapshot else (False, "", "", str(i.path))))
