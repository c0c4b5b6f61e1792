"""The front of a rebuild: what is read before the load, and when.

A rebuild needs the previous build's whole manifest (tens of MB at scale); a build with nothing to
do needs only its header. The listing of the site and the hashing of the data run in forked
processes meanwhile, so the manifest is read while both run, before it is known whether anything
changed (a build with nothing to do then drops it); a rebuild waits for the listing only once it
uses the previous site, after loading the data.
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest

from site_builder import build
from site_builder.incremental import previous_build
from site_builder.build import build_site
from site_builder.incremental.site_manifest import SiteManifest, listing_digest

AS_OF = date(2026, 6, 30)
LISTING_SECONDS = 1.0
# Where the forked listing says it has finished (set before the fork, which copies it).
_finished_marker: Path | None = None


def _slow_listing(root: Path) -> str:
    time.sleep(LISTING_SECONDS)
    digest = listing_digest(root)
    assert _finished_marker is not None
    _finished_marker.touch()
    return digest


@pytest.fixture
def recorded(synthetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(data, site, reads): ``reads`` gets, for each whole-manifest read, whether the listing had finished."""
    global _finished_marker
    site = tmp_path / "site"
    build_site(synthetic, site, AS_OF)
    marker = tmp_path / "listed"
    _finished_marker = marker
    reads: list[bool] = []
    real_read = SiteManifest.read

    def read(path: Path) -> SiteManifest | None:
        reads.append(marker.exists())
        return real_read(path)

    monkeypatch.setattr(previous_build, "listing_digest", _slow_listing)
    monkeypatch.setattr(previous_build.SiteManifest, "read", read)
    yield synthetic, site, reads
    _finished_marker = None


def test_a_rebuild_reads_the_manifest_once_while_the_site_is_listed(recorded) -> None:
    data, site, reads = recorded
    run = sorted((data / "runs").rglob("*.yaml"))[0]
    run.write_text(run.read_text().replace("samples: ", "samples: 1", 1))
    summary = build_site(data, site, AS_OF)
    assert not summary.up_to_date and summary.reused > 0  # the manifest was used: files were kept
    assert reads == [False]


def test_the_manifest_is_read_while_the_data_is_hashed_and_a_build_with_nothing_to_do_uses_none_of_it(
        recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, site, reads = recorded
    hashed = tmp_path / "hashed"
    real_fingerprint = previous_build.fingerprint_with_digests

    def slow_fingerprint(*args, **kwargs):
        time.sleep(LISTING_SECONDS)
        found = real_fingerprint(*args, **kwargs)
        hashed.touch()
        return found

    monkeypatch.setattr(previous_build, "fingerprint_with_digests", slow_fingerprint)
    real_read = previous_build.SiteManifest.read
    hashed_when_read: list[bool] = []
    monkeypatch.setattr(previous_build.SiteManifest, "read", lambda path: hashed_when_read.append(hashed.exists()) or real_read(path))
    before = {path: path.stat().st_mtime_ns for path in site.rglob("*")}
    assert build_site(data, site, AS_OF).up_to_date
    assert hashed_when_read == [False] and hashed.exists()
    assert {path: path.stat().st_mtime_ns for path in site.rglob("*")} == before


def test_a_site_changed_by_hand_with_unchanged_data_is_rebuilt_from_the_manifest_read_up_front(recorded) -> None:
    data, site, reads = recorded
    (site / "robots.txt").write_text("changed by hand\n")
    summary = build_site(data, site, AS_OF)
    assert not summary.up_to_date and summary.reused > 0
    assert reads == [False]  # once, while the site was still being listed


def test_a_rebuild_loads_the_data_while_the_site_is_listed(recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    data, site, _reads = recorded
    listed_when_loading: list[bool] = []
    real_load = build.load_catalog

    def load(*args, **kwargs):
        listed_when_loading.append(_finished_marker.exists())  # type: ignore[union-attr]
        return real_load(*args, **kwargs)

    monkeypatch.setattr(build, "load_catalog", load)
    inspected: list[Path] = []
    real_inspect = previous_build.inspect_site
    monkeypatch.setattr(previous_build, "inspect_site", lambda out_dir, manifest: inspected.append(out_dir) or real_inspect(out_dir, manifest))
    run = sorted((data / "runs").rglob("*.yaml"))[0]
    run.write_text(run.read_text().replace("samples: ", "samples: 1", 1))
    summary = build_site(data, site, AS_OF)
    assert listed_when_loading == [False]
    assert not summary.up_to_date and summary.reused > 0
    assert inspected == []  # the listing, taken after the load, said the site is as built: no file-by-file check
