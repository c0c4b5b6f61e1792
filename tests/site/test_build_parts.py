"""The build's small parts: safe Markdown, formatting, URLs, the as-of date, the writer and chart safety."""

from __future__ import annotations

import hashlib
import posixpath
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder import formatting, urls
from site_builder.asof import from_source_date_epoch, resolve_as_of
from site_builder.chart_svg import spec_json
from site_builder.markdown import render_markdown, safe_link
from site_builder.incremental.site_manifest import ClaimedFiles, FileRecord, PageRecord, PreviousSite, SiteManifest, differing, inspect_site
from site_builder.staircase_svg import staircase_svg
from site_builder.write import OutputError, Outputs, check_output_path


# -- Markdown ----------------------------------------------------------------------------------

def test_markdown_shows_raw_html_as_text():
    html = render_markdown("Hi <script>alert(1)</script> <img src=x onerror=alert(1)>")
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "java\tscript:alert(1)",
                                 "data:text/html,<script>alert(1)</script>", "vbscript:x", "file:///etc/passwd"])
def test_markdown_refuses_dangerous_link_schemes(url):
    assert not safe_link(url)
    assert "href" not in render_markdown(f"[click]({url})")


@pytest.mark.parametrize("url", ["https://example.org/x", "http://example.org", "mailto:a@b.c", "#section", "../runs/x.html"])
def test_markdown_keeps_ordinary_links(url):
    assert safe_link(url) and f'href="{url}"' in render_markdown(f"[ok]({url})")


def test_markdown_renders_tables_and_code():
    html = render_markdown("| a | b |\n| --- | --- |\n| 1 | 2 |\n\n`x < y`")
    assert "<table>" in html and "<code>x &lt; y</code>" in html


# -- Formatting --------------------------------------------------------------------------------

@pytest.mark.parametrize("ns, text", [
    (999, "999 ns"), (10, "10 ns"), (9.5, "9.50 ns"), (0.307, "0.31 ns"), (0, "0 ns"), (12_520, "12.5 µs"), (5_050, "5.05 µs"), (81_280, "81.3 µs"), (206_496, "206.5 µs"),
    (999_600, "1.00 ms"), (1_455_000, "1.46 ms"), (10_488_927, "10.5 ms"), (2_684_000, "2.68 ms"), (None, "–"),
])
def test_latency(ns, text):
    assert formatting.latency(ns) == text


def test_other_formats():
    assert formatting.ratio(206.496 / 81.28) == "2.54×"
    assert formatting.percent(0.67) == "67%"
    assert formatting.measure(36.8, "MiB") == "36.8 MiB" and formatting.measure(81_280, "ns") == "81.3 µs"
    assert formatting.number(41_943_040) == "41,943,040"
    assert formatting.short_digest("sha256:224b946feeec0123") == "224b946feeec…"
    assert formatting.day(datetime(2025, 8, 7, 21, 42, tzinfo=timezone.utc)) == "2025-08-07"


# -- URLs ----------------------------------------------------------------------------------------

def test_links_are_relative_to_the_page():
    assert urls.relative("runs/x.html", "kernels/op.html") == "../runs/x.html"
    assert urls.relative("runs/x.html", "kernels/op/w.html") == "../../runs/x.html"
    assert urls.relative("static/style.css", "index.html") == "static/style.css"
    assert urls.relative("https://example.org", "runs/x.html") == "https://example.org"


def test_every_page_has_one_mirror_path():
    assert urls.mirror("runs/x.html") == "api/v1/runs/x.json"
    assert urls.mirror(urls.INDEX) == "api/v1/kernels.json" != urls.API_INDEX
    assert urls.workload("op", "w", headline="w") == urls.kernel("op")
    assert urls.workload("op", "v", headline="w") == "kernels/op/v.html"


# -- As-of date ----------------------------------------------------------------------------------

def test_as_of_order(tmp_path):
    observed = [datetime(2025, 8, 7, tzinfo=timezone.utc)]
    assert resolve_as_of(date(2026, 1, 2), {"SOURCE_DATE_EPOCH": "0"}, tmp_path, observed) == (date(2026, 1, 2), "--as-of")
    assert resolve_as_of(None, {"SOURCE_DATE_EPOCH": "1780000000"}, tmp_path, observed)[0] == date(2026, 5, 28)
    # Outside git and without SOURCE_DATE_EPOCH: the newest observation, never the clock.
    assert resolve_as_of(None, {}, tmp_path, observed) == (date(2025, 8, 7), "newest observation")
    with pytest.raises(ValueError):
        from_source_date_epoch({"SOURCE_DATE_EPOCH": "yesterday"})


def test_as_of_from_the_last_commit_touching_the_data():
    data = Path(__file__).resolve().parents[2] / "data"
    found, source = resolve_as_of(None, {}, data, [])
    assert source == "last commit touching the data" and found <= date.today()


# -- Progress ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pages, kept, per_report, lines", [
    (163_841, 0, 500, 20),  # unchanged pages reported 500 at a time
    (163_841, 0, 1, 20),  # a build from scratch: each task reported
    (163_841, 160_000, 1, 2),  # a rebuild at 100,000 runs: the unchanged kernels' pages at once, then the rest
    (9_000, 0, 1, 9),  # a small build: every 1,000 pages, as before
])
def test_page_progress_prints_about_twenty_lines_and_at_most_one_per_thousand_pages(pages, kept, per_report, lines):
    from site_builder.build import _page_progress

    printed: list[str] = []
    report = _page_progress(printed.append)
    if kept:
        report(kept, pages)
    for done in range(kept + per_report, pages + per_report, per_report):
        report(min(done, pages), pages)
    assert len(printed) == lines
    counts = [int(line.split()[0].replace(",", "")) for line in printed]
    assert all(later - earlier >= 1000 for earlier, later in zip(counts, counts[1:]))


# -- Writer --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["../x.html", "/etc/passwd", "a/../../x", "a//b", "./a", "", "a\\b", "a/./b"])
def test_output_paths_stay_inside_the_folder(path):
    with pytest.raises(OutputError):
        check_output_path(path)


def test_two_outputs_cannot_claim_one_path(tmp_path):
    with Outputs(tmp_path / "site") as outputs:
        outputs.add("runs/a.html", "one", by="run a")
        with pytest.raises(OutputError, match="two outputs claim runs/a.html: run a and run A"):
            outputs.add("runs/a.html", "two", by="run A")


def test_two_pages_claiming_one_path_are_named_by_their_records(tmp_path):
    with Outputs(tmp_path / "site") as outputs:
        first = PageRecord("run", "Run A", "runs/a.html", "api/v1/runs/a.json")
        outputs.claim(outputs.staging.put("runs/a.html", b"one"), by=first)
        second = PageRecord("run", "Run a", "runs/a.html", "api/v1/runs/a2.json")
        with pytest.raises(OutputError, match="two outputs claim runs/a.html: run page 'Run A' and run page 'Run a'"):
            outputs.claim(outputs.staging.put("runs/a.html", b"two"), by=second)


def kept_site(tmp_path: Path, pages: list[PageRecord]) -> Outputs:
    """Outputs over a previous site holding the files of ``pages``, which a rebuild keeps."""
    old = tmp_path / "old"
    records = {}
    with Outputs(old) as outputs:
        for page in pages:
            for path in (page.html, page.mirror):
                if path not in records:
                    records[path] = outputs.staging.put(path, path.encode())
                    outputs.claim(records[path])
        outputs.commit()
    previous = inspect_site(old, SiteManifest("f", "r", records, {"s": pages}))
    return Outputs(tmp_path / "site", previous)


def test_kept_pages_are_claimed_with_their_files_records(tmp_path):
    pages = [PageRecord("run", f"Run {n}", f"runs/{n}.html", f"api/v1/runs/{n}.json") for n in range(3)]
    with kept_site(tmp_path, pages) as outputs:
        outputs.claim_kept(pages[:2])
        outputs.claim_kept(pages[2:])
        assert outputs.records == outputs.staging.previous.intact and outputs.reused == 6


@pytest.mark.parametrize("clash", ["a later claim", "a later kept page", "a page kept with it"])
def test_a_path_claimed_twice_with_a_kept_page_names_both(tmp_path, clash: str):
    first = PageRecord("run", "Run A", "runs/a.html", "api/v1/runs/a.json")
    second = PageRecord("run", "Run a", "runs/a.html", "api/v1/runs/a2.json")
    with kept_site(tmp_path, [first, second]) as outputs:
        with pytest.raises(OutputError, match="two outputs claim runs/a.html: run page 'Run A' and run page 'Run a'"):
            if clash == "a page kept with it":
                outputs.claim_kept([first, second])
            outputs.claim_kept([first])
            if clash == "a later claim":
                outputs.claim(outputs.staging.put("runs/a.html", b"two"), by=second)
            outputs.claim_kept([second])


def in_place_site(tmp_path: Path, pages: list[PageRecord], others: list[str]) -> Outputs:
    """Outputs rebuilding in place a site of ``pages`` and the files ``others``, as its manifest lists it."""
    site = tmp_path / "site"
    with Outputs(site) as outputs:
        for path in [path for page in pages for path in (page.html, page.mirror)] + others:
            outputs.add(path, path)
        outputs.commit()
        records = dict(outputs.records)
    outputs = Outputs(site, PreviousSite.as_written(site, SiteManifest("f", "r", records, {"s": pages})))
    assert outputs.in_place
    return outputs


def test_an_in_place_rebuild_lists_the_kept_and_claimed_files_and_removes_the_others(tmp_path):
    pages = [PageRecord("run", f"Run {n}", f"runs/{n}.html", f"api/v1/runs/{n}.json") for n in range(3)]
    with in_place_site(tmp_path, pages, ["index.html", "gone.html", "same.html"]) as outputs:
        intact = outputs.staging.previous.intact
        assert outputs.staging.keep_pages(pages[:2])
        outputs.claim_kept(pages[:2])
        outputs.claim_kept(pages[2:])  # not kept by the staging folder: its paths are looked up
        outputs.add("index.html", "new")
        outputs.add("same.html", "same.html")
        outputs.add("new.html", "new")
        expected = {path: record for path, record in intact.items() if path != "gone.html"}
        expected.update({path: outputs.records[path] for path in ("index.html", "new.html")})
        assert outputs.records == expected and len(outputs) == len(expected) and "gone.html" not in outputs.records
        assert outputs.records["same.html"] is intact["same.html"] and outputs.reused == 7
        # The changes, known from the claims alone, are those a comparison of every record finds.
        assert differing(outputs.records, intact) == differing(dict(outputs.records), intact)
        assert [path for path, _ in differing(outputs.records, intact)] == ["index.html", "new.html"]
        outputs.commit()
    site = tmp_path / "site"
    assert (site / "index.html").read_text() == "new" and not (site / "gone.html").exists()
    assert (site / "runs/2.html").read_text() == "runs/2.html"


@pytest.mark.parametrize("clash", ["a later claim", "an earlier claim"])
def test_a_path_claimed_twice_with_a_page_kept_in_place_names_both(tmp_path, clash: str):
    page = PageRecord("run", "Run A", "runs/a.html", "api/v1/runs/a.json")
    with in_place_site(tmp_path, [page], []) as outputs:
        assert outputs.staging.keep_pages([page])
        with pytest.raises(OutputError, match="two outputs claim runs/a.html: .*run page 'Run A'"):
            if clash == "an earlier claim":
                outputs.add("runs/a.html", "two", by=page)
            outputs.claim_kept([page])
            outputs.add("runs/a.html", "two", by=page)


def test_a_kept_page_whose_file_the_previous_site_lacks_is_refused(tmp_path):
    page = PageRecord("run", "Run A", "runs/a.html", "api/v1/runs/a.json")
    stranger = PageRecord("run", "Run B", "runs/b.html", "api/v1/runs/a.json")
    with in_place_site(tmp_path, [page], []) as outputs:
        assert not outputs.staging.keep_pages([stranger])
        with pytest.raises(KeyError, match="runs/b.html"):
            outputs.claim_kept([stranger])


def test_claimed_files_differ_from_their_baseline_only_where_claimed():
    baseline = {path: FileRecord(path, "0" * 64, 1, 1) for path in ("a", "b", "c")}
    files = ClaimedFiles(baseline)
    for path, record in (("b", FileRecord("b", "0" * 64, 1, 1)), ("d", FileRecord("d", "1" * 64, 2, 2)),
                         ("c", FileRecord("c", "2" * 64, 1, 1))):
        files[path] = files.claimed[path] = record
    assert files == {**baseline, "c": files["c"], "d": files["d"]}
    assert differing(files, baseline) == [("d", files["d"]), ("c", files["c"])]
    assert sorted(differing(dict(files), baseline)) == sorted(differing(files, baseline))
    assert differing(files, dict(baseline)) == [("c", files["c"]), ("d", files["d"])]  # another baseline: compared
    fresh = ClaimedFiles({})
    fresh["a"] = fresh.claimed["a"] = baseline["a"]
    assert fresh.claimed is fresh and differing(fresh, fresh.baseline) == [("a", baseline["a"])]


def test_a_staged_file_is_recorded_as_written(tmp_path):
    with Outputs(tmp_path / "site") as outputs:
        record = outputs.staging.put("runs/a.html", b"x" * 70_000)
        stat = (outputs.staging.root / "runs/a.html").stat()
        assert (outputs.staging.root / "runs/a.html").read_bytes() == b"x" * 70_000
        assert record.size == stat.st_size == 70_000 and record.mtime_ns == stat.st_mtime_ns
        assert record.sha256 == hashlib.sha256(b"x" * 70_000).hexdigest()


def test_outputs_are_written_as_they_come_and_the_site_replaced_as_a_whole(tmp_path):
    target = tmp_path / "site"
    with Outputs(target) as first:
        first.add("index.html", "old")
        first.add("runs/gone.html", "orphan")
        assert (first.staging.root / "runs/gone.html").read_text() == "orphan"  # on disk, not in memory
        first.commit()
    with Outputs(target) as second:
        second.add("index.html", "new")
        second.commit()
    assert (target / "index.html").read_text() == "new" and not (target / "runs").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging folders left behind


def test_a_failed_build_leaves_the_previous_site_and_no_staging_folder(tmp_path):
    target = tmp_path / "site"
    with Outputs(target) as first:
        first.add("index.html", "old")
        first.commit()
    with pytest.raises(OSError), Outputs(target) as broken:
        broken.add("index.html", "new")
        broken.add("runs/a.html", "x")
        raise OSError("disk full")
    assert (target / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_an_unchanged_file_is_linked_from_the_previous_site_never_shared_for_writing(tmp_path):
    target = tmp_path / "site"
    with Outputs(target) as first:
        first.add("same.html", "kept")
        first.add("changed.html", "old")
        first.add("charts/a.svg", "<svg>a</svg>")
        first.commit()
    manifest = SiteManifest("f", "r", first.records)
    with Outputs(target, inspect_site(target, manifest)) as second:
        second.add("same.html", "kept")
        second.add("changed.html", "new")  # a new file, the old one untouched until the commit
        second.keep("charts/a.svg", by="chart")  # shown by a page kept as it was
        with pytest.raises(OutputError, match="charts/b.svg"):
            second.keep("charts/b.svg", by="chart")  # never drawn: an error, not a broken image
        assert second.reused == 2
        assert (target / "changed.html").read_text() == "old"
        second.commit()
    assert (target / "changed.html").read_text() == "new" and (target / "same.html").read_text() == "kept"
    assert second.records["same.html"] == first.records["same.html"]  # the same file, not a copy
    assert second.records["charts/a.svg"] == first.records["charts/a.svg"]


# -- Charts ----------------------------------------------------------------------------------------

def test_inline_spec_cannot_close_its_script_tag():
    text = spec_json({"title": "</script><script>alert(1)</script>"})
    assert "</script>" not in text and "\\u003c/script\\u003e" in text


def test_staircase_escapes_names_and_reads_as_an_image():
    points = [(datetime(2025, 1, 1, tzinfo=timezone.utc), 200_000.0, "<b>a</b>"),
              (datetime(2025, 6, 1, tzinfo=timezone.utc), 81_280.0, "Liger & co")]
    svg = staircase_svg(points, "ns", "Record history")
    assert svg.startswith("<svg") and 'role="img"' in svg
    assert "<b>" not in svg and "&lt;b&gt;" in svg and "Liger &amp; co: 81.3 µs, 2025-06-01" in svg


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab./\\\x00", max_size=8))
def test_the_output_path_guard_accepts_exactly_what_normpath_leaves_alone(path):
    normal = posixpath.normpath(path) if path else ""
    expected = (bool(path) and not path.startswith("/") and "\\" not in path and "\x00" not in path and normal == path
                and normal not in (".", "..") and not normal.startswith("../"))
    try:
        check_output_path(path)
        accepted = True
    except OutputError:
        accepted = False
    assert accepted == expected


def test_render_chunks_keep_the_task_order_and_shrink_towards_the_end():
    from site_builder.parallel.render_pool import CHUNK, _chunks

    numbers = list(range(5, 5000, 3))
    chunks = _chunks(numbers, workers=2)
    assert [number for chunk in chunks for number in chunk] == numbers
    sizes = [len(chunk) for chunk in chunks]
    assert sizes[0] == CHUNK and sizes[-1] == 1 and sizes == sorted(sizes, reverse=True)


def test_a_workload_page_lists_a_window_of_its_kernels_workloads():
    """A kernel's page lists every workload; a workload's page the WORKLOAD_WINDOW around its own,
    so that a kernel's pages do not grow with the square of its workloads (issue 24)."""
    from site_builder.context.kernel import WORKLOAD_WINDOW, _workload_window
    from site_builder.page_views import WorkloadLink

    links = [WorkloadLink(name=f"w{n}", label=f"n = {n}", url=f"kernels/k/w{n}.html", axes={"n": n}, dtype=None,
                          cases=None, eligible_runs=1) for n in range(40)]
    assert _workload_window(links, "w20", whole=True) == (0, links)
    for at in (0, 3, 20, 36, 39):
        first, listed = _workload_window(links, f"w{at}", whole=False)
        assert len(listed) == WORKLOAD_WINDOW and listed == links[first:first + WORKLOAD_WINDOW]
        assert f"w{at}" in [link.name for link in listed]
        assert first == max(0, min(at - WORKLOAD_WINDOW // 2, 40 - WORKLOAD_WINDOW))
    assert _workload_window(links[:WORKLOAD_WINDOW], "w3", whole=False) == (0, links[:WORKLOAD_WINDOW])
