"""Pausing Python's cyclic garbage collector while a build makes millions of long-lived objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc(keep: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off while many long-lived objects are made.

    Every collection of the oldest generation walks every object alive, and loading a large
    repository makes millions (models, their fields) that hold no reference cycles: with the
    collector on, much of a load's time goes to walking objects none of which it can free. It is
    switched back on afterwards (anything cyclic made meanwhile is collected then).

    ``keep``: what was made will live as long as the process (the catalog of a build), so it is
    frozen (``gc.freeze``): otherwise the collector, switched back on, walks those objects again as
    they age through its three generations, each walk as long as the catalog is large. Frozen
    objects are still freed when nothing refers to them; only cyclic garbage made meanwhile would
    stay, and a warm load makes none (a cold one parses in worker processes above ``POOL_THRESHOLD``
    files)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if keep:
                gc.freeze()
            gc.enable()
