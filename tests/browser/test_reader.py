"""The reader's experience (issue 25) in headless Chromium: choosing a GPU and a pass without
JavaScript, a phone's width on one page of every kind, and charts that show what the table beside
them shows (the same group, in the table's unit)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder import urls

from .conftest import ARTIFACTS
from .sitemap import KERNEL, sample

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
STICKING_OUT = (Path(__file__).parent / "phone_width.js").read_text(encoding="utf-8")
LLAMA4_ROPE = "Llama 4 rotary position embedding"


def _row_of(page, kernel_title: str) -> str:
    return page.locator("table.kernels tbody tr", has=page.get_by_role("link", name=kernel_title, exact=True)).inner_text()


def test_gpu_and_pass_are_chosen_by_links_without_javascript(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url, javascript=False)
    page, response = session.open(bundled_url + urls.INDEX)
    assert response.status == 200
    choices = page.locator("nav.gpu-choice")
    assert choices.get_by_role("link", name="All GPUs").get_attribute("aria-current") == "page"
    # The search box is on the index, and sends its question to the search page.
    assert page.locator("form.search-form input[name=q]").count() == 1

    choices.get_by_role("link", name="NVIDIA H100 SXM5 80GB").click()
    page.wait_for_load_state()
    assert page.url.endswith(urls.index_for("h100-sxm", None))
    assert "H100" in page.locator("h1").inner_text()
    row = _row_of(page, LLAMA4_ROPE)
    # The seed's H100 record for the kernel: Liger at 81.3 µs, 2.54× faster than Transformers.
    assert "81.3 µs" in row and "Liger" in row and "2.54×" in row and "forward" in row

    page.locator("nav.gpu-choice").get_by_role("link", name="backward", exact=True).click()
    page.wait_for_load_state()
    assert page.url.endswith(urls.index_for("h100-sxm", "backward"))
    assert "backward" in _row_of(page, LLAMA4_ROPE)
    page.screenshot(path=str(ARTIFACTS / "index-h100-backward.png"), full_page=False)

    # Every choice on every index leads to an index with at least one record.
    indexes = [urls.INDEX] + sorted(f"on/{p.name}" for p in (bundled_site / "on").glob("*.html"))
    assert len(indexes) > 5
    for path in indexes:
        html = BeautifulSoup((bundled_site / path).read_text(encoding="utf-8"), "html.parser")
        records = html.select("table.kernels td.record a")
        assert records, f"{path} lists no record"
        for link in html.select("nav.gpu-choice a"):
            target = (bundled_site / path).parent / link["href"]
            assert target.resolve().is_file(), f"{path}: {link['href']}"


def test_no_page_scrolls_sideways_at_phone_width(browser, bundled_site, bundled_url):
    """One page of every kind (and the pages with charts and the widest tables), with and without
    JavaScript: nothing reaches past the right edge except inside a scroller of its own."""
    pages = sample(bundled_site, 1, always=(KERNEL, urls.kernel("fused-neighborhood-attention"),
                                            urls.kernel("multimodal-rotary-embedding-attention"), urls.METHODOLOGY,
                                            urls.index_for("h200", None)))
    assert len(pages) >= 20
    found = {}
    for javascript in (True, False):
        context = browser.new_context(viewport=PHONE, java_script_enabled=javascript)
        page = context.new_page()
        for path in pages:
            page.goto(bundled_url + path)
            if javascript and page.locator("figure[data-chart]").count():
                page.wait_for_function("document.querySelectorAll('figure[data-chart] .vega-embed svg').length"
                                       " === document.querySelectorAll('figure[data-chart]').length", timeout=20_000)
            problems = page.evaluate(STICKING_OUT)
            if problems:
                found[(path, javascript)] = problems
        if javascript:
            page.goto(bundled_url + KERNEL)
            page.screenshot(path=str(ARTIFACTS / "kernel-390.png"), full_page=True)
        context.close()
    assert not found, "\n".join(f"{path} (JavaScript {'on' if js else 'off'}): {p}" for (path, js), p in found.items())


def _ranking_best(html: BeautifulSoup) -> dict[str, str]:
    """Each implementation's best latency in the page's ranking table, as printed."""
    best: dict[str, str] = {}
    for row in html.select(".comparison table.ranking tr.ranked"):
        best.setdefault(row.select_one("td.impl a").get_text(strip=True),
                        re.sub(r"\s+", " ", row.select_one("td.latency data").get_text(" ", strip=True)))
    return best


def test_charts_show_the_group_and_unit_of_their_tables(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    page, _ = session.open(bundled_url + KERNEL)
    html = BeautifulSoup(page.content(), "html.parser")
    titles = [h.get_text(strip=True) for h in html.select("section.scaling h3.chart-title")]
    # The seed's H100 scaling chart (Liger against Transformers, 74.2 µs … 1.46 ms) is on the page.
    h100 = [i for i, title in enumerate(titles) if "H100" in title and title.endswith("· forward")]
    assert h100, titles
    figures = html.select("section.scaling figure.chart")
    tables = html.select("section.scaling table.chart-data")
    assert len(figures) == len(tables) == len(titles)
    seed_table = tables[h100[0]].get_text(" ", strip=True)
    assert "74.2 µs" in seed_table and "1.46 ms" in seed_table and "Liger" in seed_table and "Transformers" in seed_table

    ranked_group = html.select_one("table.cohorts tr.selected a").get_text(" ", strip=True)
    beside = html.select_one("section.scaling > p.quiet").get_text(" ", strip=True)
    for figure, table, title in zip(figures, tables, titles):
        spec = json.loads(figure.select_one("script.chart-spec").string)
        assert spec["encoding"]["y"]["title"] == "latency (µs)", title  # the tables' unit
        assert not spec["encoding"]["y"].get("scale", {}).get("type")  # linear, as the tables read
        # Every series is drawn, each with a marker and a dash of its own (coinciding lines stay visible).
        series = [th.get_text(strip=True) for th in table.select("thead th")[1:]]
        assert spec["encoding"]["color"]["sort"] == series
        assert spec["encoding"]["shape"]["sort"] == series and spec["encoding"]["strokeDash"]["sort"] == series
        drawn = {(row["series"], row["x"]): row["latency"] for row in spec["data"]["values"]}
        for tr in table.select("tbody tr"):
            x = int(tr.th.get_text(strip=True))
            for name, cell in zip(series, tr.select("td")):
                if cell.data is None:
                    continue
                assert drawn[(name, x)] * 1000 == pytest.approx(float(cell.data["value"])), (title, name, x)
        # The chart names the group it draws; the one drawn beside the ranking is that group.
        assert title.split(" · ", 1)[1] in figure.figcaption.get_text(" ", strip=True)
    if beside.startswith("The group ranked above:"):
        assert titles[0].split(" · ", 1)[1] == ranked_group
        workload = html.select_one(".comparison .facts").get_text(" ", strip=True)
        x_value = re.search(r"seq = (\d+)", workload).group(1)
        first = tables[0]
        series = [th.get_text(strip=True) for th in first.select("thead th")[1:]]
        row = next(tr for tr in first.select("tbody tr") if tr.th.get_text(strip=True) == x_value)
        charted = dict(zip(series, (td.get_text(" ", strip=True) for td in row.select("td"))))
        for name, latency in _ranking_best(html).items():
            assert charted.get(name) in (None, latency), name
    else:
        # The ranked group has no sweep: the page says so, and no chart claims to be it.
        assert ranked_group in beside
        assert ranked_group not in [title.split(" · ", 1)[1] for title in titles]

    # With JavaScript, each chart becomes a Vega view as wide as its figure, never wider.
    count = page.locator("figure[data-chart]").count()
    page.wait_for_function(f"document.querySelectorAll('figure[data-chart] .vega-embed svg').length === {count}",
                           timeout=20_000)
    widths = page.evaluate("""() => [...document.querySelectorAll('figure[data-chart]')].map(f =>
        [f.getBoundingClientRect().width, f.querySelector('.vega-embed svg').getBoundingClientRect().width])""")
    for figure_width, svg_width in widths:
        assert svg_width <= figure_width + 1 and svg_width >= 0.8 * figure_width, widths


def test_the_favicon_is_served(browsing, bundled_url):
    session = browsing(bundled_url)
    response = session.context.request.get(bundled_url + urls.FAVICON)
    assert response.status == 200 and response.body()[:4] == b"\x00\x00\x01\x00"  # an ICO's header
    page, _ = session.open(bundled_url + KERNEL)
    assert page.locator('link[rel="icon"]').get_attribute("href") == "../favicon.ico"
