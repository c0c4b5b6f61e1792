"""The indexes every finding page reads, derived once per build (each O(n log n) in the runs)."""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from operator import attrgetter

from ..derive.leaderboard import Cohort, Leaderboard
from ..derive.model import RunFacts
from .gpus import GpuKey, gpu_keys
from .ledger import (
    LedgerEntry, LedgerGroup, current_records, newest_breaks, record_breaks, record_events, split_by_gpu,
)

_SLOT = "_discovery"


class Discovery:
    def __init__(self, board: Leaderboard):
        self.board = board
        self.catalog = board.catalog

    # -- GPUs ------------------------------------------------------------------------------------
    @cached_property
    def gpus(self) -> list[GpuKey]:
        """Every datasheet, and every product string no datasheet matches, by slug."""
        datasheets = [(name, hw.metadata.title or hw.spec.product, hw.spec.product)
                      for name, hw in sorted(self.catalog.hardware.items())]
        unmatched = [self.catalog.environments[env].spec.hardware.product
                     for env, gpu in self.board.gpus.items() if gpu.datasheet is None]
        return gpu_keys(datasheets, unmatched)

    @cached_property
    def gpu_by_slug(self) -> dict[str, GpuKey]:
        return {key.slug: key for key in self.gpus}

    @cached_property
    def gpu_of_environment(self) -> dict[str, GpuKey]:
        by_datasheet = {key.datasheet: key for key in self.gpus if key.datasheet}
        by_product = {key.product: key for key in self.gpus if key.datasheet is None}
        found = {}
        for env, gpu in self.board.gpus.items():
            found[env] = by_datasheet[gpu.datasheet] if gpu.datasheet else by_product[
                self.catalog.environments[env].spec.hardware.product]
        return found

    def gpu_of(self, cohort: Cohort) -> GpuKey:
        return self.gpu_of_environment[cohort.environment]

    # -- cohorts ---------------------------------------------------------------------------------
    @cached_property
    def ranked_cohorts(self) -> list[Cohort]:
        """Groups with at least one ranked row, in a stable order (operation, workload, label, key)."""
        return sorted((c for c in self.board.cohorts.values() if c.rows), key=attrgetter("operation", "workload", "label", "key"))

    @cached_property
    def cohorts_by_gpu(self) -> dict[str, list[Cohort]]:
        found: dict[str, list[Cohort]] = {}
        for cohort in self.ranked_cohorts:
            found.setdefault(self.gpu_of(cohort).slug, []).append(cohort)
        return found

    @cached_property
    def timed_pass(self) -> dict[str, str]:
        """Protocol name -> the pass it times ("forward", "backward", "full"), where it says."""
        found = {}
        for name, protocol in self.catalog.protocols.items():
            value = protocol.spec.measurement.timedPass or protocol.metadata.labels.get("pass")
            if value:
                found[name] = str(value)
        return found

    # -- runs by GPU ---------------------------------------------------------------------------------
    @cached_property
    def runs_by_gpu(self) -> dict[str, list[RunFacts]]:
        found: dict[str, list[RunFacts]] = {}
        for run in self.board.runs.values():
            found.setdefault(self.gpu_of_environment[run.environment].slug, []).append(run)
        return found

    # -- the ledger ----------------------------------------------------------------------------------
    @cached_property
    def ledger_groups(self) -> list[LedgerGroup]:
        return [self._ledger_group(c) for c in self.ranked_cohorts]

    def _ledger_group(self, cohort: Cohort) -> LedgerGroup:
        # Positional (key, gpu, holder, history): keywords cost more, once per ranked group.
        return LedgerGroup(cohort.key, self.gpu_of_environment[cohort.environment].slug, cohort.rows[0].run,
                           tuple(cohort.history))

    @cached_property
    def current(self) -> list[LedgerEntry]:
        return current_records(self.ledger_groups)

    @cached_property
    def events(self) -> list[LedgerEntry]:
        return record_events(self.ledger_groups)

    @cached_property
    def breaks(self) -> list[LedgerEntry]:
        return record_breaks(self.events)

    # The ledger's filters by GPU, each GPU's entries in ledger order (one pass, not one per GPU).
    @cached_property
    def current_by_gpu(self) -> dict[str, list[LedgerEntry]]:
        return split_by_gpu(self.current)

    @cached_property
    def events_by_gpu(self) -> dict[str, list[LedgerEntry]]:
        return split_by_gpu(self.events)

    @cached_property
    def breaks_by_gpu(self) -> dict[str, list[LedgerEntry]]:
        return split_by_gpu(self.breaks)

    def newest_breaks(self, count: int) -> list[LedgerEntry]:
        """``breaks[:count]``, without every event's entry when no page asked for them (the feed's case)."""
        if "breaks" in self.__dict__:
            return self.breaks[:count]
        return newest_breaks(self.ranked_cohorts, count, self._ledger_group)

    # -- implementations ----------------------------------------------------------------------------
    @cached_property
    def records_held(self) -> Counter:
        """Implementation -> groups where it holds #1 (a tie for #1 counts for each holder)."""
        held: Counter = Counter()
        for cohort in self.ranked_cohorts:
            for implementation in {row.run.implementation for row in cohort.rows if row.rank == 1}:
                held[implementation] += 1
        return held

    @cached_property
    def best_rank(self) -> dict[str, int]:
        best: dict[str, int] = {}
        for cohort in self.ranked_cohorts:
            for row in cohort.rows:
                name = row.run.implementation
                if row.rank < best.get(name, row.rank + 1):
                    best[name] = row.rank
        return best


def discovery(board: Leaderboard) -> Discovery:
    """The board's Discovery, derived on first use and kept on the board for the rest of the build."""
    found = board.__dict__.get(_SLOT)
    if found is None:
        found = Discovery(board)
        board.__dict__[_SLOT] = found
    return found
