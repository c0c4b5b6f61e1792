"""Reading a built site without a browser: links, anchors and ids of every page, fast.

``html.parser`` from the standard library, not BeautifulSoup: the link checker reads every page
of the bundled site (thousands), and this is several times faster.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from site_builder import urls

# Attributes that load something into the page (must be local) and those that merely link.
LOADING = {("script", "src"), ("link", "href"), ("img", "src"), ("source", "src"), ("iframe", "src"),
           ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data")}
LINKING = {("a", "href"), ("area", "href")}


@dataclass
class PageLinks:
    path: str  # relative to the site root
    ids: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # <a href>
    loads: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, rel, url) of what the page loads
    alternates: list[str] = field(default_factory=list)  # <link rel="alternate" type="application/json">


class _Parser(HTMLParser):
    def __init__(self, page: PageLinks):
        super().__init__(convert_charrefs=True)
        self.page = page

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in ("id",):
            if attributes.get(name):
                self.page.ids.append(attributes[name])
        if tag == "a" and attributes.get("name"):
            self.page.ids.append(attributes["name"])
        for (element, attribute) in LINKING:
            if tag == element and attributes.get(attribute) is not None:
                self.page.links.append(attributes[attribute])
        for (element, attribute) in LOADING:
            if tag == element and attributes.get(attribute):
                rel = attributes.get("rel", "")
                if tag == "link" and "alternate" in rel.split():
                    if attributes.get("type") == "application/json":
                        self.page.alternates.append(attributes[attribute])
                    continue
                self.page.loads.append((tag, rel, attributes[attribute]))

    handle_startendtag = handle_starttag


def read_page(site: Path, path: str) -> PageLinks:
    page = PageLinks(path)
    parser = _Parser(page)
    parser.feed((site / path).read_text(encoding="utf-8"))
    parser.close()
    return page


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


def resolve(page: str, url: str) -> tuple[str, str]:
    """(site-relative path, fragment) of a relative URL on ``page``; '' path means the page itself."""
    parts = urlsplit(url)
    if not parts.path:
        return page, unquote(parts.fragment)
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(parts.path)))
    if parts.path.endswith("/"):
        target = posixpath.join(target, "index.html")
    return target, unquote(parts.fragment)


def html_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))


def page_kind(path: str) -> tuple[str, int]:
    """The kind of page a path is, for sampling a few of each: its first folder and its depth
    (``runs/x.html`` and ``kernels/x.html`` differ; ``kernels/x/y.html``, a workload, differs again;
    each page at the root is a kind of its own)."""
    parts = path.split("/")
    return (path if len(parts) == 1 else parts[0]), len(parts)


REFRESH = b'<meta http-equiv="refresh"'


def is_redirect(site: Path, path: str) -> bool:
    """Whether the page only leads to another (a group of one run to its run's page, a superseded
    run to its group's): its head says so before anything else."""
    with open(site / path, "rb") as page:
        return REFRESH in page.read(2048)


def redirects(site: Path, per_kind: int) -> list[str]:
    """A few redirect pages of every kind, in path order."""
    chosen: dict[tuple[str, int], list[str]] = {}
    for path in html_pages(site):
        if len(chosen.setdefault(page_kind(path), [])) < per_kind and is_redirect(site, path):
            chosen[page_kind(path)].append(path)
    return [path for paths in chosen.values() for path in paths]


def sample(site: Path, per_kind: int, always: tuple[str, ...] = ()) -> list[str]:
    """A few pages of every kind (the first ones in path order), plus the ones named. Redirects
    are not pages a reader reads (``redirects`` samples those)."""
    chosen: dict[str, list[str]] = {}
    for path in html_pages(site):
        chosen.setdefault(page_kind(path), [])
        if len(chosen[page_kind(path)]) < per_kind and not is_redirect(site, path):
            chosen[page_kind(path)].append(path)
    picked = [path for paths in chosen.values() for path in paths]
    return picked + [path for path in always if path not in picked and (site / path).is_file()]


# The seeds' kernel: its page is the one the screenshots and the selector test prefer.
KERNEL = urls.kernel("llama4-rope")


def chart_page(site: Path) -> str:
    """A kernel page with charts: the seed's kernel when it has them, else the first that does."""
    candidates = [KERNEL] + sorted(str(p.relative_to(site)) for p in (site / "kernels").rglob("*.html"))
    for path in candidates:
        if (site / path).is_file() and "data-chart" in (site / path).read_text(encoding="utf-8"):
            return path
    raise AssertionError("no kernel or workload page has a chart")
