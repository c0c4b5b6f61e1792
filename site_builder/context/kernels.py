"""The pages that read one kernel's runs only, planned a kernel at a time: its kernel pages (one
per workload), each with its comparison groups' and runs' pages, and implementation pages, nine
in ten of a site's pages.

A rebuild keeps every page of a kernel whose runs did not change without planning any of them
(``KernelPages`` is a task a rebuild signs by its kernel: ``page_signatures``); it plans the pages of the
kernels that changed, one task per page (``KernelPages.tasks``), for the render workers to share.
A rebuild after one changed run thus plans the pages of one kernel, not of the whole site.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property, partial
from itertools import chain

from ..page_views import Page
from .catalog import CatalogIndex, implementation_page
from .tasks import Task
from .view_parts import ViewFactory, one_page
from .kernel import kernel_pages, workloads_of

# What builds a page, or a few that go together: a workload's page, its groups' and its runs' pages,
# whose JSON is all in the workload's mirror (so a rebuild renders them again exactly when that
# mirror changed).
Builder = Callable[[], tuple[Page, ...]]


class KernelPage:
    """The task of one page of a kernel; ``kernel``: the ``KernelPages`` it was planned from (None
    in a plain build), under whose signature the build records the page."""

    __slots__ = ("build", "kernel")

    def __init__(self, build: Builder, kernel: KernelPages | None = None):
        self.build, self.kernel = build, kernel

    def __call__(self) -> tuple[Page, ...]:
        return self.build()


class KernelPages(Task):
    """Every page of the kernel ``operation``, as one task (a rebuild signs it by the kernel);
    ``tasks`` plans them, one task per page."""

    __slots__ = ("operation", "_plan")

    def __init__(self, operation: str, plan: Callable[[], list[Builder]]):
        super().__init__()
        self.operation, self._plan = operation, plan

    def __call__(self) -> Iterable[Page]:
        return chain.from_iterable(build() for build in self._plan())

    def tasks(self) -> list[KernelPage]:
        return [KernelPage(build, self) for build in self._plan()]


class KernelPlans:
    """What plans each kernel's pages, in the site's order: kernels by name; for each, its kernel
    pages, each followed by its workload's groups, each followed by its runs (by name), then its
    implementations (by name)."""

    def __init__(self, factory: ViewFactory, index: CatalogIndex):
        self.factory, self.index = factory, index

    def plain(self) -> list[KernelPage]:
        """A plain build's tasks: one per page of every kernel."""
        return [KernelPage(build) for operation in self._operations for build in self.builders(operation)]

    def by_kernel(self) -> list[KernelPages]:
        """A rebuild's tasks: one per kernel, of all its pages."""
        return [KernelPages(operation, partial(self.builders, operation)) for operation in self._operations]

    def builders(self, operation: str) -> list[Builder]:
        factory, index = self.factory, self.index
        return [
            *kernel_pages(factory, operation, self._workloads[operation], self._implementations.get(operation, []),
                          self._superseded_by),
            *(one_page(partial(implementation_page, factory, index, name))
              for name in self._implementations.get(operation, [])),
        ]

    @cached_property
    def _operations(self) -> list[str]:
        return sorted(self.factory.catalog.operations)

    @cached_property
    def _workloads(self) -> dict:
        return workloads_of(self.factory)

    @cached_property
    def _implementations(self) -> dict[str, list[str]]:
        """An implementation has runs of its own kernel only."""
        by_operation: dict[str, list[str]] = {}
        for name, entity in sorted(self.factory.catalog.implementations.items()):
            by_operation.setdefault(entity.refs["operation"].name, []).append(name)
        return by_operation

    @cached_property
    def _superseded_by(self) -> dict[str, str]:
        return {run.supersedes: run.name for run in self.factory.board.runs.values() if run.supersedes}
