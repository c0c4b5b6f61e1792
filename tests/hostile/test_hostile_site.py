"""HTML and script in every free-text field render inert on the built site; the floor flags a run."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from site_builder import urls
from tests.run_json import read_run

from .hostile_site import FLOOR_RUN, XSS, built_hostile_site

# Every <script> the site may have: its own static files, and inline JSON chart specs.
STATIC_SCRIPT = re.compile(r"^(\.\./)*static/[a-z0-9.-]+\.js$")
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "poster", "srcset", "xlink:href")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return built_hostile_site(tmp_path_factory.mktemp("hostile"))


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# One page of every kind the hostile data reaches (each kind is its own template).
PAGES = {
    "kernel": urls.kernel("llama4-rope"),
    "workload": urls.workload("llama4-rope", "llama4-rope-s4096", "llama4-rope-s2048"),
    "run": urls.run("liger-rope-s2048-older"),
    "implementation": urls.implementation("liger-llama4-rope"),
    "hardware": urls.hardware("nvidia-h100-sxm"),
    "environment": urls.environment("liger-bench-h100"),
    "protocol": urls.protocol("liger-bench-forward"),
    "source": urls.source("liger-kernel-bench"),
    "index": urls.INDEX,
}


def soup(site: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def test_every_page_type_was_built(site):
    for path in list(PAGES.values()) + [urls.CHALLENGES, urls.METHODOLOGY, urls.NOT_FOUND]:
        assert (site / path).is_file(), path
    assert any(p.match("groups/*") for p in (q.relative_to(site) for q in pages(site)))


def test_no_script_but_our_own(site):
    for page in pages(site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for script in soup.find_all("script"):
            if script.get("src"):
                assert STATIC_SCRIPT.match(script["src"]), f"{page}: {script}"
                assert not script.string
            else:
                assert script.get("type") == "application/json" and "chart-spec" in script.get("class", []), f"{page}: {script}"
                spec = json.loads(script.string)  # still one JSON document: "</script>" did not close it
                assert isinstance(spec, dict)
        assert not soup.find_all(["iframe", "object", "embed", "base", "frame"]), page
        assert not soup.find_all("meta", attrs={"http-equiv": True}), page
        for form in soup.find_all("form"):  # the site's own filters: they submit nowhere else
            assert not form.get("action") or not re.match(r"^\s*[a-z]+:", form["action"], re.I), f"{page}: {form}"


def test_no_event_handlers_or_script_urls(site):
    for page in pages(site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag in soup.find_all(True):
            for attribute, value in tag.attrs.items():
                assert not attribute.lower().startswith("on"), f"{page}: <{tag.name} {attribute}>"
                if attribute in URL_ATTRIBUTES:
                    compact = re.sub(r"[\x00-\x20]", "", str(value)).lower()
                    assert not compact.startswith(("javascript:", "data:", "vbscript:")), f"{page}: {tag}"


def test_the_hostile_text_is_shown_as_text(site):
    # Escaped, not dropped: a reader sees exactly what the contributor wrote.
    for kind, path in PAGES.items():
        assert XSS in soup(site, path).get_text(), f"the {kind} page does not show the text"


def test_markdown_links_to_scripts_stay_text(site):
    page = soup(site, PAGES["kernel"])
    assert "[click me](javascript:alert(1))" in page.get_text()
    assert page.find("strong", string="Markdown") is not None  # the safe part of the Markdown did render


def test_title_element_is_not_broken_out_of(site):
    for page in pages(site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        # One <title> in <head> (charts' SVG may carry their own <title> elements for tooltips).
        assert len(soup.head.find_all("title")) == 1, page


def test_mirrors_keep_the_text_verbatim(site):
    def strings(value):
        if isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)
        elif isinstance(value, str):
            yield value

    mirror = json.loads((site / urls.mirror(PAGES["kernel"])).read_text(encoding="utf-8"))
    assert any(XSS in text for text in strings(mirror))


def test_svg_charts_escape_series_names(site):
    page = PAGES["kernel"]
    drawings = [image["src"] for image in soup(site, page).select("figure.chart picture img")]
    drawings += [source["srcset"] for source in soup(site, page).select("figure.chart picture source")]
    assert drawings, "the kernel page has charts"
    for drawing in drawings:
        text = (site / posixpath.dirname(page) / drawing).read_text(encoding="utf-8")
        svg = BeautifulSoup(text, "html.parser").find("svg")
        assert svg is not None and svg.find("script") is None and svg.find("foreignobject") is None


def test_below_the_floor_is_flagged_not_ranked(site):
    workload = soup(site, PAGES["workload"])
    ranked = [row["data-run"] for row in workload.select("table.ranking tr.ranked")]
    assert ranked and FLOOR_RUN not in ranked
    run = soup(site, urls.run(FLOOR_RUN))
    text = re.sub(r"\s+", " ", run.get_text(" "))
    assert "Implausible" in text and "faster than the physical floor" in text and "never ranked" in text
    mirror = read_run(site, FLOOR_RUN)
    assert "BELOW_PHYSICAL_FLOOR" in json.dumps(mirror)
