"""Incremental builds: skipping, reusing and linking never change a byte of the site.

Each rebuild here is compared with a build from scratch (``cache=False``, into another folder):
the two must hold the same files with the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from datetime import date
from pathlib import Path

import pytest

from site_builder import build, urls, write
from site_builder.incremental import fingerprint, previous_build
from site_builder.parallel import render_pool
from site_builder.build import build_site
from site_builder.incremental.parse_cache import default_cache_dir
from site_builder.chart_svg import ChartRenderer
from site_builder.context import catalog, page_tasks
from site_builder.context import finding as discover
from site_builder.context.kernels import KernelPages
from site_builder.derive.leaderboard import derive_leaderboard
from site_builder.incremental.site_manifest import SiteManifest, manifest_path
from site_builder.repository import load_catalog
from site_builder.context.tasks import Task
from site_builder.incremental.page_signatures import PageSignatures

AS_OF = date(2026, 6, 30)


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def clean_build(data: Path, out: Path) -> dict[str, bytes]:
    build_site(data, out, AS_OF, cache=False)
    return files(out)


def change_one_run(data: Path) -> Path:
    run = sorted((data / "runs").rglob("*.yaml"))[0]
    text = run.read_text()
    median = text.split("median: ", 1)[1].split(",", 1)[0].split("}", 1)[0].split("\n", 1)[0]
    run.write_text(text.replace(f"median: {median}", f"median: {int(median) + 1}", 1))
    return run


@pytest.fixture
def built(synthetic: Path) -> tuple[Path, Path, build.BuildSummary]:
    site = synthetic.parent / "site"
    return synthetic, site, build_site(synthetic, site, AS_OF)


def test_a_rebuild_with_nothing_changed_does_nothing(built) -> None:
    data, site, first = built
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*")}
    again = build_site(data, site, AS_OF)
    assert again.up_to_date and again.files == first.files
    assert {p: p.stat().st_mtime_ns for p in site.rglob("*")} == before


def test_one_changed_run_rerenders_only_what_depends_on_it_and_matches_a_clean_build(built) -> None:
    data, site, first = built
    change_one_run(data)
    second = build_site(data, site, AS_OF)
    assert not second.up_to_date
    assert 0 < second.rendered < first.rendered / 4 and second.reused > first.files / 2
    assert files(site) == clean_build(data, data.parent / "clean")


def test_a_rebuild_takes_the_data_s_hashes_from_a_forked_copy_and_matches_a_clean_build(
        built, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy hashes the data (with the stat index) while this process reads the manifest and the
    parse cache: the load takes every file's hash from it, and this process never opens the index."""
    from site_builder.incremental import stat_index as statindex
    from site_builder.parallel import bulk_load as bulkload

    data, site, _ = built
    monkeypatch.setattr(statindex, "_OPEN", {})

    def refused(*_: object) -> None:
        raise AssertionError("the build's own process hashed a data file the copy had hashed")

    monkeypatch.setattr(bulkload, "_content_digest", refused)
    change_one_run(data)
    second = build_site(data, site, AS_OF)
    assert not second.up_to_date and 0 < second.built < second.pages / 4
    assert statindex._OPEN == {}
    assert files(site) == clean_build(data, data.parent / "clean")


def test_a_rebuild_compiles_no_template_and_a_change_of_code_compiles_them_again(
        built, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first build keeps its compiled templates in the cache folder, one folder per version of
    the code (``render.compiled_templates``); a rebuild, in every process that renders, loads them."""
    from jinja2 import Environment

    data, site, _ = built
    compiled = default_cache_dir(data) / "templates"
    (folder,) = compiled.iterdir()
    assert any(folder.iterdir())
    compile_source = Environment.compile

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("a template was compiled again")

    monkeypatch.setattr(Environment, "compile", refused)
    change_one_run(data)
    assert 0 < build_site(data, site, AS_OF).rendered
    monkeypatch.setattr(Environment, "compile", compile_source)
    assert files(site) == clean_build(data, data.parent / "clean")

    monkeypatch.setattr(previous_build, "code_fingerprint", lambda: "another version of the code")
    monkeypatch.setattr(fingerprint, "code_fingerprint", lambda: "another version of the code")
    build_site(data, site, AS_OF)
    assert [path.name for path in compiled.iterdir()] == ["another version of the code"[:24]]


def test_a_rebuild_plans_the_pages_of_the_changed_kernel_only(built, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other kernels' pages are kept whole, without planning a task for any of them (``context.kernels``)."""
    data, site, _ = built
    planned: list[str] = []
    real = KernelPages.tasks

    def counted(kernel: KernelPages):
        planned.append(kernel.operation)
        return real(kernel)

    monkeypatch.setattr(KernelPages, "tasks", counted)
    changed = change_one_run(data)
    build_site(data, site, AS_OF)
    board = derive_leaderboard(load_catalog(data, None, cache=False), AS_OF)
    assert planned == [board.runs[changed.stem].operation]
    assert len(board.catalog.operations) > 1
    assert files(site) == clean_build(data, data.parent / "clean")


def test_unchanged_files_are_hard_links_to_the_previous_ones(built) -> None:
    data, site, _ = built
    index_before = (site / "methodology.html").stat().st_ino
    change_one_run(data)
    build_site(data, site, AS_OF)
    assert (site / "methodology.html").stat().st_ino == index_before


@pytest.mark.parametrize("tamper", ["edit", "delete", "add"])
def test_a_site_changed_by_hand_is_rebuilt(built, tamper: str) -> None:
    data, site, _ = built
    page = sorted((site / "runs").glob("*.html"))[0]
    if tamper == "edit":
        page.write_bytes(page.read_bytes() + b"<!-- edited -->")
    elif tamper == "delete":
        page.unlink()
    else:
        (site / "stray.html").write_text("not ours")
    again = build_site(data, site, AS_OF)
    assert not again.up_to_date
    assert files(site) == clean_build(data, data.parent / "clean")


def test_unchanged_pages_that_cannot_be_linked_are_built_again(built, monkeypatch: pytest.MonkeyPatch) -> None:
    # A site changed by hand is rebuilt into a new folder, its unchanged files hard-linked; where a
    # link fails (another file system), an unchanged signed page is built after all, in its place.
    _rebuild_without_links(built, monkeypatch)


def _rebuild_without_links(built, monkeypatch: pytest.MonkeyPatch) -> None:
    data, site, first = built
    (site / "stray.html").write_text("not ours")  # not in place: unchanged files are linked
    change_one_run(data)

    def no_links(source, destination):
        raise OSError("cross-device link")

    real_link = os.link
    monkeypatch.setattr(write.os, "link", no_links)
    again = build_site(data, site, AS_OF)
    monkeypatch.setattr(write.os, "link", real_link)
    assert again.built == first.built and again.reused == 0
    assert files(site) == clean_build(data, data.parent / "clean")


def test_other_inputs_than_data_count_too(built, monkeypatch: pytest.MonkeyPatch) -> None:
    data, site, first = built
    assert not build_site(data, site, date(2026, 7, 1)).up_to_date  # another as-of date
    assert not build_site(data, site, date(2026, 7, 1), base_url="https://example.org/ki").up_to_date
    monkeypatch.setattr(previous_build, "code_fingerprint", lambda: "changed code")
    monkeypatch.setattr(fingerprint, "code_fingerprint", lambda: "changed code")
    after_code_change = build_site(data, site, AS_OF)
    assert not after_code_change.up_to_date and after_code_change.rendered == first.rendered  # nothing reused


def test_no_cache_renders_everything(built) -> None:
    data, site, first = built
    again = build_site(data, site, AS_OF, cache=False)
    assert not again.up_to_date and again.rendered == first.rendered


def test_a_stale_manifest_is_never_trusted(built) -> None:
    data, site, _ = built
    # Replace the site behind the builder's back with one built from other data: sizes and times
    # differ from the manifest, so nothing of it is reused or trusted.
    other = data.parent / "other-data"
    os.rename(data, other)
    change_one_run(other)
    build_site(other, data.parent / "elsewhere", AS_OF, cache=False)
    os.rename(other, data)
    for path in sorted(site.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    os.rename(data.parent / "elsewhere", site)
    again = build_site(data, site, AS_OF)
    assert not again.up_to_date
    assert files(site) == clean_build(data, data.parent / "clean")


def _runs_of_two_kernels(data: Path) -> tuple[Path, Path]:
    """A run file from each of two kernels (synth writes runs/<kernel>/<run>.yaml)."""
    folders = sorted(folder for folder in (data / "runs").iterdir() if folder.is_dir())
    return sorted(folders[0].glob("*.yaml"))[0], sorted(folders[1].glob("*.yaml"))[0]


def test_a_run_superseding_one_of_another_kernel_updates_both_kernels_pages(built) -> None:
    # Signatures are per kernel; a cross-kernel supersede must still reach the superseded run's pages.
    data, site, _ = built
    newer, older = _runs_of_two_kernels(data)
    text = newer.read_text()
    text = "\n".join(line for line in text.split("\n") if not line.startswith("  supersedes: "))
    newer.write_text(text.replace("\nspec:\n", f"\nspec:\n  supersedes: {older.stem}\n", 1))
    build_site(data, site, AS_OF)
    assert files(site) == clean_build(data, data.parent / "clean")
    newer.unlink()  # and the superseded run is eligible again
    build_site(data, site, AS_OF)
    assert files(site) == clean_build(data, data.parent / "clean-2")


def test_a_changed_implementation_title_reaches_every_page_that_shows_it(built) -> None:
    data, site, _ = built
    implementation = sorted((data / "implementations").rglob("*.yaml"))[0]
    text = implementation.read_text()
    implementation.write_text(text.replace('  title: "', '  title: "Renamed · ', 1))
    again = build_site(data, site, AS_OF)
    assert again.rendered > 0
    assert files(site) == clean_build(data, data.parent / "clean")


# The pages of what many kernels' runs refer to, each signed by what it shows of them.
CROSS_KERNEL_PAGES = [(catalog, "hardware_page"), (catalog, "environment_page"), (catalog, "protocol_page"),
                      (catalog, "source_page"), (catalog, "listing_page"), (discover, "gpus_page"),
                      (discover, "gpu_page"), (discover, "models_page"), (discover, "model_page")]


def cross_kernel_pages_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages of ``CROSS_KERNEL_PAGES`` that the next build builds (all in this process)."""
    monkeypatch.setattr(render_pool, "PARALLEL_FROM", 10**9)
    monkeypatch.setattr(render_pool, "SHARE_FROM", 10**9)
    built: list[str] = []
    for module, name in CROSS_KERNEL_PAGES:
        def recorded(*args, real=getattr(module, name)):
            page = real(*args)
            built.append(page.html)
            return page
        monkeypatch.setattr(module, name, recorded)
    return built


def test_a_changed_run_rebuilds_only_its_gpu_s_and_model_s_pages_of_those_many_kernels_read(built, monkeypatch) -> None:
    # Its latency changes the rows of its group: the GPU's page and hardware page show them (the
    # records held, counts by family), and its model's page. The other GPUs', every environment's,
    # protocol's and source's page and the lists show nothing that changed: they are kept.
    data, site, _ = built
    run = change_one_run(data)
    board = derive_leaderboard(load_catalog(data, None, cache=False), AS_OF)
    facts = board.runs[run.stem]
    datasheet = board.gpus[facts.environment].datasheet
    models = board.catalog.operations[facts.operation].metadata.models
    pages = cross_kernel_pages_built(monkeypatch)
    build_site(data, site, AS_OF)
    assert sorted(pages) == sorted([urls.hardware(datasheet), urls.gpu(_gpu_slug(board, datasheet)),
                                    *(urls.model(model) for model in models)])
    assert files(site) == clean_build(data, data.parent / "clean")


def _gpu_slug(board, datasheet: str) -> str:
    return next(key.slug for key in discover.discovery(board).gpus if key.datasheet == datasheet)


def test_a_removed_run_rebuilds_every_page_that_counts_it_even_of_other_kernels(built, monkeypatch) -> None:
    # A run alone in its group: its environment's, protocol's and hardware's pages count it and
    # list its group, the lists count it, and the page of a model none of whose kernels it is of
    # shows what the run's GPU's groups add up to.
    data, site, _ = built
    board = derive_leaderboard(load_catalog(data, None, cache=False), AS_OF)
    found, operations = discover.discovery(board), board.catalog.operations
    models = {model for operation in operations.values() for model in operation.metadata.models}

    def gpus_shown(model: str) -> set[str]:
        return {found.gpu_of(c).slug for c in found.ranked_cohorts if model in operations[c.operation].metadata.models}

    run, other = next((cohort.runs[0], other) for cohort in found.ranked_cohorts if len(cohort.runs) == 1
                      for other in sorted(models - set(operations[cohort.operation].metadata.models))
                      if found.gpu_of(cohort).slug in gpus_shown(other))
    next((data / "runs").rglob(f"{run.name}.yaml")).unlink()
    pages = cross_kernel_pages_built(monkeypatch)
    build_site(data, site, AS_OF)
    assert {urls.environment(run.environment), urls.protocol(run.protocol), urls.gpu(found.gpu_of_environment[run.environment].slug),
            urls.model(other), urls.GPUS, urls.listing("environments")} <= set(pages)
    assert [page for page in pages if page.startswith("environments/")] == [urls.environment(run.environment)]
    assert files(site) == clean_build(data, data.parent / "clean")


def folders(site: Path) -> set[str]:
    return {str(p.relative_to(site)) for p in site.rglob("*") if p.is_dir()}


def test_a_rebuild_of_an_untouched_site_updates_it_in_place(built) -> None:
    # Only the changed files move; the folder itself, and every file that did not change, stay put.
    data, site, _ = built
    kernels = sorted(folder for folder in (data / "runs").iterdir() if folder.is_dir())
    folder_before, kept_before = site.stat().st_ino, (site / "methodology.html").stat().st_ino
    shutil.rmtree(kernels[-1])  # every run of a kernel goes: its run pages, and folders, go too
    change_one_run(data)
    build_site(data, site, AS_OF)
    assert site.stat().st_ino == folder_before and (site / "methodology.html").stat().st_ino == kept_before
    assert files(site) == clean_build(data, data.parent / "clean")
    assert folders(site) == folders(data.parent / "clean")  # no folder left empty
    assert sorted(p.name for p in site.parent.iterdir() if p.name.startswith(".site")) == []


def test_an_in_place_update_that_fails_half_way_puts_every_file_back(built, monkeypatch: pytest.MonkeyPatch) -> None:
    data, site, _ = built
    before = {path: (content, (site / path).stat().st_mtime_ns) for path, content in files(site).items()}
    change_one_run(data)
    moves = []
    real_rename = os.rename

    def fail_on_the_tenth_move(source, destination):
        moves.append(destination)
        if len(moves) == 10:
            raise OSError("disk full")
        return real_rename(source, destination)

    monkeypatch.setattr(write.os, "rename", fail_on_the_tenth_move)
    with pytest.raises(OSError, match="disk full"):
        build_site(data, site, AS_OF)
    monkeypatch.setattr(write.os, "rename", real_rename)
    assert {path: (content, (site / path).stat().st_mtime_ns) for path, content in files(site).items()} == before
    assert sorted(p.name for p in site.parent.iterdir() if p.name.startswith(".site")) == []
    build_site(data, site, AS_OF)  # and the next build, which has no manifest to trust, is right
    assert files(site) == clean_build(data, data.parent / "clean")


def test_a_build_from_scratch_records_the_signatures_that_planning_gives(synthetic: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A build from scratch works each page's signature out only as the render workers send its
    pages back (a rebuild, before it builds anything): the manifest must hold exactly the
    signatures that planning the pages gives."""
    monkeypatch.setattr(render_pool, "PARALLEL_FROM", 0)  # forked workers, as at scale
    site = synthetic.parent / "site"
    build_site(synthetic, site, AS_OF)
    manifest = SiteManifest.read(manifest_path(default_cache_dir(synthetic), site))
    assert manifest is not None
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)
    tasks = PageSignatures(board, manifest.renderer).sign(page_tasks(board, "methodology", by_kernel=True))
    planned = [task.signature for task in tasks if isinstance(task, Task)]
    kernels = [task for task in tasks if isinstance(task, KernelPages)]
    assert len(set(planned)) == len(planned) and len(kernels) > 1
    assert set(manifest.pages) == set(planned)
    # A kernel's pages are recorded under its signature, all of them, as planning them gives them.
    for kernel in kernels:
        assert [page.html for page in manifest.pages[kernel.signature]] == [
            page.html for task in kernel.tasks() for page in task()]


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rebuilds take the way of a large site's (``render_pool._rebuild_shared``): signed and built by
    this process and a forked worker from either end, a few tasks at a time so both have a share."""
    monkeypatch.setattr(render_pool, "SHARE_FROM", 0)
    monkeypatch.setattr(render_pool, "SIGN_CHUNK", 3)


@pytest.mark.parametrize("pool_from", [2_000, 0], ids=["shared", "pool"])
def test_a_rebuild_on_two_cores_matches_a_clean_build_and_records_the_same_signatures(
        built, shared, monkeypatch: pytest.MonkeyPatch, pool_from: int) -> None:
    # pool: the changed tasks are built by a pool of workers once the two ends signed every task.
    monkeypatch.setattr(render_pool, "POOL_FROM", pool_from)
    data, site, first = built
    change_one_run(data)
    again = build_site(data, site, AS_OF)
    assert 0 < again.built < first.built / 2 and again.reused > first.files / 2
    assert files(site) == clean_build(data, data.parent / "clean")
    cache = default_cache_dir(data)
    rebuilt, clean = (SiteManifest.read(manifest_path(cache, folder)) for folder in (site, data.parent / "clean"))
    assert rebuilt is not None and clean is not None
    # As mappings: a rebuild's manifest is saved as changes to the previous one, in another order.
    assert rebuilt.pages == clean.pages and len(rebuilt.pages) > 0
    assert rebuilt.files.keys() == clean.files.keys()


def test_a_rebuild_on_two_cores_builds_unchanged_pages_that_cannot_be_linked(built, shared,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _rebuild_without_links(built, monkeypatch)


def test_both_ends_sign_a_share_and_the_signatures_are_planning_s(synthetic: Path, shared,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    board = derive_leaderboard(load_catalog(synthetic, None, cache=False), AS_OF)

    def signed_tasks():
        return PageSignatures(board, "renderer").sign(page_tasks(board, "methodology", by_kernel=True))

    tasks, here, real = signed_tasks(), os.getpid(), render_pool._signature

    def slowly_here(task):  # the worker surely starts before this process signed every task
        if os.getpid() == here:
            time.sleep(0.001)
        return real(task)

    monkeypatch.setattr(render_pool, "_signature", slowly_here)
    ends = render_pool._Ends(len(tasks))
    render_pool._job = render_pool._Job(tasks, None, None, False, ends)  # type: ignore[arg-type]
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            both = render_pool._sign_from_both_ends(pool.apply_async(render_pool._sign_from_the_end))
    finally:
        render_pool._job = None
    assert both == [getattr(task, "signature", None) for task in signed_tasks()]
    met = ends.take_last(0).stop  # nothing is left: an empty range where the two ends met
    assert not ends.take_first(1) and 0 < met < len(tasks)  # each had a share


def test_two_ends_take_every_number_once_and_meet() -> None:
    ends = render_pool._Ends(10)
    assert ends.take_first(3) == range(0, 3) and ends.take_last(4) == range(6, 10)
    assert ends.take_last(4) == range(3, 6) and not ends.take_first(3) and not ends.take_last(1)
    ends.reset(2)
    assert ends.take_last(5) == range(0, 2) and not ends.take_first(1)


@pytest.mark.parametrize("share_from", [0, 10**9], ids=["two cores", "one"])
def test_the_build_s_own_process_keeps_the_chart_specs_of_the_pages_it_builds(
        built, monkeypatch: pytest.MonkeyPatch, share_from: int) -> None:
    # Taken back and adopted again, they were sent to the drawer (and drawn) once more for each
    # task built there: 44 s of drawing one chart over and over in a 10k-run rebuild. Only a
    # worker hands its specs over (``ChartRenderer.take_specs``).
    monkeypatch.setattr(render_pool, "SHARE_FROM", share_from)
    monkeypatch.setattr(render_pool, "PARALLEL_FROM", 10**9)  # without a pool: built here, or by the sharing worker
    data, site, _ = built
    here, real_take = os.getpid(), ChartRenderer.take_specs

    def take_specs(charts):
        assert os.getpid() != here, "the build's own process took back its chart specs"
        return real_take(charts)

    monkeypatch.setattr(ChartRenderer, "take_specs", take_specs)
    change_one_run(data)
    again = build_site(data, site, AS_OF)
    assert again.built > 1
    assert files(site) == clean_build(data, data.parent / "clean")
