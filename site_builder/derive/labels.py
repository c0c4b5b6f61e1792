"""Names for comparison groups that a reader can tell apart.

Groups on one GPU are named by what actually differs between them ("H100 · backward",
"H100 · CUDA 12.4"), never by a counter such as "env 2" that says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CohortFacets:
    key: str
    gpu: str
    # What may tell groups on one GPU apart, most telling first: (facet, printed value). The last
    # facets should be the protocol's and environment's titles, which always tell them apart.
    facets: tuple[tuple[str, str], ...]


def cohort_labels(cohorts: Sequence[CohortFacets]) -> dict[str, str]:
    labels: dict[str, str] = {}
    by_gpu: dict[str, list[CohortFacets]] = {}
    for cohort in cohorts:
        by_gpu.setdefault(cohort.gpu, []).append(cohort)
    for gpu, group in by_gpu.items():
        if len(group) == 1:
            labels[group[0].key] = gpu
            continue
        names = [name for name, _ in group[0].facets]
        values = [dict(cohort.facets) for cohort in group]
        differing = [name for name in names if len({v.get(name, "") for v in values}) > 1]
        # The fewest facets that still tell every group apart, in order of how telling they are.
        chosen: list[str] = []
        for name in differing:
            chosen.append(name)
            if len({tuple(v.get(n, "") for n in chosen) for v in values}) == len(group):
                break
        for cohort, facet_values in zip(group, values):
            parts = [facet_values.get(name, "") for name in chosen]
            text = " · ".join([gpu] + [part for part in parts if part])
            labels[cohort.key] = text
        # Identical facets (a difference we do not name): fall back to the key, never a counter.
        seen: dict[str, int] = {}
        for cohort in group:
            seen[labels[cohort.key]] = seen.get(labels[cohort.key], 0) + 1
        for cohort in group:
            if seen[labels[cohort.key]] > 1:
                labels[cohort.key] += f" · group {cohort.key.removeprefix('sha256:')[:8]}"
    return labels
