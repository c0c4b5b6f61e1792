"""What render workers keep while they build pages: bounded, so peak memory stays a target, not luck."""

from __future__ import annotations

from pathlib import Path

from site_builder.context import view_parts as common
from site_builder.context.view_parts import CACHE_LIMIT, kept
from site_builder.repository import load_catalog

BASE = Path(__file__).parent.parent / "hostile" / "base"


def test_a_view_cache_is_emptied_when_full_and_never_remakes_what_it_holds(monkeypatch) -> None:
    monkeypatch.setattr(common, "CACHE_LIMIT", 3)
    made = []

    def make(key):
        made.append(key)
        return key * 2

    cache: dict = {}
    assert [kept(cache, key, lambda key=key: make(key)) for key in (1, 2, 1, 3, 2)] == [2, 4, 2, 6, 4]
    assert made == [1, 2, 3] and len(cache) == 3
    assert kept(cache, 4, lambda: make(4)) == 8 and cache == {4: 8}  # full: emptied first
    assert CACHE_LIMIT >= 10_000  # pages sharing views sit close together; a few thousand apart at most


def test_a_run_manifest_read_for_its_page_is_not_kept_on_the_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KERNELINDEX_CACHE_DIR", str(tmp_path))
    load_catalog(BASE)  # fills the parse cache; runs loaded from it make their canonical spec on demand
    run = next(iter(load_catalog(BASE).runs.values()))
    assert run._canonical_spec is None
    manifest = run.manifest()
    assert run._canonical_spec is None  # made for the call, not kept
    assert manifest["spec"] == run.canonical_spec and manifest["kind"] == "BenchmarkRun"
    assert run.manifest() == manifest


def test_what_a_render_worker_keeps_after_a_chunk_is_frozen_and_its_pages_are_unchanged(tmp_path, monkeypatch) -> None:
    """A worker's caches outlive every chunk: frozen after each, the collector stops walking them
    (at 100,000 runs it walked them 36 times a worker), and the pages are what they would have been."""
    import gc
    from datetime import date

    from site_builder.parallel import render_pool
    from site_builder.context import page_tasks
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.render import Renderer
    from site_builder.write import Staging

    monkeypatch.setenv("KERNELINDEX_CACHE_DIR", str(tmp_path / "cache"))
    board = derive_leaderboard(load_catalog(BASE), date(2026, 6, 30))
    tasks = page_tasks(board, "methodology")
    numbers = list(range(min(len(tasks), 12)))

    def chunk(render, folder: str):
        monkeypatch.setattr(render_pool, "_job", render_pool._Job(tasks, Renderer(vega_bundle="vega.js"),
                                                                 Staging(tmp_path / folder), False))
        return render(numbers)

    plain, _ = chunk(render_pool._render_tasks, "plain")
    frozen_before = gc.get_freeze_count()
    try:
        in_worker, _ = chunk(render_pool._render_chunk_in_worker, "worker")
        assert gc.get_freeze_count() > frozen_before
        assert gc.get_count()[0] < 10  # nothing young left behind to walk
    finally:
        gc.unfreeze()
    strip = lambda pages: [[(p.kind, p.title, p.html.path, p.html.sha256, p.mirror,
                             p.mirror_file and (p.mirror_file.path, p.mirror_file.sha256)) for p in task]
                           for task in pages]
    assert strip(in_worker) == strip(plain) and any(strip(plain))
