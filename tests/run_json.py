"""A run's JSON as a reader gets it from a built site: its page's JSON link names its comparison
group's mirror and the run in it (``urls.run_mirror``), assembled as compare.js and
``search.compare.run_document`` do."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from site_builder import urls
from site_builder.search.compare import run_document

_JSON_LINK = re.compile(r'<link rel="alternate" type="application/json" href="([^"]+)"')
POINTER = "#/runs/"


def run_mirror_of(site: Path, name: str) -> str:
    """The site path of the run's JSON (``api/v1/groups/<group>.json#/runs/<name>``), from its page."""
    page = (site / urls.run(name)).read_text(encoding="utf-8")
    href = _JSON_LINK.search(page).group(1)
    return posixpath.normpath(posixpath.join(posixpath.dirname(urls.run(name)), href.split("#")[0])) + "#" + href.split("#", 1)[1]


def read_run(site: Path, name: str) -> dict:
    """The run's document: ``html``, ``run`` (its manifest) and ``details``."""
    path, _, run = run_mirror_of(site, name).partition(POINTER)
    return run_document(json.loads((site / path).read_text(encoding="utf-8")), run)


def some_runs(site: Path, count: int) -> list[dict]:
    """The documents of up to ``count`` runs, from the groups' mirrors in path order."""
    found: list[dict] = []
    for path in sorted((site / "api/v1/groups").glob("*.json")):
        group = json.loads(path.read_text(encoding="utf-8"))
        found.extend(run_document(group, name) for name in sorted(group["runs"]))
        if len(found) >= count:
            break
    return found[:count]
