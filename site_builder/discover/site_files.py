"""sitemap.xml, robots.txt and llms.txt.

A sitemap must list absolute URLs (sitemaps.org), which a relative-URL site cannot know: it is
written only when the build is given ``--base-url``; without one the build skips it and says so in
robots.txt. llms.txt (llmstxt.org) describes the JSON API for language models and scripts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
# What xml.sax.saxutils.escape escapes (&, <, >), without its import of urllib.request and ssl at every build's start.
from html import escape

from .. import urls

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITEMAP_LIMIT = 50_000  # URLs per sitemap file (sitemaps.org)


def check_base_url(base_url: str) -> str:
    """'' or an absolute http(s) URL without a trailing slash, query or fragment."""
    base = (base_url or "").strip().rstrip("/")
    if not base:
        return ""
    if not base.startswith(("http://", "https://")) or any(c in base for c in "?#\"'<> \t\n"):
        raise ValueError(f"--base-url must be an absolute http(s) URL without query or fragment, not {base_url!r}")
    return base


INDEX_HTML = "index.html"


def page_url(base_url: str, path: str) -> str:
    """The public URL of a page: folders end in '/', as static hosts serve index.html there."""
    if path == "index.html":
        return base_url + "/"
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return f"{base_url}/{path}"


def sitemaps(base_url: str, pages: Iterable[str], as_of: date) -> dict[str, str]:
    """Output path -> XML: sitemap.xml alone, or sitemap.xml as an index of sitemaps/sitemap-N.xml."""
    folder = "/" + INDEX_HTML
    root = base_url + "/"  # page_url, inlined: a call per page would be most of the work
    locations = sorted({root + (page[:-len(INDEX_HTML)] if page.endswith(folder) or page == INDEX_HTML else page)
                        for page in pages})
    chunks = [locations[i:i + SITEMAP_LIMIT] for i in range(0, len(locations), SITEMAP_LIMIT)] or [[]]

    lastmod = as_of.isoformat()

    def urlset(chunk: list[str]) -> str:
        joined = "\n".join(chunk)
        if "&" in joined or "<" in joined or ">" in joined:  # else escaping changes nothing: skip it per URL
            chunk = [escape(loc, quote=False) for loc in chunk]
        body = "".join([f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>\n" for loc in chunk])
        return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'

    if len(chunks) == 1:
        return {urls.SITEMAP: urlset(chunks[0])}
    files = {f"sitemaps/sitemap-{n}.xml": urlset(chunk) for n, chunk in enumerate(chunks, 1)}
    body = "".join(f"<sitemap><loc>{escape(base_url, quote=False)}/{path}</loc><lastmod>{as_of.isoformat()}</lastmod></sitemap>\n"
                   for path in files)
    files[urls.SITEMAP] = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n{body}</sitemapindex>\n'
    return files


def robots_txt(base_url: str) -> str:
    lines = ["# KernelIndex: every page is public; crawl politely.",
             "# Crawlers read robots.txt at the root of a host only: under /<repo>/ (GitHub Pages) it is ignored.",
             "User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {base_url}/{urls.SITEMAP}")
    else:
        lines.append("# No sitemap: the site was built without --base-url, and sitemaps need absolute URLs.")
    return "\n".join(lines) + "\n"


def _pair(page: str) -> tuple[str, str]:
    return page, urls.mirror(page)


# What each kind of document holds: (page path pattern, mirror path pattern, what it says), from urls.py.
DOCUMENTS = {
    "index": (*_pair(urls.INDEX), "every kernel by family, with its record on the headline workload"),
    "kernel": (f"{urls.kernel('<operation>')} and {urls.workload('<operation>', '<workload>', None)}",
               f"{urls.mirror(urls.kernel('<operation>'))} and {urls.mirror(urls.workload('<operation>', '<workload>', None))}",
               "one workload of a kernel: the answer (fastest, usable today), its comparison groups, the ranked rows, "
               "floors, the scaling chart's data"),
    "group": (urls.group("<id>"), f"{urls.group_mirror('<workload mirror>', '<id>', 0)}, or {urls.mirror(urls.group('<id>'))}",
              "one comparison group (<id>: 16 hex digits of its comparison key), in its workload's document (or its own, "
              f"for a workload of more than {urls.WORKLOAD_HOLDS_GROUPS_UP_TO} runs; the page's JSON link says which): "
              "ranking, unranked runs with reasons, record history, what its runs share (protocol, environment, "
              "sources) and each of its runs (`runs`)"),
    "run": (urls.run("<name>"), f"{urls.run_mirror(urls.group_mirror('<workload mirror>', '<id>', 0), '<name>')}, or "
                                f"{urls.run_mirror(urls.mirror(urls.group('<id>')), '<name>')}",
            "one run, inside its group's document: its canonical BenchmarkRun and own facts; the group has its "
            "protocol and environment (by digest and mirror), its ranking row and the floor"),
    "implementation": (*_pair(urls.implementation("<name>")), "an implementation: install verdict, licence, every run with its rank"),
    "hardware": (*_pair(urls.hardware("<name>")), "a GPU datasheet: bandwidth and dense peaks, each cited; records on it"),
    "environment": (*_pair(urls.environment("<name>")), "a measured machine and its software"),
    "protocol": (*_pair(urls.protocol("<name>")), "how runs were timed"),
    "source": (*_pair(urls.source("<name>")), "where data comes from: licence, retrieval date"),
    "listing": (*_pair(urls.listing("<section>")), "a list page (implementations, hardware, environments, protocols, sources)"),
    "challenges": (*_pair(urls.CHALLENGES), "open gaps: priority GPUs never measured, lone entries, unbeaten baselines, stale records"),
    "methodology": (*_pair(urls.METHODOLOGY), "how records are decided (Markdown)"),
    "search": (*_pair(urls.SEARCH), "the query syntax and the browsable lists (kernels by family, GPUs, models)"),
    "search-index": (urls.SEARCH, urls.SEARCH_INDEX,
                     "the search index's head: kernels, GPUs, implementations … in compact tables, and how many groups each kernel's shard holds"),
    "search-shard": (urls.SEARCH, urls.search_shard("<operation>"),
                     "one kernel's ranked comparison groups in compact tables; the search page merges the shards a query needs"),
    "records": (f"{urls.RECORDS}, {urls.records('history')}, {urls.records('current', '<gpu|evidence|source>', '<value>')}, "
                f"{urls.records('current', None, None, 2)} …", urls.mirror(urls.records("<view and filter>")),
                "the records ledger: current records, record breaks and history, per filter"),
    "gpus": (*_pair(urls.GPUS), "every GPU: eligible runs, operations, records"),
    "gpu": (*_pair(urls.gpu("<slug>")), "one GPU: records held, coverage by family, what was never measured"),
    "models": (*_pair(urls.MODELS), "models whose operations are tagged"),
    "model": (*_pair(urls.model("<slug>")), "one model: best known result per operation and GPU, and the gaps"),
    "compare": (urls.compare(["<digest prefix>", "…"]), urls.mirror(urls.COMPARE),
                "how runs are compared: material and context fields; the page computes a compare-result"),
    "run-directory": (urls.COMPARE, urls.run_directory("<xx>"),
                      "run digest (12 hex digits) to the run's JSON (a mirror and a JSON Pointer), sharded by "
                      "the first two hex digits"),
    "compare-result": (urls.COMPARE, "(computed in the browser)", "the result of comparing 2 to 8 runs"),
}


def llms_txt(base_url: str, as_of: date, kinds: Iterable[str]) -> str:
    def link(path: str) -> str:
        return f"{base_url}/{path}" if base_url else path

    lines = [
        "# KernelIndex",
        "",
        "> A leaderboard of GPU kernel performance, built as a static site from YAML files in git. Runs are ranked "
        "only within a comparison group (same operation, workload, protocol, environment, correctness policy and "
        "metric); every figure is derived from the data, and every page has a JSON mirror with a published JSON Schema.",
        "",
        f"Data as of {as_of.isoformat()}. " + (
            f"Paths are under {base_url}/." if base_url else
            "Paths are relative to this file (the site root); the site works at any prefix and from disk."),
        "JSON is UTF-8 with sorted keys; times are nanoseconds, dates ISO 8601 (RFC 3339).",
        "",
        "## Start here",
        "",
        f"- [API index]({link(urls.API_INDEX)}): every kind of JSON document with its count and the parts "
        f"(`{urls.api_index_part('<kind>')}`, then `{urls.api_index_part('<kind>', 2)}` …) that list each document "
        "with its page (a run is listed by its group's document, under `runs`); `schemas` maps each kind to its "
        "JSON Schema",
        f"- [Search index]({link(urls.SEARCH_INDEX)}): its head, and a shard per kernel (`{urls.search_shard('<operation>')}`) "
        "with that kernel's ranked comparison groups in compact tables (layout in their schemas)",
        f"- [How records are decided]({link(urls.METHODOLOGY)}): eligibility, ranking, evidence, floors, staleness",
        "",
        "## Documents by kind",
        "",
    ]
    for kind in sorted(kinds):
        page, mirror, what = DOCUMENTS.get(kind, ("", "", "see its schema"))
        schema = link(urls.schema(kind))
        lines.append(f"- `{kind}`: {what}. Page `{page}`; JSON `{mirror}`; [schema]({schema})" if page
                     else f"- `{kind}`: {what}. [schema]({schema})")
    lines += [
        "",
        "## Feeds",
        "",
        f"- [Record breaks (Atom)]({link(urls.RECORDS_FEED)}): new records, newest first",
        f"- [New runs (Atom)]({link(urls.RUNS_FEED)}): runs by observation date, newest first",
        "",
        "## Optional",
        "",
        f"- [Compare runs]({link(urls.COMPARE)}): `?runs=<digest prefix>,<digest prefix>` (2 to 8 runs)",
        "- Badges: `badges/implementations/<implementation>.svg` (records held, best rank)",
        f"- [robots.txt]({link(urls.ROBOTS)})" + (f" · [sitemap.xml]({link(urls.SITEMAP)})" if base_url else ""),
    ]
    return "\n".join(lines) + "\n"
