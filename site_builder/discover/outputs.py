"""The finding files that are not pages: the search index, the run directory, Atom feeds, badges,
robots.txt, llms.txt and (with a base URL) sitemap.xml. ``discover_outputs`` yields them once the
pages are built, registers the JSON documents in the API index and yields the API index's parts
(``MirrorIndex.parts``: the pages' first, the search index's once its documents are registered;
``MirrorIndex.document`` renders the index that names them).

The search index is the largest of them and the most work to make, and needs only
the leaderboard: a forked copy of the build makes its text while this process makes the others
and the API index parts of the pages, so the two halves share the machine's cores instead of
taking turns on one. (The run directory stays here: made in the copy too, where every write to
the build's objects copies a page of memory, it would make the copy the half that is waited for.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from operator import attrgetter

from .. import urls
from ..parallel.forked import InFork
from ..derive.leaderboard import Leaderboard
from ..formatting import day, measure, percent
from ..mirrors import MirrorIndex, schema_kinds
from ..search.index import index_json, search_parts
from .badges import COLOURS, badge_message, badge_svg
from .feeds import FeedEntry, atom_feed, tag_uri
from .ledger import FEED_ENTRIES, newest_first
from .site_files import llms_txt, robots_txt, sitemaps
from .state import discovery

Output = tuple[str, str | bytes, str]  # (path, content, what made it)
SearchTexts = tuple[str, list[tuple[str, str]]]  # (the head's JSON, (operation, its shard's JSON) in order)
_OBSERVED_AT = attrgetter("observed_at")
_DIGEST = attrgetter("digest")


def discover_outputs(board: Leaderboard, mirrors: MirrorIndex, pages: Iterable[str], base_url: str = "") -> Iterator[Output]:
    """Every extra file; ``pages`` are the site-root paths of every HTML page (for the sitemap)."""
    found = discovery(board)
    catalog = board.catalog

    search = InFork(lambda: search_texts(board), "search index")
    try:
        for shard, runs in run_directory(board, mirrors):
            path = urls.run_directory(shard)
            # Keys in sorted order as written ("runs" is sorted by digest already): sort_keys would sort each again.
            document = {"runs": runs, "shard": shard, "v": 2}  # 2: a run's mirror, no longer its name
            yield path, json.dumps(document, separators=(",", ":")) + "\n", "run directory"
            mirrors.add_document("run-directory", f"Runs whose digest starts with {shard}", urls.COMPARE, path)

        yield from _feeds(board, base_url)

        for name in sorted(catalog.implementations):
            entity = catalog.implementations[name]
            title = entity.metadata.title or entity.refs["project"].metadata.title or name
            message, colour = badge_message(found.records_held.get(name, 0), found.best_rank.get(name))
            yield urls.badge(name), badge_svg("KernelIndex", message, COLOURS[colour], title=f"{title} on KernelIndex: {message}"), "badge"

        yield urls.ROBOTS, robots_txt(base_url), "robots.txt"
        yield urls.LLMS, llms_txt(base_url, board.as_of, schema_kinds()), "llms.txt"
        if base_url:
            for path, xml in sitemaps(base_url, pages, board.as_of).items():
                yield path, xml, "sitemap"

        # The pages' API index parts while the search index is still being made: only its documents are to come.
        yield from mirrors.parts(board.as_of, final=False)
        yield from _search_index(*search.result(), mirrors)
        # Every JSON document is registered by now: the API index can list them.
        yield from mirrors.parts(board.as_of)
    finally:
        search.close()


def run_directory(board: Leaderboard, mirrors: MirrorIndex) -> list[tuple[str, dict[str, str]]]:
    """(shard, run digest's first 12 hex digits -> where the run's JSON is, in digest order) for
    every two-digit prefix, in order. Where a run's JSON is, its page said when it was listed
    (``mirrors``, which lists every page, rendered or kept). Two runs whose 12 digits agree (never
    yet) keep the one whose mirror sorts last.

    Each run is one string, its digits, "\0" and its mirror: strings sort as (digits, mirror)
    pairs do ("\0" sorts before any digit, so shorter digits first), and a string compares more
    cheaply than a pair, which compares element by element; a shard's dict, made in that order,
    keeps the last mirror of equal digits."""
    mirror_of = {entry.html: entry.mirror for entry in mirrors.entries if entry.kind == "run"}
    shards: dict[str, list[str]] = {}
    for name, run in board.runs.items():
        hex12 = run.digest.removeprefix("sha256:")[:12]
        shard = shards.get(hex12[:2])
        if shard is None:
            shard = shards[hex12[:2]] = []
        shard.append(hex12 + "\0" + mirror_of[urls.run(name)])
    return [(prefix, dict([key.split("\0", 1) for key in sorted(keys)])) for prefix, keys in sorted(shards.items())]


def search_texts(board: Leaderboard) -> SearchTexts:
    """The search index as JSON: its head and a shard per operation (see ``search.shards``)."""
    head, shards = search_parts(board)
    return index_json(head), [(operation, index_json(shard)) for operation, shard in shards.items()]


def _search_index(head: str, shards: list[tuple[str, str]], mirrors: MirrorIndex) -> Iterator[Output]:
    """The search index's files (``search_texts``), each also as a script that sets a global, so
    search works from file:// where fetch cannot read files."""
    yield urls.SEARCH_INDEX, head, "search index"
    yield urls.SEARCH_INDEX_SCRIPT, "window.KERNELINDEX_SEARCH_INDEX = " + head.rstrip("\n") + ";\n", "search index script"
    mirrors.add_document("search-index", "Search index", urls.SEARCH, urls.SEARCH_INDEX)
    for operation, shard in shards:
        text = shard.rstrip("\n")
        yield urls.search_shard(operation), text + "\n", "search index shard"
        yield urls.search_shard_script(operation), (
            "(window.KERNELINDEX_SEARCH_SHARDS = window.KERNELINDEX_SEARCH_SHARDS || {})"
            f"[{json.dumps(operation)}] = {text};\n"), "search index shard script"
        mirrors.add_document("search-shard", f"Search index: {operation}", urls.SEARCH, urls.search_shard(operation))


def step_entries(board: Leaderboard, titles) -> list[FeedEntry]:
    """The newest detected steps of implementations (baselines' own steps are context, not news)."""
    entries = []
    for step in [s for s in board.steps if not s.after.run.baseline][:FEED_ENTRIES]:
        run, cohort = step.after.run, board.cohorts[step.cohort]
        impl, operation, workload = titles(run)
        before, after = measure(step.step.before, run.unit), measure(step.step.after, run.unit)
        change = "regression" if step.regression else "improvement"
        moved = [board.catalog.implementations[name].metadata.title or name for name in step.baselines]
        cause = (f"the benchmark host changed ({', '.join(moved)} moved too)" if step.cause == "host" else
                 "the benchmark host changed (the baselines on this GPU moved the same way)" if step.cause == "host-wide"
                 else f"{impl} changed")
        commits = ""
        if step.before.facts.commit and step.after.facts.commit and step.before.facts.commit != step.after.facts.commit:
            commits = (f" Upstream commits: https://github.com/linkedin/Liger-Kernel/compare/"
                       f"{step.before.facts.commit}...{step.after.facts.commit}.")
        entries.append(FeedEntry(
            id=tag_uri("step", urls.group_id(cohort.key), run.digest.removeprefix("sha256:")),
            title=f"{change.capitalize()}: {impl} · {operation} · {before} → {after} on {cohort.label}",
            updated=run.observed_at, link=urls.group(cohort.key),
            summary=(f"{impl}, {operation} · {workload} on {cohort.label}: a sustained step from {before} to {after} "
                     f"between snapshots {step.before.facts.place} and {step.after.facts.place}; likely cause: {cause}."
                     f"{commits}")))
    return entries


def _feeds(board: Leaderboard, base_url: str) -> Iterator[Output]:
    found = discovery(board)
    catalog = board.catalog

    def titles(run) -> tuple[str, str, str]:
        implementation = catalog.implementations[run.implementation]
        impl = implementation.metadata.title or implementation.refs["project"].metadata.title or run.implementation
        operation = catalog.operations[run.operation].metadata.title or run.operation
        return impl, operation, catalog.workloads[run.workload].metadata.title or run.workload

    entries = []
    for entry in found.newest_breaks(FEED_ENTRIES):
        run, cohort = entry.run, board.cohorts[entry.group.key]
        impl, operation, workload = titles(run)
        was = f"; was {measure(entry.previous.value, entry.previous.unit)}" if entry.previous else ""
        saved = f" (−{percent(entry.improvement)})" if entry.improvement is not None else ""
        entries.append(FeedEntry(
            id=tag_uri("record", urls.group_id(cohort.key), run.digest.removeprefix("sha256:")),
            title=f"New record: {impl} · {operation} · {measure(run.value, run.unit)} on {cohort.label}",
            updated=run.observed_at, link=urls.group(cohort.key),
            summary=(f"{impl} set the record of {operation} · {workload} on {cohort.label}: "
                     f"{measure(run.value, run.unit)} {run.statistic or ''}{saved}{was}. Observed {day(run.observed_at)}; "
                     f"{run.evidence} evidence.")))
    yield urls.RECORDS_FEED, atom_feed(
        feed_path=urls.RECORDS_FEED, feed_id=tag_uri("records"), title="KernelIndex · record breaks",
        subtitle="Comparison groups whose record fell, newest first.", as_of=board.as_of, alternate=urls.records("history"),
        entries=entries, base_url=base_url), "records feed"

    entries = []
    for run in newest_first(list(board.runs.values()), _OBSERVED_AT, _DIGEST, FEED_ENTRIES):
        impl, operation, workload = titles(run)
        cohort = board.cohorts[run.cohort]
        row = board.row_of.get(run.name)
        standing = f"rank {row.rank} of {len(cohort.rows)}" if row else "not ranked: " + ", ".join(board.reasons.get(run.name, ()))
        entries.append(FeedEntry(
            id=tag_uri("run", run.digest.removeprefix("sha256:")),
            title=f"{impl} · {operation} · {measure(run.value, run.unit)} on {cohort.label}",
            updated=run.observed_at, link=urls.run(run.name),
            summary=f"{operation} · {workload} on {cohort.label}: {measure(run.value, run.unit)} "
                    f"{run.statistic or ''}, {standing}. Observed {day(run.observed_at)}; {run.evidence} evidence."))
    yield urls.REGRESSIONS_FEED, atom_feed(
        feed_path=urls.REGRESSIONS_FEED, feed_id=tag_uri("steps"), title="KernelIndex · regressions and improvements",
        subtitle="Sustained step changes in series measured over time, newest first.", as_of=board.as_of,
        alternate=urls.REGRESSIONS, entries=step_entries(board, titles), base_url=base_url), "regressions feed"

    yield urls.RUNS_FEED, atom_feed(
        feed_path=urls.RUNS_FEED, feed_id=tag_uri("runs"), title="KernelIndex · new runs",
        subtitle="Runs by observation date, newest first.", as_of=board.as_of, alternate=urls.RECORDS,
        entries=entries, base_url=base_url), "runs feed"
