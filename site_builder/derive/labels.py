"""Names for comparison groups that a reader can tell apart.

Groups on one GPU are named by what actually differs between them ("H100 · backward",
"H100 · CUDA 12.4"), never by a counter such as "env 2" that says nothing. Each group gets the
fewest facets that set it apart, most telling first: the forward and backward groups read
"· forward" and "· backward"; a latency and a memory group that both time the full pass read
"· full · latency" and "· full · memory".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
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


def cohort_labels(cohorts: Sequence[CohortFacets], labeller: GroupLabeller | None = None) -> dict[str, str]:
    """Each group's label, by key. ``labeller``: one kept across calls, to reuse what it worked out."""
    if labeller is None:
        labeller = GroupLabeller(_itself)
    return labeller.labels([(cohort.key, cohort.gpu, cohort.facets) for cohort in cohorts])


def _itself(facets: Facets) -> Facets:
    return facets


class GroupLabeller:
    """``cohort_labels`` for one workload's groups at a time, remembering across calls what labels
    are decided by. A group is given by its lane: anything its facets are a function of
    (``facets_of``), such as its (protocol, environment, metric); each lane's facets are read once,
    and the labels of each set of lanes on one GPU are worked out once (the workloads of a kernel
    mostly have their groups under the same protocols and environments: 57,000 groups, 9,000 sets
    at 100,000 runs)."""

    def __init__(self, facets_of: Callable[[Hashable], Facets]) -> None:
        self._facets_of = facets_of
        self._numbers: dict[Hashable, int] = {}  # lane -> its number: a set of lanes is a sorted tuple of them
        self._facets: list[Facets] = []  # by number
        self._names: list[tuple[str, ...]] = []  # by number: the names of its facets
        self._values: list[tuple[str, ...]] = []  # by number: the values of its facets, in that order
        # (GPU, facet names, lanes' numbers) -> each lane's label, and whether two lanes share one
        self._named: dict[tuple, tuple[dict[int, str], bool]] = {}

    def labels(self, cohorts: Iterable[tuple[str, str, Hashable]]) -> dict[str, str]:
        """Labels by key of groups given as (key, GPU, lane)."""
        labels: dict[str, str] = {}
        by_gpu: dict[str, list[tuple[str, int]]] = {}
        for key, gpu, lane in cohorts:
            by_gpu.setdefault(gpu, []).append((key, self._number(lane)))
        for gpu, group in by_gpu.items():
            if len(group) == 1:
                labels[group[0][0]] = gpu
                continue
            names = self._names[group[0][1]]
            # A group's label depends on its own facets and on the others' as a set: not on their order.
            decided_by = (gpu, names, tuple(sorted(number for _, number in group)))
            found = self._named.get(decided_by)
            if found is None:
                numbers = decided_by[2]
                named = dict(zip(numbers, _named(gpu, [self._row(n, names) for n in numbers])))
                found = self._named[decided_by] = (named, len(set(named.values())) < len(numbers))
            named, tied = found
            for key, number in group:
                labels[key] = named[number]
            if tied:  # else every group has a label of its own
                _break_remaining_ties([key for key, _ in group], labels)
        return labels

    def _number(self, lane: Hashable) -> int:
        number = self._numbers.get(lane)
        if number is None:
            number = self._numbers[lane] = len(self._facets)
            facets = self._facets_of(lane)
            self._facets.append(facets)
            self._names.append(tuple(name for name, _ in facets))
            self._values.append(tuple(value for _, value in facets))
        return number

    def _row(self, number: int, names: tuple[str, ...]) -> tuple[str, ...]:
        """The lane's value of each of ``names`` ("" where it has none)."""
        if self._names[number] == names:
            return self._values[number]
        return tuple(map(dict(self._facets[number]).get, names, repeat("")))


def _named(gpu: str, rows: Sequence[tuple[str, ...]]) -> list[str]:
    """The label of each of ``rows`` (the values of each of one GPU's groups, facet by facet) before
    ties are broken: the GPU and the fewest facets, in their order, that set it apart."""
    differing = [i for i, column in enumerate(zip(*rows)) if len(set(column)) > 1]
    named = []
    for mine in rows:
        chosen: list[str] = []
        twins = rows
        for i in differing:
            value = mine[i]
            narrower = [row for row in twins if row[i] == value]
            if len(narrower) < len(twins):  # a facet that splits nothing would only add words
                chosen.append(value)
                twins = narrower
                if len(twins) == 1:
                    break
        named.append(" · ".join([gpu, *filter(None, chosen)]))
    return named


def _break_remaining_ties(keys: Sequence[str], labels: dict[str, str]) -> None:
    """Groups identical in every named facet (a difference we do not name): add the key, never a counter."""
    counts: dict[str, int] = {}
    for key in keys:
        counts[labels[key]] = counts.get(labels[key], 0) + 1
    for key in keys:
        if counts[labels[key]] > 1:
            labels[key] += f" · group {key.removeprefix('sha256:')[:8]}"
