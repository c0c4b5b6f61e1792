"""Names for comparison groups that a reader can tell apart.

Groups on one GPU are named by what actually differs between them ("H100 · backward",
"H100 · CUDA 12.4"), never by a counter such as "env 2" that says nothing. Each group gets the
fewest facets that set it apart, most telling first: the forward and backward groups read
"· forward" and "· backward"; a latency and a memory group that both time the full pass read
"· full · latency" and "· full · memory".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat


@dataclass(frozen=True, slots=True)
class CohortFacets:
    key: str
    gpu: str
    # What may tell groups on one GPU apart, most telling first: (facet, printed value). The last
    # facets should be the protocol's and environment's titles, which nearly always tell them apart.
    facets: tuple[tuple[str, str], ...]


Facets = tuple[tuple[str, str], ...]


def cohort_labels(cohorts: Sequence[CohortFacets],
                  memo: dict[tuple, dict[Facets, str]] | None = None) -> dict[str, str]:
    """``memo``: the labels of a GPU's groups by what decides them (``_named``): the workloads of
    one kernel mostly have their groups under the same protocols and environments."""
    labels: dict[str, str] = {}
    by_gpu: dict[str, list[CohortFacets]] = {}
    for cohort in cohorts:
        by_gpu.setdefault(cohort.gpu, []).append(cohort)
    for gpu, group in by_gpu.items():
        if len(group) == 1:
            labels[group[0].key] = gpu
            continue
        names = tuple(name for name, _ in group[0].facets)
        # A group's label depends on its own facets and on the others' as a set: not on their order.
        decided_by = (gpu, names, tuple(sorted(cohort.facets for cohort in group)))
        named = memo.get(decided_by) if memo is not None else None
        if named is None:
            named = _named(*decided_by)
            if memo is not None:
                memo[decided_by] = named
        for cohort in group:
            labels[cohort.key] = named[cohort.facets]
        _break_remaining_ties(group, labels)
    return labels


def _named(gpu: str, names: tuple[str, ...], group: Sequence[Facets]) -> dict[Facets, str]:
    """The label of each of ``group`` (the facets of one GPU's groups) before ties are broken:
    the GPU and the fewest facets, in the order of ``names``, that set it apart."""
    # Each group's value of each facet ("" where it has none), in the order of ``names``.
    rows = [tuple(map(dict(facets).get, names, repeat(""))) for facets in group]
    differing = [i for i, column in enumerate(zip(*rows)) if len(set(column)) > 1]
    named = {}
    for facets, mine in zip(group, rows):
        chosen: list[int] = []
        twins = rows
        for i in differing:
            narrower = [row for row in twins if row[i] == mine[i]]
            if len(narrower) < len(twins):  # a facet that splits nothing would only add words
                chosen.append(i)
                twins = narrower
            if len(twins) == 1:
                break
        named[facets] = " · ".join([gpu] + [mine[i] for i in chosen if mine[i]])
    return named


def _break_remaining_ties(group: Sequence[CohortFacets], labels: dict[str, str]) -> None:
    """Groups identical in every named facet (a difference we do not name): add the key, never a counter."""
    counts: dict[str, int] = {}
    for cohort in group:
        counts[labels[cohort.key]] = counts.get(labels[cohort.key], 0) + 1
    for cohort in group:
        if counts[labels[cohort.key]] > 1:
            labels[cohort.key] += f" · group {cohort.key.removeprefix('sha256:')[:8]}"
