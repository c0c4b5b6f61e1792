"""Atom feeds (RFC 4287) of record breaks and of newly published runs.

Deterministic: entries are dated by the runs' observedAt, the feed by the as-of date (or its newest
entry, if that is later), and ids are tag: URIs built from digests, so they never change. Links
are relative to the feed's own location (RFC 4287 allows IRI references, resolved against the
document's URI), or absolute when the build is given a base URL (then xml:base is set too).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timezone

ATOM = "http://www.w3.org/2005/Atom"
TAG_AUTHORITY = "tag:kernelindex.dev,2025:"
GENERATOR = "KernelIndex site builder"


def tag_uri(*parts: str) -> str:
    """A stable entry id: tag:kernelindex.dev,2025:<part>:<part>…"""
    return TAG_AUTHORITY + ":".join(parts)


def _utc(moment: datetime) -> datetime:
    """A moment in UTC; a naive one is taken to be UTC already."""
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def rfc3339(moment: datetime) -> str:
    return _utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class FeedEntry:
    id: str
    title: str
    updated: datetime
    link: str  # site-root path of the page it announces
    summary: str


def _href(target: str, feed_path: str, base_url: str) -> str:
    if base_url:
        return f"{base_url}/{target}"
    return "../" * feed_path.count("/") + target


def atom_feed(*, feed_path: str, feed_id: str, title: str, subtitle: str, as_of: date, alternate: str,
              entries: Sequence[FeedEntry], base_url: str = "") -> bytes:
    """The feed document. ``feed_path`` and ``alternate`` are site-root paths ("records/feed.xml")."""
    updated = datetime.combine(as_of, time(), tzinfo=timezone.utc)
    if entries:
        updated = max(updated, max(_utc(entry.updated) for entry in entries))
    feed = ET.Element("feed", {"xmlns": ATOM})
    if base_url:
        feed.set("{http://www.w3.org/XML/1998/namespace}base", base_url + "/")
    ET.SubElement(feed, "id").text = feed_id
    ET.SubElement(feed, "title").text = title
    ET.SubElement(feed, "subtitle").text = subtitle
    ET.SubElement(feed, "updated").text = rfc3339(updated)
    author = ET.SubElement(feed, "author")
    ET.SubElement(author, "name").text = "KernelIndex"
    ET.SubElement(feed, "link", {"rel": "self", "type": "application/atom+xml",
                                 "href": _href(feed_path, feed_path, base_url)})
    ET.SubElement(feed, "link", {"rel": "alternate", "type": "text/html", "href": _href(alternate, feed_path, base_url)})
    ET.SubElement(feed, "generator").text = GENERATOR
    for entry in entries:
        node = ET.SubElement(feed, "entry")
        ET.SubElement(node, "id").text = entry.id
        ET.SubElement(node, "title").text = entry.title
        ET.SubElement(node, "updated").text = rfc3339(entry.updated)
        ET.SubElement(node, "link", {"rel": "alternate", "type": "text/html", "href": _href(entry.link, feed_path, base_url)})
        ET.SubElement(node, "summary").text = entry.summary
    ET.indent(feed)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False) + b"\n"
