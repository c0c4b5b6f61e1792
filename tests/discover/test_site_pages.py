"""End to end: the finding pages and files of the bundled site, built once with a base URL."""

from __future__ import annotations

import gzip
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from bs4 import BeautifulSoup

from site_builder import urls
from site_builder.mirrors import listed_documents
from site_builder.search.compare import compare_runs
from tests.run_json import mirror_of, read_run
from site_builder.search.schema import COMPARE_RESULT_SCHEMA
from site_builder.search.shards import merge

from tests.browser.sitemap import resolve as resolve_link

from .conftest import BASE_URL

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def text(node) -> str:
    return re.sub(r"\s+", " ", node.get_text(" ", strip=True))


def resolve(page: str, href: str) -> str:
    """A relative link on a page, as a site-root path (query and fragment dropped)."""
    return resolve_link(page, href)[0]


# -- every page links the finding pages --------------------------------------------------------------
class _Nav(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_nav = self.in_footer = False
        self.nav: list[str] = []
        self.footer: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "nav" and dict(attrs).get("aria-label") == "Site":
            self.in_nav = True
        if tag == "footer":
            self.in_footer = True
        if tag == "a":
            href = dict(attrs).get("href", "")
            (self.nav if self.in_nav else self.footer if self.in_footer else []).append(href)

    def handle_endtag(self, tag):
        if tag == "nav":
            self.in_nav = False
        if tag == "footer":
            self.in_footer = False


def test_every_page_links_search_records_gpus_models_compare_feed_and_llms_txt(site):
    wanted_nav = {urls.SEARCH, urls.RECORDS, urls.GPUS, urls.MODELS}
    wanted_footer = {urls.COMPARE, urls.RECORDS_FEED, urls.LLMS}
    missing = []
    for path in sorted(site.rglob("*.html")):
        page = path.relative_to(site).as_posix()
        if page == urls.NOT_FOUND:
            continue
        html = path.read_text(encoding="utf-8")
        if '<meta http-equiv="refresh"' in html:  # a hop to another page (the link tests follow it), not one read
            continue
        parser = _Nav()
        parser.feed(html)
        nav = {resolve(page, href) for href in parser.nav}
        footer = {resolve(page, href) for href in parser.footer}
        if not wanted_nav <= nav or not wanted_footer <= footer:
            missing.append(f"{page}: {sorted((wanted_nav - nav) | (wanted_footer - footer))}")
    assert not missing, "\n".join(missing[:10])
    for target in wanted_nav | wanted_footer:
        assert (site / target).is_file(), target


# -- search -----------------------------------------------------------------------------------------
def test_search_page_without_javascript_lists_kernels_gpus_and_models(site, board):
    page = soup(site, urls.SEARCH)
    form = page.select_one("form#search-form")
    assert form["method"] == "get" and form.select_one("input[name=q]") is not None
    assert (site / resolve(urls.SEARCH, form["data-index"])).is_file()
    assert (site / resolve(urls.SEARCH, form["data-index-script"])).is_file()
    assert page.select_one("noscript") is not None
    kernels = {resolve(urls.SEARCH, a["href"]) for a in page.select("section.browse a")}
    assert {urls.kernel(name) for name in board.catalog.operations} <= kernels
    assert page.select("#browse-gpus-title ~ ul a") and page.select("#browse-models-title ~ ul a")
    scripts = [s["src"] for s in page.select("script[src]")]
    assert scripts and all(not s.startswith(("http:", "https:", "//")) for s in scripts)


def test_search_index_is_small_valid_and_loadable_from_disk(site):
    index_text = (site / urls.SEARCH_INDEX).read_text(encoding="utf-8")
    index = json.loads(index_text)
    schema = json.loads((site / urls.schema("search-index")).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(index)
    # What a reader downloads, compressed as static hosts serve it: 670 kernels and 6,178
    # implementations (SOL-ExecBench's submissions among them) came to 487 KB raw, 52 KB gzipped.
    raw = index_text.encode()
    assert len(raw) < 600_000 and len(gzip.compress(raw)) < 100_000, "the bundled data's index should stay small"
    script = (site / urls.SEARCH_INDEX_SCRIPT).read_text(encoding="utf-8")
    assert script.startswith("window.KERNELINDEX_SEARCH_INDEX = ") and json.loads(script[34:].rstrip(";\n")) == index
    shard_schema = jsonschema.Draft202012Validator(json.loads((site / urls.schema("search-shard")).read_text(encoding="utf-8")))
    shards = {}
    for op, groups in zip(index["op"], index["sh"]):
        assert (site / urls.kernel(op[0])).is_file()
        if not groups:
            assert not (site / urls.search_shard(op[0])).exists()
            continue
        shard = shards[op[0]] = json.loads((site / urls.search_shard(op[0])).read_text(encoding="utf-8"))
        shard_schema.validate(shard)
        assert len(shard["co"]) == groups
        script = (site / urls.search_shard_script(op[0])).read_text(encoding="utf-8")
        prefix = f'(window.KERNELINDEX_SEARCH_SHARDS = window.KERNELINDEX_SEARCH_SHARDS || {{}})["{op[0]}"] = '
        assert script.startswith(prefix) and json.loads(script[len(prefix):].rstrip(";\n")) == shard
    for cohort in merge(index, shards)["co"]:
        assert (site / urls.group(cohort[3])).is_file()


def test_examples_on_the_search_page_answer(site, bundled_index):
    from site_builder.search.match import search
    page = soup(site, urls.SEARCH)
    examples = [text(code) for code in page.select("ul.examples code")]
    assert len(examples) >= 3
    assert search(bundled_index, examples[0])["exact"], examples[0]
    assert search(bundled_index, examples[1])["brackets"], examples[1]


# -- records ----------------------------------------------------------------------------------------
def test_records_ledger_pages(site, board):
    page = soup(site, urls.RECORDS)
    ranked = [c for c in board.cohorts.values() if c.rows]
    assert text(page.select_one("#ledger-title")).endswith(f"({len(ranked):,})")
    assert page.select("table.ledger tbody tr[data-gpu][data-evidence][data-source]")
    assert page.select_one("form#ledger-filter[hidden]") is not None  # shown by records.js only
    filters = page.select("nav.ledger-nav .filters a")
    assert any(a.get("data-facet") == "gpu" for a in filters)
    assert page.select_one("nav.ledger-nav .filters [data-facet=source]") is not None  # a page, or filtered in place
    for a in filters:
        assert (site / resolve(urls.RECORDS, a["href"])).is_file()
    gpu_pages = sorted((site / "records/gpu").glob("*.html"))
    assert gpu_pages, "a static ledger page per GPU"
    one = soup(site, gpu_pages[0].relative_to(site).as_posix())
    slugs = {tr["data-gpu"] for tr in one.select("table.ledger tbody tr")}
    assert slugs == {gpu_pages[0].stem}
    history = soup(site, urls.records("history"))
    dates = [t["datetime"] for t in history.select("#ledger-title ~ .table-wrap table.ledger time")]
    assert dates == sorted(dates, reverse=True), "history is newest first"


def test_ledger_tasks_build_every_ledger_page_newest_row_first(board):
    """The ledger's tasks come in the order of their pages' newest rows (``by_newest_row``: pages
    sharing rows are built by one render worker), and build the pages the plan makes, each once."""
    from site_builder.context.view_parts import ViewFactory
    from site_builder.context.finding import DiscoverContext, discover_tasks, records_pages
    from site_builder.render import mirror_json

    factory = ViewFactory(board)
    built = [page for task in discover_tasks(factory) for page in task() if page.kind == "records"]
    planned = {page.html: mirror_json(page) for page in records_pages(DiscoverContext(factory))}
    assert len(built) == len(planned) > 1
    assert {page.html: mirror_json(page) for page in built} == planned
    newest = [page.rows[0].set_at for page in built if page.rows]
    assert newest == sorted(newest, reverse=True)


def test_feeds_are_atom_with_stable_ids_and_resolvable_links(site):
    for feed_path in (urls.RECORDS_FEED, urls.RUNS_FEED):
        feed = ET.fromstring((site / feed_path).read_bytes())
        assert feed.tag == ATOM + "feed"
        for required in ("id", "title", "updated", "author"):
            assert feed.find(ATOM + required) is not None, (feed_path, required)
        assert RFC3339.match(feed.find(ATOM + "updated").text)
        assert feed.find(ATOM + "updated").text >= "2026-11-29T00:00:00Z"
        assert any(link.get("rel") == "self" for link in feed.findall(ATOM + "link"))
        entries = feed.findall(ATOM + "entry")
        assert 0 < len(entries) <= 50
        ids = [entry.find(ATOM + "id").text for entry in entries]
        assert len(set(ids)) == len(ids) and all(i.startswith("tag:kernelindex.dev,2025:") for i in ids)
        updated = [entry.find(ATOM + "updated").text for entry in entries]
        assert all(RFC3339.match(u) for u in updated) and updated == sorted(updated, reverse=True)
        for entry in entries:
            assert entry.find(ATOM + "title").text and entry.find(ATOM + "summary").text
            href = entry.find(ATOM + "link").get("href")
            assert href.startswith(BASE_URL + "/")  # this build has a base URL: absolute links
            assert (site / href.removeprefix(BASE_URL + "/")).is_file(), href


# -- GPUs and models ------------------------------------------------------------------------------------
def test_gpu_pages_show_records_coverage_and_gaps(site, board):
    index = soup(site, urls.GPUS)
    links = [resolve(urls.GPUS, a["href"]) for a in index.select("table.gpus a")]
    assert urls.gpu("h100-sxm") in links and all((site / link).is_file() for link in links)
    page = soup(site, urls.gpu("h100-sxm"))
    assert page.select("table.holders tbody tr"), "records held on H100"
    families = {text(th) for th in page.select("table.coverage tbody th")}
    assert families == {op.spec.family for op in board.catalog.operations.values()}
    mirror = json.loads((site / urls.mirror(urls.gpu("h100-sxm"))).read_text(encoding="utf-8"))
    never = {link["url"] for family in mirror["coverage"] for link in family["neverMeasured"]}
    measured = {link["url"] for family in mirror["coverage"] for link in family["measured"]}
    assert never and measured and not never & measured
    assert len(never | measured) == len(board.catalog.operations)
    # Which GPUs nothing was measured on changes as sources are imported (MI300X has GPU MODE runs,
    # L40S KernelBench's): every such page says so, and no page with records does.
    gpus = json.loads((site / urls.mirror(urls.GPUS)).read_text(encoding="utf-8"))["gpus"]
    for gpu in gpus:
        held = "No record is held" in text(soup(site, urls.gpu(gpu["slug"])))
        assert held == (gpu["records"] == 0), gpu["slug"]


def test_model_pages_cover_each_operation_per_gpu(site, board):
    models = {m for op in board.catalog.operations.values() for m in op.metadata.models}
    assert models
    for model in models:
        mirror = json.loads((site / urls.mirror(urls.model(model))).read_text(encoding="utf-8"))
        operations = {op.name for op in board.catalog.operations.values() if model in op.metadata.models}
        assert {row["operation"]["url"] for row in mirror["operations"]} == {urls.kernel(name) for name in operations}
        for row in mirror["operations"]:
            assert len(row["cells"]) == len(mirror["gpus"])
    scout = json.loads((site / urls.mirror(urls.model("llama-4-scout"))).read_text(encoding="utf-8"))
    [rope] = scout["operations"]
    h100 = next(cell for cell in rope["cells"] if cell["gpu"] == "h100-sxm")
    assert h100["best"]["implementation"]["title"] == "Liger" and h100["best"]["value"] == 81280  # the seed's 81.3 µs


# -- compare ----------------------------------------------------------------------------------------
def test_run_pages_link_compare_with_1_through_the_run_directory(site, board):
    leader_of = {}
    for cohort in board.cohorts.values():
        for row in cohort.rows[1:2]:
            leader_of[row.run.name] = cohort.rows[0].run
    name, leader = sorted(leader_of.items())[0]
    page = soup(site, urls.run(name))
    href = page.select_one("a.compare-leader")["href"]
    assert resolve(urls.run(name), href) == urls.COMPARE
    ids = href.split("?runs=", 1)[1].split(",")
    directory = {}
    for shard in {i[:2] for i in ids}:
        directory.update(json.loads((site / urls.run_directory(shard)).read_text(encoding="utf-8"))["runs"])
    pointers = [directory[i] for i in ids]
    assert pointers == [mirror_of(site, urls.run(name)), mirror_of(site, urls.run(leader.name))]
    mirrors = [read_run(site, n) for n in (name, leader.name)]
    result = compare_runs(mirrors)
    jsonschema.Draft202012Validator(COMPARE_RESULT_SCHEMA).validate(result)
    assert result["comparable"] and result["ranking"][0]["run"] == leader.name


def test_run_directory_names_every_run_once(site, board):
    seen = {}
    for path in (site / "api/v1/runs/by-digest").glob("*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["shard"] == path.stem
        for digest, pointer in document["runs"].items():
            name = pointer.rpartition("/runs/")[2]
            assert digest.startswith(path.stem) and name not in seen
            assert pointer == mirror_of(site, urls.run(name))  # where the run page's JSON link says
            seen[name] = digest
    assert set(seen) == set(board.runs)


def test_compare_names_the_first_difference(site, board):
    def mirror(run):
        return read_run(site, run.name)

    runs = sorted(board.runs.values(), key=lambda r: r.name)
    by_lane: dict[tuple, list] = {}
    for run in runs:
        by_lane.setdefault((run.workload, run.environment, run.implementation), []).append(run)
    one, other_pass = next(group for group in by_lane.values()  # one implementation timed in two passes
                           if len(group) >= 2 and group[0].protocol != group[1].protocol)[:2]
    result = compare_runs([mirror(one), mirror(other_pass)])
    assert not result["comparable"] and result["firstDifference"]["field"] == "protocol" and result["ranking"] is None
    other_gpu = next((r for r in runs if r.operation == one.operation and r.environment != one.environment), None)
    if other_gpu is not None:
        result = compare_runs([mirror(one), mirror(other_gpu)])
        assert result["firstDifference"]["field"] in ("workload", "environment")
    other_op = next(r for r in runs if r.operation != one.operation)
    assert compare_runs([mirror(one), mirror(other_op)])["firstDifference"]["field"] == "operation"
    with pytest.raises(ValueError):
        compare_runs([mirror(one)])
    ineligible = dict(mirror(one))
    ineligible["details"] = {**ineligible["details"], "row": {**ineligible["details"]["row"], "reasons": ["RETRACTED"]}}
    same = next(mirror(r) for r in runs if r.cohort == one.cohort and r.name != one.name)
    result = compare_runs([ineligible, same])
    assert result["comparable"] and result["ranking"] is None and "may not be ranked" in result["notRanked"]


# -- badges, sitemap, robots, llms.txt, mirrors -------------------------------------------------------------
def test_every_implementation_has_a_well_formed_badge(site, board):
    from site_builder.discover.state import discovery
    found = discovery(board)
    for name in board.catalog.implementations:
        root = ET.fromstring((site / urls.badge(name)).read_bytes())
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and int(root.get("width")) > 0
        label = root.get("aria-label")
        held, best = found.records_held.get(name, 0), found.best_rank.get(name)
        assert (f"{held} record" in label) if held else ("not ranked" in label if best is None else "no records" in label)
    page = soup(site, urls.implementation(sorted(board.catalog.implementations)[0]))
    img = page.select_one("p.badge img")
    assert (site / resolve(urls.implementation(sorted(board.catalog.implementations)[0]), img["src"])).is_file()


def test_sitemap_robots_and_llms_txt(site):
    root = ET.fromstring((site / urls.SITEMAP).read_bytes())
    locs = [loc.text for loc in root.iter(SITEMAP + "loc")]
    assert locs and all(loc.startswith(BASE_URL + "/") for loc in locs)
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")} - {urls.NOT_FOUND}
    assert len(locs) == len(pages)
    assert f"Sitemap: {BASE_URL}/sitemap.xml" in (site / urls.ROBOTS).read_text(encoding="utf-8")
    llms = (site / urls.LLMS).read_text(encoding="utf-8")
    index = json.loads((site / urls.API_INDEX).read_text(encoding="utf-8"))
    for kind, schema in index["schemas"].items():
        assert f"`{kind}`" in llms and schema in llms, kind


def test_finding_mirrors_and_documents_validate(site):
    index = json.loads((site / urls.API_INDEX).read_text(encoding="utf-8"))
    kinds = {"search", "records", "gpu", "gpus", "model", "models", "compare", "search-index", "search-shard",
             "run-directory"}
    validators = {kind: jsonschema.Draft202012Validator(json.loads((site / index["schemas"][kind]).read_text(encoding="utf-8")))
                  for kind in kinds}
    seen = set()
    for entry in listed_documents(lambda path: json.loads((site / path).read_text(encoding="utf-8"))):
        if entry["kind"] in kinds:
            seen.add(entry["kind"])
            document = json.loads((site / entry["mirror"]).read_text(encoding="utf-8"))
            errors = list(validators[entry["kind"]].iter_errors(document))
            assert not errors, f"{entry['mirror']}: {errors[0].message}"
            assert (site / entry["html"]).is_file()
    assert seen == kinds
    assert "compare-result" in index["schemas"]


def test_not_found_page_resolves_its_links_from_the_site_root_at_any_depth(site):
    """A host serves 404.html for a missing address at any depth (/site/kernels/x/y.html): with a
    base URL, a <base> element makes every relative link resolve from the site's root there."""
    page = soup(site, urls.NOT_FOUND)
    base = page.select("head base")
    assert [element["href"] for element in base] == [BASE_URL + "/"]
    head = page.head.find_all(True)
    assert head.index(base[0]) < min(head.index(link) for link in page.head.select("link[href]"))
    for link in page.select("link[href], a[href]"):
        href = link["href"]
        if not href.startswith(("#", "http")):
            assert (site / href.split("#")[0]).is_file(), href


def test_other_pages_have_no_base_element(site):
    assert soup(site, urls.INDEX).select("base") == []
