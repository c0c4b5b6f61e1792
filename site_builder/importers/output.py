"""Writing an importer's documents into a data folder.

Three promises, whatever the importer:

- **Deterministic**: every document is written in the canonical form of ``canonical_yaml`` (so
  ``kernelindex fmt --check`` passes untouched), and a file is rewritten only when its bytes
  change. Importing the same input twice changes nothing, not even a modification time.
- **Never over a person's file**: each written document carries ``metadata.labels.generated_by``
  naming the importer. A file at a planned path without that label was written (or taken over)
  by a person; it is kept as it is and reported as such.
- **No orphans**: a file the importer wrote before but did not plan this time (the upstream row
  went away) is removed, but only files that carry its own label, and only under the folders it
  names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml.error import YAMLError

from ..load import DATA_SUFFIXES
from ..canonical_yaml import canonical_yaml, load_plain

GENERATED_LABEL = "generated_by"


class ImporterError(Exception):
    """The input cannot be imported as it is (an unknown GPU, two rows claiming one run, ...)."""


@dataclass
class Plan:
    """Every document an import wants to exist, keyed by its path relative to the data folder."""

    importer: str
    documents: dict[PurePosixPath, dict[str, Any]] = field(default_factory=dict)

    def add(self, relative: str | PurePosixPath, document: dict[str, Any]) -> None:
        path = PurePosixPath(relative)
        labels = document["metadata"].setdefault("labels", {})
        labels[GENERATED_LABEL] = self.importer
        previous = self.documents.get(path)
        if previous is not None and previous != document:
            raise ImporterError(f"{path}: two different documents would be written to one file")
        self.documents[path] = document

    def __contains__(self, relative: str | PurePosixPath) -> bool:
        return PurePosixPath(relative) in self.documents


@dataclass
class Report:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # a person's file where the importer would write
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what a person must act on (e.g. a kernel to declare)

    def summary(self) -> str:
        return (f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
                f"{len(self.kept)} kept (hand-written), {len(self.removed)} removed")


def read_document(path: Path) -> dict[str, Any] | None:
    """A data file's plain values, or None when it is missing or unreadable."""
    try:
        value = load_plain(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def owner(path: Path) -> str | None:
    """The importer that wrote ``path`` (its ``generated_by`` label), or None for a person's file."""
    document = read_document(path)
    metadata = document.get("metadata") if document else None
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return labels.get(GENERATED_LABEL) if isinstance(labels, dict) else None


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.import-tmp")
    temporary.write_bytes(text.encode("utf-8"))
    os.replace(temporary, path)


def apply(plan: Plan, data_dir: Path, prune_under: tuple[str, ...]) -> Report:
    """Make ``data_dir`` hold exactly the plan's documents (see the module docstring)."""
    report = Report()
    for relative in sorted(plan.documents):
        path = data_dir / relative
        text = canonical_yaml(plan.documents[relative], path)
        if path.exists():
            if path.read_bytes() == text.encode("utf-8"):
                report.unchanged.append(str(relative))
                continue
            if owner(path) != plan.importer:
                report.kept.append(str(relative))
                continue
        _write_atomically(path, text)
        report.written.append(str(relative))
    for folder in prune_under:
        report.removed.extend(_prune(plan, data_dir, folder))
    return report


def _prune(plan: Plan, data_dir: Path, folder: str) -> list[str]:
    root = data_dir / folder
    if not root.is_dir():
        return []
    removed = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in DATA_SUFFIXES):
        relative = PurePosixPath(path.relative_to(data_dir).as_posix())
        if relative not in plan and owner(path) == plan.importer:
            path.unlink()
            removed.append(str(relative))
    for directory in sorted((d for d in root.rglob("*") if d.is_dir()), key=lambda d: len(d.parts), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    return removed
