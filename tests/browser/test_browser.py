"""The built site in headless Chromium: pages load clean over HTTP and from file://, charts render
with and without JavaScript, the workload selector and the links work, nothing leaves the machine,
and hostile text runs nothing. Screenshots land in test-artifacts/ (gitignored)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urljoin

import pytest

from site_builder import urls

from .conftest import ARTIFACTS, Browsing
from .sitemap import KERNEL, chart_page, redirects, sample

pytestmark = pytest.mark.browser

CHART_MOUNTED = "figure[data-chart] .chart-canvas .vega-embed svg"
# Pages of every kind over HTTP (two of each), and the kinds that matter most from disk.
PER_KIND = 2


def kernel_page(site: Path) -> str:
    if (site / KERNEL).is_file():
        return KERNEL
    return sorted(str(p.relative_to(site)) for p in (site / "kernels").glob("*.html"))[0]


def leader_run(site: Path, kernel: str) -> str:
    """The run page of the kernel page's record holder (seed 001 is such a page)."""
    from bs4 import BeautifulSoup

    page = BeautifulSoup((site / kernel).read_text(encoding="utf-8"), "html.parser")
    row = page.select_one('table.ranking tr.ranked[data-rank="1"]')
    return urls.run(row["data-run"])


def wait_for_charts(page) -> int:
    """Wait until every chart on the page has become an interactive Vega view; return how many."""
    count = page.locator("figure[data-chart]").count()
    if count:
        page.wait_for_function(
            f"document.querySelectorAll({CHART_MOUNTED!r}).length === {count}", timeout=20_000)
    return count


def test_every_kind_of_page_loads_clean_over_http(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    kernel = kernel_page(bundled_site)
    pages = sample(bundled_site, PER_KIND, always=(kernel, leader_run(bundled_site, kernel), chart_page(bundled_site)))
    links: set[str] = set()
    charts = 0
    for path in pages:
        page, response = session.open(bundled_url + path)
        assert response.status == 200, path
        assert page.title(), f"{path} has no title"
        charts += wait_for_charts(page)
        links.update(page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"))
    assert charts, "no sampled page had a chart"
    # Every link on those pages answers: the server finds each target (pages, mirrors, anchors' pages).
    local = sorted({link.split("#")[0] for link in links if link.startswith(bundled_url)})
    failing = [url for url in local if session.context.request.get(url).status != 200]
    assert not failing, f"{len(failing)} of {len(local)} links fail, e.g. {failing[:10]}"


def test_pages_work_from_file_urls(browsing, bundled_site):
    session = browsing(None)
    kernel = kernel_page(bundled_site)
    root = bundled_site.resolve().as_uri() + "/"
    for path in (urls.INDEX, kernel, chart_page(bundled_site), leader_run(bundled_site, kernel), urls.CHALLENGES,
                 urls.NOT_FOUND):
        page, _ = session.open(root + path)
        assert page.title(), path
        wait_for_charts(page)
    # Following a link from disk lands on the page, not on a folder listing.
    page, _ = session.open(root + urls.INDEX)
    page.locator(f'a[href$="{kernel}"]').first.click()
    page.wait_for_load_state()
    assert page.url == root + kernel
    assert page.locator("main h1").count() == 1


def test_charts_are_svg_without_javascript(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url, javascript=False)
    page, _ = session.open(bundled_url + chart_page(bundled_site))
    figures = page.locator("figure[data-chart]")
    assert figures.count() >= 1
    for index in range(figures.count()):
        # A scaling chart is a picture of a wide or narrow drawing (by the page's width); a history one inline.
        svg = figures.nth(index).locator(".chart-canvas > svg, .chart-canvas > picture > img")
        box = svg.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 50, "the static chart is not drawn"
    assert page.locator(".vega-embed").count() == 0


def test_a_redirect_page_leads_to_a_page_that_loads(browsing, bundled_site, bundled_url):
    """A group of one run leads to its run's page, a superseded run to its group's entry for it."""
    hops = redirects(bundled_site, PER_KIND)
    assert any(path.startswith("groups/") for path in hops)  # the bundled data has groups of one run
    session = browsing(bundled_url)
    for path in hops:
        page, response = session.open(bundled_url + path)
        assert response.status == 200, path
        page.wait_for_url(lambda url: url != bundled_url + path, timeout=10_000)
        assert page.title() and page.locator("main h1").count() == 1, f"{path} led to {page.url}"
        if "#" in page.url:  # a superseded run's entry among its group's earlier runs
            assert page.locator(f"#{page.url.split('#', 1)[1]}").count() == 1, page.url


def test_interactive_chart_mounts_with_javascript(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    page, _ = session.open(bundled_url + chart_page(bundled_site))
    assert wait_for_charts(page) >= 1
    # The Vega view is live: it drew marks, and it is the only chart in each figure.
    assert page.locator(f"{CHART_MOUNTED} .mark-symbol, {CHART_MOUNTED} .mark-line, {CHART_MOUNTED} .mark-rect").count() > 0
    for index in range(page.locator("figure[data-chart]").count()):
        assert page.locator("figure[data-chart]").nth(index).locator("svg").count() >= 1


def test_the_workload_selector_goes_to_each_workload(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    kernel_url = bundled_url + kernel_page(bundled_site)
    selector = "ul.workloads a, table.workload-table a"
    page, _ = session.open(kernel_url)
    title = page.locator("main h1").first.inner_text()
    count = page.locator(selector).count()
    assert count >= 2, "the kernel page offers no workloads to choose from"
    for index in range(count):
        page.goto(kernel_url)
        link = page.locator(selector).nth(index)
        href, label = link.get_attribute("href"), link.inner_text().strip()
        link.click()
        page.wait_for_load_state()
        assert page.url == urljoin(kernel_url, href)
        assert page.locator("main h1").first.inner_text() == title
        # The chosen workload is the one marked current on the page it opened.
        current = page.locator(selector).and_(page.locator("[aria-current=page]"))
        assert current.count() == 1 and current.first.inner_text().strip() == label


def test_screenshots(browsing, bundled_site, bundled_url):
    ARTIFACTS.mkdir(exist_ok=True)
    session = browsing(bundled_url)
    kernel = kernel_page(bundled_site)
    for name, path in (("index", urls.INDEX), ("kernel", kernel), ("run", leader_run(bundled_site, kernel))):
        page, _ = session.open(bundled_url + path)
        wait_for_charts(page)
        target = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 10_000, f"{target} looks empty"


@pytest.mark.parametrize("transport", ["http", "file"])
def test_hostile_text_runs_nothing(browsing, hostile_site, hostile_url, transport):
    # Every hostile title, note and label is an alert(): a dialog, a page error or a console error
    # would fail the test through the session's checks.
    base = hostile_url if transport == "http" else hostile_site.resolve().as_uri() + "/"
    session = browsing(hostile_url if transport == "http" else None)
    for path in sample(hostile_site, PER_KIND, always=(KERNEL,)):
        page, _ = session.open(base + path)
        wait_for_charts(page)
        assert page.evaluate("document.querySelectorAll('script:not([src]):not([type=\"application/json\"])').length") == 0
    assert not session.visit.dialogs


def test_the_guards_catch_what_they_should(browser, tmp_path):
    # The checks above are only as good as the guard: a page that calls a CDN, logs an error,
    # throws and opens an alert must be caught on every count (and the CDN request never sent).
    (tmp_path / "bad.html").write_text(
        "<!doctype html><title>bad</title><script src='https://cdn.example.invalid/x.js'></script>"
        "<img src='http://8.8.8.8/pixel.png' alt=''><script>console.error('boom'); alert('hi');"
        "throw new Error('thrown')</script>", encoding="utf-8")
    session = Browsing(browser, None)
    try:
        session.open(tmp_path.resolve().as_uri() + "/bad.html")[0].wait_for_timeout(300)
    finally:
        session.close()
    visit = session.visit
    assert any("cdn.example.invalid" in url for url in visit.outside_requests)
    assert any("8.8.8.8" in url for url in visit.outside_requests)
    assert any("boom" in message for message in visit.console_errors)
    assert any("thrown" in message for message in visit.page_errors)
    assert any("hi" in message for message in visit.dialogs)
