"""The link checker: every page of the built bundled site, without a browser.

Every internal link and #anchor resolves, ids are unique on a page, nothing is loaded from
another host, every page can be reached from the home page, and every JSON mirror parses,
validates against the published schema it names, and links back to its page.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from site_builder import urls
from site_builder.mirrors import listed_documents
from tests.run_json import document_reader

from .sitemap import html_pages, is_external, read_page, resolve


@pytest.fixture(scope="module")
def pages(bundled_site) -> dict:
    return {path: read_page(bundled_site, path) for path in html_pages(bundled_site)}


def test_every_internal_link_and_anchor_resolves(bundled_site: Path, pages):
    broken = []
    for path, page in pages.items():
        # The host serves 404.html at any depth, so its links are written relative to the root and
        # checked from there, like every other page.
        for url in page.links + [url for _, _, url in page.loads] + page.alternates:
            if is_external(url):
                continue
            target, fragment = resolve(path, url)
            if not (bundled_site / target).is_file():
                broken.append(f"{path}: {url} -> {target} does not exist")
            elif fragment and target.endswith(".html") and fragment not in pages[target].ids:
                broken.append(f"{path}: {url} -> no id {fragment!r} in {target}")
    assert not broken, f"{len(broken)} broken links, e.g.\n" + "\n".join(broken[:25])


def test_ids_are_unique_on_every_page(pages):
    duplicated = [f"{path}: id {name!r} x{count}" for path, page in pages.items()
                  for name, count in Counter(page.ids).items() if count > 1]
    assert not duplicated, "\n".join(duplicated[:25])


def test_nothing_is_loaded_from_another_host(pages):
    outside = [f"{path}: <{tag}> {url}" for path, page in pages.items() for tag, _, url in page.loads if is_external(url)]
    assert not outside, "\n".join(outside[:25])


def test_links_are_relative(pages):
    # One build works at /, under /<repo>/ on GitHub Pages and from disk only if no link is rooted.
    rooted = [f"{path}: {url}" for path, page in pages.items()
              for url in page.links + [u for _, _, u in page.loads] if url.startswith("/") and not url.startswith("//")]
    assert not rooted, "\n".join(rooted[:25])


def test_every_page_is_reachable_from_the_home_page(pages):
    seen, queue = {urls.INDEX}, [urls.INDEX]
    while queue:
        path = queue.pop()
        for url in pages[path].links:
            if is_external(url):
                continue
            target, _ = resolve(path, url)
            if target in pages and target not in seen:
                seen.add(target)
                queue.append(target)
    orphans = sorted(set(pages) - seen - {urls.NOT_FOUND})
    assert not orphans, f"{len(orphans)} pages no link reaches, e.g. {orphans[:10]}"


def test_every_json_file_parses(bundled_site: Path):
    broken = []
    for path in bundled_site.rglob("*.json"):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            broken.append(f"{path.relative_to(bundled_site)}: {error}")
    assert not broken, "\n".join(broken[:10])


def read_json(site: Path, path: str):
    return json.loads((site / path).read_text(encoding="utf-8"))


def test_every_page_names_its_mirror_and_every_mirror_is_listed_once(bundled_site: Path, pages):
    """Every page but the 404 has its mirror among the documents the API index lists, each listed
    once, and names it back (its JSON link). That each validates against its schema is
    ``tests/site/test_site_build.py``'s check, on the same data."""
    index = json.loads((bundled_site / urls.API_INDEX).read_text(encoding="utf-8"))
    documents = list(listed_documents(lambda path: read_json(bundled_site, path)))
    listed = [entry["mirror"] for entry in documents]
    assert len(listed) == len(set(listed))
    unmirrored = set(pages) - {entry["html"] for entry in documents} - {urls.NOT_FOUND}
    assert not unmirrored, f"{len(unmirrored)} pages without a mirror, e.g. {sorted(unmirrored)[:5]}"
    read_document = document_reader(bundled_site)
    for entry in documents:
        # A group's or a run's document is a part of its workload's mirror, named by a JSON Pointer.
        document = read_document(entry["mirror"])
        # A page mirror also names its schema and its page itself (data documents such as the
        # search index do not), and the page names its mirror back.
        if "schemaUrl" in document:
            assert document["schemaUrl"] == index["schemas"][entry["kind"]], entry["mirror"]
        if "html" in document or entry["kind"] == "run":  # a run's page is named by its name (runs/<name>.html)
            assert document.get("html", entry["html"]) == entry["html"]
            assert document.get("mirror", entry["mirror"]) == entry["mirror"]
            alternates = ["#".join(filter(None, resolve(entry["html"], url))) for url in pages[entry["html"]].alternates]
            assert alternates == [entry["mirror"]], f"{entry['html']} links to {alternates}, not its mirror"
