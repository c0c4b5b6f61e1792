"""End to end: build the bundled data once, then read the pages as a reader would (parsed HTML).

These need the bundled data (issue 2); a test whose kernel has not landed yet is skipped and says so.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from bs4 import BeautifulSoup

from site_builder import urls
from site_builder.build import build_site
from site_builder.mirrors import listed_documents
from tests.browser.sitemap import resolve
from tests.bundled import bundled_data
from tests.run_json import document_reader, mirror_of, read_run
from tests.scratch import scratch_folder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
AS_OF = date(2026, 12, 2)  # after the newest observation in data/


def needs(kernel: str) -> None:
    if not (DATA / "kernels" / f"{kernel}.yaml").is_file():
        pytest.skip(f"data/kernels/{kernel}.yaml has not landed yet (bundled data, issue 2)")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Path]:
    runs = DATA / "runs"
    if not runs.is_dir() or not any(runs.rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet (issue 2)")
    with scratch_folder(tmp_path_factory, "build") as folder:
        build_site(bundled_data(), folder / "site", as_of=AS_OF)
        yield folder / "site"


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def text(node) -> str:
    return re.sub(r"\s+", " ", node.get_text(" ", strip=True))


def ranking(page: BeautifulSoup) -> list[dict]:
    rows = []
    for row in page.select("table.ranking tr.ranked"):
        rows.append({"rank": int(row["data-rank"]), "run": row["data-run"],
                     "implementation": text(row.select_one("td.impl a")), "latency": text(row.select_one("td.latency")),
                     "vs_leader": text(row.select_one("td.vs-leader"))})
    return rows


def run_named_by(external_id: str) -> str:
    """The run file (hence page) that holds a source's external id."""
    for path in (bundled_data() / "runs").rglob("*.yaml"):
        if external_id in path.read_text(encoding="utf-8"):
            return path.stem
    pytest.skip(f"no run with external id {external_id} in data/runs yet")


# --------------------------------------------------------------------------------------------
# The seeds' figures


def group_of(site: Path, run_name: str) -> tuple[str, BeautifulSoup]:
    """The comparison-group page a run page links to (path from the site root, parsed page)."""
    run_page = soup(site, f"runs/{run_name}.html")
    href = run_page.select_one(".rank-line a")["href"]
    path, _ = resolve(f"runs/{run_name}.html", href)
    return path, soup(site, path)


def detail_of(page: BeautifulSoup, run_name: str) -> str:
    return text(page.select_one(f'tbody#run-{run_name} tr.detail'))


def test_llama4_rope_seq2048_hidden8192_on_h100(site):
    needs("llama4-rope")
    liger = run_named_by("llama4_rope/forward/liger/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq2048-bf16/2025-08-07-21-42-01")
    path, group = group_of(site, liger)
    facts = text(group.select_one(".facts"))
    assert "H100" in facts and "seq = 2048" in facts and "hidden = 8192" in facts and "forward" in facts
    rows = ranking(group)
    assert rows[0] == {**rows[0], "rank": 1, "run": liger, "implementation": "Liger"}
    assert rows[0]["latency"] == "81.3 µs" and rows[0]["vs_leader"] == "1.00×"
    transformers = [r for r in rows if r["implementation"] == "Transformers"]
    assert transformers[0]["latency"] == "206.5 µs" and transformers[0]["vs_leader"] == "2.54×"
    assert detail_of(group, liger).startswith("2.54× faster than the baseline.")
    floor = group.select_one(".floor-v1")
    assert text(floor.select_one(".floor-value")) == "12.5 µs"
    assert text(floor.select_one(".times-above")) == "6.49×"
    # The kernel page lists this group among the workload's current records, with its record.
    kernel = soup(site, "kernels/llama4-rope.html")
    listed = [tr for tr in kernel.select("table.cohorts tbody tr") if tr.a["href"] == "../" + path]
    assert listed and "81.3 µs" in text(listed[0]) and "Liger" in text(listed[0])


def test_kernel_headline_is_the_default_groups_leader(site):
    needs("llama4-rope")
    page = soup(site, "kernels/llama4-rope.html")
    headline = page.select_one("section.headline")
    rows = ranking(page.select_one(".comparison"))
    leader = text(headline.select_one(".figure .big"))
    assert rows[0]["rank"] == 1 and rows[0]["latency"].startswith(leader)
    assert text(headline.h2).startswith("Fastest ")
    selected = page.select_one("table.cohorts tr.selected")
    assert leader in text(selected)
    vs_baseline = headline.select_one(".vs-baseline")
    if vs_baseline is not None:  # the leader's own ratio, as its row states it
        ratio = text(vs_baseline).split("×")[0]
        assert detail_of(page, rows[0]["run"]).startswith(f"{ratio}× faster than the baseline.")
    if len(page.select("section.by-language li")) >= 2:
        assert text(page.select_one("section.by-language li")).endswith("· #1")


def test_seed_000_headline_on_the_h100_group(site):
    """Seed 000's answer slot, computed for the H100 forward group (the kernel page shows it for its default group)."""
    needs("llama4-rope")
    from site_builder.derive.headline import fastest_by_language, headline
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.repository import load_catalog

    board = derive_leaderboard(load_catalog(bundled_data()), AS_OF)
    liger = run_named_by("llama4_rope/forward/liger/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq2048-bf16/2025-08-07-21-42-01")
    cohort = board.cohorts[board.runs[liger].cohort]
    slot = headline(cohort.rows, lambda row: board.usability(row.run))
    assert slot.heading == "Fastest reported · usable today" and f"{slot.vs_baseline:.2f}" == "2.54"
    assert board.usability(slot.leader.run).install == 'pip install "liger-kernel==0.6.1"'
    assert [(b.language, f"{b.vs_first:.2f}") for b in fastest_by_language(cohort.rows)] == [("triton", "1.00"), ("python", "2.54")]


def test_seed_001_run_is_rank_2_in_its_group(site):
    needs("llama4-rope")
    name = run_named_by("llama4_rope/forward/huggingface/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq4096-bf16")
    page = soup(site, f"runs/{name}.html")
    assert text(page.select_one(".rank-line .rank")) == "Rank 2"
    assert text(page.select_one(".primary .big")) == "385.5 µs"
    quantiles = text(page.select_one(".quantiles"))  # the source's ms_20 0.3846847891807556, in words and µs
    assert "latency p20 384.7 µs" in quantiles and "0.38468" not in quantiles
    cite = text(page.select_one("#cite-title").parent)
    assert f"access date {AS_OF.isoformat()}" in cite and "sha256:" in cite


def test_neighborhood_attention_on_rtx_3090(site):
    needs("fused-neighborhood-attention")
    liger = run_named_by("fused_neighborhood_attention/forward/liger/nvidia-geforce-rtx-3090/batch2-dilation2-heads8-hidden512-kernel_size7-seq128-fp32/")
    path, group = group_of(site, liger)
    assert "RTX 3090" in text(group.select_one(".facts")) and "seq = 128" in text(group.select_one(".facts"))
    rows = ranking(group)
    assert rows[0]["run"] == liger and rows[0]["latency"] == "155.2 µs"
    assert detail_of(group, liger).startswith("67.12× faster than the baseline.")
    floor = group.select_one(".floor-v1")
    assert text(floor.select_one(".floor-value")) == "5.05 µs" and text(floor.select_one(".times-above")) == "30.72×"


def test_multimodal_suite_mean_and_sol(site):
    needs("multimodal-rotary-embedding-attention")
    page = soup(site, "kernels/multimodal-rotary-embedding-attention.html")
    rows = ranking(page)
    assert rows[0]["rank"] == 1 and rows[0]["latency"] == "166.2 µs 67% SOL"
    headline = page.select_one("section.headline")
    assert text(headline.h2) == "Fastest reported"  # no public source: not usable today
    figure = text(headline.select_one(".figure"))
    assert figure.startswith("166.2 µs mean") and "67% of SOL" in figure
    assert page.select(".suite-cases tbody tr"), "a suite page lists its cases"
    # A suite's latency is a mean of its cases': it is held to the smallest of their floors.
    floor = page.select_one(".comparison .floor")
    note = text(floor.select_one(".floor-note"))
    assert "suite of 16 cases" in note and "smallest of the cases' floors" in note
    mirror = json.loads((site / "api/v1/kernels/multimodal-rotary-embedding-attention.json").read_text(encoding="utf-8"))
    truthful = mirror["groups"][mirror["selectedGroup"]]["comparison"]["floor"]["truthful"]
    assert 0 < truthful["ns"] < 166_200 and truthful["timesAbove"] > 1


def test_a_kernel_document_says_its_groups_once(site):
    """A kernel's (or workload's) document that holds its groups leaves out the page's summary of
    each (`cohorts`) and the selected group's comparison, which its `groups` say; one whose groups
    are documents of their own keeps both. Either way `selectedGroup` names the ranked group."""
    held = apart = 0
    for path in (site / "api/v1/kernels").rglob("*.json"):
        mirror = json.loads(path.read_text(encoding="utf-8"))
        selected = mirror.get("selectedGroup")
        if mirror["groups"]:
            held += 1
            assert "cohorts" not in mirror and "comparison" not in mirror, path
            assert selected in mirror["groups"], path
            assert urls.group(mirror["groups"][selected]["comparison"]["summary"]["key"]) == f"groups/{selected}.html"
        elif mirror.get("comparison"):
            apart += 1
            assert mirror["cohorts"][0]["url"] == f"groups/{selected}.html", path
            assert (site / urls.mirror(f"groups/{selected}.html")).is_file(), path  # the group's own document
    assert held > 100 and apart > 0, (held, apart)


def test_run_mirror_gives_seed_002_by_its_references(site):
    """A run's JSON holds its own manifest and refers to its protocol's and environment's by digest
    and mirror (issue 24): following the two gives seed 002's run/protocol/environment shape. It is
    part of its group's mirror, named by its page's JSON link."""
    needs("llama4-rope")
    name = run_named_by("llama4_rope/backward/huggingface/nvidia-h100-80gb-hbm3/hidden512-kv_heads8-q_heads32-seq2048-bf16")
    assert not (site / f"api/v1/runs/{name}.json").exists()
    mirror = read_run(site, name)
    assert "protocol" not in mirror and "environment" not in mirror
    spec = mirror["run"]["spec"]
    assert spec["timing"] == {"latencyNs": {"median": 137600}, "primaryStatistic": "median"}
    assert spec["protocolDigest"] == "sha256:080e6e66e4ec75a131aa0c9121c74b8e8eed64e7b6d621d567c6a28f79548be8"
    assert spec["environmentDigest"] == "sha256:2750ae381d6de582f1eb6b9008e0987463d19ede8af127d97d76c5ae09121393"
    shared = {}
    for member in ("protocol", "environment"):
        ref = mirror["details"][member]
        assert ref["digest"] == spec[f"{member}Digest"]
        shared[member] = json.loads((site / ref["mirror"]).read_text(encoding="utf-8"))["manifest"]
    assert shared["environment"]["spec"]["hardware"]["formFactor"] == "80GB HBM3"
    assert shared["protocol"]["kind"] == "BenchmarkProtocol" and shared["protocol"]["metadata"]["name"] == "liger-bench-do-bench-backward"
    assert (site / mirror["details"]["workload"]["mirror"]).is_file()


# --------------------------------------------------------------------------------------------
# The site as a whole


def test_one_url_per_workload_and_the_selector_needs_no_javascript(site):
    needs("llama4-rope")
    page = soup(site, "kernels/llama4-rope.html")
    links = page.select("ul.workloads a, table.workload-table a")
    assert len(links) >= 7
    targets = [a["href"] for a in links]
    assert len(set(targets)) == len(targets)
    assert sum(1 for a in links if a.get("aria-current") == "page") == 1
    for href in targets:
        assert (site / "kernels" / href).resolve().is_file()


def test_charts_are_static_svg_with_the_spec_inline_and_no_cdn(site):
    needs("llama4-rope")
    page = soup(site, "kernels/llama4-rope.html")
    figure = page.select_one("figure.chart")
    # A drawing of its own, shared by the pages that show it: wide, and narrow for a phone.
    wide = figure.select_one(".chart-canvas picture img")["src"]
    narrow = figure.select_one(".chart-canvas picture source[media]")["srcset"]
    for drawing in (wide, narrow):
        assert re.fullmatch(r"\.\./charts/[0-9a-f]{20}\.svg", drawing)
        assert (site / "kernels" / drawing).resolve().read_text(encoding="utf-8").startswith("<svg")
    assert wide != narrow
    spec = json.loads(figure.select_one("script.chart-spec").string)
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    scripts = [s["src"] for s in page.select("script[src]")]
    assert scripts and all(not src.startswith(("http:", "https:", "//")) for src in scripts)
    assert all((site / "kernels" / src).resolve().is_file() for src in scripts)
    assert page.select_one("table.chart-data") is not None


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src", "srcset") and value:
                self.targets.append(value)


def test_every_internal_link_resolves(site):
    files = {path.relative_to(site).as_posix() for path in site.rglob("*") if path.is_file()}
    broken = []
    for page in site.rglob("*.html"):
        if page.name == "404.html":
            continue  # served at any depth by the host; its links are relative to the root
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        folder = page.parent.relative_to(site).as_posix()
        for target in parser.targets:
            if target.startswith(("http://", "https://", "mailto:", "#")):
                continue
            path = target.split("#", 1)[0].split("?", 1)[0]  # ?q= and ?runs= are read by the page's script
            if posixpath.normpath(posixpath.join(folder, path)) not in files:
                broken.append(f"{page.relative_to(site)} -> {target}")
    assert not broken, "\n".join(broken[:20])


def test_every_mirror_validates_against_its_schema(site):
    index = json.loads((site / "api/v1/index.json").read_text(encoding="utf-8"))
    validators = {kind: jsonschema.Draft202012Validator(json.loads((site / path).read_text(encoding="utf-8")))
                  for kind, path in index["schemas"].items()}
    index_schema = json.loads((site / "api/v1/schemas/index-document.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(index_schema).validate(index)
    part_schema = jsonschema.Draft202012Validator(json.loads((site / index["partSchema"]).read_text(encoding="utf-8")))
    parts = [part["index"] for kind in index["kinds"] for part in kind["parts"]]
    for part in parts:
        part_schema.validate(json.loads((site / part).read_text(encoding="utf-8")))
    documents = list(listed_documents(lambda path: json.loads((site / path).read_text(encoding="utf-8"))))
    assert sum(kind["documents"] for kind in index["kinds"]) == len(documents)
    # Every JSON file is a listed document, a schema, the index or one of its parts; a group's or
    # a run's document is a part of its workload's mirror, named by a JSON Pointer.
    files = [entry for entry in documents if "#" not in entry["mirror"]]
    parts_of = [entry for entry in documents if "#" in entry["mirror"]]
    assert {entry["kind"] for entry in parts_of} == {"group", "run"}
    schemas = len(validators) + 2  # and the schemas of the index and of its parts
    assert len(files) == sum(1 for _ in (site / "api/v1").rglob("*.json")) - schemas - 1 - len(parts)
    read_document = document_reader(site)
    for entry in documents:
        document = read_document(entry["mirror"])
        errors = sorted(validators[entry["kind"]].iter_errors(document), key=lambda e: e.path)
        assert not errors, f"{entry['mirror']}: {errors[0].message} at {list(errors[0].path)}"
        assert (site / entry["html"]).is_file()


def test_methodology_is_rendered_markdown_without_raw_html(site):
    page = soup(site, "methodology.html")
    assert text(page.h1) == "How records are decided"
    assert page.select("article table") and "BELOW_PHYSICAL_FLOOR" in text(page)


def test_builds_are_byte_identical(site, tmp_path):
    again = tmp_path / "again"
    build_site(bundled_data(), again, as_of=AS_OF)
    first = {p.relative_to(site): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    differing = [str(path) for path in first if first[path] != second[path]]
    assert not differing, differing[:10]


# --------------------------------------------------------------------------------------------
# Kernel identity and floors (issue 22), over every group mirror of the bundled site


def group_mirrors(site: Path) -> list[dict]:
    """Every group's document: from its workload's mirror, or its own (a workload of many runs)."""
    held = [group for path in sorted((site / "api/v1/kernels").rglob("*.json"))
            for _, group in sorted(json.loads(path.read_text(encoding="utf-8")).get("groups", {}).items())]
    return held + [json.loads(path.read_text(encoding="utf-8")) for path in sorted((site / "api/v1/groups").glob("*.json"))]


def test_a_groups_document_holds_each_of_its_runs_whole(site):
    """A run's JSON is its part of its group's (issue 24): the group holds exactly the runs it
    ranks or lists unranked, and each assembles into a document with every field its page shows."""
    from site_builder.page_views import RunDetails
    from site_builder.search.compare import run_document

    shown = {field.alias or name for name, field in RunDetails.model_fields.items()}
    groups = group_mirrors(site)
    own = {group["html"] for group in groups if "#" not in group["mirror"]}
    assert own and len(own) < len(groups)  # the bundled data has workloads of more runs than a workload's mirror holds
    assert sum(len(group["runs"]) for group in groups) == sum(1 for _ in (site / "runs").glob("*.html"))
    for group in groups:
        comparison = group["comparison"]
        assert set(group["runs"]) == {row["run"] for row in comparison["rows"] + comparison["unranked"]}, group["html"]
        for name, run in group["runs"].items():
            document = run_document(group, name)
            assert shown - {"measurements", "cite"} <= set(document["details"]), name  # those two: from the manifest
            assert document["details"]["cohort"]["url"] == group["html"] and document["details"]["correctness"]
            # A superseded run's manifest is its data file (``GroupRun.run``).
            assert (run["run"] is None) == bool(run["details"]["supersededBy"])
            assert run["run"] is None or run["run"]["metadata"]["name"] == name


def test_no_group_ranks_two_kernels(site):
    from site_builder.repository import load_catalog

    catalog = load_catalog(DATA)
    operation_of = {name: run.refs["workload"].refs["operation"].name for name, run in catalog.runs.items()}
    mirrors = group_mirrors(site)
    assert len(mirrors) > 1000
    for mirror in mirrors:
        comparison = mirror["comparison"]
        kernels = {operation_of[row["run"]] for row in comparison["rows"] + comparison["unranked"]}
        assert kernels == {mirror["operation"]["url"].removeprefix("kernels/").removesuffix(".html")}, mirror["mirror"]


def test_floors_mean_something(site):
    from site_builder.repository import load_catalog

    catalog = load_catalog(DATA)
    undeclared = {name for name, op in catalog.operations.items() if op.metadata.labels.get("semantics") == "undeclared"}
    latency_groups = 0
    for mirror in group_mirrors(site):
        comparison = mirror["comparison"]
        floor, why = comparison["floor"], comparison["noFloor"]
        operation = mirror["operation"]["url"].removeprefix("kernels/").removesuffix(".html")
        assert (floor is None) != (why is None), mirror["mirror"]  # a floor, or the reason there is none
        if floor is not None:
            # The physical floor (the one runs are held to) is never 0. headroom-v1 counts inputs only,
            # as the public KernelIndex does; a few imported kernels declare no counted input, so it
            # can be 0 there (a known gap, noted on issue 22's follow-up).
            assert floor["truthful"]["ns"] > 0 and floor["headroomV1"]["ns"] >= 0, mirror["mirror"]
        # A group without a floor ranks something that is not a time (memory, GPU MODE's score),
        # or its kernel awaits a declaration, or its workload is a suite whose cases leave sizes open.
        open_suite = (why or "").startswith("the workload is a suite")
        metric = comparison["summary"]["metric"]
        if floor is None and metric is not None:
            assert not metric.endswith(":ns") or operation in undeclared or open_suite, (mirror["mirror"], why)
        if (metric or "").startswith("latency") and operation not in undeclared and not open_suite:
            latency_groups += 1
            assert floor is not None, (mirror["mirror"], why)
    assert latency_groups > 700
    no_floor_pages = 0
    for path in (site / "groups").glob("*.html"):
        page = path.read_text(encoding="utf-8")
        assert 'floor-value">0 ns<' not in page, path.name
        if "<strong>No floor</strong>" in page:  # and so no ratio over it
            no_floor_pages += 1
            assert 'class="times-above"' not in page and 'class="floor-value"' not in page, path.name
    assert no_floor_pages > 300  # the memory groups
    # A floor under a nanosecond (a few hundred bytes over HBM) prints its decimals, never "0 ns".
    tiny_floor_runs = [p.name for p in (site / "runs").glob("*.html") if 'floor-value">0 ns<' in p.read_text(encoding="utf-8")]
    assert not tiny_floor_runs, tiny_floor_runs[:5]


def test_no_page_carries_placeholder_semantics(site):
    for path in (site / "kernels").glob("*.html"):
        page = path.read_text(encoding="utf-8")
        assert "not declared yet" not in page and "placeholders without a shape" not in page, path.name
    index = soup(site, "index.html")
    assert index.select_one("section.awaiting") is None  # every bundled kernel is declared


# The reader's experience (issue 25)


def test_run_page_floor_line_is_this_runs_ratio(site):
    needs("llama4-rope")
    name = run_named_by("llama4_rope/forward/huggingface/nvidia-h100-80gb-hbm3/hidden8192-kv_heads8-q_heads32-seq4096-bf16")
    page = soup(site, f"runs/{name}.html")
    floor = read_run(site, name)["details"]["floor"]
    unrounded = floor["headroomV1"]["bytes"] / floor["bandwidthGbps"]
    # A run page says its floors in one line (the group page explains how they are counted).
    line = text(page.select_one(".floor-line"))
    this_run = text(page.select_one(".floor-line .times-above"))
    assert "this run" in line and this_run == f"{385_536 / unrounded:.2f}×"
    assert "physical floor" in line and "how the group's floors are counted" in line
    group_path, group = group_of(site, name)
    assert text(group.select_one(".floor-v1 .times-above")) != this_run


def test_pages_speak_plain_words(site):
    """No status codes, camelCase keys, Python booleans or raw floats in what a run page shows
    (the canonical manifest, in its <pre>, keeps the data's own spelling)."""
    outside_manifest = re.compile(r"<pre>.*?</pre>|<script.*?</script>", re.S)
    offenders = {}
    for path in sorted((site / "runs").glob("*.html")):
        html = outside_manifest.sub("", path.read_text(encoding="utf-8"))
        shown = re.sub(r"<[^>]+>", " ", html)
        found = [word for word in ("STATUS_", "primaryStatistic", "comparabilityFamily", " False", " True",
                                   "device index 1.0", "ms 20 0.") if word in shown]
        found += re.findall(r"\b\d+\.0*[1-9]\d{6,}\b", shown)[:1]  # seven significant digits or more: a raw float
        if found:
            offenders[path.name] = found
    assert not offenders, list(offenders.items())[:5]
    in_place = [p for p in (site / "runs").glob("*.html") if "writes its inputs in place" in p.read_text(encoding="utf-8")]
    assert in_place, "the harness's policy_violation runs (Liger writes in place) say so in words"


def test_record_breaks_never_read_minus_zero(site):
    pages = [site / "records.html", *sorted((site / "records").rglob("*.html"))]
    assert not [p.name for p in pages if "−0.0%" in p.read_text(encoding="utf-8")]


def test_llama4_rope_shows_its_record_on_every_gpu(site):
    needs("llama4-rope")
    page = soup(site, "kernels/llama4-rope.html")
    rows = {text(tr.td): text(tr) for tr in page.select("table.gpu-records tbody tr")}
    h100 = next(row for gpu, row in rows.items() if "H100 SXM" in gpu)
    assert "81.3 µs" in h100 and "Liger" in h100 and "2.54×" in h100  # seed 000's headline figure
    assert any("H200" in gpu for gpu in rows)
    # "Best usable" is said on the page whatever the headline is.
    assert page.select_one(".headline .best-usable-line, .headline .best-usable") is not None
    # One unit per column: latency groups in one table, memory in another.
    latencies = [text(td) for td in page.select("table.cohorts tbody td.num:nth-of-type(2)")]
    assert latencies and all(v.endswith(("µs", "ms", "ns", "–")) for v in latencies)
    assert all("MiB" not in text(tr) for tr in page.select("table.cohorts tbody tr"))


def test_a_host_bound_run_is_not_the_headline(site):
    needs("fused-neighborhood-attention")
    page = soup(site, "kernels/fused-neighborhood-attention.html")
    headline = page.select_one("section.headline")
    rows = ranking(page.select_one(".comparison"))
    note = page.select_one(".headline .passed-over")
    if rows[0]["latency"] == "118.4 µs":  # the H200 run of issue 25 (p20 91.2, p80 147.1, fastest 22.6 µs)
        assert text(headline.select_one(".figure .big")) != "118.4 µs"
        assert note is not None and "host-bound" in text(note) and "118.4 µs" in text(note)


def test_multimodal_implementations_each_have_a_best_latency_and_a_name_of_their_own(site):
    needs("multimodal-rotary-embedding-attention")
    page = soup(site, "kernels/multimodal-rotary-embedding-attention.html")
    rows = page.select("table.implementations tbody tr")
    names = [text(tr.select_one("td a")) for tr in rows]
    assert len(rows) >= 29 and len(set(names)) == len(names)
    assert all(text(tr.select_one("td.best-anywhere")) != "–" for tr in rows)
    # The footer dates a source by when its runs were observed, not when it was fetched.
    footer = text(page.select_one("footer.page-sources"))
    assert "observed through" in footer


def test_sol_execbench_run_pages_credit_it_and_never_divide_by_an_empty_estimate(site):
    """SOL-ExecBench's runs (imported from the public KernelIndex's export by default) each credit
    it; where the headroom-v1 estimate counts no bytes (a kernel that declares no counted input),
    the run page gives that estimate and the physical floor but no ratio over the estimate."""
    names = [path.stem for path in (DATA / "runs" / "sol-execbench").rglob("*.yaml")]
    if len(names) < 100:
        pytest.skip("the export's SOL-ExecBench runs are not imported into data/ (kernelindex import kernelindex-export)")
    empty_estimates = 0
    for name in names:
        page = (site / "runs" / f"{name}.html").read_text(encoding="utf-8")
        assert "Data: NVIDIA SOL-ExecBench" in page, name
        floor = read_run(site, name)["details"].get("floor")
        if floor and floor["headroomV1"]["bytes"] == 0:
            empty_estimates += 1
            shown = BeautifulSoup(page, "html.parser")
            if shown.select_one(".floor-line"):  # a run among others: the floors in a line
                line = text(shown.select_one(".floor-line"))
                assert "physical floor" in line and "this run" not in line, name
            else:  # the only run of its group: the floors in full
                estimate = text(shown.select_one("details.floor .floor-v1"))
                assert "none (no input counted)" in estimate and "this run" not in estimate, name
                assert "Physical floor" in text(shown.select_one("details.floor .floor-truthful")), name
    assert empty_estimates > 0  # the case this guards; SOL-ExecBench's export has such kernels


def test_a_group_of_one_run_is_shown_on_its_runs_page(site):
    """A group's page leads to its run's page exactly when the group has one run (that nothing
    supersedes), and that run page then explains the floors in full and links no group page."""
    alone = full = 0
    mirrors = sorted((mirror_of(site, f"groups/{path.name}"), f"groups/{path.name}") for path in (site / "groups").glob("*.html"))
    read_document = document_reader(site)  # in mirror order: a workload's groups one after another
    for mirror, page in mirrors:
        group = read_document(mirror)
        shown = soup(site, page)
        refresh = shown.find("meta", attrs={"http-equiv": "refresh"})
        if len(group["runs"]) != 1 or group["runs"][next(iter(group["runs"]))]["details"]["supersededBy"]:
            assert refresh is None and shown.select_one("section[aria-labelledby=ranking-title]"), page
            full += 1
            continue
        (name,) = group["runs"]
        target, _ = resolve(page, refresh["content"].split("url=", 1)[1])
        assert target == f"runs/{name}.html", page
        run = soup(site, target)
        assert "only run of its comparison group" in text(run.select_one(".rank-line")) or \
            "Not eligible" in text(run.select_one(".rank-line"))
        assert not run.select(f'a[href$="{page.removeprefix("groups/")}"]'), "a link back to the page that leads here"
        if group["comparison"]["floor"]:
            assert run.select_one("details.floor .floor-truthful") is not None
        alone += 1
    assert alone and full  # the bundled data has both
