"""Whether a built site fits a static host: its bytes, its file count and its largest file against
the host's published limits, checked before uploading (pages.yml) rather than learnt from a
deployment that fails later. ``kernelindex site-size`` prints it; benchmarks/build.py measures
with ``measure_site`` too, so a benchmark's figures and CI's check count the same way.

The hosts' limits, as their documentation states them (decimal units; a limit is met when the site
is at most that):
- GitHub Pages: a published site of at most 1 GB.
- GitLab Pages: at most 1 GB and 200,000 files.
- Cloudflare Pages: 20,000 files on the free plan (100,000 paid), 25 MiB per file.
Every host: no page or JSON document over 2 MB, KernelIndex's own bound (a reader on a phone, a
client fetching a mirror).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

MB = 1_000_000
GB = 1_000_000_000
DOCUMENT_LIMIT = 2 * MB  # KernelIndex's bound on any one page or JSON document
DOCUMENT_SUFFIXES = (".html", ".json", ".xml", ".txt")


@dataclass(frozen=True)
class Limits:
    name: str
    max_bytes: int | None
    max_files: int | None
    max_file_bytes: int | None


HOSTS = {
    "github-pages": Limits("GitHub Pages", max_bytes=1 * GB, max_files=None, max_file_bytes=None),
    "gitlab-pages": Limits("GitLab Pages", max_bytes=1 * GB, max_files=200_000, max_file_bytes=None),
    "cloudflare-pages": Limits("Cloudflare Pages (free)", max_bytes=None, max_files=20_000, max_file_bytes=25 * 1024 * 1024),
    "cloudflare-pages-paid": Limits("Cloudflare Pages (paid)", max_bytes=None, max_files=100_000,
                                    max_file_bytes=25 * 1024 * 1024),
}


@dataclass(frozen=True)
class SiteSize:
    bytes: int
    files: int
    largest: tuple[int, str]  # (bytes, path from the site root) of the largest file
    largest_document: tuple[int, str]  # the same, among pages and JSON documents


def measure_site(site: Path) -> SiteSize:
    """Bytes and files under ``site`` (regular files; links are not followed, as hosts upload them
    as they are), and the largest file and document."""
    total = files = 0
    largest = largest_document = (0, "")
    for folder, _, names in os.walk(site):
        for name in names:
            path = os.path.join(folder, name)
            stat = os.lstat(path)
            size = stat.st_size
            total += size
            files += 1
            if size > largest[0]:
                largest = (size, os.path.relpath(path, site))
            if size > largest_document[0] and name.endswith(DOCUMENT_SUFFIXES):
                largest_document = (size, os.path.relpath(path, site))
    return SiteSize(total, files, largest, largest_document)


def problems(size: SiteSize, limits: Limits) -> list[str]:
    """Each limit the site is over, as a sentence naming the measured figure and the limit."""
    found = []
    if limits.max_bytes is not None and size.bytes > limits.max_bytes:
        found.append(f"the site is {size.bytes:,} bytes; {limits.name} publishes at most {limits.max_bytes:,}")
    if limits.max_files is not None and size.files > limits.max_files:
        found.append(f"the site has {size.files:,} files; {limits.name} takes at most {limits.max_files:,}")
    if limits.max_file_bytes is not None and size.largest[0] > limits.max_file_bytes:
        found.append(f"{size.largest[1]} is {size.largest[0]:,} bytes; {limits.name} takes files of at most "
                     f"{limits.max_file_bytes:,}")
    if size.largest_document[0] > DOCUMENT_LIMIT:
        found.append(f"{size.largest_document[1]} is {size.largest_document[0]:,} bytes; no page or JSON document "
                     f"may be over {DOCUMENT_LIMIT:,}")
    return found


def describe(size: SiteSize) -> str:
    return (f"{size.bytes:,} bytes ({size.bytes / MB:,.1f} MB) in {size.files:,} files; largest document "
            f"{size.largest_document[1] or '-'} ({size.largest_document[0]:,} bytes)")


@click.command(name="site-size")
@click.argument("site", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("site"))
@click.option("--host", "hosts", type=click.Choice(sorted(HOSTS)), multiple=True, default=("github-pages",),
              show_default=True, help="Check against this host's limits (repeat for several).")
def command(site: Path, hosts: tuple[str, ...]) -> None:
    """Measure a built site and check it against a static host's limits; exit 1 when over."""
    size = measure_site(site)
    click.echo(f"{site}: {describe(size)}")
    failed = False
    for host in hosts:
        found = problems(size, HOSTS[host])
        for problem in found:
            click.echo(f"error: {site} does not fit {HOSTS[host].name}: {problem}", err=True)
        failed = failed or bool(found)
        if not found:
            click.echo(f"fits {HOSTS[host].name}")
    if failed:
        sys.exit(1)
