"""Accessibility basics: landmarks, table headers, chart alternatives (read from the HTML), and an
automated audit with axe-core (WCAG 2.1 A and AA, contrast included) in Chromium.

axe-core comes from npm into the gitignored .cache/ (``make install-browser``); nothing is vendored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from .conftest import AXE
from .sitemap import KERNEL, chart_page, sample

PER_KIND = 4  # pages of each kind read for the structural checks (each kind is one template)
AXE_PER_KIND = 1
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def soups(bundled_site: Path) -> dict[str, BeautifulSoup]:
    return {path: BeautifulSoup((bundled_site / path).read_text(encoding="utf-8"), "html.parser")
            for path in sample(bundled_site, PER_KIND)}


def test_every_page_has_the_landmarks(soups):
    problems = []
    for path, soup in soups.items():
        if soup.html is None or not soup.html.get("lang"):
            problems.append(f"{path}: <html> has no lang")
        for landmark in ("main",):
            if len(soup.find_all(landmark)) != 1:
                problems.append(f"{path}: {len(soup.find_all(landmark))} <{landmark}> elements, expected 1")
        body = soup.body
        # The page-level header and footer are children of <body>; headers inside <main> are not banners.
        if not body.find("header", recursive=False):
            problems.append(f"{path}: no site <header> (banner)")
        if not body.find("footer", recursive=False):
            problems.append(f"{path}: no site <footer> (contentinfo)")
        if not soup.find("nav"):
            problems.append(f"{path}: no <nav>")
        if len(soup.find_all("h1")) != 1:
            problems.append(f"{path}: {len(soup.find_all('h1'))} <h1> elements, expected 1")
        skip = soup.find("a", href="#main")
        if skip is None or soup.find(id="main") is None:
            problems.append(f"{path}: no skip link to #main")
    assert not problems, "\n".join(problems[:30])


def test_table_headers_have_scope(soups):
    problems = []
    for path, soup in soups.items():
        for index, table in enumerate(soup.find_all("table")):
            headers = table.find_all("th")
            if not headers:
                problems.append(f"{path}: table #{index} ({table.get('class')}) has no <th>")
            for th in headers:
                if th.get("scope") not in ("col", "row", "colgroup", "rowgroup"):
                    problems.append(f"{path}: table #{index} ({table.get('class')}): <th>{th.get_text(strip=True)[:30]}</th> has no scope")
    assert not problems, f"{len(problems)} problems, e.g.\n" + "\n".join(problems[:30])


def test_charts_have_text_alternatives(soups):
    checked = 0
    problems = []
    for path, soup in soups.items():
        for figure in soup.select("figure[data-chart]"):
            checked += 1
            canvas = figure.select_one(".chart-canvas")
            if canvas is None or canvas.get("role") != "img" or not (canvas.get("aria-label") or "").strip():
                problems.append(f"{path}: a chart has no role=img with an aria-label")
            if figure.find("figcaption") is None:
                problems.append(f"{path}: a chart has no <figcaption>")
        # Every chart's data is also on the page as a table.
        if soup.select("figure[data-chart]") and not soup.select("table.chart-data, table.ranking, table.history"):
            problems.append(f"{path}: charts without a data table")
    assert checked, "no chart among the sampled pages"
    assert not problems, "\n".join(problems)


def test_images_have_alt_text(soups):
    missing = [f"{path}: {img}" for path, soup in soups.items() for img in soup.find_all("img") if img.get("alt") is None]
    assert not missing, "\n".join(missing[:20])


# ------------------------------------------------------------------------------------------------
# axe-core in the browser


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        import warnings

        message = f"axe-core is not installed at {AXE} (make install-browser): accessibility audit skipped"
        warnings.warn(pytest.PytestWarning(message), stacklevel=1)
        pytest.skip(message)
    return str(AXE)


def run_axe(page, axe_path: str) -> list[dict]:
    page.add_script_tag(path=axe_path)
    return page.evaluate(
        """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
            .then(result => result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                          summary: (n.failureSummary || '').split('\\n').slice(0, 2).join(' ')}))})))""",
        AXE_TAGS)


def describe(path: str, violations: list[dict]) -> list[str]:
    return [f"{path}: [{v['impact']}] {v['id']} ({v['help']}) at {node['target']}: {node['html']} — {node['summary']}"
            for v in violations for node in v["nodes"][:3]]


@pytest.mark.browser
def test_axe_finds_nothing_on_any_kind_of_page(browsing, bundled_site, bundled_url, axe_source):
    session = browsing(bundled_url)
    found = []
    for path in sample(bundled_site, AXE_PER_KIND, always=(KERNEL, chart_page(bundled_site))):
        page, _ = session.open(bundled_url + path)
        found.extend(describe(path, run_axe(page, axe_source)))
    assert not found, f"{len(found)} accessibility violations:\n" + "\n".join(found[:40])


@pytest.mark.browser
def test_axe_finds_nothing_with_javascript_off(browsing, bundled_site, bundled_url, axe_source):
    # The static SVG charts are what a reader without JavaScript gets: they must pass too. axe itself
    # needs JavaScript, so instead of turning it off the Vega bundle is served empty: the page keeps
    # its build-time SVG exactly as it would without JavaScript.
    session = browsing(bundled_url)
    session.context.route("**/static/vega-*.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    path = chart_page(bundled_site)
    page, _ = session.open(bundled_url + path)
    assert page.locator("figure[data-chart] svg, figure[data-chart] img").count() >= 1
    assert page.locator(".vega-embed").count() == 0
    found = describe(f"{path} (static charts)", run_axe(page, axe_source))
    assert not found, "\n".join(found[:40])


@pytest.mark.browser
def test_axe_is_really_checking(browsing, tmp_path, axe_source):
    # A page with known faults: unless axe reports them, a clean result above means nothing.
    (tmp_path / "bad.html").write_text(
        "<!doctype html><html><head><title>x</title></head><body>"
        "<img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='>"
        "<p style='color:#ccc;background:#fff'>low contrast</p><a href='#'></a></body></html>", encoding="utf-8")
    session = browsing(None)
    page, _ = session.open(tmp_path.resolve().as_uri() + "/bad.html")
    ids = {v["id"] for v in run_axe(page, axe_source)}
    assert {"image-alt", "color-contrast", "html-has-lang", "link-name"} <= ids, json.dumps(sorted(ids))
