"""Atomic builds: a build that fails at any stage leaves the previous site exactly as it was.

The previous site is built once from the small valid repository in tests/hostile/base; then each
stage of ``site_builder.build`` is made to fail in turn (load, derive, context, render, mirrors,
schemas, assets, write, swap), and the site folder must hold the same files with the same bytes
and times, with no staging folder left beside it.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder import build, urls, write
from site_builder.cli import main

BASE = Path(__file__).parent / "hostile" / "base"
AS_OF = date(2025, 9, 1)


class Injected(RuntimeError):
    """The failure a test injects; anything else escaping the build is a real bug."""


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def previous_site(tmp_path_factory) -> Path:
    """A built site, copied fresh into each test so no test sees another's leftovers."""
    root = tmp_path_factory.mktemp("previous")
    shutil.copytree(BASE, root / "data")
    build.build_site(root / "data", root / "site", as_of=AS_OF)
    return root


@pytest.fixture
def workdir(previous_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(previous_site / "data", tmp_path / "data")
    shutil.copytree(previous_site / "site", tmp_path / "site", copy_function=shutil.copy2)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def boom(*args, **kwargs):
    raise Injected("injected failure")


def assert_untouched(workdir: Path, before: dict) -> None:
    assert snapshot(workdir / "site") == before
    # Nothing beside it either: no staging folder, no retired copy of the old site.
    assert {p.name for p in workdir.iterdir()} <= {"data", "site", ".cache"}


STAGES = {
    "load": ("load_catalog", None),
    "derive": ("derive_leaderboard", None),
    "context": ("page_tasks", None),
    "render": ("render_pages", None),
    "mirror": ("MirrorIndex", "add_document"),
    "finding-pages": ("discover_outputs", None),
    "vega-bundle": ("ChartDrawer", None),
    "schemas": ("page_schemas", None),
    "methodology": ("_methodology", None),
    "commit": ("Outputs", "commit"),
}


@pytest.mark.parametrize("stage", STAGES)
def test_a_failure_at_any_stage_leaves_the_previous_site(workdir, monkeypatch, stage):
    name, method = STAGES[stage]
    target = getattr(build, name)
    if method is None:
        monkeypatch.setattr(build, name, boom)
    else:
        monkeypatch.setattr(target, method, boom)
    before = snapshot(workdir / "site")
    with pytest.raises(Injected):
        build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert_untouched(workdir, before)


@pytest.mark.parametrize("stage", ["derive", "render"])
def test_a_failed_build_leaves_no_chart_process_though_its_error_is_kept(workdir, monkeypatch, stage):
    """The error's traceback holds the build's frames, the chart drawer among them, for as long as
    the error is kept (here, as in any test that checks a failure): the process must end anyway."""
    monkeypatch.setattr(build, STAGES[stage][0], boom)
    before = set(multiprocessing.active_children())
    with pytest.raises(Injected) as failure:
        build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert failure.value.__traceback__ is not None
    assert set(multiprocessing.active_children()) <= before


def test_a_failure_half_way_through_writing(workdir, monkeypatch):
    written = []
    real_write_file = write._write_file

    def write_some_then_fail(name, data):
        if len(written) == 5:
            raise Injected("disk full")
        written.append(name)
        return real_write_file(name, data)

    monkeypatch.setattr(write, "_write_file", write_some_then_fail)
    before = snapshot(workdir / "site")
    with pytest.raises(Injected):
        build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert len(written) == 5 and all(".site-tmp-new-" in str(path) for path in written)
    assert_untouched(workdir, before)


def test_a_failure_while_swapping_puts_the_old_site_back(workdir, monkeypatch):
    # The swap is two renames: old site aside, new site in. If the second fails, the first is undone.
    renames = []
    real_rename = os.rename

    def second_rename_fails(source, destination):
        renames.append((str(source), str(destination)))
        if len(renames) == 2:
            raise Injected("rename failed")
        return real_rename(source, destination)

    monkeypatch.setattr(write.os, "rename", second_rename_fails)
    before = snapshot(workdir / "site")
    with pytest.raises(Injected):
        build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert len(renames) == 3  # aside, (failed) in, back
    assert_untouched(workdir, before)


def test_a_successful_build_replaces_the_site_and_prunes_orphans(workdir):
    (workdir / "site" / "orphan.html").write_text("from an older build", encoding="utf-8")
    build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert not (workdir / "site" / "orphan.html").exists()
    assert (workdir / "site" / urls.INDEX).is_file()
    assert {p.name for p in workdir.iterdir()} <= {"data", "site", ".cache"}


def test_a_bad_data_file_stops_the_cli_and_changes_nothing(workdir):
    run = workdir / "data" / "runs" / "liger-rope-s2048.yaml"
    run.write_text(run.read_text(encoding="utf-8").replace("      median: 81300", "      median: -1"), encoding="utf-8")
    before = snapshot(workdir / "site")
    result = CliRunner().invoke(main, ["build", "--quiet", "--data", "data", "--out", "site", "--as-of", "2025-09-01"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "data/runs/liger-rope-s2048.yaml:17:7: spec.timing.latencyNs.median: duration must be positive",
        "build stopped: 1 problem in data; nothing was written",
    ]
    assert_untouched(workdir, before)


def test_a_first_build_that_fails_creates_no_folder(workdir, monkeypatch):
    shutil.rmtree(workdir / "site")
    monkeypatch.setattr(build, "discover_outputs", boom)
    with pytest.raises(Injected):
        build.build_site(workdir / "data", workdir / "site", as_of=AS_OF)
    assert {p.name for p in workdir.iterdir()} <= {"data", ".cache"}
