"""Unit tests of the pure pieces: GPU aliases, the ledger, Atom feeds, badges, sitemap/robots/llms.txt."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timezone

import pytest

from site_builder import urls
from site_builder.derive.history import record_history
from site_builder.discover.badges import badge_message, badge_svg, text_width
from site_builder.discover.feeds import ATOM, FeedEntry, atom_feed, rfc3339, tag_uri
from site_builder.discover.gpus import gpu_aliases, gpu_keys, slugify
from site_builder.discover.ledger import (
    LedgerGroup, by_evidence, current_records, pages, record_breaks, record_events, split_by_gpu,
)
from site_builder.derive.model import RunFacts
from site_builder.discover.site_files import check_base_url, llms_txt, page_url, robots_txt, sitemaps


def make_run(name: str, value: float, **fields) -> RunFacts:
    base = dict(name=name, digest=f"sha256:{name:0>64}"[-71:], operation="op", workload="w", implementation=f"i-{name}",
                protocol="p", environment="e", cohort="c", status="passed", value=value, metric="latency:median:ns",
                observed_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    base.update(fields)
    return RunFacts(**base)

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
A = "{%s}" % ATOM


# -- GPUs ------------------------------------------------------------------------------------------
def test_gpu_aliases_are_the_words_a_reader_types():
    assert {"h100", "pcie", "h100-pcie", "h100pcie", "80gb"} <= set(gpu_aliases("h100-pcie", "NVIDIA H100 PCIe 80GB", "NVIDIA H100"))
    rtx = set(gpu_aliases("rtx-3090", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090"))
    assert {"rtx", "3090", "rtx3090"} <= rtx and "nvidia" not in rtx and "geforce" not in rtx
    b200 = set(gpu_aliases("b200", "NVIDIA B200 (HGX, 1000 W)", "NVIDIA B200"))
    assert "b200" in b200 and "1000" not in b200 and "w" not in b200


def test_unmatched_products_never_take_a_datasheet_slug():
    keys = gpu_keys([("h100", "NVIDIA H100 SXM", "NVIDIA H100")], ["H100", "Weird GPU!"])
    assert [k.slug for k in keys] == ["h100", "h100-unlisted", "weird-gpu"]
    assert slugify("!!!") == "gpu"


# -- ledger ------------------------------------------------------------------------------------------
def _group(key: str, gpu: str, values: list[tuple[float, int]], evidence: str = "reported") -> LedgerGroup:
    runs = [make_run(f"{key}{i}", value, observed_at=datetime(2026, 1, day, tzinfo=timezone.utc), evidence=evidence,
                     cohort=key) for i, (value, day) in enumerate(values)]
    history = record_history(runs)
    holder = min(runs, key=lambda r: r.value)
    return LedgerGroup(key=key, gpu=gpu, holder=holder, history=tuple(history))


def test_ledger_current_events_and_breaks():
    a = _group("a", "h100", [(100, 1), (90, 5), (95, 7)])  # 100 then 90 is a record; 95 is not
    b = _group("b", "b200", [(50, 3)], evidence="verified")
    current = current_records([a, b])
    assert all(e.current for e in current)  # a current record is never "since beaten" (_ledger_row.html)
    assert [(e.group.key, e.run.value, e.set_at.day) for e in current] == [("a", 90, 5), ("b", 50, 3)]
    assert current[0].previous.value == 100 and current[0].improvement == pytest.approx(0.1)
    events = record_events([a, b])
    assert [(e.group.key, e.run.value, e.current) for e in events] == [("a", 90, True), ("b", 50, True), ("a", 100, False)]
    # Each is its record event's place in the group's history (what a ledger page's signature reads of it).
    assert [e.position for e in events] == [1, 0, 0] and [e.position for e in current] == [1, 0]
    assert [e.run.value for e in record_breaks(events)] == [90]
    split = split_by_gpu(events)
    assert {gpu: [(e.group.key, e.run.value) for e in found] for gpu, found in split.items()} == {
        "h100": [("a", 90), ("a", 100)], "b200": [("b", 50)]}  # in the ledger's order
    assert [e.group.key for e in current if by_evidence("verified")(e)] == ["b"]
    assert [e.group.key for e in current if by_evidence("reported")(e)] == ["a", "b"]
    assert [len(p) for p in pages(list(range(5)), size=2)] == [2, 2, 1] and pages([], size=2) == [[]]


# -- feeds ---------------------------------------------------------------------------------------------
def _feed(base_url: str = "", entries=None) -> ET.Element:
    entries = entries if entries is not None else [
        FeedEntry(id=tag_uri("run", "ab" * 32), title="A <b>bold</b> & risky title", updated=datetime(2026, 2, 3, 4, 5, 6),
                  link=urls.run("x"), summary="summary with <script>alert(1)</script>")]
    xml = atom_feed(feed_path=urls.RUNS_FEED, feed_id=tag_uri("runs"), title="T", subtitle="S", as_of=date(2026, 3, 1),
                    alternate=urls.RECORDS, entries=entries, base_url=base_url)
    assert xml.startswith(b'<?xml version="1.0" encoding="utf-8"?>')
    return ET.fromstring(xml)


def test_atom_feed_has_what_rfc_4287_requires():
    feed = _feed()
    assert feed.tag == A + "feed"
    for required in ("id", "title", "updated", "author"):
        assert feed.find(A + required) is not None, required
    assert feed.find(f"{A}author/{A}name").text == "KernelIndex"
    assert RFC3339.match(feed.find(A + "updated").text)
    assert feed.find(A + "updated").text == "2026-03-01T00:00:00Z"  # the as-of date, not the wall clock
    links = {link.get("rel"): link.get("href") for link in feed.findall(A + "link")}
    assert links == {"self": "../runs/feed.xml", "alternate": "../" + urls.RECORDS}
    [entry] = feed.findall(A + "entry")
    assert entry.find(A + "id").text.startswith("tag:kernelindex.dev,2025:run:")
    assert entry.find(A + "updated").text == "2026-02-03T04:05:06Z"
    assert entry.find(A + "title").text == "A <b>bold</b> & risky title"  # text, escaped in the XML
    assert entry.find(A + "link").get("href") == "../" + urls.run("x")


def test_atom_feed_with_a_base_url_is_absolute_and_newest_entry_dates_it():
    late = FeedEntry(id=tag_uri("x"), title="t", updated=datetime(2026, 3, 1, 12, tzinfo=timezone.utc), link="a.html", summary="s")
    feed = _feed("https://example.org/ki", [late])
    assert feed.get("{http://www.w3.org/XML/1998/namespace}base") == "https://example.org/ki/"
    assert feed.find(A + "updated").text == "2026-03-01T12:00:00Z"
    assert feed.find(A + "entry/" + A + "link").get("href") == "https://example.org/ki/a.html"
    assert rfc3339(datetime(2026, 1, 1, 1, tzinfo=timezone.utc)) == "2026-01-01T01:00:00Z"


# -- badges --------------------------------------------------------------------------------------------
def test_badges_are_well_formed_and_escape_text():
    svg = badge_svg("KernelIndex", 'a <b> & "q" \'s', "#123456", title="<script>x</script>")
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert 'a <b> & "q" \'s' in texts and "<script>" not in svg
    assert root.find("{http://www.w3.org/2000/svg}title").text == "<script>x</script>"
    assert int(root.get("width")) == round(text_width("KernelIndex") + 12) + round(text_width(texts[-1]) + 12)


def test_badge_widths_grow_with_text_and_messages_read_right():
    assert text_width("WWW") > text_width("iii") > 0
    assert text_width("µ·—") > 0 and text_width("漢") == 11.0
    short = ET.fromstring(badge_svg("KernelIndex", "1 record · best #1", "#000"))
    long = ET.fromstring(badge_svg("KernelIndex", "123 records · best #1", "#000"))
    assert int(long.get("width")) > int(short.get("width"))
    assert badge_message(1, 1) == ("1 record · best #1", "record")
    assert badge_message(0, 3) == ("no records · best #3", "ranked")
    assert badge_message(0, None) == ("not ranked", "none")


# -- sitemap, robots, llms.txt --------------------------------------------------------------------------
def test_base_url_check():
    assert check_base_url("") == "" and check_base_url("https://x.org/a/") == "https://x.org/a"
    for bad in ("ftp://x", "x.org", "https://x.org/?q=1", "https://x.org/#a", 'https://x.org/"'):
        with pytest.raises(ValueError):
            check_base_url(bad)


def test_sitemap_urls_are_absolute_and_split_at_the_limit(monkeypatch):
    assert page_url("https://x.org", "index.html") == "https://x.org/"
    assert page_url("https://x.org", "runs/a.html") == "https://x.org/runs/a.html"
    files = sitemaps("https://x.org", ["index.html", "b.html", "a&b.html"], date(2026, 1, 2))
    root = ET.fromstring(files["sitemap.xml"])
    locs = [loc.text for loc in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert locs == ["https://x.org/", "https://x.org/a&b.html", "https://x.org/b.html"]
    pages = ["index.html", "a/index.html", "a/b/index.html", "xindex.html", "a/xindex.html", "index.html/x", "a.html", "a/"]
    files = sitemaps("https://x.org/p", pages, date(2026, 1, 2))
    locs = [loc.text for loc in ET.fromstring(files["sitemap.xml"]).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert locs == sorted({page_url("https://x.org/p", page) for page in pages})
    monkeypatch.setattr("site_builder.discover.site_files.SITEMAP_LIMIT", 2)
    files = sitemaps("https://x.org", ["a.html", "b.html", "c.html"], date(2026, 1, 2))
    assert sorted(files) == ["sitemap.xml", "sitemaps/sitemap-1.xml", "sitemaps/sitemap-2.xml"]
    assert ET.fromstring(files["sitemap.xml"]).tag.endswith("sitemapindex")


def test_robots_and_llms_txt():
    assert "Sitemap: https://x.org/sitemap.xml" in robots_txt("https://x.org")
    assert "Sitemap:" not in robots_txt("") and "User-agent: *" in robots_txt("")
    text = llms_txt("", date(2026, 1, 2), ["run", "search-index", "something-new"])
    assert text.startswith("# KernelIndex\n\n> ")
    assert f"[API index]({urls.API_INDEX})" in text and "`something-new`: see its schema" in text
    assert "<workload mirror>#/groups/<id>/runs/<name>" in text and "api/v1/groups/<id>.json#/runs/<name>" in text
    assert urls.SEARCH_INDEX in text


# -- the newest few, without a key for every item -------------------------------------------------------
def _observed_items(rng, size: int, naive: bool = False) -> list:
    """Items observed at few moments in several time zones (many ties, some a microsecond apart)."""
    from datetime import timedelta
    from types import SimpleNamespace

    zones = [timezone.utc, timezone(timedelta(hours=2)), timezone(timedelta(hours=-7, minutes=-30))]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    moments = [start + timedelta(seconds=rng.randrange(40), microseconds=rng.choice([0, 1, 999_999])) for _ in range(8)]
    items = [SimpleNamespace(observed_at=rng.choice(moments).astimezone(rng.choice(zones)), digest=f"{rng.randrange(10**6):06d}")
             for _ in range(size)]
    if naive:  # naive moments are sorted by the key itself
        items = [SimpleNamespace(observed_at=i.observed_at.replace(tzinfo=None), digest=i.digest) for i in items]
    return items


def _newest_key(item):
    return (-item.observed_at.timestamp(), item.digest)


def _mixed_items() -> list:
    """Naive and aware moments together: they do not compare, their timestamps do."""
    from types import SimpleNamespace

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return [SimpleNamespace(observed_at=start, digest="a"), SimpleNamespace(observed_at=start.replace(tzinfo=None), digest="b")] * 3


def test_newest_first_with_a_count_is_the_head_of_the_full_sort():
    import random
    from operator import attrgetter

    from site_builder.discover.ledger import newest_first

    rng = random.Random(5)
    when, then = attrgetter("observed_at"), attrgetter("digest")
    for trial in range(60):
        items = _observed_items(rng, rng.choice([0, 1, 5, 50, 51, 300]), naive=trial % 10 == 9)
        for count in (0, 1, 7, 50):
            assert newest_first(items, when, then, count) == sorted(items, key=_newest_key)[:count]
    mixed = _mixed_items()
    assert newest_first(mixed, when, then, 1) == sorted(mixed, key=_newest_key)[:1]  # a mix: the full sort


def test_newest_first_is_the_full_sort():
    """The ledger's and challenge lists' order, sorted by time alone and then within ties."""
    import random
    from operator import attrgetter

    from site_builder.discover.ledger import newest_first

    rng = random.Random(8)
    when, then = attrgetter("observed_at"), attrgetter("digest")
    for trial in range(60):
        items = _observed_items(rng, rng.choice([0, 1, 2, 5, 50, 300]), naive=trial % 10 == 9)
        assert newest_first(list(items), when, then) == sorted(items, key=_newest_key)
    assert newest_first(_mixed_items(), when, then) == sorted(_mixed_items(), key=_newest_key)


def test_a_field_filter_keeps_what_its_predicate_keeps():
    from site_builder.discover.ledger import FieldReads, by_source

    a = _group("a", "h100", [(100, 1), (90, 5)])
    b = _group("b", "b200", [(50, 3)], evidence="verified")
    events = record_events([a, b])
    reads = FieldReads()  # each entry's field read once for every filter of it
    for level in ("reported", "reproducible", "verified", "replicated"):
        predicate = by_evidence(level)
        assert predicate.kept(events) == reads.kept(predicate, events) == [e for e in events if predicate(e)]
    assert [e.run.name for e in by_source(["i-b0", "i-a0"]).kept(events)] == ["b0", "a0"]
    assert by_source([]).kept(events) == []


def test_newest_breaks_are_the_first_breaks(board):
    from site_builder.discover.ledger import newest_breaks
    from site_builder.discover.state import Discovery

    found = Discovery(board)
    for count in (0, 1, 3, 50, 10**6):
        assert newest_breaks(found.ranked_cohorts, count, found._ledger_group) == found.breaks[:count]
    assert Discovery(board).newest_breaks(5) == found.newest_breaks(5) == found.breaks[:5]


def test_run_directory_keeps_the_last_name_of_equal_digests():
    from types import SimpleNamespace

    from site_builder.discover.outputs import run_directory
    from site_builder.mirrors import MirrorIndex

    # "b1" after "b" (a name that starts with another), "e" with fewer digits than 12; each run's
    # JSON where its page's entry says, here one group's, so the mirrors sort as the names do.
    runs = {"b": "sha256:ab0000000000ff", "a": "sha256:ab0000000000ee", "c": "sha256:00aa00000000", "z": "sha256:ab0000000001",
            "d": "cd0000000000", "b1": "sha256:ab0000000000aa", "e": "sha256:ab"}
    board = SimpleNamespace(runs={name: SimpleNamespace(digest=digest) for name, digest in runs.items()})
    in_group = "api/v1/kernels/op.json#/groups/1111111111111111/runs/"
    mirrors = MirrorIndex()
    mirrors.add_document("group", "a group", "groups/1111111111111111.html", "api/v1/kernels/op.json#/groups/1111111111111111")
    for name in runs:
        mirrors.add_document("run", name, urls.run(name), in_group + name)
    expected: dict[str, dict[str, str]] = {}
    for name, run in sorted(board.runs.items()):
        hex12 = run.digest.removeprefix("sha256:")[:12]
        expected.setdefault(hex12[:2], {})[hex12] = in_group + name
    assert run_directory(board, mirrors) == [(shard, dict(sorted(names.items()))) for shard, names in sorted(expected.items())]
    assert dict(run_directory(board, mirrors))["ab"] == {"ab": in_group + "e", "ab0000000000": in_group + "b1",
                                                         "ab0000000001": in_group + "z"}


def test_discover_outputs_yields_the_run_directory_and_registers_it(board, pages_listed):
    import json

    from site_builder.discover import outputs

    mirrors = pages_listed
    files = {path: content for path, content, _ in outputs.discover_outputs(board, mirrors, [])}
    shards = outputs.run_directory(board, mirrors)
    assert shards
    for shard, runs in shards:
        text = files[outputs.urls.run_directory(shard)]
        assert text == json.dumps({"runs": runs, "shard": shard, "v": 2}, separators=(",", ":")) + "\n"
    registered = {entry.mirror for entry in mirrors.entries if entry.kind == "run-directory"}
    assert registered == {outputs.urls.run_directory(shard) for shard, _ in shards}


def test_a_pager_links_the_ends_and_the_pages_near_this_one():
    from site_builder.context.view_parts import PAGER_REACH, pager
    from site_builder.page_views import PageLink

    def link(n: int) -> PageLink:
        return PageLink(number=n, title=str(n), url=f"p{n}.html")

    assert [p.number for p in pager(1, 1, link)] == [1]
    assert [p.number for p in pager(4, 2, link)] == [1, 2, 3, 4]
    assert [p.number for p in pager(100, 50, link)] == [1, *range(50 - PAGER_REACH, 50 + PAGER_REACH + 1), 100]
    assert [p.number for p in pager(100, 1, link)] == [*range(1, PAGER_REACH + 2), 100]
    for count in (1, 2, 7, 300):  # every page reaches the next, and no pager grows with the list
        for number in range(1, count + 1):
            shown = [p.number for p in pager(count, number, link)]
            assert shown == sorted(set(shown)) and number in shown and (number == count or number + 1 in shown)
            assert len(shown) <= 2 * PAGER_REACH + 3
