"""Site-wide pages: the index of kernels by family, challenges and the methodology."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial
from operator import attrgetter

from .. import urls
from ..gc_pause import paused_gc
from ..derive.leaderboard import Cohort, Leaderboard, is_declared
from ..derive.challenges import CHALLENGE_TITLES, GAP, CohortChallenge
from ..discover.ledger import newest_first
from ..page_views import (
    ChallengeRow, ChallengesPage, Choice, CollectionView, CoverageCell, CoverageRow, FamilyView, GapView, GroupLink, IndexPage,
    KernelSummary, Link, PageLink,
    MethodologyPage,
)
from ..discover.gpus import slugify
from .kernel import steady_leader
from .tasks import Plan, PlannedPage
from .view_parts import LIST_LIMIT, PageTask, ViewFactory, on_index, pager, unchecked


class IndexChoices:
    """What the kernels index can be narrowed to without JavaScript: each GPU measured (by slug,
    with its label) and each timed pass, one static page per combination (``urls.index_for``)."""

    def __init__(self, factory: ViewFactory):
        self.factory = factory
        gpus: dict[str, str] = {}
        passes: set[str] = set()
        self.measured: set[tuple[str, str]] = set()  # (GPU, pass) pairs with a ranked latency run
        operations = factory.catalog.operations
        for cohort in factory.board.cohorts.values():
            if cohort.is_latency and cohort.rows and on_index(operations[cohort.operation]):
                gpus[gpu_slug(cohort)] = cohort.gpu.label
                timed_pass = self.timed_pass(cohort)
                if timed_pass:
                    passes.add(timed_pass)
                    self.measured.add((gpu_slug(cohort), timed_pass))
        self.gpus = dict(sorted(gpus.items(), key=lambda item: item[1]))
        self.passes = [p for p in PASS_ORDER if p in passes] + sorted(passes - set(PASS_ORDER))

    def timed_pass(self, cohort: Cohort) -> str | None:
        return self.factory.protocol(cohort.protocol).timed_pass

    def offered(self, gpu: str | None, timed_pass: str | None) -> bool:
        """Whether the index for this choice has records: a choice never leads to an empty page."""
        return gpu is None or timed_pass is None or (gpu, timed_pass) in self.measured

    def selections(self) -> list[tuple[str | None, str | None]]:
        return [(gpu, timed_pass) for gpu in (None, *self.gpus) for timed_pass in (None, *self.passes)
                if self.offered(gpu, timed_pass)]


PASS_ORDER = ("forward", "backward", "full")


def gpu_slug(cohort: Cohort) -> str:
    return cohort.gpu.datasheet or slugify(cohort.gpu.label)


def index_tasks(factory: ViewFactory) -> list[Callable[[], tuple[IndexPage]]]:
    """index.html, then one index per GPU, per pass and per GPU and pass."""
    choices = IndexChoices(factory)
    return [partial(_one_index, factory, choices, gpu, timed_pass) for gpu, timed_pass in choices.selections()]


def _one_index(factory: ViewFactory, choices: IndexChoices, gpu: str | None, timed_pass: str | None) -> tuple[IndexPage]:
    return (index_page(factory, choices, gpu, timed_pass),)


def _record_cohort(factory: ViewFactory, choices: IndexChoices, operation: str, gpu: str | None,
                   timed_pass: str | None) -> Cohort | None:
    """The group whose leader is the kernel's record on this index: the headline workload's first
    latency group (page order) on the chosen GPU and pass, else the same on the workload with the
    most eligible runs there."""
    board = factory.board
    headline = factory.headline_workload(operation)
    if gpu is None and timed_pass is None:  # the unfiltered index: the kernel page's own default group
        return board.default_cohort(headline) if headline else None
    found: list[tuple[int, int, Cohort]] = []
    for workload in _workloads_with_runs(board, operation):
        for position, cohort in enumerate(board.workload_cohorts.get(workload, ())):
            if (cohort.is_latency and cohort.rows and (gpu is None or gpu_slug(cohort) == gpu)
                    and (timed_pass is None or choices.timed_pass(cohort) == timed_pass)):
                found.append((0 if workload == headline else 1, -len(cohort.rows), cohort))
                break
    return min(found, key=lambda item: (item[0], item[1], item[2].key))[2] if found else None


def _workloads_with_runs(board, operation: str) -> list[str]:
    return sorted({run.workload for run in board.operation_runs.get(operation, ())})


def index_page(factory: ViewFactory, choices: IndexChoices | None = None, gpu: str | None = None,
               timed_pass: str | None = None) -> IndexPage:
    board, catalog = factory.board, factory.catalog
    choices = choices or IndexChoices(factory)
    families: dict[str, list[KernelSummary]] = {}
    workload_counts = Counter(w.refs["operation"].name for w in factory.workloads.values())
    # A kernel nobody has declared has no floor and no known tensors: its records are not records
    # yet. It is named once, below the tables, so that someone declares it.
    awaiting: list[Link] = []
    collected: Counter[str] = Counter()
    for name, operation in sorted(catalog.operations.items()):
        # KernelBench's hundreds of problems have their own index (by level and family): one
        # entry here instead of a row each.
        if "kernelbench_level" in operation.metadata.labels:
            collected["kernelbench"] += 1
            continue
        if not is_declared(operation):
            awaiting.append(factory.operation_link(name))
            continue
        runs = board.operation_runs.get(name, [])
        cohort = _record_cohort(factory, choices, name, gpu, timed_pass)
        leader = steady_leader(factory, cohort.rows) if cohort and cohort.rows else None
        families.setdefault(operation.spec.family, []).append(KernelSummary(
            operation=factory.operation_link(name), description=_first_paragraph(operation.metadata.description),
            eligible_runs=board.eligible_count(name),
            workloads=workload_counts[name],
            last_observed=max((run.observed_at for run in runs), default=None),
            record=factory.row(leader.run) if leader else None, record_gpu=cohort.gpu.label if leader else None,
            record_workload=factory.workload_link(cohort.workload).title if leader else None,
            record_group=factory.cohort_link(cohort) if leader else None,
            record_pass=_pass_label(cohort) if leader else None,
        ))
    title = "KernelIndex" if gpu is None and timed_pass is None else " · ".join(
        filter(None, ["Fastest kernels", choices.gpus.get(gpu or ""), timed_pass]))
    return IndexPage(
        **factory.page_fields("index", title, urls.index_for(gpu, timed_pass)),
        gpu=choices.gpus.get(gpu or ""), timed_pass=timed_pass,
        gpu_choices=[Choice(title=choices.gpus[g] if g else "All GPUs", url=urls.index_for(g, timed_pass), selected=g == gpu)
                     for g in (None, *choices.gpus) if choices.offered(g, timed_pass)],
        pass_choices=[Choice(title=p or "Any pass", url=urls.index_for(gpu, p), selected=p == timed_pass)
                      for p in (None, *choices.passes) if choices.offered(gpu, p)],
        families=[FamilyView(family=family, kernels=kernels) for family, kernels in sorted(families.items())],
        awaiting=awaiting,
        collections=[CollectionView(title="KernelBench problems", url=urls.KERNELBENCH, kernels=collected["kernelbench"],
                                    note="PyTorch problems in four levels, with eager and torch.compile baseline "
                                         "times on many GPUs; browsable by level and operator family")]
        if collected["kernelbench"] else [],
        runs=len(board.runs), eligible_runs=len(board.runs) - len(board.reasons),
        implementations=len(catalog.implementations), gpus=len(catalog.hardware),
        last_observed=max((run.observed_at for run in board.runs.values()), default=None),
    )


def _pass_label(cohort: Cohort) -> str:
    """What the group's label says beyond its GPU: "forward · CUDA graph replay"."""
    rest = cohort.label.removeprefix(cohort.gpu.label).removeprefix(" · ")
    return rest or "–"


def _first_paragraph(text: str | None) -> str | None:
    return text.split("\n\n", 1)[0].strip() if text else None


# A challenge list's order: its holder's observation, newest first, then the group.
_OBSERVED_AT = attrgetter("holder.run.observed_at")
_COHORT, _KIND = attrgetter("cohort"), attrgetter("kind")


class _Challenges:
    """Each kind's challenges, newest first, sorted when first asked for (signing a full list's
    page, building one or the overview). Planning needs only how many there are, which says how
    many pages: a rebuild thus sorts them after ``render_pool`` forked its second process, while
    both sign, rather than before, while the other core waits."""

    def __init__(self, challenges: list[CohortChallenge]):
        self._challenges = challenges
        counts = Counter(map(_KIND, challenges))
        self.totals = {kind: counts[kind] for kind in CHALLENGE_TITLES if kind != GAP}

    @cached_property
    def by_kind(self) -> dict[str, list[CohortChallenge]]:
        by_kind: dict[str, list[CohortChallenge]] = {kind: [] for kind in self.totals}
        for challenge in self._challenges:
            by_kind[challenge.kind].append(challenge)
        # The most recently observed first: the gaps someone is most likely able to fill.
        return {kind: newest_first(found, _OBSERVED_AT, _COHORT) for kind, found in by_kind.items()}

    def page(self, kind: str, number: int) -> list[CohortChallenge]:
        """The challenges of ``kind`` on its full list's page ``number``."""
        return self.by_kind[kind][(number - 1) * LIST_LIMIT:number * LIST_LIMIT]


def challenges_tasks(factory: ViewFactory) -> list[PageTask]:
    """The overview (each kind capped to the most recent ``LIST_LIMIT``, linking its full list) and
    each kind's full list in pages of ``LIST_LIMIT``: no challenge is lost, and no page grows with
    the site (a large site has tens of thousands of stale records). One task a page, so
    the workers share the pages; each kind's list is sorted once per process, when first read
    (``_Challenges``). A full list's page is planned (``ChallengeListPlan``); the overview, whose
    coverage table counts every group, is built every time."""
    board = factory.board
    challenges = _Challenges(board.cohort_challenges)
    totals = challenges.totals

    def rows(kind: str, cohorts: list[Cohort]) -> list[ChallengeRow]:
        # Each row brings a group's summary and its leader's row, views without reference cycles
        # made by the thousand: the collector, left on, walked them again and again meanwhile.
        with paused_gc():
            return [_challenge_row(factory, kind, cohort) for cohort in cohorts]

    def overview() -> list[ChallengesPage]:
        return [ChallengesPage(
            **factory.page_fields("challenges", "Challenges", urls.CHALLENGES), **_coverage(factory),
            groups={kind: rows(kind, _cohorts(board, challenges.page(kind, 1))) for kind in totals}, totals=totals,
            full_lists={kind: urls.challenges(kind) for kind in totals})]

    def plan(kind: str, number: int, count: int) -> ChallengeListPlan:
        return ChallengeListPlan(kind, number, totals[kind], count, _cohorts(board, challenges.page(kind, number)))

    def full_list(plan: ChallengeListPlan) -> ChallengesPage:
        kind, number, count = plan.kind, plan.number, plan.count
        title = CHALLENGE_TITLES[kind] + (f" · page {number}" if number > 1 else "")
        return ChallengesPage(
            **factory.page_fields("challenges", title, urls.challenges(kind, number)), view=kind,
            gpus=[], coverage=[], gaps=[], groups={kind: rows(kind, plan.cohorts)}, totals={kind: plan.total},
            page_number=number, page_count=count,
            pages=pager(count, number, lambda n: PageLink(number=n, title=f"Page {n}", url=urls.challenges(kind, n))))

    tasks: list[PageTask] = [overview]
    for kind, total in totals.items():
        count = max(1, -(-total // LIST_LIMIT))
        tasks += [PlannedPage(urls.challenges(kind, number), partial(plan, kind, number, count), full_list)
                  for number in range(1, count + 1)]
    return tasks


@dataclass(frozen=True)
class ChallengeListPlan(Plan):
    """A page of a challenge list: its kind, number, total and page count (its pager follows from
    them: ``pager``) and the groups of its rows, each row its group's summary."""

    kind: str
    number: int
    total: int
    count: int
    cohorts: list[Cohort]


def _cohorts(board: Leaderboard, challenges: list[CohortChallenge]) -> list[Cohort]:
    return [board.cohorts[challenge.cohort] for challenge in challenges]


def _challenge_row(factory: ViewFactory, kind: str, cohort: Cohort) -> ChallengeRow:
    """Reads the group and data every page reads, and nothing else: a challenge list's plan shows
    its groups (``ChallengeListPlan``)."""
    # Unchecked: views already checked, made by the ten thousand on the full lists.
    return unchecked(ChallengeRow, kind=kind, operation=factory.operation_link(cohort.operation),
                     workload=factory.workload_link(cohort.workload),
                     cohort=unchecked(GroupLink, title=cohort.label, url=urls.group(cohort.key), key=cohort.key),
                     record=factory.leader_ref(cohort))


def _coverage(factory: ViewFactory) -> dict:
    """The overview's coverage table of priority (family × GPU) cells and its gaps."""
    board, catalog = factory.board, factory.catalog
    gpus = board.priority_gpus
    counts: dict[tuple[str, str], int] = {}
    for cohort in board.cohorts.values():
        if cohort.gpu.datasheet in gpus:
            family = catalog.operations[cohort.operation].spec.family
            key = (family, cohort.gpu.datasheet)
            counts[key] = counts.get(key, 0) + len(cohort.rows)
    families = sorted({operation.spec.family for operation in catalog.operations.values()})
    return {
        "gpus": [factory.hardware_link(name) for name in gpus],
        "coverage": [CoverageRow(family=family, cells=[CoverageCell(gpu=label, eligible_runs=counts.get((family, name), 0))
                                                       for name, label in gpus.items()]) for family in families],
        "gaps": [GapView(family=family, gpu=gpus[gpu], hardware=factory.hardware_link(gpu)) for family, gpu in board.gaps],
    }


def methodology_page(factory: ViewFactory, markdown: str) -> MethodologyPage:
    return MethodologyPage(**factory.page_fields("methodology", "How records are decided", urls.METHODOLOGY),
                           markdown=markdown)
