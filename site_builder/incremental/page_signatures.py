"""Page signatures: which pages cannot have changed, decided before building them.

Run and comparison-group pages are nine in ten of a site's pages, kernel pages (one per workload)
the heaviest. Building a page's view model costs more than comparing anything, so a rebuild needs
to know, without building it, that a page would come out the same. A signature is a hash of
everything such a page may read:

- every data file that is not a run (kernels, workloads, implementations, environments, …), the
  as-of date, and the renderer (code, templates, libraries, Vega bundle, base URL): the *global*
  part, shared by all pages;
- every run of the page's kernel (operation), with what supersedes it: the *kernel* part.

The kernel, not the comparison group, is the unit because a kernel page summarises all its runs,
an implementation has runs of one kernel only, and a run page reads across groups of its kernel:
the kernel's headline workload (which decides workload URLs) counts eligible runs over all its
workloads, and a group's label depends on its sibling groups. A superseding run from another
kernel is named in the superseded run's part, so adding or removing it changes that part too. A
change to one run thus rebuilds the pages of one kernel; a change to anything else, all of them.
So the kernel's pages are signed as one: ``kernel`` signs the task of all of them
(``context.kernels.KernelPages``), which a rebuild keeps whole, unplanned, or plans and builds.

The pages that show runs of many kernels (the records ledger, the challenge lists, a hardware's,
environment's, protocol's or source's page, their lists, a GPU's and a model's page and theirs)
are planned pages (``context.tasks.PlannedPage``): each declares, in its plan, what it shows of
the runs (``Shows``), and is signed by that alone (``RowSignatures.page``). A group it shows is
hashed by ``group``: what a row of the group reads besides the global part (the group's runs and
what they derive within the group: ranks, record history, evidence levels; the run files
themselves: install labels, native metrics; what supersedes them) and two things derived across
groups: the group's label (which depends on its sibling groups) and its kernel's headline
workload (which decides the workload's URL). The rest a plan shows (counts, which rows in what
order, filters, its pager) is hashed as its text. A run whose measurement changes, and which
stays eligible, thus rebuilds its GPU's pages and its model's, and keeps the other GPUs' and
every environment's, protocol's and source's (whose plans show its group by key and label only).

Each entity counts by the bytes of its file (the parse cache's content key), so any edit to it,
metadata included, changes the signature. ``tests/scale/test_incremental_build.py`` checks that
builds reusing pages by signature equal builds from scratch.
"""

from __future__ import annotations

import hashlib
import mmap
from collections.abc import Collection, Iterable, Iterator, Sequence
from functools import cached_property, partial
from itertools import compress, filterfalse
from operator import attrgetter
from typing import TypeVar

from ..context.kernels import KernelPages
from ..context.tasks import PlannedPage, Shows
from ..derive.leaderboard import Cohort, Leaderboard
from ..link import Entity

RUN_KIND = "BenchmarkRun"
DIGEST_SIZE = hashlib.sha256().digest_size
_NAME, _CONTENT_KEY = attrgetter("name"), attrgetter("document.content_key")
T = TypeVar("T")


class PageSignatures:
    """The signatures of a build's pages (module docstring); what they share is hashed on the
    first signature asked for."""

    def __init__(self, board: Leaderboard, renderer_fingerprint: str):
        self._board, self._renderer = board, renderer_fingerprint

    @cached_property
    def shared(self) -> str:
        """The global part: every file that is not a run, the as-of date and the renderer."""
        catalog = self._board.catalog
        shared = hashlib.sha256(f"{self._renderer}|{self._board.as_of.isoformat()}".encode())
        for kind in sorted(catalog.by_kind):
            if kind != RUN_KIND:
                for name, entity in sorted(catalog.by_kind[kind].items()):
                    shared.update(f"\0{kind}\0{name}\0{_content(entity)}".encode())
        return shared.hexdigest()

    @cached_property
    def run_parts(self) -> dict[str, bytes]:
        """What a kernel's part and a group's hash read of each run, the same text in both: made
        once per run rather than again for each group that has it."""
        board = self._board
        superseded_by = {run.supersedes: run.name for run in board.runs.values() if run.supersedes}
        # Read in the order the files were loaded, near each other in memory, rather than in the
        # board's order, scattered across it: each of the board's runs is a file's, and a file
        # without a run is never asked for.
        files = board.catalog.of(RUN_KIND)
        keys = list(map(_CONTENT_KEY, files.values()))
        if None in keys:  # loaded without the bulk loader
            keys = list(map(_content, files.values()))
        return {name: f"\0{name}\t{key}\t{superseded_by.get(name, '')}".encode() for name, key in zip(files, keys)}

    @cached_property
    def _kernels(self) -> dict[str, str]:
        return {operation: self.runs_digest(list(map(_NAME, runs))) for operation, runs in self._board.operation_runs.items()}

    def runs_digest(self, names: list[str]) -> str:
        """The global part and the runs ``names``, hashed."""
        digest = hashlib.sha256(self.shared.encode())
        digest.update(b"".join(map(self.run_parts.__getitem__, sorted(names))))
        return digest.hexdigest()

    def kernel(self, operation: str) -> str:
        """The signature of every page of the kernel ``operation`` (``context.kernels``): its runs and
        its name (two kernels without runs have different pages)."""
        runs = self._kernels.get(operation) or self.runs_digest([])
        return hashlib.sha256(f"{runs}|{operation}".encode()).hexdigest()

    def rows(self) -> RowSignatures:
        """What signs planned pages, for one planning of the pages: it keeps a digest per group
        (tens of thousands on a large site) until it is dropped."""
        return RowSignatures(self, self._board)

    def sign(self, tasks: list[T]) -> list[T]:
        """``tasks`` (``context.page_tasks``), each that can be signed told how: a kernel's pages by
        ``kernel``, a planned page by what its plan shows (``RowSignatures.page``). Signing them is
        left for when a signature is first asked for (``render_pool``)."""
        rows = self.rows()  # made before any render worker forks: they share its digests
        for task in tasks:
            if isinstance(task, KernelPages):
                task.sign_with(partial(self.kernel, task.operation))
            elif isinstance(task, PlannedPage):
                task.sign_with(partial(rows.page, task))
        return tasks


class RowSignatures:
    """Signatures of the planned pages, which show many kernels' groups and runs (module docstring).

    Most of signing these pages is hashing groups (``group``), and a rebuild of a large site signs
    them in two processes at once (``render_pool``): a worker forked after planning, from the last
    page back (the GPUs' pages and the ledger's, which show every ranked group), and this process,
    from the first on (the hardware pages, which show them all too). So each digest goes into
    memory both share (``SharedDigests``, made here, before the fork): a group hashed by one is
    read by the other: on a large site the worker has hashed most groups by the time this process,
    having first taken the kept kernels' pages, starts signing, so this process hashes few again."""

    def __init__(self, pages: PageSignatures, board: Leaderboard):
        self._pages, self._board = pages, board
        self._headlines: dict[str, str] = {}
        self._groups: dict[str, bytes] = {}  # by group key
        self._shared = SharedDigests(board.cohorts)

    def groups(self, keys: Sequence[str]) -> Iterator[bytes]:
        """The digest of each group of ``keys``, in order (``group``): each group is hashed once, and
        looked up in C, because the ledger's pages together ask for every group many times over."""
        found = self._groups
        missing = set(keys).difference(found)
        if missing:
            # In the board's order: groups, and their runs, are read near each other in memory, not
            # scattered as in a set's order.
            missing = self._shared.in_board_order(missing)
            found.update(self._shared.written(missing))  # hashed by another process
            hashed = list(filterfalse(found.__contains__, missing))
            digests = list(map(self.group, map(self._board.cohorts.__getitem__, hashed)))
            self._shared.write(hashed, digests)
            found.update(zip(hashed, digests))
        return map(found.__getitem__, keys)

    def group(self, cohort: Cohort) -> bytes:
        """What a row of the group ``cohort`` reads beyond the global part, hashed: its key and label,
        its kernel's headline workload, and each of its runs' file and superseding run (read in C,
        ``map``, because it runs once per group and a large site has tens of thousands)."""
        digest = hashlib.sha256(f"{cohort.key}\0{cohort.label}\0{self._headline(cohort.operation)}".encode())
        digest.update(b"".join(map(self._pages.run_parts.__getitem__, sorted(map(_NAME, cohort.runs)))))
        return digest.digest()

    def _headline(self, operation: str) -> str:
        found = self._headlines.get(operation)
        if found is None:
            found = self._headlines[operation] = repr(self._board.headline_workload(self._board.catalog.operations[operation]))
        return found

    def page(self, task: PlannedPage) -> str:
        """The signature of a planned page: the global part, its path, and what its plan shows
        (``context.tasks.Shows``): its facts as they are, each of its groups by ``group``."""
        shows: Shows = task.shows()
        digest = hashlib.sha256(f"{self._pages.shared}|{task.page}".encode())
        for fact in shows.facts:
            data = fact.encode()
            digest.update(b"\0%d\0" % len(data) + data)
        digest.update(b"".join(self.groups(shows.groups)))
        return digest.hexdigest()


class SharedDigests:
    """A digest (32 bytes) per group, in memory that processes forked after it was made share: each
    group's slot is a byte that says it is written, then the digest. A slot is written once, by the
    process that hashed the group first (both may, at the same time: they write the same bytes),
    and its byte after its digest, so a process that reads the byte set reads the whole digest
    (stores are seen in the order they were made, as on x86; where they might not be, a digest read
    too early would make a page's signature one no site has: the page would be built again, never
    kept wrongly). Groups are numbered in the board's order, the same in every process."""

    SLOT = 1 + DIGEST_SIZE

    def __init__(self, keys: Collection[str]):
        self._keys = keys
        self._memory = mmap.mmap(-1, max(1, len(keys) * self.SLOT))  # anonymous: shared with forked children

    @cached_property
    def _numbers(self) -> dict[str, int]:
        return {key: number * self.SLOT for number, key in enumerate(self._keys)}

    def in_board_order(self, keys: Iterable[str]) -> list[str]:
        return sorted(keys, key=self._numbers.__getitem__)

    def written(self, keys: list[str]) -> Iterator[tuple[str, bytes]]:
        """Each of ``keys`` whose digest is written, with its digest; read in C (``map``), because a
        process asks for every group at once."""
        starts = list(map(self._numbers.__getitem__, keys))
        done = list(map(self._memory.__getitem__, starts))  # each slot's first byte
        starts = list(compress(starts, done))
        slots = map(slice, map((1).__add__, starts), map(self.SLOT.__add__, starts))
        return zip(compress(keys, done), map(self._memory.__getitem__, slots))

    def write(self, keys: list[str], digests: list[bytes]) -> None:
        memory = self._memory
        for start, digest in zip(map(self._numbers.__getitem__, keys), digests):
            memory[start + 1:start + self.SLOT] = digest
            memory[start] = 1


def _content(entity: Entity) -> str:
    key = entity.document.content_key
    if key is None:  # loaded without the bulk loader: hash the file itself
        key = hashlib.sha256(entity.document.path.read_bytes()).hexdigest()
    return key
