"""Pages and mirrors stay small at scale (issue 8): a 2,000-run synthetic site, checked for the
structure that keeps every document bounded at 100,000 runs — the API index names parts rather
than documents, the search index is a head plus a shard per kernel, long challenge lists are
capped with a link to their full, paged list — and for an absolute bound on every file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pytest

from site_builder import mirrors, urls
from site_builder.build import build_site
from site_builder.context.view_parts import LIST_LIMIT, PAGER_REACH
from site_builder.mirrors import listed_documents
from site_builder.synth import synthesize
from tests.scratch import scratch_folder

RUNS = 2_000
PART_SIZE = 300  # smaller than the build's, so one kind spans several parts at this size
MAX_BYTES = 2_000_000


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with scratch_folder(tmp_path_factory, "sizes") as root:
        synthesize(root / "data", RUNS, seed=8, datasheets=None)
        patch = pytest.MonkeyPatch()
        patch.setattr(mirrors, "PART_SIZE", PART_SIZE)
        patch.setenv("KERNELINDEX_CACHE_DIR", str(root / "cache"))
        try:
            build_site(root / "data", root / "site", as_of=date(2026, 6, 30))
        finally:
            patch.undo()
        yield root / "site"


def read(site: Path, path: str):
    return json.loads((site / path).read_text(encoding="utf-8"))


def test_no_page_or_document_exceeds_the_bound(site: Path):
    big = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*")
           if p.suffix in (".json", ".html", ".js") and p.parent.name != "static" and p.stat().st_size > MAX_BYTES]
    assert not big, big


def test_the_api_index_names_parts_not_documents(site: Path):
    index = read(site, urls.API_INDEX)
    assert "documents" not in index
    runs = next(kind for kind in index["kinds"] if kind["kind"] == "run")
    # Runs are counted, and listed by their groups' documents rather than by parts of their own.
    assert runs["documents"] == RUNS and runs["parts"] == []
    parts = [part for kind in index["kinds"] for part in kind["parts"]]
    # The index grows with the parts (a few hundred bytes each), not with the documents.
    assert len((site / urls.API_INDEX).read_bytes()) < 10_000 + 300 * len(parts)
    for part in parts:
        listed = read(site, part["index"])["documents"]
        assert 0 < len(listed) == part["documents"] <= PART_SIZE
        assert [listed[0]["mirror"], listed[-1]["mirror"]] == [part["first"], part["last"]]
    documents = list(listed_documents(lambda path: read(site, path)))
    assert len(documents) == sum(kind["documents"] for kind in index["kinds"]) == len({d["mirror"] for d in documents})


def test_the_search_index_is_a_head_and_a_shard_per_kernel(site: Path):
    head = read(site, urls.SEARCH_INDEX)
    assert not {"wl", "ln", "co"} & set(head)
    for op, groups in zip(head["op"], head["sh"]):
        if groups:
            shard = read(site, urls.search_shard(op[0]))
            assert shard["op"] == op[0] and len(shard["co"]) == groups
            assert {lane[0] for lane in shard["ln"]} == {head["op"].index(op)}


def test_challenge_lists_are_capped_and_complete_in_their_pages(site: Path):
    overview = read(site, urls.mirror(urls.CHALLENGES))
    assert any(total > LIST_LIMIT for total in overview["totals"].values()), "the synthetic site should need paging"
    for kind, total in overview["totals"].items():
        assert len(overview["groups"][kind]) == min(total, LIST_LIMIT)
        pages = [read(site, urls.mirror(overview["fullLists"][kind]))]
        while pages[-1]["pageNumber"] < pages[-1]["pageCount"]:  # as a reader walks them: each pager links the next
            following = next(link for link in pages[-1]["pages"] if link["number"] == pages[-1]["pageNumber"] + 1)
            pages.append(read(site, urls.mirror(following["url"])))
        assert len(pages) == pages[0]["pageCount"] == -(-total // LIST_LIMIT)
        assert all(len(page["pages"]) <= 2 * PAGER_REACH + 3 for page in pages)  # a pager does not grow with the list
        rows = [row["cohort"]["key"] for page in pages for row in page["groups"][kind]]
        assert all(len(page["groups"][kind]) <= LIST_LIMIT for page in pages)
        assert len(rows) == len(set(rows)) == total
        # The most recently observed holder first, then by group.
        holders = [(datetime.fromisoformat(row["record"]["observedAt"]), row["cohort"]["key"])
                   for page in pages for row in page["groups"][kind]]
        assert holders == sorted(holders, key=lambda holder: (-holder[0].timestamp(), holder[1]))
        assert [row["cohort"]["key"] for row in overview["groups"][kind]] == rows[:LIST_LIMIT]


def test_every_superseded_run_leads_to_its_row_on_its_group_page(site: Path):
    """Superseded runs are rows of their group's page, under its chart over time where it draws
    them and in a table of earlier runs otherwise: every one's page leads to its row."""
    from bs4 import BeautifulSoup

    found = {"chart-data": 0, "earlier": 0}
    for page in (site / "runs").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' not in text:
            continue
        target = BeautifulSoup(text, "html.parser").find("meta", attrs={"http-equiv": "refresh"})["content"]
        path, anchor = target.split("url=", 1)[1].split("#")
        assert anchor == f"run-{page.stem}"
        group = BeautifulSoup((page.parent / path).resolve().read_text(encoding="utf-8"), "html.parser")
        row = group.find("tr", id=anchor)
        assert row is not None, page.name
        found[row.find_parent("table")["class"][0]] += 1
    # The chart draws every superseded run here; one it does not draw (a retracted one, say: 2 of
    # the 10,000-run synthetic site's) is a row of the earlier runs' own table, found the same way.
    assert found["chart-data"] > 0, found
