"""The API index parts, written without a model per entry, are the bytes the published model
(``views.ApiIndexPartDocument``) serializes to."""

from __future__ import annotations

import json
import random
from datetime import date

import pytest

from site_builder import mirrors, urls
from site_builder.mirrors import MirrorIndex
from site_builder.render import to_json
from site_builder.page_views import ApiIndexPartDocument, MirrorEntry

AS_OF = date(2026, 6, 30)
AWKWARD = ["plain", "quote \" and \\ backslash", "tab\tnewline\n", "\x00\x1f control", "ünïcödé · × — …", "emoji 🚀",
           "\u2028 line separator", "</script>", ""]


def _entries(count: int, seed: int = 7) -> list[tuple[str, str, str, str]]:
    rng = random.Random(seed)
    found = []
    for n in range(count):
        kind = rng.choice(["run", "group", "kernel", "search-shard"])
        title = rng.choice(AWKWARD) + f" {n}"
        found.append((kind, title, f"{kind}s/{n}.html", f"api/v1/{kind}s/{rng.randrange(10**6)}-{n}.json"))
    return found


@pytest.mark.parametrize("part_size", [1, 7, 2000])
def test_parts_are_the_models_bytes(monkeypatch, part_size):
    monkeypatch.setattr(mirrors, "PART_SIZE", part_size)
    entries = _entries(300)
    index = MirrorIndex()
    for entry in entries:
        index.add_document(*entry)
    written = {path: text for path, text, _ in index.parts(AS_OF)}

    expected = {}
    by_kind: dict[str, list[MirrorEntry]] = {}
    for kind, title, html, mirror in entries:
        by_kind.setdefault(kind, []).append(MirrorEntry(kind=kind, title=title, html=html, mirror=mirror))
    for kind, listed in sorted(by_kind.items()):
        if kind in mirrors.LISTED_ELSEWHERE:  # counted in the index, listed by other documents
            continue
        listed.sort(key=lambda e: e.mirror)
        pages = [listed[i:i + part_size] for i in range(0, len(listed), part_size)]
        for number, page in enumerate(pages, start=1):
            part = ApiIndexPartDocument(as_of=AS_OF, kind=kind, part=number, parts=len(pages), index=urls.API_INDEX,
                                        documents=page)
            expected[urls.api_index_part(kind, number)] = to_json(part.model_dump(mode="json"))
    assert written == expected
    document = json.loads(index.document(AS_OF))
    assert sum(kind["documents"] for kind in document["kinds"]) == len(entries)


def test_entries_that_are_not_plain_strings_are_validated():
    index = MirrorIndex()
    with pytest.raises(ValueError):
        index.add_document("run", None, "a.html", "a.json")  # type: ignore[arg-type]
    assert index.entries == []


def test_nothing_is_listed_after_the_parts():
    index = MirrorIndex()
    index.add_document("run", "a", "a.html", "a.json")
    list(index.parts(AS_OF))
    with pytest.raises(RuntimeError):
        index.add_document("run", "b", "b.html", "b.json")


def test_parts_rendered_in_two_steps_are_the_parts_rendered_at_once(monkeypatch):
    """The build renders the pages' parts while the search index is made, then the search index's."""
    monkeypatch.setattr(mirrors, "PART_SIZE", 7)
    entries = _entries(300)
    at_once, in_steps = MirrorIndex(), MirrorIndex()
    for entry in entries:
        at_once.add_document(*entry)
    early = [entry for entry in entries if entry[0] != "search-shard"]
    late = [entry for entry in entries if entry[0] == "search-shard"]
    for entry in early:
        in_steps.add_document(*entry)
    first = list(in_steps.parts(AS_OF, final=False))
    with pytest.raises(RuntimeError, match="parts of run already rendered"):
        in_steps.add_document("run", "late", "late.html", "late.json")
    with pytest.raises(RuntimeError, match="before the index"):
        in_steps.document(AS_OF)
    for entry in late:
        in_steps.add_document(*entry)
    second = list(in_steps.parts(AS_OF))
    assert sorted(first + second) == sorted(at_once.parts(AS_OF))
    assert {by.split()[3] for _, _, by in second} == {"search-shard"}  # "API index part <kind> <number>"
    assert in_steps.document(AS_OF) == at_once.document(AS_OF)
    with pytest.raises(RuntimeError):
        in_steps.add_document("group", "b", "b.html", "b.json")
