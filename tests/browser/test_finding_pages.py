"""The finding pages (issue 9) in headless Chromium, with this suite's fixtures (conftest.py).

search.js in the browser answers as Python does; the search page answers from http:// and from
file:// (its index then loads as a script); compare.js fetches and aligns run mirrors over HTTP and
says why it cannot from file://; the ledger filters in place.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest

from site_builder import urls
from site_builder.search.match import search
from site_builder.search.query import vocabulary
from site_builder.search.shards import merge
from tests.discover.vectors import FIXED, random_queries

pytestmark = pytest.mark.browser


def _index(site) -> dict:
    """The whole index: the published head merged with every shard."""
    head = json.loads((site / urls.SEARCH_INDEX).read_text(encoding="utf-8"))
    shards = {op[0]: json.loads((site / urls.search_shard(op[0])).read_text(encoding="utf-8"))
              for op, groups in zip(head["op"], head["sh"]) if groups}
    return merge(head, shards)


def test_search_js_in_chromium_answers_as_python(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    page, _ = session.open(bundled_url + urls.SEARCH)
    index = _index(bundled_site)
    queries = FIXED + random_queries(index, 150, seed=11)
    got = page.evaluate("([index, queries]) => { const vocab = KernelIndexSearch.vocabulary(index);"
                        " return queries.map(q => KernelIndexSearch.search(index, q, vocab)); }", [index, queries])
    vocab = vocabulary(index)
    expected = [search(index, q, vocab) for q in queries]
    differing = [q for q, a, b in zip(queries, got, expected) if a != b]
    assert not differing, differing[:5]


def test_search_page_answers_and_brackets(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    page, _ = session.open(bundled_url + urls.SEARCH + "?q=" + quote("llama4-rope h100 bf16 seq=3000 hidden=8192"))
    page.wait_for_selector("table.brackets tbody tr")
    first = page.locator("table.brackets tbody tr").first.inner_text()
    assert "2048" in first and "4096" in first
    page.fill("#search-q", "rope h100 bf16 seq=4096")
    page.click("#search-form button[type=submit]")
    page.wait_for_selector("table.search-results tbody tr")
    assert page.locator("#exact-title").inner_text().startswith("Exact matches (")
    assert "seq=4096" in page.url.replace("%3D", "=")
    href = page.locator("table.search-results tbody tr a").nth(1).get_attribute("href")
    assert (bundled_site / href).is_file()


def test_search_from_disk_loads_the_index_as_a_script(browsing, bundled_site):
    session = browsing(None)
    root = bundled_site.resolve().as_uri() + "/"
    page, _ = session.open(root + urls.SEARCH + "?q=" + quote("llama4-rope h100 seq=3000"))
    page.wait_for_selector("table.brackets tbody tr")
    assert "Search index loaded" in page.inner_text("#search-status")


def test_compare_over_http_and_from_disk(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    mirror = json.loads((bundled_site / urls.mirror(urls.COMPARE)).read_text(encoding="utf-8"))
    page, _ = session.open(bundled_url + mirror["example"])
    page.wait_for_selector("#compare-verdict")
    assert page.inner_text("#compare-verdict").startswith("Comparable")
    assert page.locator("ol.compare-ranking li").count() == 2
    assert page.locator("table.compare tr[data-field]").count() == len(mirror["fields"])
    shard = sorted((bundled_site / urls.run_directory("00")).parent.glob("*.json"))[0]
    known = json.loads(shard.read_text(encoding="utf-8"))["runs"]
    missing = next(f"{shard.stem}{n:010x}" for n in range(1000) if f"{shard.stem}{n:010x}" not in known)
    page, _ = session.open(bundled_url + urls.compare([missing, next(iter(known))]))  # no 404: the shard says no
    page.wait_for_function("document.getElementById('compare-status').textContent.startsWith('Could not compare')")
    assert "no run has digest" in page.inner_text("#compare-status")
    # By name: the run page's JSON link names its group's mirror (a name says nothing of its group).
    pointers = [pointer for _, pointer in sorted(known.items())[:2]]
    names = [pointer.rpartition("/runs/")[2] for pointer in pointers]
    page, _ = session.open(bundled_url + urls.compare(names))
    page.wait_for_selector("#compare-verdict")
    headings = page.locator("table.compare thead th a")
    assert [headings.nth(i).get_attribute("href") for i in range(2)] == [urls.run(name) for name in names]
    disk = browsing(None)
    page, _ = disk.open(bundled_site.resolve().as_uri() + "/" + mirror["example"])
    assert "file://" in page.inner_text("#compare-status")


def _ledger_page_of_several_gpus(site) -> tuple[str, str]:
    """The first page of the current-records ledger whose rows are of more than one GPU (a batch of
    new runs on one GPU can fill the newest pages), and a GPU that some of its rows are not of."""
    number = 1
    while (site / urls.records(number=number)).is_file():
        rows = re.findall(r'<tr[^>]*\sdata-gpu="([^"]+)"', (site / urls.records(number=number)).read_text(encoding="utf-8"))
        if len(set(rows)) > 1:
            return urls.records(number=number), rows[-1]
        number += 1
    raise AssertionError("no page of the records ledger has rows of two GPUs")


def test_records_filter_in_place(browsing, bundled_site, bundled_url):
    session = browsing(bundled_url)
    address, option = _ledger_page_of_several_gpus(bundled_site)
    page, _ = session.open(bundled_url + address)
    assert page.locator("#ledger-filter").is_visible()
    total = page.locator("table.ledger tbody tr").count()
    page.select_option("#ledger-filter select[name=gpu]", option)
    shown = page.locator("table.ledger tbody tr:not([hidden])").count()
    assert 0 < shown < total
    assert all(row.get_attribute("data-gpu") == option for row in page.locator("table.ledger tbody tr:not([hidden])").all())
