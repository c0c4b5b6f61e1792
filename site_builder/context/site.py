"""Site-wide pages: the index of kernels by family, challenges and the methodology."""

from __future__ import annotations

from collections import Counter

from .. import urls
from ..derive.challenges import CHALLENGE_TITLES, GAP
from ..views import (
    ChallengeRow, ChallengesPage, CoverageCell, CoverageRow, FamilyView, GapView, IndexPage, KernelSummary,
    MethodologyPage,
)
from .common import LIST_LIMIT, ViewFactory


def index_page(factory: ViewFactory) -> IndexPage:
    board, catalog = factory.board, factory.catalog
    families: dict[str, list[KernelSummary]] = {}
    workload_counts = Counter(w.refs["operation"].name for w in factory.workloads.values())
    for name, operation in sorted(catalog.operations.items()):
        runs = board.operation_runs.get(name, [])
        headline = factory.headline_workload(name)
        cohort = board.default_cohort(headline) if headline else None
        leader = cohort.leader if cohort else None
        families.setdefault(operation.spec.family, []).append(KernelSummary(
            operation=factory.operation_link(name), description=_first_paragraph(operation.metadata.description),
            eligible_runs=board.eligible_count(name),
            workloads=workload_counts[name],
            last_observed=max((run.observed_at for run in runs), default=None),
            record=factory.row(leader.run) if leader else None, record_gpu=cohort.label if leader else None,
            record_workload=factory.workload_link(headline).title if leader else None,
        ))
    return IndexPage(
        **factory.page_fields("index", "KernelIndex", urls.INDEX),
        families=[FamilyView(family=family, kernels=kernels) for family, kernels in sorted(families.items())],
        runs=len(board.runs), eligible_runs=len(board.runs) - len(board.reasons),
        implementations=len(catalog.implementations), gpus=len(catalog.hardware),
        last_observed=max((run.observed_at for run in board.runs.values()), default=None),
    )


def _first_paragraph(text: str | None) -> str | None:
    return text.split("\n\n", 1)[0].strip() if text else None


def challenges_page(factory: ViewFactory) -> ChallengesPage:
    board, catalog = factory.board, factory.catalog
    gpus = board.priority_gpus
    counts: dict[tuple[str, str], int] = {}
    for cohort in board.cohorts.values():
        if cohort.gpu.datasheet in gpus:
            family = catalog.operations[cohort.operation].spec.family
            key = (family, cohort.gpu.datasheet)
            counts[key] = counts.get(key, 0) + len(cohort.rows)
    families = sorted({operation.spec.family for operation in catalog.operations.values()})
    by_kind: dict[str, list] = {kind: [] for kind in CHALLENGE_TITLES if kind != GAP}
    for challenge in board.cohort_challenges:
        by_kind[challenge.kind].append(challenge)
    groups: dict[str, list[ChallengeRow]] = {}
    for kind, found in by_kind.items():
        # The most recently observed first: the gaps someone is most likely able to fill.
        found.sort(key=lambda c: (-c.holder.run.observed_at.timestamp(), c.cohort))
        groups[kind] = [ChallengeRow(kind=kind, operation=factory.operation_link(board.cohorts[c.cohort].operation),
                                     workload=factory.workload_link(board.cohorts[c.cohort].workload),
                                     cohort=factory.cohort_summary(board.cohorts[c.cohort])) for c in found[:LIST_LIMIT]]
    return ChallengesPage(
        **factory.page_fields("challenges", "Challenges", urls.CHALLENGES),
        gpus=[factory.hardware_link(name) for name in gpus],
        coverage=[CoverageRow(family=family, cells=[CoverageCell(gpu=label, eligible_runs=counts.get((family, name), 0))
                                                    for name, label in gpus.items()]) for family in families],
        gaps=[GapView(family=family, gpu=gpus[gpu], hardware=factory.hardware_link(gpu)) for family, gpu in board.gaps],
        groups=groups,
        totals={kind: len(found) for kind, found in by_kind.items()},
    )


def methodology_page(factory: ViewFactory, markdown: str) -> MethodologyPage:
    return MethodologyPage(**factory.page_fields("methodology", "How records are decided", urls.METHODOLOGY),
                           markdown=markdown)
