"""Many runs' digests at once: over forked processes when there are thousands to make.

A run's digest hashes its canonical spec (``link``), which is cheap for one run but not for every
run of a large repository: a cold load finds none in the digest cache, and in one process the
other cores would idle while it makes them all. Forked workers inherit the runs, so
nothing but the digests (71 bytes each) travels; the specs they build are dropped, as a build that
found the digests cached never builds them either (a run page builds its own when it needs it).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from schemas.digest import spec_digest

from .bulk_load import worker_count

SpecSource = Callable[[], dict[str, Any]]

# Below this many runs, forking costs more than it saves.
POOL_FROM = 2_000
_CHUNK = 2_000

# What forked workers read: set just before the pool starts, cleared after.
_sources: Sequence[SpecSource] = ()


def run_digests(sources: Sequence[SpecSource], workers: int | None = None, pool_from: int = POOL_FROM) -> list[str]:
    """The digest of the run whose canonical spec each of ``sources`` builds, in order."""
    workers = worker_count(workers)
    if workers == 1 or len(sources) < pool_from or "fork" not in multiprocessing.get_all_start_methods():
        return _digests(sources)
    global _sources
    _sources = sources
    try:
        ranges = [(start, min(start + _CHUNK, len(sources))) for start in range(0, len(sources), _CHUNK)]
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return [digest for chunk in pool.map(_digests_of_range, ranges) for digest in chunk]
    except BrokenProcessPool:  # a worker died: make them here, where an error surfaces as itself
        return _digests(sources)
    finally:
        _sources = ()


def _digests_of_range(bounds: tuple[int, int]) -> list[str]:
    start, stop = bounds
    return _digests(_sources[start:stop])


def _digests(sources: Sequence[SpecSource]) -> list[str]:
    return [spec_digest("BenchmarkRun", source()) for source in sources]

