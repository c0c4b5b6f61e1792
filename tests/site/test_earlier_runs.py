"""Superseded runs (issue 24): each is shown in full among its group page's earlier runs, and its
own page leads there instead of repeating the group's facts. Built from the Liger gh-pages fixture
(tests/fixtures/liger-gh-pages: 336 runs, most of them weeks that a later week supersedes)."""

from __future__ import annotations

import posixpath
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder.build import build_site
from site_builder.importers.liger import import_liger
from site_builder.importers.output import read_document

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
FIXTURE = ROOT / "tests" / "fixtures" / "liger-gh-pages"
KERNELS = ("dpo-loss", "fused-linear-cross-entropy", "softmax", "dyt-beta-true")
AS_OF = date(2026, 12, 2)


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    """(the built site, every run's manifest by name) of the fixture's history."""
    root = tmp_path_factory.mktemp("earlier")
    data = root / "data"
    for folder in ("sources", "protocols", "environments", "projects", "hardware"):
        shutil.copytree(DATA / folder, data / folder)
    (data / "kernels").mkdir()
    for kernel in KERNELS:
        shutil.copy(DATA / "kernels" / f"{kernel}.yaml", data / "kernels" / f"{kernel}.yaml")
    import_liger(FIXTURE, data)
    build_site(data, root / "site", as_of=AS_OF, cache=False)
    runs = {path.stem: read_document(path) for path in (data / "runs").rglob("*.yaml")}
    return root / "site", runs


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def words(node) -> str:
    return re.sub(r"\s+", " ", node.get_text(" ", strip=True))


def redirect_target(page: BeautifulSoup) -> str:
    refresh = page.find("meta", attrs={"http-equiv": "refresh"})["content"]
    return refresh.split("url=", 1)[1]


def test_a_superseded_runs_page_leads_to_its_entry_which_shows_its_own_facts(history):
    site, runs = history
    superseded_by = {run["spec"]["supersedes"]: name for name, run in runs.items() if run["spec"].get("supersedes")}
    assert len(superseded_by) > 100  # the fixture's weekly series
    for name, newer in superseded_by.items():
        page = soup(site, f"runs/{name}.html")
        assert page.select_one("main") is None, name  # not a page of its own any more
        target = redirect_target(page)
        assert page.find("a", href=target) is not None  # the same place without the refresh
        path, anchor = target.split("#")
        assert anchor == f"run-{name}"
        group = soup(site, posixpath.normpath(posixpath.join("runs", path)))
        entry = group.select_one(f"ol.earlier li#run-{name}")
        assert entry is not None, name
        text = words(entry)
        spec = runs[name]["spec"]
        assert f"observed {spec['observedAt'][:10]}" in text
        assert f"superseded by {newer}" in text
        digest = entry.select_one("blockquote.citation").get_text()
        assert re.search(r"Run sha256:[0-9a-f]{64}\.", digest)
        assert entry.find("a", href=f"../runs/{newer}.html") is not None


def test_a_ranking_table_counts_its_superseded_runs_and_lists_them_only_as_history(history):
    site, runs = history
    current = {name for name, run in runs.items()} - {run["spec"]["supersedes"] for run in runs.values()
                                                        if run["spec"].get("supersedes")}
    checked = 0
    for path in (site / "groups").glob("*.html"):
        page = soup(site, f"groups/{path.name}")
        earlier = page.select("ol.earlier > li")
        listed = {row["data-run"] for row in page.select("table.ranking tr[data-run], table.unranked tr[data-run]")}
        assert not {li["id"].removeprefix("run-") for li in earlier} & listed
        note = next((p for p in page.select("p.more") if "earlier run" in words(p)), None)
        if earlier:
            checked += 1
            assert words(note).startswith(f"{len(earlier)} earlier run")
            assert "superseded by" in words(page.select_one("section[aria-labelledby=earlier-title]"))
        else:
            assert note is None
    assert checked
    kept = sorted(current)[:20]
    for name in kept:  # the runs no other supersedes keep their full page
        assert soup(site, f"runs/{name}.html").select_one("main section.primary") is not None, name
