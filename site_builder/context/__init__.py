"""context: one view model per page, built from the derived leaderboard (no formatting here)."""

from __future__ import annotations

from collections.abc import Iterator

from ..derive.leaderboard import Leaderboard
from ..views import Page
from .catalog import (
    CatalogIndex, environment_pages, hardware_pages, implementation_pages, listing_pages, protocol_pages, source_pages,
)
from .common import ViewFactory
from .discover import discover_pages
from .kernel import kernel_pages
from .run import group_pages, run_pages
from .site import challenges_page, index_page, methodology_page


def site_pages(board: Leaderboard, methodology_markdown: str) -> Iterator[Page]:
    """Every page of the site, one at a time (a page is rendered and dropped before the next is built)."""
    factory = ViewFactory(board)
    index = CatalogIndex(factory)
    yield index_page(factory)
    yield from kernel_pages(factory)
    yield from group_pages(factory)
    yield from run_pages(factory)
    yield from implementation_pages(factory, index)
    yield from hardware_pages(factory, index)
    yield from environment_pages(factory, index)
    yield from protocol_pages(factory, index)
    yield from source_pages(factory, index)
    yield from listing_pages(factory, index)
    yield challenges_page(factory)
    yield methodology_page(factory, methodology_markdown)
    yield from discover_pages(factory)  # search, records, GPUs, models, compare (issue 9)
