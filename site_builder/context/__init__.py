"""context: one view model per page, built from the derived leaderboard (no formatting here).

The pages are planned as tasks, in the order the site lists them: each task builds one page (or
a few small ones) when called, so the renderer can spread tasks over processes and still put
every page back in this order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..bulkload import paused_gc
from ..derive.leaderboard import Leaderboard
from ..signatures import RowSignatures
from ..views import Page
from .catalog import (
    CatalogIndex, environment_tasks, hardware_tasks, implementation_tasks, listing_tasks, protocol_tasks, source_tasks,
)
from .common import PageTask, ViewFactory
from .discover import discover_tasks
from .kernel import kernel_tasks
from .run import Sign, group_tasks, run_tasks
from .site import challenges_tasks, index_page, methodology_page

def _one(build: Callable[[], Page]) -> PageTask:
    return lambda: (build(),)


def _one_page(operation: str, build: Callable[[], Page], page: str) -> PageTask:
    """A plain build's task of one page, left unsigned: ``page_tasks``'s default ``sign``."""
    return _one(build)


def page_tasks(board: Leaderboard, methodology_markdown: str, sign: Sign = _one_page,
               rows: RowSignatures | None = None) -> list[PageTask]:
    """``sign`` marks the tasks of pages that read one kernel's runs only (kernel, run, group and
    implementation pages) for a rebuild to skip, and makes each a task of its one page
    (``signatures.PageSignatures.signed``); ``rows`` marks those of the pages of rows from many
    kernels' groups (records ledger, challenge lists) and of the pages of what many kernels' runs
    refer to (hardware, environments, protocols, sources, their lists, GPUs and models)."""
    with paused_gc(keep=True):  # 160,000 tasks at 100k runs, kept until the pages are rendered
        return _page_tasks(board, methodology_markdown, sign, rows)


def _page_tasks(board: Leaderboard, methodology_markdown: str, sign: Sign, rows: RowSignatures | None) -> list[PageTask]:
    factory = ViewFactory(board)
    index = CatalogIndex(factory)
    return [
        _one(lambda: index_page(factory)),
        *kernel_tasks(factory, sign),
        *group_tasks(factory, sign),
        *run_tasks(factory, sign),
        *implementation_tasks(factory, index, sign),
        *hardware_tasks(factory, index, rows),
        *environment_tasks(factory, index, rows),
        *protocol_tasks(factory, index, rows),
        *source_tasks(factory, index, rows),
        *listing_tasks(factory, index, rows),
        *challenges_tasks(factory, rows),
        _one(lambda: methodology_page(factory, methodology_markdown)),
        *discover_tasks(factory, rows),  # search, records, GPUs, models, compare (issue 9)
    ]


def site_pages(board: Leaderboard, methodology_markdown: str) -> Iterator[Page]:
    """Every page of the site, one at a time, in order (for tools and tests; the build runs the tasks)."""
    for task in page_tasks(board, methodology_markdown):
        yield from task()
