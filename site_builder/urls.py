"""Where every page and mirror lives: the site's URL layout, in one place.

Paths are relative to the site root and always name a file (``runs/<name>.html``), so links work
from ``file://`` as well as from a web server, at ``/`` or under ``/<repo>/``. Templates turn them
into links relative to the page they are on with ``relative``.
"""

from __future__ import annotations

API_ROOT = "api/v1"
INDEX = "index.html"
NOT_FOUND = "404.html"
CHALLENGES = "challenges.html"
METHODOLOGY = "methodology.html"
REGRESSIONS = "regressions.html"  # detected steps over time, newest first
REGRESSIONS_FEED = "regressions/feed.xml"
API_INDEX = f"{API_ROOT}/index.json"
STATIC = "static"
CHARTS = "charts"  # a scaling chart's drawing, by its spec's hash: the same chart is on several pages

# Comparison keys are sha256 digests; 16 hex digits name a group page with room to spare (the
# writer refuses two pages on one path, so a collision would fail the build, not hide a group).
GROUP_ID_LENGTH = 16

# Pages are files in a few folders, never a folder per page: on the disks this site is built on,
# creating and deleting a folder costs ten times a file, and a site has a page per run.


def kernel(operation: str) -> str:
    return f"kernels/{operation}.html"


def workload(operation: str, workload_name: str, headline: str | None) -> str:
    """One URL per workload; the headline workload is the kernel page itself."""
    if workload_name == headline:
        return kernel(operation)
    return f"kernels/{operation}/{workload_name}.html"


def group_id(key: str) -> str:
    return key.removeprefix("sha256:")[:GROUP_ID_LENGTH]


def group(key: str) -> str:
    return f"groups/{group_id(key)}.html"


def run(name: str) -> str:
    return f"runs/{name}.html"


def chart(key: str) -> str:
    """The drawing of the chart whose spec hashes to ``key`` (sha256, hex)."""
    return f"{CHARTS}/{key[:20]}.svg"


def implementation(name: str) -> str:
    return f"implementations/{name}.html"


def hardware(name: str) -> str:
    return f"hardware/{name}.html"


def environment(name: str) -> str:
    return f"environments/{name}.html"


def protocol(name: str) -> str:
    return f"protocols/{name}.html"


def source(name: str) -> str:
    return f"sources/{name}.html"


def listing(section: str) -> str:
    """The list page of a section: implementations, hardware, environments, protocols, sources."""
    return f"{section}.html"


def challenges(kind: str | None = None, number: int = 1) -> str:
    """challenges.html (the overview), challenges/<kind>.html, challenges/<kind>/page-2.html …"""
    if kind is None:
        return CHALLENGES
    return f"challenges/{kind}.html" if number == 1 else f"challenges/{kind}/page-{number}.html"


def mirror(page: str) -> str:
    """The JSON twin of a page: the same path under api/v1/, ending in .json.

    The home page lists the kernels, so its twin is ``api/v1/kernels.json``: the API's own
    ``api/v1/index.json`` is the document that lists every kind of mirror and its index parts.
    """
    if page == INDEX:
        return f"{API_ROOT}/kernels.json"
    return f"{API_ROOT}/{page.removesuffix('.html')}.json"


# A workload's mirror holds its groups' JSON (and each group its runs') while the workload has at
# most this many runs; past it, each group's JSON is a file of its own (holding its runs), so that
# no document passes the 2 MB bound (site_limits.DOCUMENT_LIMIT): a workload's JSON is about 5 KB a
# run, and the largest workload of 100,000 synthetic runs has 542 (2.73 MB in one document).
WORKLOAD_HOLDS_GROUPS_UP_TO = 250


def group_mirror(workload_mirror: str, key: str, workload_runs: int) -> str:
    """Where a comparison group's JSON is: inside its workload's mirror, under ``groups``, named by
    a JSON Pointer (RFC 6901) fragment, or in a file of its own when the workload has more than
    ``WORKLOAD_HOLDS_GROUPS_UP_TO`` runs. A document per group and per run would be two files per
    run on a large site, over every static host's limit (issue 24); ids and run names are slugs,
    so the pointer needs no escaping."""
    if workload_runs > WORKLOAD_HOLDS_GROUPS_UP_TO:
        return mirror(group(key))
    return f"{workload_mirror}#/groups/{group_id(key)}"


def run_mirror(group_mirror_path: str, name: str) -> str:
    """Where a run's JSON is: inside its group's (``group_mirror``), under ``runs``."""
    return f"{group_mirror_path}{'/' if '#' in group_mirror_path else '#/'}runs/{name}"


def mirror_file(mirror_path: str) -> str:
    """The file a mirror is in: the mirror itself, or the file a group's or a run's pointer is into."""
    return mirror_path.partition("#")[0]


def has_own_mirror(mirror_path: str) -> bool:
    """Whether a page's mirror is a file of its own, rather than a part of another page's."""
    return "#" not in mirror_path


def api_index_part(kind: str, number: int = 1) -> str:
    """A page of the API index listing one kind's documents: api/v1/index/<kind>.json, then
    api/v1/index/<kind>/page-<n>.json (the records pages' convention)."""
    if number == 1:
        return f"{API_ROOT}/index/{kind}.json"
    return f"{API_ROOT}/index/{kind}/page-{number}.json"


def schema(kind: str) -> str:
    return f"{API_ROOT}/schemas/{kind}.schema.json"


def relative(target: str, page: str) -> str:
    """``target`` (site-root path) as a link from ``page`` (site-root path).

    Climbing to the root and back down ("../../runs/x/index.html") is always right and costs one
    string join; pages hold hundreds of links, so this beats ``posixpath.relpath`` by 20×.
    """
    if target.startswith(("http://", "https://", "#")):
        return target
    return "../" * page.count("/") + target


# -- Finding things (issue 9): search, records ledger, GPUs, models, compare, feeds, badges ------
SEARCH = "search.html"
SEARCH_INDEX = f"{API_ROOT}/search-index.json"
SEARCH_INDEX_SCRIPT = f"{STATIC}/search-index.js"  # the same index as a script, so search works from file://
RECORDS = "records.html"
RECORDS_FEED = "records/feed.xml"
RUNS_FEED = "runs/feed.xml"
GPUS = "gpus.html"
MODELS = "models.html"
COMPARE = "compare.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
LLMS = "llms.txt"
FAVICON = "favicon.ico"  # at the root, where browsers look for it unasked


def records(view: str = "current", facet: str | None = None, value: str | None = None, number: int = 1) -> str:
    """records.html (current, all), records/history.html, records/gpu/<slug>.html,
    records/gpu/<slug>/history/page-2.html …"""
    parts = ["records"]
    if facet:
        parts += [facet, value or ""]
    if view != "current":
        parts.append(view)
    if number > 1:
        parts.append(f"page-{number}")
    return "/".join(parts) + ".html"


def search_shard(operation: str) -> str:
    """One operation's part of the search index (its workloads, lanes and groups)."""
    return f"{API_ROOT}/search/{operation}.json"


def search_shard_script(operation: str) -> str:
    """The same shard as a script, for search from file://."""
    return f"{STATIC}/search/{operation}.js"


def index_for(gpu_slug: str | None, timed_pass: str | None) -> str:
    """The kernels index for one GPU and/or timed pass: index.html (all), on/h200.html,
    on/h200-forward.html, on/all-backward.html: a choice that needs no JavaScript."""
    if gpu_slug is None and timed_pass is None:
        return INDEX
    return f"on/{gpu_slug or 'all'}{'-' + timed_pass if timed_pass else ''}.html"


def gpu(slug: str) -> str:
    return f"gpus/{slug}.html"


def model(slug: str) -> str:
    return f"models/{slug}.html"


def run_directory(shard: str) -> str:
    """Run digests (12 hex digits) to run names, sharded by the digest's first two hex digits."""
    return f"{API_ROOT}/runs/by-digest/{shard}.json"


def badge(implementation_name: str) -> str:
    return f"badges/implementations/{implementation_name}.svg"


def compare(run_ids: list[str]) -> str:
    """The compare page for these runs (digest prefixes); the query is read by compare.js."""
    return f"{COMPARE}?runs={','.join(run_ids)}"

KERNELBENCH = "kernelbench/index.html"


def kernelbench_problem(operation: str) -> str:
    return f"kernelbench/{operation}.html"
