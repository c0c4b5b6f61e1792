"""Ledger and challenge-list pages are signed by what their plans show (``context.tasks``), the
groups whose rows they show among it (``page_signatures``):
a page whose signature is unchanged must come out byte for byte the same, and a changed run
must leave most of these pages' signatures alone (or signing them would save nothing)."""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from site_builder.context import page_tasks, site
from site_builder.context.view_parts import ViewFactory
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.render import mirror_json
from site_builder.repository import load_catalog
from site_builder.context.kernels import KernelPages
from site_builder.discover.ledger import newest_first
from site_builder.context.tasks import Plan, PlannedPage
from site_builder.derive.leaderboard import Cohort
from site_builder.incremental.page_signatures import RUN_KIND, PageSignatures, RowSignatures, _content

from .test_incremental_build import change_one_run

AS_OF = date(2026, 6, 30)
ROW_PAGES = ("records", "challenges")


def signed_row_pages(data: Path) -> dict[str, tuple[str, str]]:
    """Page path -> (signature, mirror) of every signed ledger and challenge-list page."""
    board = derive_leaderboard(load_catalog(data, None, cache=False), AS_OF)
    found = {}
    for task in PageSignatures(board, "renderer").sign(page_tasks(board, "methodology", by_kernel=True)):
        if isinstance(task, PlannedPage):
            for page in task():
                if page.kind in ROW_PAGES:
                    found[page.html] = (task.signature, mirror_json(page))
    return found


def test_a_changed_run_changes_the_signature_of_every_row_page_it_changes_and_few_others(synthetic: Path) -> None:
    before = signed_row_pages(synthetic)
    assert {path.split("/")[0].removesuffix(".html") for path in before} == set(ROW_PAGES)
    assert len(before) == len({signature for signature, _ in before.values()})  # one signature per page
    change_one_run(synthetic)
    after = signed_row_pages(synthetic)
    assert after.keys() == before.keys()
    resigned = {path for path in before if before[path][0] != after[path][0]}
    changed = {path for path in before if before[path][1] != after[path][1]}
    assert changed, "the change shows on some ledger page"
    assert changed <= resigned  # an unchanged signature never hides a changed page
    assert len(resigned) < len(before) / 2


def test_signed_tasks_build_the_pages_of_the_plain_build(synthetic: Path) -> None:
    """A kernel's pages are one signed task (``context.kernels.KernelPages``) that plans one task
    per page: the same pages, in the same order, as the plain build's tasks."""
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    signed = page_tasks(board, "methodology", by_kernel=True)
    plain = page_tasks(board, "methodology")
    kernels = [task for task in signed if isinstance(task, KernelPages)]
    planned = [page_task for kernel in kernels for page_task in kernel.tasks()]
    assert len(signed) - len(kernels) + len(planned) == len(plain)
    assert {page.kind for task in planned for page in task()} == {"kernel", "run", "group", "implementation"}
    flattened = [page_task for task in signed for page_task in (task.tasks() if isinstance(task, KernelPages) else [task])]
    for number, task in enumerate(flattened):
        assert [mirror_json(page) for page in task()] == [mirror_json(page) for page in plain[number]()]
    # The kernel's task itself builds its pages, in the same order.
    assert [mirror_json(page) for page in kernels[0]()] == [mirror_json(page) for task in kernels[0].tasks() for page in task()]


def test_groups_are_each_groups_digest_in_the_order_asked(synthetic: Path) -> None:
    """``RowSignatures.groups`` (each digest made once, looked up in C) answers ``group`` of each key,
    repeats and order included, whichever groups were hashed before."""
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    keys = sorted(board.cohorts)
    assert len(keys) > 3
    wanted = {key: PageSignatures(board, "renderer").rows().group(board.cohorts[key]) for key in keys}
    rows = PageSignatures(board, "renderer").rows()
    assert list(rows.groups(keys[:2])) == [wanted[key] for key in keys[:2]]
    asked = [*reversed(keys), keys[0], keys[-1], keys[0]]
    assert list(rows.groups(asked)) == [wanted[key] for key in asked]
    assert len(set(wanted.values())) == len(keys)  # a digest tells groups apart


def test_each_runs_part_is_its_name_file_and_superseding_run(synthetic: Path) -> None:
    """``PageSignatures.run_parts`` (read in the files' order) holds, for every run of the board,
    the text that kernel and group signatures hash: its name, its file's content key and the run
    that supersedes it; loaded by the bulk loader or not (then the file's bytes are hashed)."""
    for cache in (True, False):
        board = derive_leaderboard(load_catalog(synthetic, None, cache=cache), AS_OF)
        superseded_by = {run.supersedes: run.name for run in board.runs.values() if run.supersedes}
        files = board.catalog.of(RUN_KIND)
        parts = PageSignatures(board, "renderer").run_parts
        for name in board.runs:
            assert parts[name] == f"\0{name}\t{_content(files[name])}\t{superseded_by.get(name, '')}".encode()
        assert {name for name in board.runs if parts[name].endswith(b"\t")} == set(board.runs) - set(superseded_by)


def test_challenge_lists_are_sorted_when_first_read_not_when_planned(synthetic: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Planning needs only how many challenges there are (``context.site._Challenges``): a rebuild
    sorts them after the render worker forked; signing and building sort them once."""
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    sorts = []
    monkeypatch.setattr(site, "newest_first", lambda *args: sorts.append(args) or newest_first(*args))
    tasks = PageSignatures(board, "renderer").sign(site.challenges_tasks(ViewFactory(board)))
    assert len(tasks) > 3 and not sorts
    for task in tasks[1:]:
        assert task.signature
    assert len(sorts) == len(site.CHALLENGE_TITLES) - 1  # once per kind (a gap is no challenge)
    overview, = tasks[0]()
    assert len(sorts) == len(site.CHALLENGE_TITLES) - 1
    assert overview.totals == {kind: len(found) for kind, found in zip(overview.totals, [
        [c for c in board.cohort_challenges if c.kind == kind] for kind in overview.totals])}


_forked_rows: RowSignatures | None = None


def _hash_in_child(keys: list[str]) -> list[bytes]:
    assert _forked_rows is not None
    return list(_forked_rows.groups(keys))


def test_a_group_hashed_by_a_forked_process_is_read_not_hashed_again(synthetic: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The two processes that sign a rebuild's pages (``render_pool``) share the groups' digests
    (``page_signatures.SharedDigests``): what the worker hashed, this process reads, the same bytes."""
    global _forked_rows
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    keys = sorted(board.cohorts)
    wanted = [PageSignatures(board, "renderer").rows().group(board.cohorts[key]) for key in keys]
    _forked_rows = rows = PageSignatures(board, "renderer").rows()  # made before the fork, as signing the tasks does
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            assert pool.apply(_hash_in_child, (keys[::2],)) == wanted[::2]
    finally:
        _forked_rows = None
    hashed = []
    monkeypatch.setattr(rows, "group", lambda cohort: hashed.append(cohort.key) or wanted[keys.index(cohort.key)])
    assert list(rows.groups(keys)) == wanted
    assert sorted(hashed) == keys[1::2]  # the half the child hashed was read, not hashed again


def test_a_plan_shows_each_of_its_fields_and_its_groups_by_key(synthetic: Path) -> None:
    """``Plan.shows`` reads a plan's fields: a group, or a list of them, by key; anything else as
    its text. A change to any field changes what it shows, and two lists of groups never run into
    one another (a page that moved a group from one list to the other would be signed the same)."""
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    a, b, c = list(board.cohorts.values())[:3]

    @dataclass(frozen=True)
    class Example(Plan):
        name: str
        runs: int
        leader: Cohort
        first: list[Cohort]
        second: list[Cohort]

    shows = Example("x", 3, a, [a, b], [c]).shows()
    assert list(shows.groups) == [a.key, a.key, b.key, c.key]
    variants = [Example("y", 3, a, [a, b], [c]), Example("x", 4, a, [a, b], [c]), Example("x", 3, b, [a, b], [c]),
                Example("x", 3, a, [a], [b, c]), Example("x", 3, a, [a, b, c], []), Example("x", 3, a, [b, a], [c])]
    assert all(variant.shows() != shows for variant in variants)
    assert Example("x", 3, a, [a, b], [c]).shows() == shows


def test_a_kernel_with_workloads_but_no_run_yet_has_its_page(synthetic: Path) -> None:
    """A kernel whose workloads nobody has measured yet still has a page at its address (its first
    workload's), which the index, search and GPU pages link."""
    from site_builder import urls
    from site_builder.build import build_site

    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    operation = sorted(board.operation_runs)[0]
    for run in board.operation_runs[operation]:
        Path(board.catalog.runs[run.name].document.file).unlink()
    kernel = Path(board.catalog.operations[operation].document.file)  # no headline workload declared either
    kernel.write_text("".join(line for line in kernel.read_text().splitlines(keepends=True)
                              if not line.strip().startswith("headlineWorkload:")))
    site = synthetic.parent / "site"
    build_site(synthetic, site, AS_OF, cache=False)
    assert (site / urls.kernel(operation)).is_file()
