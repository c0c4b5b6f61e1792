"""context: one view model per page, built from the derived leaderboard (no formatting here).

The pages are planned as tasks, in the order the site lists them: each task builds one page (or
a few small ones) when called, so the renderer can spread tasks over processes and still put
every page back in this order. A rebuild's planning leaves a kernel's pages as one task, which
the renderer keeps whole or plans a page at a time (``kernels``); a page that shows runs of many
kernels is built from a plan that says what it shows of them (``tasks``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..gc_pause import paused_gc
from ..derive.leaderboard import Leaderboard
from ..page_views import Page
from .catalog import CatalogIndex, environment_tasks, hardware_tasks, listing_tasks, protocol_tasks, source_tasks
from .view_parts import PageTask, ViewFactory, one_page
from .finding import discover_tasks
from .kernels import KernelPlans
from .site import challenges_tasks, index_tasks, methodology_page
from .timeline_view import regressions_page
from ..kernelbench.context import kernelbench_tasks

def page_tasks(board: Leaderboard, methodology_markdown: str, by_kernel: bool = False) -> list[PageTask]:
    """Every page's task, in the site's order. ``by_kernel``: as a rebuild plans them, the pages
    that read one kernel's runs only (kernel, run, group and implementation pages) one task per
    kernel (``kernels.KernelPages``), for a rebuild to keep or build whole; else one task per page.
    A page of many kernels' runs (records ledger, challenge lists, hardware, environments,
    protocols, sources, their lists, GPUs and models) is a ``tasks.PlannedPage`` either way."""
    with paused_gc(keep=True):  # a task per page in a build from scratch, kept until the pages are rendered
        return _page_tasks(board, methodology_markdown, by_kernel)


def _page_tasks(board: Leaderboard, methodology_markdown: str, by_kernel: bool) -> list[PageTask]:
    board.timelines  # in this process, before any render worker is forked: every group page reads it
    factory = ViewFactory(board)
    index = CatalogIndex(factory)
    kernels = KernelPlans(factory, index)
    return [
        *index_tasks(factory),
        *(kernels.by_kernel() if by_kernel else kernels.plain()),
        *hardware_tasks(factory, index),
        *environment_tasks(factory, index),
        *protocol_tasks(factory, index),
        *source_tasks(factory, index),
        *listing_tasks(factory, index),
        *challenges_tasks(factory),
        one_page(lambda: methodology_page(factory, methodology_markdown)),
        one_page(lambda: regressions_page(factory)),
        *discover_tasks(factory),  # search, records, GPUs, models, compare (issue 9)
        *kernelbench_tasks(factory),  # KernelBench's problems by level and family (issue 27)
    ]


def site_pages(board: Leaderboard, methodology_markdown: str) -> Iterator[Page]:
    """Every page of the site, one at a time, in order (for tools and tests; the build runs the tasks)."""
    for task in page_tasks(board, methodology_markdown):
        yield from task()
