"""A run's JSON as a reader gets it from a built site: its page's JSON link names its workload's
mirror and a JSON Pointer to the run in one of its comparison groups (``urls.run_mirror``),
assembled as compare.js and ``search.compare.run_at`` do."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from site_builder import urls
from site_builder.search.compare import pointed, run_at, run_document

_JSON_LINK = re.compile(r'<link rel="alternate" type="application/json" href="([^"]+)"')


def mirror_of(site: Path, page: str) -> str:
    """The site path of a page's JSON (a file, or a file and a JSON Pointer), from its JSON link."""
    href = _JSON_LINK.search((site / page).read_text(encoding="utf-8")).group(1)
    path, hash_, pointer = href.partition("#")
    return posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) + hash_ + pointer


def read_document(site: Path, mirror: str) -> dict:
    """The document at a mirror path (``api/v1/….json``, with a ``#/…`` JSON Pointer or without)."""
    path, _, pointer = mirror.partition("#")
    return pointed(json.loads((site / path).read_text(encoding="utf-8")), pointer)


def document_reader(site: Path) -> Callable[[str], dict]:
    """``read_document`` for a walk over many documents of ``site`` in the API index's order
    (``mirrors.listed_documents``): a group's runs follow it, in its workload's mirror, so the file
    last read is kept rather than parsed again for each of them."""
    last: dict[str, Any] = {}

    def read(mirror: str) -> dict:
        path, _, pointer = mirror.partition("#")
        if path not in last:
            last.clear()
            last[path] = json.loads((site / path).read_text(encoding="utf-8"))
        return pointed(last[path], pointer)

    return read


def read_run(site: Path, name: str) -> dict:
    """The run's document: ``html``, ``run`` (its manifest) and ``details``."""
    path, _, pointer = mirror_of(site, urls.run(name)).partition("#")
    return run_at(json.loads((site / path).read_text(encoding="utf-8")), pointer)


def some_runs(site: Path, count: int) -> list[dict]:
    """The documents of up to ``count`` runs, from the workloads' mirrors in path order, then the
    groups' own (those of workloads of many runs)."""
    found: list[dict] = []
    paths = sorted((site / "api/v1/kernels").rglob("*.json")) + sorted((site / "api/v1/groups").glob("*.json"))
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        groups = [group for _, group in sorted(document.get("groups", {}).items())] if "groups" in document else (
            [document] if "runs" in document and "comparison" in document else [])
        for group in groups:
            found.extend(run_document(group, name) for name in sorted(group["runs"]))
        if len(found) >= count:
            break
    return found[:count]
