"""Superseded runs (issue 24): each is a row of its group page's earlier runs, with its own facts,
and its own page leads there instead of repeating the group's facts. Built from the Liger gh-pages fixture
(tests/fixtures/liger-gh-pages: 336 runs, most of them weeks that a later week supersedes)."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder.build import build_site
from site_builder.formatting import measure
from site_builder.importers.liger import import_liger
from schemas.digest import canonical_json
from site_builder.importers.output import read_document
from site_builder.search.compare import compare_runs, run_document
from tests.run_json import mirror_of, read_run
from tests.run_json import read_document as read_mirror

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


def test_a_superseded_runs_page_leads_to_its_row_which_shows_its_own_facts(history):
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
        row = group.select_one(f"tr#run-{name}")
        assert row is not None, name
        spec = runs[name]["spec"]
        text = words(row)
        assert spec["observedAt"][:10] in text
        # Its own facts: its digest, and its measurements as the source published them.
        ranking_row = next(r for r in group_json(site, path)["comparison"]["unranked"] if r["run"] == name)
        assert ranking_row["digest"].removeprefix("sha256:")[:8] + "…" in text
        primary = ranking_row["value"]
        if "chart-data" in row.find_parent("table")["class"]:
            # A point of the chart over time: its median and band, its snapshot, marked earlier.
            assert measure(primary, ranking_row["unit"]) in text and "earlier" in text
            assert runs[name]["metadata"]["labels"]["liger_snapshot"] in text
        else:
            assert float(row.find_all("td")[1].data["value"]) == pytest.approx(primary)
            for measurement in spec["measurements"]:
                assert measurement["statistic"] in text
        # The run that superseded it is newer, and an earlier run here too or one of the current runs.
        assert runs[newer]["spec"]["observedAt"] > spec["observedAt"]
        assert group.select_one(f"tr#run-{newer}, table.ranking tr[data-run='{newer}'], "
                                f"table.unranked tr[data-run='{newer}']") is not None, newer


def group_json(site: Path, page_path: str) -> dict:
    """The group's JSON, which its page (``page_path``, from a run page) names: a file of its own or
    a part of its workload's."""
    return read_mirror(site, mirror_of(site, posixpath.normpath(posixpath.join("runs", page_path))))


def group_sections(site: Path, labelled: str):
    """(file name, page, section) of each group page with a section ``labelled`` by that heading id."""
    for path in sorted((site / "groups").glob("*.html")):
        page = soup(site, f"groups/{path.name}")
        section = page.select_one(f"section[aria-labelledby={labelled}]")
        if section is not None:
            yield path.name, page, section


def test_an_earlier_runs_table_says_once_what_its_rows_share(history):
    site, _ = history
    checked = 0
    for _, page, section in group_sections(site, "earlier-title"):
        checked += 1
        intro = words(section.p)
        # One source, one correctness check, one evidence level: said above the table, not per row.
        assert "Source: Liger-Kernel benchmark history (gh-pages)" in intro
        assert "Reported by source" in intro
        rows = page.select("tr[id^=run-]")
        assert rows and not any("Reported by source" in words(tr) for tr in rows)
        json_link = section.p.find("a", string="this group's JSON")
        assert json_link["href"].startswith("../api/v1/")
    assert checked


def test_a_ranking_table_counts_its_superseded_runs_and_lists_them_only_as_history(history):
    site, runs = history
    current = {name for name, run in runs.items()} - {run["spec"]["supersedes"] for run in runs.values()
                                                        if run["spec"].get("supersedes")}
    checked = 0
    for path in (site / "groups").glob("*.html"):
        page = soup(site, f"groups/{path.name}")
        earlier = page.select("tr[id^=run-]")
        listed = {row["data-run"] for row in page.select("table.ranking tr[data-run], table.unranked tr[data-run]")}
        assert not {li["id"].removeprefix("run-") for li in earlier} & listed
        note = next((p for p in page.select("p.more") if "earlier run" in words(p)), None)
        if earlier:
            checked += 1
            assert words(note).startswith(f"{len(earlier)} earlier run")
            assert "superseded by a newer run" in words(page.select_one("section[aria-labelledby=earlier-title]"))
        else:
            assert note is None
    assert checked
    kept = sorted(current)[:20]
    for name in kept:  # the runs no other supersedes keep their full page
        assert soup(site, f"runs/{name}.html").select_one("main section.primary") is not None, name


def test_a_chart_over_time_draws_a_dot_for_each_row_of_its_table(history):
    site, _ = history
    checked = 0
    for name, _, section in group_sections(site, "timeline-title"):
        checked += 1
        dots = sum(d["d"].count("h0") for d in section.select("figure svg path[stroke-linecap=round]"))
        rows = section.select("table.chart-data tbody tr:not(:first-child)")  # each row group opens with its name
        assert dots == len(rows) > 0, name
        # Each implementation's points are a row group headed by its name, as the legend names it.
        legend = [t.get_text() for t in section.select("figure svg > text")]
        assert [th.get_text() for th in section.select("table.chart-data th[scope=rowgroup]")] == legend
    assert checked


def test_a_superseded_run_s_json_leaves_its_manifest_to_its_file_which_its_digest_verifies(history):
    """A superseded run's entry in its group's JSON has no manifest (``GroupRun.run`` is null) but says
    its status; its file in the data repository has its spec with references by name: with each
    replaced by the digest of the document it names, as the site's JSON gives them, the spec hashes
    (as a digest does: ``{apiVersion, kind, spec}``) to the digest its row gives. A compare of it
    with its successor still lines the two up."""
    site, runs = history
    superseded_by = {run["spec"]["supersedes"]: name for name, run in runs.items() if run["spec"].get("supersedes")}
    for name in sorted(superseded_by)[::10]:
        document = read_run(site, name)
        assert document["run"] is None and document["details"]["status"] == runs[name]["spec"]["status"]
        details = document["details"]
        spec = dict(runs[name]["spec"])
        named = {"workloadDigest": details["workload"]["digest"], "protocolDigest": details["protocol"]["digest"],
                 "environmentDigest": details["environment"]["digest"],
                 "implementationDigest": read_mirror(site, f"api/v1/implementations/{spec['implementation']}.json")["digest"]}
        if spec.get("supersedes"):
            named["supersedesDigest"] = read_run(site, spec["supersedes"])["details"]["digest"]
        for reference in ("workload", "protocol", "environment", "implementation", "supersedes"):
            spec.pop(reference, None)
        identity = {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkRun", "spec": {**spec, **named}}
        assert "sha256:" + hashlib.sha256(canonical_json(identity).encode()).hexdigest() == details["digest"], name
        newer = read_run(site, superseded_by[name])
        result = compare_runs([document, newer])
        assert result["comparable"] and result["ranking"] is None  # one group; a superseded run is not ranked
        status = next(field for field in result["fields"] if field["name"] == "status")
        assert status["values"] == [document["details"]["status"], newer["details"]["status"]]


def test_a_correctness_check_every_run_of_a_group_shares_is_said_once_by_the_group(history):
    site, _ = history
    held = [group for path in sorted((site / "api/v1/kernels").rglob("*.json"))
            for group in json.loads(path.read_text(encoding="utf-8")).get("groups", {}).values()]
    groups = held + [json.loads(path.read_text(encoding="utf-8")) for path in sorted((site / "api/v1/groups").glob("*.json"))]
    said = 0
    for group in groups:
        own = [run["details"]["correctness"] for run in group["runs"].values()]
        if group["correctness"] is not None:
            said += 1
            assert own == [None] * len(own)
        else:
            assert None not in own and len({json.dumps(check, sort_keys=True) for check in own}) > 1
        for name in group["runs"]:
            assert run_document(group, name)["details"]["correctness"] == (group["correctness"] or group["runs"][name]["details"]["correctness"])
    assert said > len(groups) / 2  # one source's history: its runs are checked alike


def test_a_record_of_memory_is_less_not_faster(history):
    """A record history's improvement says what improved: time (faster) or memory (less). (The
    fixture's memory series set one record each; Liger's whole history has memory records broken.)"""
    site, _ = history
    said = {"faster": 0, "less": 0}
    for _, _, section in group_sections(site, "history-title"):
        for row in section.select("table.history tbody tr"):
            cells = row.find_all("td")
            if cells[-1].get_text() == "–":
                continue
            word = cells[-1].get_text().split()[-1]
            assert word == ("less" if cells[2].get_text().endswith("MiB") else "faster"), words(row)
            said[word] += 1
    assert said["faster"]
