"""Protocol versions of Liger's benchmarks: when a series changed meaning without a schema change.

Liger's CI re-runs its benchmark scripts on every snapshot, and sometimes a script changed what it
times (a different input, a different loss setup) while the CSV columns stayed the same. A jump
there is not a regression, so the rows after the change get a protocol of their own. Which rows is
declared in ``data/sources/liger-kernel-gh-pages/protocol-splits.csv``, one line per (protocol it
splits from, kernel), read by the importer:

    protocol,base,kernel,published_from,also,except,evidence

- ``protocol``: the new version's protocol name (a hand-written file in ``protocols/`` whose
  description gives the evidence in full);
- ``base``: the protocol the kernel's rows had before (e.g. ``liger-bench-do-bench-forward``);
- ``published_from``: rows first published by a snapshot at or after this UTC time are on the new
  version...
- ``except``: ...unless that snapshot's folder is listed here (space-separated; a re-run of an older
  commit that still used the old script);
- ``also``: snapshot versions published earlier that already used the new script (``folder`` or
  ``folder@blob7``, space-separated);
- ``evidence``: one line, for people reading the table.

A row belongs to the snapshot that first published it (a measurement republished later keeps its
protocol); rows of all_benchmark_data.csv only stay on the base protocol.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .liger_inputs import Snapshot, utc
from .output import ImporterError

SPLITS_FILE = Path("sources") / "liger-kernel-gh-pages" / "protocol-splits.csv"
SPLITS_HEADER = ["protocol", "base", "kernel", "published_from", "also", "except", "evidence"]


@dataclass(frozen=True)
class Split:
    protocol: str
    base: str
    kernel: str
    published_from: datetime
    also: frozenset[str]
    excepted: frozenset[str]
    evidence: str

    def covers(self, snapshot: Snapshot) -> bool:
        if snapshot.folder in self.also or snapshot.label in self.also:
            return True
        if snapshot.folder in self.excepted or snapshot.label in self.excepted or not snapshot.published:
            return False
        return utc(snapshot.published) >= self.published_from


def read_splits(data_dir: Path) -> dict[tuple[str, str], Split]:
    """(base protocol, kernel) -> its split; no table means no splits."""
    path = data_dir / SPLITS_FILE
    if not path.is_file():
        return {}
    splits: dict[tuple[str, str], Split] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        if next(reader, None) != SPLITS_HEADER:
            raise ImporterError(f"{path}:1: expected the header {','.join(SPLITS_HEADER)}")
        for line, fields in enumerate(reader, start=2):
            if len(fields) != len(SPLITS_HEADER):
                raise ImporterError(f"{path}:{line}: {len(fields)} columns, expected {len(SPLITS_HEADER)}")
            entry = dict(zip(SPLITS_HEADER, fields))
            try:
                start = utc(entry["published_from"])
            except ValueError as error:
                raise ImporterError(f"{path}:{line}: published_from: {error}") from None
            key = (entry["base"], entry["kernel"])
            if key in splits:
                raise ImporterError(f"{path}:{line}: {entry['kernel']} under {entry['base']} is split twice")
            splits[key] = Split(entry["protocol"], entry["base"], entry["kernel"], start,
                                frozenset(entry["also"].split()), frozenset(entry["except"].split()), entry["evidence"])
    return splits


def split_for(base: str, kernel: str, snapshots: tuple[Snapshot, ...],
              splits: dict[tuple[str, str], Split]) -> str | None:
    """The protocol version a row is on, when a split covers its first publication; else None."""
    split = splits.get((base, kernel))
    if split is None or not snapshots:
        return None
    return split.protocol if split.covers(snapshots[0]) else None
